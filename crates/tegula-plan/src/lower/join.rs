//! `expand_dims` and `concatenate`. A new axis is a view of each block; a concatenation emits
//! no task at all: each of its blocks is a block of one input.

use super::Lowering;
use crate::construct::join::joined_blocks;
use crate::graph::TaskId;
use crate::node::Node;
use std::sync::Arc;
use tegula_core::grid::{for_each_block, ravel};
use tegula_core::KernelOp;

pub(super) fn expand_dims(l: &mut Lowering, node: &Node, input: &[TaskId], axes: &Arc<[usize]>) -> Vec<TaskId> {
    let op = KernelOp::ExpandDims { axes: axes.clone() };
    let mut blocks = Vec::with_capacity(input.len());
    // A new axis has one block, so the output's blocks are the input's, in the same order.
    for_each_block(&node.chunks.numblocks(), |idx| {
        let task = input[blocks.len()];
        blocks.push(l.push(node, op.clone(), vec![task], node.chunks.block_size(idx), node.dtype));
    });
    blocks
}

pub(super) fn concatenate(node: &Node, inputs: &[Vec<TaskId>], axis: usize) -> Vec<TaskId> {
    let along = joined_blocks(&node.inputs, axis);
    let numblocks: Vec<Vec<usize>> = node.inputs.iter().map(|x| x.chunks.numblocks()).collect();
    let mut in_idx = vec![0; node.ndim()];
    let mut blocks = Vec::with_capacity(node.chunks.nblocks());
    for_each_block(&node.chunks.numblocks(), |idx| {
        let (input, block) = along[idx[axis]];
        in_idx.copy_from_slice(idx);
        in_idx[axis] = block;
        blocks.push(inputs[input][ravel(&in_idx, &numblocks[input])]);
    });
    blocks
}
