//! Integer-array indexing as plan nodes: checking indices, and gathering along one axis.
//!
//! A gather needs no index value to be planned (indices may be lazy): output block (blocks of
//! the other axes, index block `j`) is a chain of one task per block `i` of x along the axis,
//! each taking the result so far, x block `i` and index block `j`, and filling the positions
//! whose index falls in block `i` (`lower/gather.rs`). Index blocks are cut to x's longest
//! block along the axis, so an output block is never larger than an x block: a task holds one
//! x block, one index block and two output blocks.

use super::join::concatenate;
use super::layout::{index, rechunk, IndexItem};
use crate::node::{Node, NodeKind, NodeRef};
use tegula_core::shape::fmt_shape;
use tegula_core::{index_err, shape_err, Chunks, DType, Result};

/// Refuses indices that are not integers, in NumPy's words.
pub fn check_integer(idx: &NodeRef) -> Result<()> {
    if idx.dtype.is_integer() {
        return Ok(());
    }
    Err(index_err!("arrays used as indices must be of integer (or boolean) type, not {}", idx.dtype))
}

/// `idx` checked against an axis of length `n` and wrapped (negative ones count from the end)
/// to int64; the error of an index outside names it and `axis`. Checked when computed.
pub fn wrap_index(idx: &NodeRef, n: usize, axis: usize) -> Result<NodeRef> {
    check_integer(idx)?;
    Node::checked(NodeKind::WrapIndex { n, axis }, vec![idx.clone()], DType::Int64, idx.chunks.clone())
}

/// The elements of `x` at the integer indices `idx` along `axis`. `idx` has `x`'s ndim, and
/// along every other axis either length one (the same indices for every row) or `x`'s length
/// (`take_along_axis`); the result has `x`'s shape with `idx`'s length along `axis`.
pub fn gather(x: &NodeRef, idx: &NodeRef, axis: usize) -> Result<NodeRef> {
    check_integer(idx)?;
    let (xs, is) = (x.shape(), idx.shape());
    let fits = axis < xs.len() && is.len() == xs.len() && (0..xs.len()).all(|a| a == axis || is[a] == 1 || is[a] == xs[a]);
    if !fits {
        return Err(shape_err!("cannot gather along axis {axis} of an array of shape {} with indices of shape {}", fmt_shape(&xs), fmt_shape(&is)));
    }
    if xs[axis] == 0 && idx.size() > 0 {
        return Err(index_err!("cannot do a non-empty take from an empty axes."));
    }
    let cap = x.chunks.axis(axis).iter().copied().max().unwrap_or(1).max(1);
    let sizes = (0..xs.len())
        .map(|a| match a {
            _ if a == axis => capped(idx.chunks.axis(a), cap),
            _ if is[a] == xs[a] => x.chunks.axis(a).to_vec(),
            _ => vec![1],
        })
        .collect();
    let idx = rechunk(idx, Chunks::new(sizes, &is)?)?;
    let chunks = x.chunks.with_axis(axis, idx.chunks.axis(axis).to_vec());
    Node::checked(NodeKind::Gather { axis }, vec![x.clone(), idx], x.dtype, chunks)
}

/// `sizes` with every block longer than `cap` cut into pieces of at most `cap`.
fn capped(sizes: &[usize], cap: usize) -> Vec<usize> {
    let mut out = Vec::with_capacity(sizes.len());
    for &s in sizes.iter().filter(|&&s| s > 0) {
        out.extend(tegula_core::chunks::split_axis(s, cap));
    }
    if out.is_empty() {
        out.push(0);
    }
    out
}

/// Runs of positions known when planned are taken as slices only while they average at least
/// this many positions (shorter runs gather faster than they concatenate)...
const MIN_AVERAGE_RUN: usize = 4;
/// ...and are at most this many (each is a node of the plan).
const MAX_RUNS: usize = 4096;

/// The elements of `x` at `positions` along `axis` (known now, each in `[0, n)`), as slices of
/// `x` joined, when the positions go up one by one in a few long runs (a month of every year,
/// the days of a period): no gather, and each slice a view of the blocks it lies in. `None`
/// when the runs are too short or too many for that to pay.
pub fn take_runs(x: &NodeRef, positions: &[usize], axis: usize) -> Result<Option<NodeRef>> {
    let runs = ascending_runs(positions);
    if runs.is_empty() || runs.len() > MAX_RUNS || positions.len() < MIN_AVERAGE_RUN * runs.len() {
        return Ok(None);
    }
    let whole = IndexItem::Slice { start: None, stop: None, step: None };
    let parts = runs
        .iter()
        .map(|&(start, len)| {
            let mut items = vec![whole; axis];
            items.push(IndexItem::Slice { start: Some(start as i64), stop: Some((start + len) as i64), step: None });
            index(x, &items)
        })
        .collect::<Result<Vec<_>>>()?;
    match parts.as_slice() {
        [one] => Ok(Some(one.clone())),
        _ => concatenate(&parts, Some(axis as i64)).map(Some),
    }
}

/// `positions` as runs `(first, length)` of consecutive ascending values.
fn ascending_runs(positions: &[usize]) -> Vec<(usize, usize)> {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for &p in positions {
        match runs.last_mut() {
            Some((first, len)) if *first + *len == p => *len += 1,
            _ => runs.push((p, 1)),
        }
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::ascending_runs;

    #[test]
    fn runs_break_where_positions_do_not_go_up_by_one() {
        assert_eq!(ascending_runs(&[3, 4, 5, 9, 10, 2, 2]), vec![(3, 3), (9, 2), (2, 1), (2, 1)]);
        assert!(ascending_runs(&[]).is_empty());
    }
}
