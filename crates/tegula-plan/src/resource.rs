//! The plan's resource table: everything a task reaches outside the plan, by id — an array
//! the caller holds in memory, a store to read or to write, a user's function. Planning knows
//! each resource's kind, never its contents; the executor knows their types, and its codec
//! (`tegula_exec::fragment`) turns them into bytes and back, so a plan can leave the process.

use serde::{Deserialize, Serialize};
use std::any::Any;
use std::sync::Arc;
use tegula_core::ResourceId;

/// Something a task reaches outside the plan: an array in memory, a store, or a function.
pub struct Resource {
    /// Its id, as `IoOp`s name it.
    pub id: ResourceId,
    /// What it is, which planning knows (its contents it does not).
    pub kind: ResourceKind,
    /// What the executor uses: a `Chunk`, an `Arc<dyn ChunkSource>` or `Arc<dyn ChunkSink>`,
    /// an `Arc<dyn BlockFunction>`.
    pub data: Arc<dyn Any + Send + Sync>,
    /// What lives as long as the resource does, released with it: a persisted array's charge
    /// against the memory budget, the directory of its blocks on disk.
    pub guard: Option<Arc<dyn Any + Send + Sync>>,
    /// For a stored array read by whole units (compressed chunks), those units.
    pub read_unit: Option<ReadUnit>,
}

impl Resource {
    /// A resource with no guard, read at any region's own cost.
    pub fn new(id: ResourceId, kind: ResourceKind, data: Arc<dyn Any + Send + Sync>) -> Resource {
        Resource { id, kind, data, guard: None, read_unit: None }
    }
}

/// How a stored array of `shape` is read: by whole boxes of `unit`, counted from the origin
/// (`ChunkSource::read_unit`); reading part of one costs as much as all of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadUnit {
    /// The box a read costs at least.
    pub unit: Arc<[usize]>,
    /// The shape of the whole array.
    pub shape: Arc<[usize]>,
}

impl ReadUnit {
    /// What to read for `region`: along each axis where it lies inside one unit, that whole
    /// unit (clipped to the array), so the parts of a unit that several selections take are
    /// one read; along the others, the region's own extent (a read across units decodes the
    /// same units either way). An empty region stays as it is.
    pub fn around(&self, region: &[(usize, usize)]) -> Vec<(usize, usize)> {
        if region.iter().any(|(lo, hi)| hi <= lo) || region.len() != self.unit.len() {
            return region.to_vec();
        }
        region
            .iter()
            .zip(self.unit.iter().zip(self.shape.iter()))
            .map(|(&(lo, hi), (&u, &n))| match u {
                0 => (lo, hi),
                _ if lo / u == (hi - 1) / u => (lo / u * u, (lo / u * u).saturating_add(u).min(n)),
                _ => (lo, hi),
            })
            .collect()
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
