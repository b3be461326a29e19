//! Sliding windows and moving reductions: each output block's windows start in one input
//! block along the axis and may run `width - 1` elements into the next ones; its task reads
//! those blocks where they lie (`tegula_kernels::moving`), so no block is joined or copied.

use super::Lowering;
use crate::graph::TaskId;
use crate::node::Node;
use tegula_core::grid::{block_indices, offsets, ravel};
use tegula_core::KernelOp;

/// `kernel(start, count)` for every output block: its `count` windows start at element `start`
/// of the first of the input blocks the task reads.
pub(super) fn lower(l: &mut Lowering, node: &Node, input: &[TaskId], axis: usize, width: usize, kernel: impl Fn(usize, usize) -> KernelOp) -> Vec<TaskId> {
    let in_chunks = &node.inputs[0].chunks;
    let (in_nb, in_starts) = (in_chunks.numblocks(), offsets(in_chunks.axis(axis)));
    let out_starts = offsets(node.chunks.axis(axis));
    block_indices(&node.chunks.numblocks())
        .map(|idx| {
            let (lo, count) = (out_starts[idx[axis]], node.chunks.axis(axis)[idx[axis]]);
            let hi = lo + count + width - 1;
            // The block the first window starts in, then every later one the windows reach.
            let first = in_starts.iter().rposition(|&s| s <= lo).unwrap_or(0);
            let last = in_starts.iter().rposition(|&s| s < hi).unwrap_or(first).max(first);
            let mut in_idx = idx[..in_nb.len()].to_vec();
            let inputs = (first..=last)
                .map(|b| {
                    in_idx[axis] = b;
                    input[ravel(&in_idx, &in_nb)]
                })
                .collect();
            let size = node.chunks.block_shape(&idx).iter().product();
            l.push(node, kernel(lo - in_starts[first], count), inputs, size, node.dtype)
        })
        .collect()
}
