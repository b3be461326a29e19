//! Matrix products: for each stack block and output block (i, j), one product task per block
//! pair (i, k), (k, j), summed by a tree — the contracted axis is never gathered into one task.
//! A product of a matrix and its own transpose (`a @ a.T`, `a.T @ a`) is symmetric: the blocks
//! below the diagonal are views of the transposed blocks above it, half the products.

use super::reduce::tree;
use super::Lowering;
use crate::graph::TaskId;
use crate::node::{Node, NodeKind};
use tegula_core::grid::for_each_block;
use tegula_core::{KernelOp, PartialReduce, Result};

pub(super) fn lower(l: &mut Lowering, node: &Node, inputs: &[Vec<TaskId>], split_every: usize) -> Result<Vec<TaskId>> {
    let (a, b) = (&node.inputs[0], &node.inputs[1]);
    let nd = a.ndim();
    let (rows, inner, cols) = (a.chunks.axis(nd - 2), a.chunks.axis(nd - 1), b.chunks.axis(nd - 1));
    let (rows_n, inner_n, cols_n) = (rows.len(), inner.len(), cols.len());
    // The number of matrices in each stack block, in row-major order of the stack blocks.
    let mut stacks = Vec::new();
    for_each_block(&a.chunks.numblocks()[..nd - 2], |at| {
        stacks.push(at.iter().enumerate().map(|(axis, &i)| a.chunks.axis(axis)[i]).product::<usize>())
    });
    let symmetric = is_transpose_pair(a, b);
    let mut out: Vec<TaskId> = Vec::with_capacity(stacks.len() * rows_n * cols_n);
    // Blocks are numbered row-major, so a stack block's matrix blocks are consecutive.
    for (s, &count) in stacks.iter().enumerate() {
        let (a0, b0) = (s * rows_n * inner_n, s * inner_n * cols_n);
        for (i, &m) in rows.iter().enumerate() {
            for (j, &n) in cols.iter().enumerate() {
                if symmetric && j < i {
                    let mirror = out[s * rows_n * cols_n + j * cols_n + i];
                    let perm = swap_last_two(nd);
                    out.push(l.push(node, KernelOp::Transpose { perm }, vec![mirror], count * m * n, node.dtype));
                    continue;
                }
                let products = (0..inner_n)
                    .map(|k| {
                        let args = vec![inputs[0][a0 + i * inner_n + k], inputs[1][b0 + k * cols_n + j]];
                        let size = count * m * n;
                        l.push(node, KernelOp::Matmul { dtype: node.dtype }, args, size, node.dtype)
                    })
                    .collect();
                out.push(tree(l, node, products, PartialReduce::Sum { acc: node.dtype }, split_every));
            }
        }
    }
    Ok(out)
}

/// Whether `b` is `a` with its last two axes swapped (or `a` is `b` so), block for block.
pub(crate) fn is_transpose_pair(a: &Node, b: &Node) -> bool {
    let swapped = |x: &Node, y: &Node| match &x.kind {
        NodeKind::Transpose { perm } => x.inputs[0].id == y.id && *perm == swap_last_two(y.ndim()),
        _ => false,
    };
    swapped(b, a) || swapped(a, b)
}

fn swap_last_two(nd: usize) -> Vec<usize> {
    let mut perm: Vec<usize> = (0..nd).collect();
    perm.swap(nd - 2, nd - 1);
    perm
}
