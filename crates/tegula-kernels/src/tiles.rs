//! Row-major tiles of a block: the unit in which fused programs run and whole-block reductions
//! accumulate. Fused and unfused whole-block reductions visit the same tiles in the same order,
//! so they give bit-identical results.

use crate::chunk::{Chunk, Wrap};
use crate::with_chunk;
use ndarray::{Axis, IxDyn, Slice};
use tegula_core::{internal_err, Result};

/// Elements per tile: small enough that a dozen live float64 tiles stay in L2 cache.
pub const TILE: usize = 4096;

/// `(start, len)` of every tile of a block of `size` elements (one empty tile when it is empty).
pub fn ranges(size: usize) -> impl Iterator<Item = (usize, usize)> {
    let count = size.div_ceil(TILE).max(1);
    (0..count).map(move |i| (i * TILE, TILE.min(size - (i * TILE).min(size))))
}

/// `chunk` broadcast to `shape` as a 1-D row-major chunk (shared, not copied, when it is
/// already row-major); a one-element chunk stays one element, which kernels broadcast.
pub fn flatten(chunk: &Chunk, shape: &[usize]) -> Result<Chunk> {
    if chunk.len() == 1 {
        return reshape(chunk, &[1]);
    }
    let size: usize = shape.iter().product();
    with_chunk!(chunk, a => {
        let full = a.broadcast(IxDyn(shape)).ok_or_else(|| internal_err!("block {:?} does not broadcast to {:?}", a.shape(), shape))?;
        let standard = if a.shape() == shape && a.is_standard_layout() {
            a.clone()
        } else {
            full.as_standard_layout().into_owned().into()
        };
        standard.try_map_view(|v| v.into_shape_with_order(IxDyn(&[size]))).map(Wrap::wrap).map_err(|e| internal_err!("flatten: {e}"))
    })
}

/// Elements `start .. start + len` of a flattened chunk (a view; one-element chunks as they are).
pub fn tile(flat: &Chunk, start: usize, len: usize) -> Chunk {
    if flat.len() == 1 {
        return flat.clone();
    }
    with_chunk!(flat.clone(), a => Wrap::wrap(a.map_view(|mut a| {
        a.slice_axis_inplace(Axis(0), Slice::from(start..start + len));
        a
    })))
}

/// The same elements in row-major order with another shape.
pub fn reshape(c: &Chunk, shape: &[usize]) -> Result<Chunk> {
    with_chunk!(c, a => {
        let standard = if a.is_standard_layout() { a.clone() } else { a.as_standard_layout().into_owned().into() };
        standard.try_map_view(|v| v.into_shape_with_order(IxDyn(shape))).map(Wrap::wrap).map_err(|e| internal_err!("reshape: {e}"))
    })
}

/// Joins 1-D chunks of one dtype into a block of `shape`.
pub fn concat(parts: &[Chunk], shape: &[usize]) -> Result<Chunk> {
    let first = parts.first().ok_or_else(|| internal_err!("nothing to join"))?;
    with_chunk!(first, proto => join(proto, parts, shape))
}

fn join<T: Wrap>(_: &crate::chunk::Block<T>, parts: &[Chunk], shape: &[usize]) -> Result<Chunk> {
    let mut data: Vec<T> = tegula_core::memory::big_vec(shape.iter().product());
    for p in parts {
        let p = p.typed::<T>()?;
        match p.as_slice() {
            Some(s) => data.extend_from_slice(s),
            None => data.extend(p.iter().copied()),
        }
    }
    ndarray::Array::from_shape_vec(IxDyn(shape), data).map(|a| T::wrap(a.into())).map_err(|e| internal_err!("join: {e}"))
}
