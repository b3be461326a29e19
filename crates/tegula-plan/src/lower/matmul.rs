//! Matrix products: for output block (i, j), one product task per block pair (i, k), (k, j),
//! summed by a tree — the contracted axis is never gathered into one task.

use super::reduce::tree;
use super::Lowering;
use crate::graph::TaskId;
use crate::node::Node;
use tegula_core::{OpKind, PartialReduce, Result};

pub(super) fn lower(l: &mut Lowering, node: &Node, inputs: &[Vec<TaskId>], split_every: usize) -> Result<Vec<TaskId>> {
    let (a, b) = (&node.inputs[0], &node.inputs[1]);
    let (rows, inner, cols) = (a.chunks.axis(0), a.chunks.axis(1), b.chunks.axis(1));
    let mut out = Vec::with_capacity(rows.len() * cols.len());
    for (i, &m) in rows.iter().enumerate() {
        for (j, &n) in cols.iter().enumerate() {
            let products = (0..inner.len())
                .map(|k| {
                    let args = vec![inputs[0][i * inner.len() + k], inputs[1][k * cols.len() + j]];
                    l.push(node, OpKind::Matmul { dtype: node.dtype }, args, m * n, node.dtype)
                })
                .collect();
            out.push(tree(l, node, products, PartialReduce::Sum { acc: node.dtype }, split_every));
        }
    }
    Ok(out)
}
