//! A plan described per operation and per task, as data: what `explain` prints and what
//! pictures of the plan draw. An operation is an expression node; its tasks are those lowering
//! emitted for it (none when another operation's fused tasks compute it).

use crate::graph::{Task, TaskGraph};
use crate::walk::topological;
use crate::memory::held_while_running;
use crate::node::NodeRef;
use crate::order::static_order;
use std::collections::HashMap;
use tegula_core::{TaskOp, DType, IoOp, KernelOp};

/// One operation of the plan.
#[derive(Debug, Clone)]
pub struct Operation {
    /// The operation's name with its parameters (`sum(axis=[0])`).
    pub label: String,
    /// Operations it reads, by index.
    pub inputs: Vec<usize>,
    /// The shape of its result.
    pub shape: Vec<usize>,
    /// The dtype of its result.
    pub dtype: DType,
    /// The largest block length along each axis.
    pub chunk_shape: Vec<usize>,
    /// The number of blocks of its result.
    pub blocks: usize,
    /// The number of tasks lowering emitted for it.
    pub tasks: usize,
    /// The chain its tasks compute when they are fused (`fused[add,multiply,sum]`).
    pub fused: Option<String>,
    /// Bytes of the blocks its tasks read (from other tasks, or from disk); a view (a
    /// transpose, new axes) reads none.
    pub bytes_read: usize,
    /// Bytes of the blocks its tasks produce (or write to disk); a view writes none.
    pub bytes_written: usize,
    /// The most bytes held while one of its tasks runs, one task at a time in static order.
    pub peak: usize,
    /// What its tasks do, for pictures that tell them apart: "read" (from a store), "write"
    /// (to a store) or "compute".
    pub kind: &'static str,
}

/// A plan: its operations in dependency order, and for every task its operation and its
/// static rank (the order the executors prefer).
#[derive(Debug, Clone)]
pub struct PlanDescription {
    /// The operations, inputs before the operations that read them.
    pub operations: Vec<Operation>,
    /// The operation of each task, by index into `operations`.
    pub task_operation: Vec<usize>,
    /// Each task's place in the static order (empty when described without it:
    /// `Detail::Operations`, whose peaks are all zero).
    pub rank: Vec<usize>,
    /// The most bytes held at once, one task at a time in static order.
    pub projected_peak: usize,
    /// The largest block a task produces.
    pub largest_block: usize,
}

/// How much of a plan to describe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Detail {
    /// Nothing.
    #[default]
    None,
    /// Its operations and each task's operation, without the static order and the projected
    /// peaks (which take an ordering of every task: a live view does without them).
    Operations,
    /// Everything `describe` says.
    Full,
}

impl From<bool> for Detail {
    /// `true`: everything; `false`: nothing.
    fn from(full: bool) -> Detail {
        if full { Detail::Full } else { Detail::None }
    }
}

/// The plan `graph` of the expressions `roots` described in `detail` (`None` for `Detail::None`).
pub fn describe_in(roots: &[NodeRef], graph: &TaskGraph, detail: Detail) -> Option<PlanDescription> {
    match detail {
        Detail::None => None,
        Detail::Operations => Some(describe_with(roots, graph, false)),
        Detail::Full => Some(describe_with(roots, graph, true)),
    }
}

/// The plan `graph` of the expressions `roots`, described per operation and per task.
pub fn describe(roots: &[NodeRef], graph: &TaskGraph) -> PlanDescription {
    describe_with(roots, graph, true)
}

/// `describe`; without `ordered`, `rank` is empty and every peak zero.
fn describe_with(roots: &[NodeRef], graph: &TaskGraph, ordered: bool) -> PlanDescription {
    let nodes = topological(roots);
    let index: HashMap<u64, usize> = nodes.iter().enumerate().map(|(i, n)| (n.id, i)).collect();
    let mut operations: Vec<Operation> = nodes.iter().map(|n| operation(n, &index)).collect();
    let rank = if ordered { static_order(graph, &graph.consumers()) } else { Vec::new() };
    let held = if ordered { held_while_running(graph, &rank) } else { Vec::new() };
    let mut task_operation = Vec::with_capacity(graph.tasks.len());
    // A node's tasks mostly come one after another: its index is looked up once per run.
    let mut last: Option<(u64, usize)> = None;
    let mut largest_block = 0;
    for (id, t) in graph.tasks.iter().enumerate() {
        largest_block = largest_block.max(t.nbytes());
        let found = match last {
            Some((node, i)) if node == t.node => i,
            _ => *index.get(&t.node).unwrap_or(&usize::MAX),
        };
        // A task of a node built while lowering (not reachable from the roots) is shown as an
        // operation of its own kind.
        let i = if found == usize::MAX { extra_operation(&mut operations, t) } else { found };
        last = Some((t.node, found));
        let op = &mut operations[i];
        op.tasks += 1;
        if matches!(t.op, TaskOp::Kernel(KernelOp::Fused { .. }) | TaskOp::Kernel(KernelOp::FusedReduce { .. })) && op.fused.is_none() {
            op.fused = Some(t.op.label());
        }
        let inputs_bytes: usize = t.inputs.iter().map(|&i| graph.tasks[i].nbytes()).sum();
        match t.op {
            TaskOp::Io(IoOp::Read { .. }) => {
                op.bytes_read += t.nbytes();
                op.kind = "read";
            }
            TaskOp::Io(IoOp::Write { .. }) => {
                op.bytes_written += inputs_bytes;
                op.kind = "write";
            }
            // Views of their input's block: nothing is copied.
            TaskOp::Kernel(KernelOp::Transpose { .. } | KernelOp::ExpandDims { .. }) => {}
            _ => {
                op.bytes_read += inputs_bytes;
                op.bytes_written += t.nbytes();
            }
        }
        op.peak = op.peak.max(held.get(id).copied().unwrap_or(0));
        task_operation.push(i);
    }
    PlanDescription {
        operations,
        task_operation,
        rank,
        projected_peak: held.iter().copied().max().unwrap_or(0),
        largest_block,
    }
}

fn operation(n: &NodeRef, index: &HashMap<u64, usize>) -> Operation {
    Operation {
        inputs: n.inputs.iter().map(|x| index[&x.id]).collect(),
        shape: n.shape(),
        chunk_shape: n.chunks.max_block_shape(),
        blocks: n.chunks.nblocks(),
        ..Operation::new(n.label(), n.dtype)
    }
}

impl Operation {
    /// An operation named `label` of no inputs, shape or blocks, whose tasks are yet to be
    /// counted.
    pub fn new(label: String, dtype: DType) -> Operation {
        Operation {
            label,
            inputs: Vec::new(),
            shape: Vec::new(),
            dtype,
            chunk_shape: Vec::new(),
            blocks: 0,
            tasks: 0,
            fused: None,
            bytes_read: 0,
            bytes_written: 0,
            peak: 0,
            kind: "compute",
        }
    }
}

/// The index of the extra operation of `task`'s kind (no node, so no shape or blocks), added
/// when first seen.
fn extra_operation(operations: &mut Vec<Operation>, task: &Task) -> usize {
    let label = task.op.label();
    if let Some(i) = operations.iter().position(|o| o.label == label && o.blocks == 0) {
        return i;
    }
    operations.push(Operation::new(label, task.dtype));
    operations.len() - 1
}
