//! Boolean masks as plan nodes. How many elements a mask keeps depends on its values, so the
//! caller computes the mask's `block_counts` (one int64 per block) when the expression is built
//! and hands them to `compress`: the result has a known shape and chunks, and composes with
//! every later operation. Each output block is the selected rows of one input block.

use crate::node::{Node, NodeKind, NodeRef};
use tegula_core::{internal_err, Chunks, DType, Result};

/// The number of true elements of each block of the 1-D boolean `mask`, as an int64 array
/// with one element per block.
pub fn block_counts(mask: &NodeRef) -> Result<NodeRef> {
    if mask.ndim() != 1 || mask.dtype != DType::Bool {
        return Err(internal_err!("block counts of a {}-d {} array", mask.ndim(), mask.dtype));
    }
    let n = mask.chunks.nblocks();
    let chunks = Chunks::new(vec![vec![1; n]], &[n])?;
    Node::checked(NodeKind::BlockCounts, vec![mask.clone()], DType::Int64, chunks)
}

/// The rows (entries along axis 0) of `x` where the 1-D boolean `mask` is true. `mask` has
/// `x`'s chunks along axis 0 and `counts` holds its `block_counts`. Blocks that keep nothing
/// are dropped (one empty block stays when nothing is kept).
pub fn compress(x: &NodeRef, mask: &NodeRef, counts: &[usize]) -> Result<NodeRef> {
    let rows = x.chunks.sizes().first().cloned().unwrap_or_default();
    let fits = mask.ndim() == 1 && mask.dtype == DType::Bool && mask.chunks.axis(0) == rows.as_slice();
    if !fits || counts.len() != rows.len() || counts.iter().zip(&rows).any(|(c, r)| c > r) {
        return Err(internal_err!("compress of chunks {:?} by a mask of chunks {:?}, counts {counts:?}", x.chunks, mask.chunks));
    }
    let mut blocks: Vec<usize> = (0..counts.len()).filter(|&b| counts[b] > 0).collect();
    if blocks.is_empty() {
        blocks.push(0);
    }
    let sizes: Vec<usize> = blocks.iter().map(|&b| counts[b]).collect();
    let chunks = x.chunks.with_axis(0, sizes);
    Node::checked(NodeKind::Compress { blocks: blocks.into() }, vec![x.clone(), mask.clone()], x.dtype, chunks)
}
