//! Storing an array: its blocks are first made to align with the store's chunks, so that no
//! two tasks ever write parts of one stored chunk.

use super::layout::rechunk;
use crate::node::{Node, NodeKind, NodeRef};
use crate::resource::Resource;
use std::sync::Arc;
use tegula_core::shape::fmt_shape;
use tegula_core::{shape_err, Chunks, Result};

/// Writes `x` to `sink`, whose regions may only start at multiples of `grid` along each axis.
pub fn store(x: &NodeRef, sink: Arc<Resource>, grid: &[usize]) -> Result<NodeRef> {
    if grid.len() != x.ndim() || grid.contains(&0) {
        return Err(shape_err!("store chunks {} do not fit an array of shape {}", fmt_shape(grid), fmt_shape(&x.shape())));
    }
    let aligned = aligned_chunks(&x.chunks, grid)?;
    let x = if aligned == x.chunks { x.clone() } else { rechunk(x, aligned)? };
    Node::checked(NodeKind::Store { sink }, vec![x.clone()], x.dtype, x.chunks.clone())
}

/// `chunks` with every block boundary moved to the nearest multiple of `grid` (blocks that
/// would become empty merge with their neighbour).
pub fn aligned_chunks(chunks: &Chunks, grid: &[usize]) -> Result<Chunks> {
    let sizes = chunks
        .sizes()
        .iter()
        .zip(grid)
        .map(|(sizes, &g)| {
            let len: usize = sizes.iter().sum();
            let mut out = Vec::with_capacity(sizes.len());
            let (mut end, mut last) = (0, 0);
            for &s in sizes {
                end += s;
                let boundary = if end == len { len } else { ((end + g / 2) / g * g).min(len) };
                if boundary > last {
                    out.push(boundary - last);
                    last = boundary;
                }
            }
            if len == 0 {
                out = sizes.clone();
            }
            out
        })
        .collect();
    Chunks::new(sizes, &chunks.shape())
}
