//! The discrete Fourier transform along one axis. A transform mixes every element of a lane,
//! so the axis is rechunked into one block (the other axes keep their chunks, so the work
//! still spreads over the blocks of the other axes); each task transforms one block.

use super::layout::rechunk;
use crate::node::{Node, NodeKind, NodeRef};
use tegula_core::shape::normalize_axis;
use tegula_core::{dtype_err, Chunks, Result};

/// The unnormalised transform of complex `x` along `axis` (`inverse`: positive exponent).
pub fn fft(x: &NodeRef, axis: i64, inverse: bool) -> Result<NodeRef> {
    if !x.dtype.is_complex() {
        return Err(dtype_err!("fft takes a complex array, not {}", x.dtype));
    }
    let axis = normalize_axis(axis, x.ndim())?;
    let mut sizes = x.chunks.sizes().to_vec();
    sizes[axis] = vec![x.shape()[axis]];
    let whole = rechunk(x, Chunks::new(sizes, &x.shape())?)?;
    let chunks = whole.chunks.clone();
    Node::checked(NodeKind::Fft { axis, inverse }, vec![whole], x.dtype, chunks)
}
