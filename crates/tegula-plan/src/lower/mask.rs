//! Masks: a partial sum per block for the counts; one compress task per output block, reading
//! the one input block (and its mask block) it selects from.

use super::Lowering;
use crate::graph::TaskId;
use crate::node::Node;
use tegula_core::grid::{for_each_block, ravel};
use tegula_core::{DType, KernelOp, PartialReduce};

pub(super) fn block_counts(l: &mut Lowering, node: &Node, mask: &[TaskId]) -> Vec<TaskId> {
    let op = KernelOp::ReducePartial { op: PartialReduce::Sum { acc: DType::Int64 }, axes: [0].as_slice().into() };
    mask.iter().map(|&m| l.push(node, op.clone(), vec![m], 1, DType::Int64)).collect()
}

pub(super) fn compress(l: &mut Lowering, node: &Node, inputs: &[Vec<TaskId>], blocks: &[usize]) -> Vec<TaskId> {
    let x_nb = node.inputs[0].chunks.numblocks();
    let mut out = Vec::with_capacity(node.chunks.nblocks());
    let mut x_idx = vec![0; x_nb.len()];
    for_each_block(&node.chunks.numblocks(), |idx| {
        x_idx.copy_from_slice(idx);
        x_idx[0] = blocks[idx[0]];
        let reads = vec![inputs[0][ravel(&x_idx, &x_nb)], inputs[1][x_idx[0]]];
        out.push(l.push(node, KernelOp::Compress, reads, node.chunks.block_size(idx), node.dtype));
    });
    out
}
