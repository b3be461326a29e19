//! Cumulative sums and products and forward fills, block by block: every block's running values
//! along the axis (a `Scan` task each, all independent); its total, the last of them (a view);
//! the running combination of the totals of the blocks before it along the axis (a chain of
//! small tasks, one row of blocks long); and that prefix added to (multiplied into, filled into
//! the NaNs of) the block's running values. No task holds more than one block along the axis.

use super::Lowering;
use crate::graph::TaskId;
use crate::node::Node;
use tegula_core::grid::{block_indices, ravel};
use tegula_core::{BinaryOp, DType, KernelOp, PartialReduce, ScanOp, Select};

pub(super) fn lower(l: &mut Lowering, node: &Node, input: &[TaskId], op: ScanOp, axis: usize) -> Vec<TaskId> {
    let (chunks, dtype) = (&node.chunks, node.dtype);
    let nb = chunks.numblocks();
    let mut rows = nb.clone();
    rows[axis] = 1;
    let mut out = vec![0; input.len()];
    for mut idx in block_indices(&rows) {
        let mut prefix: Option<TaskId> = None;
        for k in 0..nb[axis] {
            idx[axis] = k;
            let (flat, shape) = (ravel(&idx, &nb), chunks.block_shape(&idx));
            let size = shape.iter().product();
            let scan = l.push(node, KernelOp::Scan { op, axis }, vec![input[flat]], size, dtype);
            out[flat] = match prefix {
                None => scan,
                Some(p) => l.push(node, continued(op, dtype), vec![scan, p], size, dtype),
            };
            if shape[axis] == 0 || k + 1 == nb[axis] {
                continue;
            }
            let last = (0..shape.len())
                .map(|a| if a == axis { Select::Range { start: shape[a] - 1, stop: shape[a], step: 1 } } else { Select::Range { start: 0, stop: shape[a], step: 1 } })
                .collect();
            let total = l.push(node, KernelOp::Select { axes: last }, vec![scan], size / shape[axis], dtype);
            prefix = Some(match prefix {
                None => total,
                Some(p) => {
                    let (kernel, inputs) = combined(op, dtype, p, total);
                    l.push(node, kernel, inputs, size / shape[axis], dtype)
                }
            });
        }
    }
    out
}

/// The kernel continuing a block's running values (input 0) from the prefix of the blocks
/// before it (input 1, one element along the axis).
fn continued(op: ScanOp, dtype: DType) -> KernelOp {
    match op {
        ScanOp::Sum => KernelOp::Binary { op: BinaryOp::Add, compute: dtype },
        ScanOp::Prod => KernelOp::Binary { op: BinaryOp::Multiply, compute: dtype },
        ScanOp::Fill => KernelOp::FillNan,
    }
}

/// The kernel and inputs combining the prefix so far with the next block's total: sums and
/// products in order, the earlier first; a fill keeps the later total unless it is NaN.
fn combined(op: ScanOp, dtype: DType, prefix: TaskId, total: TaskId) -> (KernelOp, Vec<TaskId>) {
    match op {
        ScanOp::Sum => (KernelOp::ReduceCombine { op: PartialReduce::Sum { acc: dtype } }, vec![prefix, total]),
        ScanOp::Prod => (KernelOp::ReduceCombine { op: PartialReduce::Prod { acc: dtype } }, vec![prefix, total]),
        ScanOp::Fill => (KernelOp::FillNan, vec![total, prefix]),
    }
}
