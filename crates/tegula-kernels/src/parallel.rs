//! Parallelism inside one block, so that a single big chunk still uses every core: a block's
//! flat range is cut into consecutive groups that run on the current rayon pool (the threaded
//! executor's workers; the serial executor's pool has one thread). Group boundaries depend
//! only on the block's size, never on the number of threads, so neither do results.

use crate::chunk::{Chunk, Wrap};
use crate::element::Elem;
use tegula_core::memory::big_vec;
use crate::tiles::TILE;
use crate::with_dtype;
use ndarray::Array;
use rayon::prelude::*;
use std::cell::Cell;
use std::mem::MaybeUninit;
use std::ops::Range;
use tegula_core::{internal_err, DType, Result};

thread_local! {
    /// What the executor told this thread about its pool while it runs a task (`with_spare_threads`).
    static SPARE: Cell<Option<usize>> = const { Cell::new(None) };
}

/// Runs `f` (one task's kernel) telling the kernels it calls that `spare` of the pool's
/// threads have no task of their own. Kernels whose parallel form costs more than it gains
/// when every thread is busy (a GEMM's threads share packed panels and wait for each other)
/// then run on the calling thread alone.
pub fn with_spare_threads<R>(spare: usize, f: impl FnOnce() -> R) -> R {
    let before = SPARE.replace(Some(spare));
    let out = f();
    SPARE.set(before);
    out
}

/// The threads a kernel may use beside the calling one: those the executor said are spare, or
/// any of the pool's (`None`) when it said nothing.
pub fn spare_threads() -> Option<usize> {
    SPARE.get()
}

/// Elements per group: enough work (2 MB of float64) to outweigh handing it to another thread.
const GROUP: usize = 64 * TILE;
/// At most this many groups, so that reductions hold few partials at once.
const MAX_GROUPS: usize = 64;

/// Consecutive ranges of `units` units of `unit` elements each (tiles of a block, bands of
/// rows): about `GROUP` elements per range, at most `MAX_GROUPS` ranges, one range when empty.
pub fn groups(units: usize, unit: usize) -> Vec<Range<usize>> {
    groups_of_at_least(units, unit, 1)
}

/// `groups`, with at least `least` units in each range but the last.
pub fn groups_of_at_least(units: usize, unit: usize, least: usize) -> Vec<Range<usize>> {
    let per_group = (GROUP / unit.max(1)).max(least).max(1).max(units.div_ceil(MAX_GROUPS));
    let count = units.div_ceil(per_group).max(1);
    (0..count).map(|g| (g * per_group).min(units)..((g + 1) * per_group).min(units)).collect()
}

/// `f` of every range, in order, computed in parallel when there is more than one.
pub fn map_groups<R: Send>(ranges: Vec<Range<usize>>, f: impl Fn(Range<usize>) -> Result<R> + Sync + Send) -> Result<Vec<R>> {
    if ranges.len() <= 1 {
        return ranges.into_iter().map(f).collect();
    }
    ranges.into_par_iter().map(f).collect()
}

/// A 1-D chunk of `size` elements of `dtype` whose pieces `fill(start, len)` writes in
/// parallel, straight into the result (no per-piece copies joined by one thread).
pub fn build_1d(dtype: DType, size: usize, fill: impl Fn(usize, usize) -> Result<Chunk> + Sync + Send) -> Result<Chunk> {
    with_dtype!(dtype, T => build::<T, ()>(size, |start, slots, _| {
        let part = fill(start, slots.len())?;
        let values = part.typed::<T>()?;
        let values = values.as_slice().ok_or_else(|| internal_err!("a tile is not contiguous"))?;
        write_all(slots, values)
    }))
}

/// A 1-D float64 chunk of `size` elements whose tiles `fill(start, out, scratch)` writes in
/// parallel; each thread has its own scratch `S` and tile buffer.
pub fn build_f64<S: Default>(size: usize, fill: impl Fn(usize, &mut [f64], &mut S) -> Result<()> + Sync + Send) -> Result<Chunk> {
    build::<f64, (S, Vec<f64>)>(size, |start, slots, (scratch, buf)| {
        buf.resize(slots.len(), 0.0);
        fill(start, buf, scratch)?;
        write_all(slots, buf)
    })
}

fn write_all<T: Copy>(slots: &mut [MaybeUninit<T>], values: &[T]) -> Result<()> {
    let values = values.get(..slots.len()).ok_or_else(|| internal_err!("short tile"))?;
    slots.iter_mut().zip(values).for_each(|(slot, v)| {
        slot.write(*v);
    });
    Ok(())
}

/// A 1-D chunk of `size` elements whose tiles `write(start, slots, state)` initialises, groups
/// of tiles in parallel, each group with its own `state`.
fn build<T: Elem + Wrap, S: Default>(
    size: usize,
    write: impl Fn(usize, &mut [MaybeUninit<T>], &mut S) -> Result<()> + Sync,
) -> Result<Chunk> {
    let tiles = size.div_ceil(TILE);
    // Left uninitialised so that the pages are first touched by the threads that fill them.
    let mut data: Vec<T> = big_vec(size);
    let mut pieces: Vec<(usize, &mut [MaybeUninit<T>])> = Vec::new();
    let mut rest = &mut data.spare_capacity_mut()[..size];
    for g in groups(tiles, TILE) {
        let len = (g.end * TILE).min(size) - g.start * TILE;
        let (piece, tail) = rest.split_at_mut(len);
        pieces.push((g.start * TILE, piece));
        rest = tail;
    }
    let write_piece = |(start, piece): (usize, &mut [MaybeUninit<T>])| -> Result<()> {
        let mut state = S::default();
        for (i, slots) in piece.chunks_mut(TILE).enumerate() {
            write(start + i * TILE, slots, &mut state)?;
        }
        Ok(())
    };
    if pieces.len() <= 1 {
        pieces.into_iter().try_for_each(write_piece)?;
    } else {
        pieces.into_par_iter().try_for_each(write_piece)?;
    }
    // SAFETY: every tile was written in full (`write_all` fails on a short one, and a failing
    // piece returned above), and the pieces cover the first `size` elements.
    unsafe { data.set_len(size) };
    Ok(T::wrap(Array::from_vec(data).into_dyn().into()))
}
