//! Matrix products of small blocks computed in bigger ones. A GEMM of 500² blocks runs at about
//! four fifths of the rate of one of 2000² (its panels are packed and its results summed
//! block by block), so a product of floating-point matrices whose blocks are small is planned
//! over its operands rechunked to blocks of about `target_side` (each operand copied once,
//! a few percent of the work when every side of the product is long), and its result
//! rechunked back to the chunks it was built with. Products with a short side are left
//! alone: they are bound by reading their operands, which a copy would only add to.

use crate::construct::layout::rechunk;
use crate::lower::is_transpose_pair;
use crate::node::{Node, NodeKind, NodeRef};
use crate::walk::rewrite;
use tegula_core::{Chunks, DType};

/// The longest side of a merged block: past it, a GEMM is no faster.
const MAX_SIDE: usize = 2048;
/// The shortest side a merged block must reach for merging to be worth its copies; also the
/// shortest side of a product worth merging at all.
const MIN_SIDE: usize = 512;

/// The expressions `roots` with every matrix product of small floating-point blocks computed
/// over merged blocks, whose tasks each hold at most `limit` bytes of operands and result.
/// Nodes keep their ids (a product becomes the rechunk of its merged form); nodes not above
/// such a product are the same nodes.
pub fn merge_product_blocks(roots: &[NodeRef], limit: usize) -> Vec<NodeRef> {
    rewrite(roots, |node, inputs| {
        let NodeKind::Matmul { split_every } = node.kind else { return None };
        let product = merged_product(node, inputs, split_every, limit)?;
        Some(Node { id: node.id, kind: NodeKind::Rechunk { copy: false }, inputs: vec![product], dtype: node.dtype, chunks: node.chunks.clone(), device: node.device })
    })
}

/// The product `node` over merged blocks of `inputs`, or `None` when it gains nothing.
fn merged_product(node: &Node, inputs: &[NodeRef], split_every: usize, limit: usize) -> Option<NodeRef> {
    let (a, b) = (&inputs[0], &inputs[1]);
    let gemm = matches!(node.dtype, DType::Float32 | DType::Float64 | DType::Complex64 | DType::Complex128);
    let nd = a.ndim();
    let (rows, inner, cols) = (a.chunks.axis(nd - 2), a.chunks.axis(nd - 1), b.chunks.axis(nd - 1));
    let short = [rows, inner, cols].iter().any(|axis| axis.iter().sum::<usize>() < MIN_SIDE);
    let stacked = a.chunks.sizes()[..nd - 2].iter().any(|axis| axis.iter().any(|&s| s > 1));
    // Three blocks of `side`² elements (two operands and the result) within the limit.
    let side = MAX_SIDE.min(((limit / 3 / node.dtype.itemsize().max(1)) as f64).sqrt() as usize);
    // A symmetric `a @ a.T`, which lowering halves: merging would hide the pair.
    if !gemm || short || stacked || side < MIN_SIDE || is_transpose_pair(a, b) {
        return None;
    }
    let (rows, inner, cols) = (merged(rows, side), merged(inner, side), merged(cols, side));
    if rows.is_none() && inner.is_none() && cols.is_none() {
        return None;
    }
    let pick = |new: &Option<Vec<usize>>, old: &[usize]| new.clone().unwrap_or_else(|| old.to_vec());
    let (rows, inner, cols) = (pick(&rows, a.chunks.axis(nd - 2)), pick(&inner, a.chunks.axis(nd - 1)), pick(&cols, b.chunks.axis(nd - 1)));
    let with = |chunks: &Chunks, last_two: [Vec<usize>; 2]| {
        let mut sizes = chunks.sizes()[..nd - 2].to_vec();
        sizes.extend(last_two);
        Chunks::from_axes(sizes)
    };
    let a = rechunk(a, with(&a.chunks, [rows.clone(), inner.clone()])).ok()?;
    let b = rechunk(b, with(&b.chunks, [inner, cols.clone()])).ok()?;
    let out = with(&node.chunks, [rows, cols]);
    Some(Node::new(NodeKind::Matmul { split_every }, vec![a, b], node.dtype, out))
}

/// `blocks` joined, consecutive ones, into blocks of at most `side` (each as long as it can
/// be), or `None` when its blocks are already long or joining changes nothing.
fn merged(blocks: &[usize], side: usize) -> Option<Vec<usize>> {
    if blocks.len() < 2 || blocks.iter().copied().max().unwrap_or(0) * 2 > side {
        return None;
    }
    let mut out: Vec<usize> = Vec::new();
    for &b in blocks {
        match out.last_mut() {
            Some(last) if *last + b <= side => *last += b,
            _ => out.push(b),
        }
    }
    (out.len() < blocks.len()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_blocks_join_into_blocks_of_at_most_the_side() {
        assert_eq!(merged(&[500; 12], 2048), Some(vec![2000, 2000, 2000]));
        assert_eq!(merged(&[500, 500, 300], 1024), Some(vec![1000, 300]));
        assert_eq!(merged(&[1500, 1500], 2048), None);
        assert_eq!(merged(&[6000], 2048), None);
    }
}
