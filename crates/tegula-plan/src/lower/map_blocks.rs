//! `map_blocks`: one `CallBlock` task per block, reading the same block of every input.

use super::Lowering;
use crate::graph::TaskId;
use crate::node::Node;
use crate::resource::Resource;
use std::sync::Arc;
use tegula_core::grid::for_each_block;
use tegula_core::IoOp;

pub(super) fn lower(l: &mut Lowering, node: &Node, inputs: &[Vec<TaskId>], function: &Arc<Resource>) -> Vec<TaskId> {
    l.register_resource(function);
    let mut out = Vec::with_capacity(node.chunks.nblocks());
    for_each_block(&node.chunks.numblocks(), |idx| {
        let shape = node.chunks.block_shape(idx);
        let size = shape.iter().product();
        let reads = inputs.iter().map(|blocks| blocks[out.len()]).collect();
        let op = IoOp::CallBlock { resource: function.id, block: idx.to_vec(), shape };
        out.push(l.push(node, op, reads, size, node.dtype));
    });
    out
}
