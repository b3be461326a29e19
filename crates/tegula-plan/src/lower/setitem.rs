//! Assignment: a block of `x` the selection misses is `x`'s own block (no task); one it
//! crosses is copied with its part of the selection replaced by the one values block that
//! covers it (the builder chunked the values that way).

use super::Lowering;
use crate::construct::layout::range_chunks;
use crate::graph::TaskId;
use crate::node::{range_select, IndexAxis, Node};
use tegula_core::grid::{block_indices, locate, ravel};
use tegula_core::{KernelOp, Select};

/// For one axis of `x`: per block, `None` when the selection misses it, else the values block
/// along this axis (`None` for an integer index, which drops the axis) and the block's selection.
type AxisTargets = Vec<Option<(Option<usize>, Select)>>;

pub(super) fn set_item(l: &mut Lowering, node: &Node, inputs: &[Vec<TaskId>], axes: &[IndexAxis]) -> Vec<TaskId> {
    let x_chunks = &node.inputs[0].chunks;
    let (x_nb, v_nb) = (x_chunks.numblocks(), node.inputs[1].chunks.numblocks());
    let targets: Vec<AxisTargets> = axes
        .iter()
        .enumerate()
        .map(|(axis, a)| {
            let sizes = x_chunks.axis(axis);
            let mut out = vec![None; sizes.len()];
            match *a {
                IndexAxis::Range { start, step, len } => {
                    for (k, p) in range_chunks(sizes, start, step, len).iter().enumerate().filter(|(_, p)| p.len > 0) {
                        out[p.block] = Some((Some(k), range_select(p.first, p.last, step)));
                    }
                }
                IndexAxis::Index(i) => {
                    let (block, local) = locate(sizes, i);
                    out[block] = Some((None, Select::Index(local)));
                }
                IndexAxis::NewAxis => {} // refused by the builder
            }
            out
        })
        .collect();
    block_indices(&x_nb)
        .map(|idx| {
            let x_task = inputs[0][ravel(&idx, &x_nb)];
            let (mut v_idx, mut select) = (Vec::new(), Vec::new());
            for (axis, &b) in idx.iter().enumerate() {
                let Some((v_block, sel)) = targets[axis][b] else { return x_task };
                v_idx.extend(v_block);
                select.push(sel);
            }
            let size = node.chunks.block_shape(&idx).iter().product();
            l.push(node, KernelOp::SetSelect { axes: select }, vec![x_task, inputs[1][ravel(&v_idx, &v_nb)]], size, node.dtype)
        })
        .collect()
}
