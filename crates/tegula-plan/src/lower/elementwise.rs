//! Element-wise nodes: output block `b` reads block `b` of every input, or block 0 along axes
//! where an input is broadcast (a single block of length one).

use super::Lowering;
use crate::graph::TaskId;
use crate::node::Node;
use tegula_core::grid::{block_indices, ravel};
use tegula_core::{OpKind, Result};

pub(super) fn lower(l: &mut Lowering, node: &Node, inputs: &[Vec<TaskId>], op: OpKind) -> Result<Vec<TaskId>> {
    let numblocks = node.chunks.numblocks();
    let nd = numblocks.len();
    let mut out = Vec::with_capacity(node.chunks.nblocks());
    for idx in block_indices(&numblocks) {
        let args = node
            .inputs
            .iter()
            .zip(inputs)
            .map(|(input, blocks)| {
                let nb = input.chunks.numblocks();
                let offset = nd - nb.len();
                let in_idx: Vec<usize> =
                    nb.iter().enumerate().map(|(a, &n)| if n == 1 { 0 } else { idx[a + offset] }).collect();
                blocks[ravel(&in_idx, &nb)]
            })
            .collect();
        let shape = node.chunks.block_shape(&idx);
        out.push(l.push(node, op.clone(), args, shape, node.dtype));
    }
    Ok(out)
}
