//! Reshape: block `i` of the result is block `i` of the input in the result block's shape (the
//! builder matched the two chunkings block for block), a view when the block is row-major.

use super::Lowering;
use crate::graph::TaskId;
use crate::node::Node;
use tegula_core::grid::for_each_block;
use tegula_core::KernelOp;

pub(super) fn reshape(l: &mut Lowering, node: &Node, input: &[TaskId]) -> Vec<TaskId> {
    let mut blocks = Vec::with_capacity(input.len());
    for_each_block(&node.chunks.numblocks(), |idx| {
        let op = KernelOp::Reshape { shape: node.chunks.block_shape(idx) };
        let task = input[blocks.len()];
        blocks.push(l.push(node, op, vec![task], node.chunks.block_size(idx), node.dtype));
    });
    blocks
}
