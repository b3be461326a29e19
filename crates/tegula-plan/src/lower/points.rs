//! Picked points (`construct/points.rs`): for each output block, one task per block of `x` its
//! points fall in copies those points out (a block of a few rows), and one task puts the
//! pieces in the points' order. Blocks of `x` holding no point are never read.

use super::Lowering;
use crate::construct::points::{groups, Group};
use crate::graph::TaskId;
use crate::node::Node;
use tegula_core::grid::{for_each_block, ravel};
use tegula_core::{KernelOp, Piece};

pub(super) fn pick_points(l: &mut Lowering, node: &Node, x_tasks: &[TaskId], axes: &[usize], coords: &[usize]) -> Vec<TaskId> {
    let x = &node.inputs[0];
    let x_nb = x.chunks.numblocks();
    let groups = groups(x, axes, coords, node.chunks.axis(axes[0]));
    let mut out = Vec::with_capacity(node.chunks.nblocks());
    for_each_block(&node.chunks.numblocks(), |idx| {
        let shape = node.chunks.block_shape(idx);
        let mut x_idx = idx.to_vec();
        let mut parts = Vec::new();
        for group in &groups[idx[axes[0]]] {
            for (&a, &b) in axes.iter().zip(&group.block) {
                x_idx[a] = b;
            }
            let block = x_tasks[ravel(&x_idx, &x_nb)];
            parts.push(picked(l, node, block, &shape, axes, group));
        }
        out.push(ordered(l, node, parts, shape, axes[0], &groups[idx[axes[0]]]));
    });
    out
}

/// The task copying `group`'s points out of the `x` block `block`, in the group's order, into
/// a block of `shape` with as many rows along `axes[0]` as the group has points.
fn picked(l: &mut Lowering, node: &Node, block: TaskId, shape: &[usize], axes: &[usize], group: &Group) -> TaskId {
    let mut shape = shape.to_vec();
    shape[axes[0]] = group.points.len();
    let pieces = group
        .points
        .iter()
        .enumerate()
        .map(|(row, (_, local))| {
            let mut src: Vec<(usize, usize)> = shape.iter().map(|&n| (0, n)).collect();
            for (&a, &c) in axes.iter().zip(local) {
                src[a] = (c, c + 1);
            }
            let mut dst = vec![0; shape.len()];
            dst[axes[0]] = row;
            Piece { input: 0, src, dst }
        })
        .collect();
    let size = shape.iter().product();
    l.push(node, KernelOp::Assemble { shape, pieces }, vec![block], size, node.dtype)
}

/// The output block: the groups' pieces (`parts`) put in the points' order along `axis`, runs
/// of consecutive rows copied at once; a single group already in order is the block itself.
fn ordered(l: &mut Lowering, node: &Node, parts: Vec<TaskId>, shape: Vec<usize>, axis: usize, groups: &[Group]) -> TaskId {
    if let ([part], [group]) = (parts.as_slice(), groups) {
        if group.points.iter().enumerate().all(|(i, (row, _))| i == *row) {
            return *part;
        }
    }
    let mut pieces: Vec<Piece> = Vec::new();
    for (input, group) in groups.iter().enumerate() {
        for (i, &(row, _)) in group.points.iter().enumerate() {
            if let Some(last) = pieces.last_mut().filter(|p| p.input == input && p.src[axis].1 == i && p.dst[axis] + i - p.src[axis].0 == row) {
                last.src[axis].1 = i + 1;
                continue;
            }
            let mut src: Vec<(usize, usize)> = shape.iter().map(|&n| (0, n)).collect();
            src[axis] = (i, i + 1);
            let mut dst = vec![0; shape.len()];
            dst[axis] = row;
            pieces.push(Piece { input, src, dst });
        }
    }
    let size = shape.iter().product();
    l.push(node, KernelOp::Assemble { shape, pieces }, parts, size, node.dtype)
}
