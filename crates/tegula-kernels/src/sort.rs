//! Sorting inside one block: `sort` and `argsort` along an axis (stable, in NumPy's order), and
//! `searchsorted`'s count of a sorted 1-D block's elements before each value.

use crate::chunk::{Block, Chunk, Wrap};
use crate::element::Elem;
use crate::order::SortOrder;
use crate::radix::{sort_positions, sort_values};
use crate::with_chunk;
use ndarray::{ArrayD, Axis, Ix1};
use rayon::prelude::*;
use std::cmp::Ordering;
use tegula_core::{internal_err, Result};

/// `KernelOp::Sort`: `a` sorted stably along `axis` in NumPy's order (NaN last).
pub fn sort(a: &Chunk, axis: usize, descending: bool) -> Result<Chunk> {
    check_axis(a, axis)?;
    Ok(with_chunk!(a, x => {
        let out = by_rows(x, axis, |row: &[_], out: &mut [_]| {
            out.copy_from_slice(row);
            // Stable, so equal elements keep their order both ways (and descending puts NaN first).
            sort_values(out, descending);
        });
        Wrap::wrap(out)
    }))
}

/// The positions that sort `a` along `axis`, counted from `offset`.
pub fn argsort(a: &Chunk, axis: usize, descending: bool, offset: usize) -> Result<Chunk> {
    check_axis(a, axis)?;
    Ok(with_chunk!(a, x => {
        let out = by_rows(x, axis, |row: &[_], out: &mut [i64]| {
            out.iter_mut().enumerate().for_each(|(i, o)| *o = (offset + i) as i64);
            sort_positions(row, out, descending);
        });
        Chunk::Int64(out)
    }))
}

fn check_axis(a: &Chunk, axis: usize) -> Result<()> {
    if axis >= a.ndim() {
        return Err(internal_err!("sort along axis {axis} of a {}-d block", a.ndim()));
    }
    Ok(())
}

/// Blocks of this many elements or more have their rows sorted in parallel.
const PARALLEL: usize = 1 << 16;

/// A block of `a`'s shape whose lanes along `axis` are `f` of `a`'s lanes: the axis is moved
/// last and copied into contiguous rows, each row mapped (in parallel for big blocks), and the
/// axis moved back.
fn by_rows<T: Elem + SortOrder, O: Elem + Default>(a: &Block<T>, axis: usize, f: impl Fn(&[T], &mut [O]) + Sync) -> Block<O> {
    let last = a.ndim() - 1;
    let mut moved = a.view();
    moved.swap_axes(axis, last);
    let rows = moved.as_standard_layout();
    let mut out = ArrayD::from_elem(rows.shape(), O::default());
    let n = a.len_of(Axis(axis)).max(1);
    if let (Some(src), Some(dst)) = (rows.as_slice(), out.as_slice_mut()) {
        if a.len() >= PARALLEL {
            src.par_chunks(n).zip(dst.par_chunks_mut(n)).for_each(|(r, o)| f(r, o));
        } else {
            src.chunks(n).zip(dst.chunks_mut(n)).for_each(|(r, o)| f(r, o));
        }
    }
    if axis == last {
        return out.into();
    }
    out.swap_axes(axis, last);
    out.as_standard_layout().into_owned().into()
}

/// For each element `v` of `values`, the number of elements of `sorted` before `v` in NumPy's
/// order (`right`: not after it): a binary search, as `sorted` is in that order.
pub fn search_count(sorted: &Chunk, values: &Chunk, right: bool) -> Result<Chunk> {
    with_chunk!(sorted, s => count(s, values.typed()?, right))
}

fn count<T: Wrap + SortOrder>(sorted: &Block<T>, values: &Block<T>, right: bool) -> Result<Chunk> {
    let sorted = sorted.view().into_dimensionality::<Ix1>().map_err(|e| internal_err!("searchsorted block: {e}"))?;
    let sorted = sorted.as_standard_layout();
    let s = sorted.as_slice().ok_or_else(|| internal_err!("searchsorted block not contiguous"))?;
    let before = |v: T| {
        let n = if right { s.partition_point(|x| x.order(v) != Ordering::Greater) } else { s.partition_point(|x| x.order(v) == Ordering::Less) };
        n as i64
    };
    Ok(Chunk::Int64(values.map(|&v| before(v)).into()))
}
