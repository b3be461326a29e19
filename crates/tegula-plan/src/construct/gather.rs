//! Integer-array indexing as plan nodes: checking indices, and gathering along one axis.
//!
//! A gather needs no index value to be planned (indices may be lazy): output block (blocks of
//! the other axes, index block `j`) is a chain of one task per block `i` of x along the axis,
//! each taking the result so far, x block `i` and index block `j`, and filling the positions
//! whose index falls in block `i` (`lower/gather.rs`). Index blocks are cut to x's longest
//! block along the axis, so an output block is never larger than an x block: a task holds one
//! x block, one index block and two output blocks.

use super::creation::full;
use super::elementwise::where_;
use super::join::concatenate;
use super::layout::{index, rechunk, IndexItem};
use crate::node::{Node, NodeKind, NodeRef};
use tegula_core::shape::fmt_shape;
use tegula_core::{index_err, shape_err, Chunks, DType, Result, Scalar};

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
    check_take_along(x, idx, axis)?;
    let cap = x.chunks.axis(axis).iter().copied().max().unwrap_or(1).max(1);
    let idx = rechunk(idx, aligned_index_chunks(x, idx, axis, capped(idx.chunks.axis(axis), cap))?)?;
    let chunks = x.chunks.with_axis(axis, idx.chunks.axis(axis).to_vec());
    Node::checked(NodeKind::Gather { axis }, vec![x.clone(), idx], x.dtype, chunks)
}

/// Refuses `idx` as positions to take along `axis` of `x` unless it is an integer array of
/// `x`'s ndim whose other axes have length one (the same positions for every lane) or `x`'s
/// length, and takes nothing from an empty axis (NumPy's errors).
pub(crate) fn check_take_along(x: &NodeRef, idx: &NodeRef, axis: usize) -> Result<()> {
    check_integer(idx)?;
    let (xs, is) = (x.shape(), idx.shape());
    let fits = axis < xs.len() && is.len() == xs.len() && (0..xs.len()).all(|a| a == axis || is[a] == 1 || is[a] == xs[a]);
    if !fits {
        return Err(shape_err!("cannot take along axis {axis} of an array of shape {} with indices of shape {}", fmt_shape(&xs), fmt_shape(&is)));
    }
    if xs[axis] == 0 && idx.size() > 0 {
        return Err(index_err!("cannot do a non-empty take from an empty axes."));
    }
    Ok(())
}

/// Chunks for positions `idx` (checked by `check_take_along`) that match `x`'s blocks along
/// every axis `idx` spans, one block where it has length one, and `along` along `axis`.
pub(crate) fn aligned_index_chunks(x: &NodeRef, idx: &NodeRef, axis: usize, along: Vec<usize>) -> Result<Chunks> {
    let (xs, is) = (x.shape(), idx.shape());
    let mut sizes: Vec<Vec<usize>> = (0..xs.len()).map(|a| if is[a] == xs[a] { x.chunks.axis(a).to_vec() } else { vec![1] }).collect();
    sizes[axis] = along;
    Chunks::new(sizes, &is)
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

/// A stretch of known positions: consecutive ones going up by one, or one position repeated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Run {
    Ascending { first: usize, len: usize },
    Repeated { at: usize, len: usize },
}

/// The elements of `x` at `positions` along `axis` (known now, each in `[0, n)`), as slices of
/// `x` joined, when the positions come in a few long runs going up by one (a month of every
/// year, the days of a period) or repeating one position (a climatology expanded to every
/// day): no gather, and each slice a view of the blocks it lies in (a repeated one broadcast).
/// `None` when the runs are too short or too many for that to pay.
pub fn take_runs(x: &NodeRef, positions: &[usize], axis: usize) -> Result<Option<NodeRef>> {
    let runs = runs(positions);
    if runs.is_empty() || runs.len() > MAX_RUNS || positions.len() < MIN_AVERAGE_RUN * runs.len() {
        return Ok(None);
    }
    let slice = |start: usize, stop: usize| {
        let mut items = vec![IndexItem::Slice { start: None, stop: None, step: None }; axis];
        items.push(IndexItem::Slice { start: Some(start as i64), stop: Some(stop as i64), step: None });
        index(x, &items)
    };
    let parts = runs
        .iter()
        .map(|&run| match run {
            Run::Ascending { first, len } => slice(first, first + len),
            Run::Repeated { at, len } => {
                let one = slice(at, at + 1)?;
                let everywhere = full(Scalar::Bool(true), DType::Bool, one.chunks.with_axis(axis, vec![len]))?;
                where_(&everywhere, &one, &one)
            }
        })
        .collect::<Result<Vec<_>>>()?;
    match parts.as_slice() {
        [one] => Ok(Some(one.clone())),
        _ => concatenate(&parts, Some(axis as i64)).map(Some),
    }
}

/// `positions` as runs, each as long as it can be, in order.
fn runs(positions: &[usize]) -> Vec<Run> {
    let mut runs: Vec<Run> = Vec::new();
    for &p in positions {
        let longer = match runs.last().copied() {
            Some(Run::Ascending { first, len }) if first + len == p => Some(Run::Ascending { first, len: len + 1 }),
            Some(Run::Ascending { first, len: 1 }) if first == p => Some(Run::Repeated { at: p, len: 2 }),
            Some(Run::Repeated { at, len }) if at == p => Some(Run::Repeated { at, len: len + 1 }),
            _ => None,
        };
        match (longer, runs.last_mut()) {
            (Some(run), Some(last)) => *last = run,
            _ => runs.push(Run::Ascending { first: p, len: 1 }),
        }
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::{runs, Run};

    #[test]
    fn runs_go_up_by_one_or_repeat_a_position() {
        let expected = [
            Run::Ascending { first: 3, len: 3 },
            Run::Ascending { first: 9, len: 2 },
            Run::Repeated { at: 2, len: 3 },
            Run::Ascending { first: 3, len: 1 },
            Run::Repeated { at: 0, len: 2 },
        ];
        assert_eq!(runs(&[3, 4, 5, 9, 10, 2, 2, 2, 3, 0, 0]), expected);
        assert!(runs(&[]).is_empty());
    }
}
