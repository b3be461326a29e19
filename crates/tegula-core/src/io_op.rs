//! Tasks that reach outside the plan: through a resource of the plan's resource table (an
//! array the caller holds, a store, a user's function), named by its id. Only an executor
//! runs them; kernels never see a resource.

use serde::{Deserialize, Serialize};

/// The id of a resource in a plan's resource table.
pub type ResourceId = u64;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum IoOp {
    /// The region `region` of in-memory array `resource` (zero-copy).
    Load { resource: ResourceId, region: Vec<(usize, usize)> },
    /// The region `region` of stored array `resource` read from its store.
    Read { resource: ResourceId, region: Vec<(usize, usize)> },
    /// Writes the input block to region `region` of stored array `resource`; the result is empty.
    Write { resource: ResourceId, region: Vec<(usize, usize)> },
    /// Block `block` (one number per axis) of a user's function over the same blocks of the
    /// inputs (`map_blocks`): function `resource`, whose result must have `shape`.
    CallBlock { resource: ResourceId, block: Vec<usize>, shape: Vec<usize> },
    /// Block `index` of those given to a plan fragment when it runs (a result of a task
    /// outside the fragment), as given.
    Input { index: usize },
}

impl IoOp {
    /// The resource the task reaches (none for a fragment's input).
    pub fn resource(&self) -> Option<ResourceId> {
        match self {
            IoOp::Load { resource, .. }
            | IoOp::Read { resource, .. }
            | IoOp::Write { resource, .. }
            | IoOp::CallBlock { resource, .. } => Some(*resource),
            IoOp::Input { .. } => None,
        }
    }

    pub fn label(&self) -> &'static str {
        match self {
            IoOp::Load { .. } => "load",
            IoOp::Read { .. } => "read",
            IoOp::Write { .. } => "write",
            IoOp::CallBlock { .. } => "map-blocks",
            IoOp::Input { .. } => "input",
        }
    }
}
