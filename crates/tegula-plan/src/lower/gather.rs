//! Gathers: each output block is a chain over x's blocks along the axis (see
//! `construct/gather.rs`); index checks: one task per block.

use super::Lowering;
use crate::graph::TaskId;
use crate::node::Node;
use tegula_core::grid::{for_each_block, offsets, ravel};
use tegula_core::KernelOp;

pub(super) fn wrap_index(l: &mut Lowering, node: &Node, input: &[TaskId], n: usize, axis: usize) -> Vec<TaskId> {
    let mut blocks = Vec::with_capacity(input.len());
    for_each_block(&node.chunks.numblocks(), |idx| {
        let task = input[blocks.len()];
        blocks.push(l.push(node, KernelOp::WrapIndex { n, axis }, vec![task], node.chunks.block_size(idx), node.dtype));
    });
    blocks
}

pub(super) fn gather(l: &mut Lowering, node: &Node, inputs: &[Vec<TaskId>], axis: usize) -> Vec<TaskId> {
    let (x, idx) = (&node.inputs[0], &node.inputs[1]);
    let (x_nb, i_nb) = (x.chunks.numblocks(), idx.chunks.numblocks());
    let starts = offsets(x.chunks.axis(axis));
    let n = x.shape()[axis];
    let mut blocks = Vec::new();
    let (mut x_idx, mut i_idx) = (vec![0; x_nb.len()], vec![0; i_nb.len()]);
    for_each_block(&node.chunks.numblocks(), |out| {
        for a in 0..out.len() {
            // Index blocks are broadcast along the axes where the indices have one block.
            i_idx[a] = if i_nb[a] == 1 { 0 } else { out[a] };
            x_idx[a] = out[a];
        }
        let index_task = inputs[1][ravel(&i_idx, &i_nb)];
        let size = node.chunks.block_size(out);
        let mut acc: Option<TaskId> = None;
        for (i, &start) in starts.iter().enumerate() {
            x_idx[axis] = i;
            let mut reads = vec![index_task, inputs[0][ravel(&x_idx, &x_nb)]];
            reads.extend(acc);
            acc = Some(l.push(node, KernelOp::Gather { axis, start, n }, reads, size, node.dtype));
        }
        blocks.extend(acc);
    });
    blocks
}
