//! Linear algebra: one task per stack block, reading the same-numbered block of each input
//! (the builder gave them one block per matrix axis and the same stack chunks).

use super::Lowering;
use crate::graph::TaskId;
use crate::node::Node;
use tegula_core::grid::for_each_block;
use tegula_core::{KernelOp, LinalgOp};

pub(super) fn lower(l: &mut Lowering, node: &Node, inputs: &[Vec<TaskId>], op: LinalgOp) -> Vec<TaskId> {
    let mut blocks = Vec::with_capacity(node.chunks.nblocks());
    // The result's trailing axes (if any) are one block each, so its blocks are numbered
    // as the inputs' stack blocks are.
    for_each_block(&node.chunks.numblocks(), |idx| {
        let args = inputs.iter().map(|b| b[blocks.len()]).collect();
        blocks.push(l.push(node, KernelOp::Linalg { op }, args, node.chunks.block_size(idx), node.dtype));
    });
    blocks
}
