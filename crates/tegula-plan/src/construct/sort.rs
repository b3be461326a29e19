//! `sort`, `argsort`, `sorted_take` and `searchsorted`. Sorting, and taking from the sorted
//! order, need the sorted axis in one block (the input is rechunked along it; other axes keep
//! their blocks); `searchsorted` is a contraction over the sorted array's blocks and needs no
//! rechunk.

use super::elementwise::cast;
use super::gather::{aligned_index_chunks, check_take_along};
use super::layout::rechunk;
use crate::node::{Node, NodeKind, NodeRef};
use tegula_core::shape::normalize_axis;
use tegula_core::{dtype_err, result_type, value_err, DType, Result};

/// `x` sorted along `axis` (NumPy's order: NaN last), or with `arg` the int64 positions that
/// sort it. `descending` reverses the order; equal elements keep their order either way.
pub fn sort(x: &NodeRef, axis: i64, descending: bool, arg: bool) -> Result<NodeRef> {
    let axis = normalize_axis(axis, x.ndim())?;
    let x = rechunk(x, x.chunks.with_axis(axis, vec![x.shape()[axis]]))?;
    let dtype = if arg { DType::Int64 } else { x.dtype };
    Node::checked(NodeKind::Sort { axis, descending, arg }, vec![x.clone()], dtype, x.chunks.clone())
}

/// `take_along_axis(sort(x, axis), idx, axis)` without the sort: the elements each lane of
/// `x` along `axis` holds at positions `idx` once sorted (NumPy's order, NaN last), by
/// selection. `idx` is integer, of `x`'s ndim, along the other axes of `x`'s length or one
/// (the same positions for every lane); a position outside `[0, n)` is an `IndexError` when
/// computed. The lanes are made one block each, as `sort` makes them.
pub fn sorted_take(x: &NodeRef, idx: &NodeRef, axis: i64) -> Result<NodeRef> {
    let axis = normalize_axis(axis, x.ndim())?;
    check_take_along(x, idx, axis)?;
    let x = rechunk(x, x.chunks.with_axis(axis, vec![x.shape()[axis]]))?;
    let positions = idx.shape()[axis];
    let idx = rechunk(&cast(idx, DType::Int64)?, aligned_index_chunks(&x, idx, axis, vec![positions])?)?;
    let chunks = x.chunks.with_axis(axis, vec![positions]);
    Node::checked(NodeKind::SortedTake { axis }, vec![x.clone(), idx], x.dtype, chunks)
}

/// For each element of `v`, the index in the sorted 1-D `sorted` where inserting it keeps the
/// order: before equal elements, or after them when `right`. With `sorter` (the positions that
/// sort `sorted`, an integer array of its shape), only the order matters, not the positions.
pub fn searchsorted(sorted: &NodeRef, v: &NodeRef, right: bool, sorter: Option<&NodeRef>) -> Result<NodeRef> {
    match sorted.ndim() {
        1 => {}
        0 => return Err(value_err!("object of too small depth for desired array")),
        _ => return Err(value_err!("object too deep for desired array")),
    }
    if let Some(s) = sorter {
        if !s.dtype.is_integer() {
            return Err(dtype_err!("sorter must only contain integers"));
        }
        if s.shape() != sorted.shape() {
            return Err(value_err!("sorter.size must equal a.size"));
        }
    }
    // Compared in their common dtype, as NumPy.
    let common = result_type(&[sorted.dtype, v.dtype])?;
    let kind = NodeKind::SearchSorted { right, presorted: sorter.is_none() };
    Node::checked(kind, vec![cast(sorted, common)?, cast(v, common)?], DType::Int64, v.chunks.clone())
}
