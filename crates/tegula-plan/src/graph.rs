//! The chunk task graph: plain data. A task names what it computes by a `TaskOp` value and its
//! inputs by task number; stored arrays are referenced by id (their bytes are carried beside
//! the graph, not in it). Tasks are numbered in topological order.

use crate::resource::Resource;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use tegula_core::{Chunks, DType, DeviceId, TaskOp};

/// A task's number in its graph (its index in `TaskGraph::tasks`).
pub type TaskId = usize;

/// One chunk task: what it computes, from which tasks' results, and what it produces.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Task {
    /// What it computes.
    pub op: TaskOp,
    /// The tasks whose results it reads, in the order the op takes them.
    pub inputs: Vec<TaskId>,
    /// Number of elements and dtype of the block the task produces (its shape is the op's
    /// business; a plan of millions of tasks should not hold millions of shape vectors).
    pub size: usize,
    /// The dtype of the block it produces.
    pub dtype: DType,
    /// The expression node this task belongs to.
    pub node: u64,
    /// Where it runs and its result lives.
    pub device: DeviceId,
}

impl Task {
    /// The bytes of the block it produces.
    pub fn nbytes(&self) -> usize {
        self.size * self.dtype.itemsize()
    }

    /// Whether it combines partials, folding them in order from the first (so a cluster plan
    /// may cut it into a chain, `chain::chain_combines`).
    pub fn is_combine(&self) -> bool {
        matches!(self.op, TaskOp::Kernel(tegula_core::KernelOp::ReduceCombine { .. }))
    }
}

/// One requested array: the tasks of its blocks, row-major over its block grid.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Output {
    /// The expression node it computes.
    pub node: u64,
    /// The dtype of the array.
    pub dtype: DType,
    /// The array's chunking.
    pub chunks: Chunks,
    /// The task of each block, row-major over the block grid.
    pub blocks: Vec<TaskId>,
}

/// Where the blocks an expression node made lie in its block grid's last two axes (for arrays
/// of two or more dimensions), so that a cluster placement can lay every matrix out the same
/// way over a grid of nodes (`placement::tile_nodes`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BlockGrid {
    /// The number of blocks along the last two axes.
    pub shape: [usize; 2],
    /// Each block's task, with its row and column of blocks.
    pub blocks: Vec<(TaskId, [usize; 2])>,
}

/// A plan as chunk tasks: the tasks in topological order, the requested arrays, and the
/// resources the tasks reach.
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
pub struct TaskGraph {
    /// Every task, numbered by position (inputs before the tasks that read them).
    pub tasks: Vec<Task>,
    /// The requested arrays, in the order they were asked for.
    pub outputs: Vec<Output>,
    /// The resources `Io` tasks reach, by id. Their contents are not plain data: a plan
    /// leaves the process as a fragment (`tegula_exec::Fragment`), which encodes them.
    #[serde(skip)]
    pub resources: Vec<Arc<Resource>>,
    /// The block grids of the plan's matrices, in the order their nodes were lowered (only
    /// placement reads them; a fragment has none).
    #[serde(skip)]
    pub grids: Vec<BlockGrid>,
}

impl TaskGraph {
    /// For every task, the tasks that read its result.
    pub fn consumers(&self) -> Vec<Vec<TaskId>> {
        let mut out = vec![Vec::new(); self.tasks.len()];
        for (id, t) in self.tasks.iter().enumerate() {
            for &i in &t.inputs {
                out[i].push(id);
            }
        }
        out
    }

    /// How many times each task's result is read: once per consuming edge, plus once per
    /// appearance as an output block (outputs are kept to the end).
    pub fn uses(&self) -> Vec<usize> {
        let mut uses = vec![0; self.tasks.len()];
        for t in &self.tasks {
            for &i in &t.inputs {
                uses[i] += 1;
            }
        }
        for o in &self.outputs {
            for &b in &o.blocks {
                uses[b] += 1;
            }
        }
        uses
    }
}
