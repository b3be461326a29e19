//! Storing: one `Write` task per block, reading the block's task and writing its region.

use super::Lowering;
use crate::graph::TaskId;
use crate::node::Node;
use crate::resource::Resource;
use std::sync::Arc;
use tegula_core::grid::{for_each_block, offsets};
use tegula_core::IoOp;

pub(super) fn lower(l: &mut Lowering, node: &Node, blocks: &[TaskId], sink: &Arc<Resource>) -> Vec<TaskId> {
    l.register_resource(sink);
    let starts: Vec<Vec<usize>> = node.chunks.sizes().iter().map(|s| offsets(s)).collect();
    let mut out = Vec::with_capacity(blocks.len());
    for_each_block(&node.chunks.numblocks(), |idx| {
        let shape = node.chunks.block_shape(idx);
        let region = shape.iter().enumerate().map(|(a, &n)| (starts[a][idx[a]], starts[a][idx[a]] + n)).collect();
        let input = blocks[out.len()];
        out.push(l.push(node, IoOp::Write { resource: sink.id, region }, vec![input], 0, node.dtype));
    });
    out
}
