//! The small pieces algorithms built from operations combine with arrays: 0-d constants,
//! ranges of positions, the whole-array chunking and the whole-axis index item.

use crate::array::Array;
use crate::ops::IndexItem;
use crate::ops::ReduceSpec;
use tegula_core::{AxisChunks, ChunkSpec, DType, ReduceOp, Result, Scalar};

/// A 0-d array of `dtype` holding `value`.
pub(crate) fn constant(value: Scalar, dtype: DType) -> Result<Array> {
    Array::full(&[], value, Some(dtype), &whole())
}

/// One block holding the whole array.
pub(crate) fn whole() -> ChunkSpec {
    ChunkSpec::All(AxisChunks::Full)
}

/// `0, 1, ..., n - 1` (int64) in automatic chunks.
pub(crate) fn positions(n: usize) -> Result<Array> {
    let auto = ChunkSpec::Auto(tegula_core::chunks::AUTO_CHUNK_BYTES);
    Array::arange(Scalar::Int(0), Scalar::Int(n as i128), Scalar::Int(1), Some(DType::Int64), &auto)
}

/// The whole of an axis, as an index item (`:`).
pub(crate) fn all() -> IndexItem {
    IndexItem::Slice { start: None, stop: None, step: None }
}

/// An index of `ndim` items taking the whole of every axis but `axis`, which takes `item`.
pub(crate) fn at_axis(ndim: usize, axis: usize, item: IndexItem) -> Vec<IndexItem> {
    let mut key = vec![all(); ndim];
    key[axis] = item;
    key
}

/// All but the first element along the first axis.
pub(crate) fn tail(x: &Array) -> Result<Array> {
    x.index(&[IndexItem::Slice { start: Some(1), stop: None, step: None }])
}

/// All but the last element along the first axis.
pub(crate) fn head(x: &Array) -> Result<Array> {
    x.index(&[IndexItem::Slice { start: None, stop: Some(-1), step: None }])
}

/// The differences of neighbours along the first axis (NumPy's `diff`).
pub(crate) fn diff(x: &Array) -> Result<Array> {
    tail(x)?.sub(&head(x)?)
}

/// `x`'s own chunking, as a chunk spec (for an array that must be blocked alike).
pub(crate) fn same_chunks(x: &Array) -> ChunkSpec {
    ChunkSpec::PerAxis(x.chunks().sizes().iter().map(|s| AxisChunks::Explicit(s.clone())).collect())
}

/// `op` over every element (a 0-d array).
pub(crate) fn over_all(x: &Array, op: ReduceOp) -> Result<Array> {
    x.reduce(&ReduceSpec::new(op))
}
