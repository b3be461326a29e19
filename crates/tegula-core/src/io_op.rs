//! Tasks that reach outside the plan: through a resource of the plan's resource table (an
//! array the caller holds, a store, a user's function), named by its id. Only an executor
//! runs them; kernels never see a resource.

use serde::{Deserialize, Serialize};

/// The id of a resource in a plan's resource table.
pub type ResourceId = u64;

/// A task that reaches a resource of the plan, or takes a block given to a fragment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum IoOp {
    /// The region `region` of in-memory array `resource` (zero-copy).
    Load {
        /// The resource, by its id in the plan.
        resource: ResourceId,
        /// The region, a half-open `(start, stop)` per axis.
        region: Vec<(usize, usize)>,
    },
    /// The region `region` of stored array `resource` read from its store.
    Read {
        /// The resource, by its id in the plan.
        resource: ResourceId,
        /// The region, a half-open `(start, stop)` per axis.
        region: Vec<(usize, usize)>,
    },
    /// Writes the input block to region `region` of stored array `resource`; the result is empty.
    Write {
        /// The resource, by its id in the plan.
        resource: ResourceId,
        /// The region, a half-open `(start, stop)` per axis.
        region: Vec<(usize, usize)>,
    },
    /// Block `block` (one number per axis) of a user's function over the same blocks of the
    /// inputs (`map_blocks`): function `resource`, whose result must have `shape`.
    CallBlock {
        /// The function, by its id in the plan.
        resource: ResourceId,
        /// The block's number along each axis.
        block: Vec<usize>,
        /// The shape the function's result must have.
        shape: Vec<usize>,
    },
    /// Block `index` of those given to a plan fragment when it runs (a result of a task
    /// outside the fragment), as given.
    Input {
        /// Which of the given blocks, in order.
        index: usize,
    },
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

    /// A short name for plans and reports.
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
