//! Kernels of integer-array indexing and boolean masks: gathering one block's share of the
//! indexed elements, checking and wrapping indices, and compressing a block by a mask.

use crate::chunk::{Block, Chunk, Wrap};
use crate::element::Elem;
use crate::with_chunk;
use ndarray::{Axis, IxDyn, Zip};
use tegula_core::{index_err, internal_err, Result};

/// The indices of an integer block as int64 (unsigned ones past `i64::MAX` saturate: they are
/// out of bounds either way).
fn index_values(idx: &Chunk) -> Result<Block<i64>> {
    match idx {
        Chunk::UInt64(a) => Ok(a.mapv(|v| v.min(i64::MAX as u64) as i64).into()),
        c if c.dtype().is_integer() => Ok(c.cast(tegula_core::DType::Int64).typed::<i64>()?.clone()),
        c => Err(index_err!("arrays used as indices must be of integer (or boolean) type, not {}", c.dtype())),
    }
}

/// NumPy's reading of index `v` along an axis of length `n`: negative ones count from the end
/// (once); anything outside is an `IndexError` naming the index.
fn wrap(v: i64, n: usize, axis: usize) -> Result<usize> {
    let w = if v < 0 { v + n as i64 } else { v };
    if w < 0 || w >= n as i64 {
        return Err(index_err!("index {v} is out of bounds for axis {axis} with size {n}"));
    }
    Ok(w as usize)
}

/// `KernelOp::WrapIndex`: the indices as int64 in `[0, n)`.
pub fn wrap_index(idx: &Chunk, n: usize, axis: usize) -> Result<Chunk> {
    let values = index_values(idx)?;
    let mut out = values.to_owned();
    for v in out.iter_mut() {
        *v = wrap(*v, n, axis)? as i64;
    }
    Ok(Chunk::Int64(out.into()))
}

/// Where one `Gather` task reads: its `x` block starts at element `start` of an axis of
/// length `n`.
#[derive(Debug, Clone, Copy)]
pub struct GatherPlace {
    /// The axis gathered along.
    pub axis: usize,
    /// The `x` block's first element along `axis`.
    pub start: usize,
    /// The length of the whole axis.
    pub n: usize,
}

/// `KernelOp::Gather`: inputs `idx` (x's ndim; along the other axes of length one, broadcast,
/// or x's), the `x` block, and optionally the result so far. Every output position whose
/// index falls in the `x` block takes that element; the others keep the result so far (zero
/// in the first task).
pub fn gather(place: GatherPlace, inputs: &[Chunk]) -> Result<Chunk> {
    let (idx, x) = match inputs {
        [idx, x] | [idx, x, _] => (idx, x),
        _ => return Err(internal_err!("gather takes 2 or 3 inputs, got {}", inputs.len())),
    };
    let axis = place.axis;
    if idx.ndim() != x.ndim() || axis >= x.ndim() {
        return Err(internal_err!("gather along axis {axis} of {:?} by {:?}", x.shape(), idx.shape()));
    }
    let mut shape = x.shape().to_vec();
    shape[axis] = idx.shape()[axis];
    if shape.contains(&0) && (shape[..axis].contains(&0) || idx.is_empty()) {
        // NumPy's take checks no index when no row before the axis exists.
        let none = ndarray::ArrayD::<i64>::zeros(IxDyn(&shape));
        return with_chunk!(x, a => gather_typed(a, None, &none.view(), axis));
    }
    let mut local = index_values(idx)?.to_owned();
    let len = x.shape()[axis];
    for v in local.iter_mut() {
        let w = wrap(*v, place.n, axis)?;
        // Indices of other blocks become -1, skipped below.
        *v = if (place.start..place.start + len).contains(&w) { (w - place.start) as i64 } else { -1 };
    }
    let local = local.broadcast(IxDyn(&shape)).ok_or_else(|| internal_err!("gather indices {:?} for {shape:?}", idx.shape()))?;
    with_chunk!(x, a => gather_typed(a, inputs.get(2), &local, axis))
}

fn gather_typed<T: Wrap>(a: &Block<T>, acc: Option<&Chunk>, local: &ndarray::ArrayViewD<i64>, axis: usize) -> Result<Chunk> {
    let mut out = match acc {
        Some(acc) => acc.typed::<T>()?.to_owned(),
        None => ndarray::ArrayD::from_elem(local.raw_dim(), T::from_bool(false)),
    };
    if out.shape() != local.shape() {
        return Err(internal_err!("gather result so far {:?}, expected {:?}", out.shape(), local.shape()));
    }
    Zip::from(out.lanes_mut(Axis(axis))).and(local.lanes(Axis(axis))).and(a.lanes(Axis(axis))).for_each(|mut o, i, src| {
        for (o, &i) in o.iter_mut().zip(i) {
            if i >= 0 {
                *o = src[i as usize];
            }
        }
    });
    Ok(T::wrap(out.into()))
}

/// `KernelOp::Compress`: the rows (entries along axis 0) of `x` where the 1-D boolean `mask`
/// is true, in order.
pub fn compress(x: &Chunk, mask: &Chunk) -> Result<Chunk> {
    let mask = mask.typed::<bool>()?;
    if mask.ndim() != 1 || x.ndim() == 0 || mask.len() != x.shape()[0] {
        return Err(internal_err!("compress of {:?} by a mask of {:?}", x.shape(), mask.shape()));
    }
    let rows: Vec<usize> = mask.iter().enumerate().filter(|(_, &m)| m).map(|(i, _)| i).collect();
    with_chunk!(x, a => Ok(Wrap::wrap(select_rows(a, &rows))))
}

fn select_rows<T: Elem>(a: &Block<T>, rows: &[usize]) -> Block<T> {
    a.select(Axis(0), rows).into()
}
