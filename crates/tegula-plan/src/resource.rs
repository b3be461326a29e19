//! The plan's resource table: everything a task reaches outside the plan, by id — an array
//! the caller holds in memory, a store to read or to write, a user's function. Planning knows
//! each resource's kind, never its contents; the executor knows their types, and its codec
//! (`tegula_exec::fragment`) turns them into bytes and back, so a plan can leave the process.

use serde::{Deserialize, Serialize};
use std::any::Any;
use std::sync::Arc;
use tegula_core::ResourceId;

pub struct Resource {
    pub id: ResourceId,
    pub kind: ResourceKind,
    /// What the executor uses: a `Chunk`, an `Arc<dyn ChunkSource>` or `Arc<dyn ChunkSink>`,
    /// an `Arc<dyn BlockFunction>`.
    pub data: Arc<dyn Any + Send + Sync>,
    /// What lives as long as the resource does, released with it: a persisted array's charge
    /// against the memory budget, the directory of its blocks on disk.
    pub guard: Option<Arc<dyn Any + Send + Sync>>,
}

impl Resource {
    pub fn new(id: ResourceId, kind: ResourceKind, data: Arc<dyn Any + Send + Sync>) -> Resource {
        Resource { id, kind, data, guard: None }
    }
}

/// What a resource is, which decides the tasks that reach it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ResourceKind {
    /// An array in memory: its blocks are views (`IoOp::Load`).
    Array,
    /// A stored array to read (`IoOp::Read`).
    Source,
    /// A stored array to write (`IoOp::Write`).
    Sink,
    /// A user's block function (`IoOp::CallBlock`).
    Function,
}

impl std::fmt::Debug for Resource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Resource#{}({:?})", self.id, self.kind)
    }
}
