//! Element-wise nodes: output block `b` reads block `b` of every input, or block 0 along axes
//! where an input is broadcast (a single block of length one).

use super::Lowering;
use crate::graph::TaskId;
use crate::node::Node;
use tegula_core::grid::for_each_block;
use tegula_core::Result;
use tegula_core::KernelOp;

pub(super) fn lower(l: &mut Lowering, node: &Node, inputs: &[Vec<TaskId>], op: KernelOp) -> Result<Vec<TaskId>> {
    let numblocks: Vec<Vec<usize>> = node.inputs.iter().map(|i| i.chunks.numblocks()).collect();
    let mut out = Vec::with_capacity(node.chunks.nblocks());
    for_each_block(&node.chunks.numblocks(), |idx| {
        let args = inputs.iter().zip(&numblocks).map(|(blocks, nb)| blocks[broadcast_block(nb, idx)]).collect();
        out.push(l.push(node, op.clone(), args, node.chunks.block_size(idx), node.dtype));
    });
    Ok(out)
}

/// The flat number of the block of an input with `numblocks` blocks per axis that output
/// block `idx` reads: the same block, or block 0 along the input's broadcast axes (and the
/// leading axes it lacks).
pub(super) fn broadcast_block(numblocks: &[usize], idx: &[usize]) -> usize {
    let offset = idx.len() - numblocks.len();
    numblocks.iter().zip(&idx[offset..]).fold(0, |acc, (&n, &i)| acc * n + if n == 1 { 0 } else { i })
}
