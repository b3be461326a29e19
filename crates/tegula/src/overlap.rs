//! Dask's `overlap`, `trim_internal` and `map_overlap`: every block extended by its neighbours'
//! edges (the array's own ends padded by a boundary mode), a function mapped over the extended
//! blocks, and the extensions trimmed off again.
//!
//! Along each axis the array is padded (`pad`), then each block's extended range is one slice
//! of it and the slices are concatenated (which copies nothing), one block each; trimming is the
//! same with shorter slices. Extensions may be longer than the neighbouring blocks.

use crate::array::Array;
use crate::constant::at_axis;
use crate::ops::{IndexItem, PadMode};
use std::sync::Arc;
use tegula_core::grid;
use tegula_core::{value_err, AxisChunks, ChunkSpec, DType, Result};
use tegula_exec::BlockFunction;

/// What lies beyond the array's ends when its end blocks are extended (Dask's `boundary=`).
#[derive(Debug, Clone)]
pub enum Boundary {
    /// Not extended: the end blocks keep their outer edge.
    None,
    /// Mirrored, the edge element included.
    Reflect,
    /// Continued from the other end.
    Periodic,
    /// The edge element repeated.
    Nearest,
    /// A constant (a 0-d array, cast to the array's dtype).
    Constant(Array),
}

impl Array {
    /// Each block extended by `depths` (`[before, after]` per axis) elements of its neighbours;
    /// at the array's ends by `boundaries` (one per axis). With `Boundary::None`, end blocks
    /// shorter than the depth are merged with their neighbours first (as Dask rechunks), unless
    /// `allow_rechunk` is false, which refuses.
    pub fn overlap(&self, depths: &[[usize; 2]], boundaries: &[Boundary], allow_rechunk: bool) -> Result<Array> {
        check_per_axis(self, depths, boundaries)?;
        let mut x = self.clone();
        for (axis, (&[before, after], boundary)) in depths.iter().zip(boundaries).enumerate() {
            x = overlap_axis(&x, axis, before, after, boundary, allow_rechunk)?;
        }
        Ok(x)
    }

    /// `depths` removed from both sides of every block, except the array's ends with
    /// `Boundary::None`, which had none (Dask's `trim_internal`).
    pub fn trim_internal(&self, depths: &[[usize; 2]], boundaries: &[Boundary]) -> Result<Array> {
        check_per_axis(self, depths, boundaries)?;
        let mut x = self.clone();
        for (axis, (&[before, after], boundary)) in depths.iter().zip(boundaries).enumerate() {
            x = trim_axis(&x, axis, before, after, boundary)?;
        }
        Ok(x)
    }

    /// `function` of each block of `inputs` (on one block grid) extended by `depths` of its
    /// neighbours, its result of the extended block's shape and of `dtype`, the extensions then
    /// trimmed off (Dask's `map_overlap` for a stencil).
    pub fn map_overlap(
        inputs: &[&Array],
        function: Arc<dyn BlockFunction>,
        name: &str,
        depths: &[[usize; 2]],
        boundaries: &[Boundary],
        dtype: DType,
    ) -> Result<Array> {
        let extended = inputs.iter().map(|a| a.overlap(depths, boundaries, true)).collect::<Result<Vec<_>>>()?;
        let chunks = extended.first().ok_or_else(|| value_err!("map_overlap needs at least one array"))?.chunks().clone();
        let mapped = Array::map_blocks(&extended.iter().collect::<Vec<_>>(), function, name, chunks, dtype)?;
        mapped.trim_internal(depths, boundaries)
    }
}

fn check_per_axis(x: &Array, depths: &[[usize; 2]], boundaries: &[Boundary]) -> Result<()> {
    if depths.len() != x.ndim() || boundaries.len() != x.ndim() {
        return Err(value_err!("depth and boundary need one entry per axis ({})", x.ndim()));
    }
    Ok(())
}

/// Block lengths with the first block at least `before` long and the last at least `after`
/// (end blocks merged with their neighbours), so that with `Boundary::None` every other block
/// has its whole extension and `trim_internal` knows what to trim.
fn ends_at_least(lengths: &[usize], before: usize, after: usize) -> Vec<usize> {
    let mut lengths = lengths.to_vec();
    while lengths.len() > 1 && lengths[0] < before {
        let merged = lengths[0] + lengths[1];
        lengths.splice(0..2, [merged]);
    }
    while lengths.len() > 1 && lengths[lengths.len() - 1] < after {
        let n = lengths.len();
        let merged = lengths[n - 2] + lengths[n - 1];
        lengths.splice(n - 2..n, [merged]);
    }
    lengths
}

/// The `[start, stop)` ranges of the blocks along `axis`.
fn block_ranges(x: &Array, axis: usize) -> Vec<(usize, usize)> {
    grid::block_ranges(&x.chunks().sizes()[axis]).into_iter().map(|r| (r.start, r.end)).collect()
}

fn with_axis(x: &Array, axis: usize, lengths: Vec<usize>) -> Result<Array> {
    let mut sizes = x.chunks().sizes().to_vec();
    sizes[axis] = lengths;
    x.rechunk(&ChunkSpec::PerAxis(sizes.into_iter().map(AxisChunks::Explicit).collect()))
}

fn overlap_axis(x: &Array, axis: usize, before: usize, after: usize, boundary: &Boundary, allow_rechunk: bool) -> Result<Array> {
    let n = x.shape()[axis];
    if n == 0 || before == 0 && after == 0 {
        return Ok(x.clone());
    }
    if let Boundary::None = boundary {
        let lengths = &x.chunks().sizes()[axis];
        let ends = ends_at_least(lengths, before, after);
        let x = if &ends == lengths {
            x.clone()
        } else if allow_rechunk {
            with_axis(x, axis, ends)?
        } else {
            return Err(value_err!("the end blocks along axis {axis} are shorter than the depth; pass allow_rechunk=True"));
        };
        let ranges = block_ranges(&x, axis).into_iter().map(|(a, b)| (a.saturating_sub(before), (b + after).min(n))).collect();
        return along(&x, axis, ranges);
    }
    let mut widths = vec![[0, 0]; x.ndim()];
    widths[axis] = [before, after];
    let mode = match boundary {
        Boundary::Reflect => PadMode::Symmetric { odd: false },
        Boundary::Periodic => PadMode::Wrap,
        Boundary::Nearest => PadMode::Edge,
        Boundary::Constant(value) => PadMode::Constant(vec![[value.clone(), value.clone()]; x.ndim()]),
        Boundary::None => unreachable!("handled above"),
    };
    let ranges = block_ranges(x, axis).into_iter().map(|(a, b)| (a, b + before + after)).collect();
    along(&x.pad(&widths, &mode)?, axis, ranges)
}

fn trim_axis(x: &Array, axis: usize, before: usize, after: usize, boundary: &Boundary) -> Result<Array> {
    if x.shape()[axis] == 0 || before == 0 && after == 0 {
        return Ok(x.clone());
    }
    let ranges = block_ranges(x, axis);
    let last = ranges.len() - 1;
    let none = matches!(boundary, Boundary::None);
    let mut trimmed = Vec::with_capacity(ranges.len());
    for (i, (start, stop)) in ranges.into_iter().enumerate() {
        let cut_before = if none && i == 0 { 0 } else { before };
        let cut_after = if none && i == last { 0 } else { after };
        if cut_before + cut_after > stop - start {
            return Err(value_err!("blocks along axis {axis} are shorter than the depth to trim"));
        }
        trimmed.push((start + cut_before, stop - cut_after));
    }
    along(x, axis, trimmed)
}

/// The slices `[start, stop)` of `x` along `axis`, concatenated, one block each.
fn along(x: &Array, axis: usize, ranges: Vec<(usize, usize)>) -> Result<Array> {
    let pieces = ranges
        .iter()
        .map(|&(a, b)| {
            x.index(&at_axis(x.ndim(), axis, IndexItem::Slice { start: Some(a as i64), stop: Some(b as i64), step: None }))
        })
        .collect::<Result<Vec<_>>>()?;
    let out = if pieces.len() == 1 { pieces[0].clone() } else { Array::concatenate(&pieces.iter().collect::<Vec<_>>(), Some(axis as i64))? };
    let lengths: Vec<usize> = ranges.iter().map(|(a, b)| b - a).collect();
    if out.chunks().sizes()[axis] == lengths {
        Ok(out)
    } else {
        with_axis(&out, axis, lengths)
    }
}
