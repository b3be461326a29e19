//! Whole-block reductions of float64 values written straight into a buffer (the float64
//! tape's output): the same tiles, groups, folds and merges as `reduce_flat`, on plain numbers
//! instead of one-element chunks, so both give bit-identical results without allocating per
//! tile.

use crate::ahead::{windows, Ahead, LONG_ROW};
use crate::chunk::Chunk;
use crate::element::{Num, Ordered};
use crate::parallel::{groups, map_groups};
use crate::lanes::LaneFold;
use crate::reduce::{band_groups, band_rows, combine_flat, merge_moment, reduce_bands, reduce_combine, slice_moments};
use crate::shifted_moments::ShiftedMoments;
use crate::strided::Strided;
use crate::tiles::TILE;
use ndarray::{Array, IxDyn};
use std::ops::Range;
use tegula_core::{internal_err, DType, PartialReduce, Result};

/// The partial reduction over every axis of an `ndim`-dimensional block of `size` float64
/// values, or `None` when `op` is not a float64 reduction (or the block is empty) and
/// `reduce_flat` must do it. `spans(start, len, scratch, sink)` hands the values at
/// `start .. start + len` to `sink` in consecutive pieces, each but the last a multiple of
/// eight long; `S` is per-thread scratch.
pub fn reduce_flat_f64<S: Default>(
    op: PartialReduce,
    ndim: usize,
    size: usize,
    spans: impl Fn(usize, usize, &mut S, &mut dyn FnMut(&[f64])) -> Result<()> + Sync + Send,
) -> Option<Result<Chunk>> {
    let fold = Fold::of(op).filter(|_| size > 0)?;
    let tiles = size.div_ceil(TILE);
    let partials = map_groups(groups(tiles, TILE), |group| {
        let (mut scratch, mut buf) = (S::default(), Vec::with_capacity(TILE));
        let mut acc: Option<[f64; 3]> = None;
        for t in group {
            let start = t * TILE;
            let part = fold.tile(start, TILE.min(size - start), &mut |s, len, sink| spans(s, len, &mut scratch, sink), &mut buf)?;
            acc = Some(acc.map_or(part, |a| fold.merge(a, part)));
        }
        fold.chunk(acc.ok_or_else(|| internal_err!("a group without tiles"))?)
    });
    Some(partials.and_then(|p| combine_flat(op, ndim, &p)))
}

/// The partial reduction over the first axis (only) of a block of `shape` (at least 2-D) of
/// float64 values, which `fill(start, out, scratch)` writes for the row-major positions
/// `start .. start + out.len()`; `None` when `op` is not a sum, product, minimum or maximum
/// (NaN-skipping or not), NaN-skipping sum and count or moments in float64, or the block is
/// empty.
/// The bands, groups and order of operations of `reduce_bands`, so the same rounding, but
/// into buffers each group reuses: no chunk is made per band.
pub fn reduce_rows_f64<S: Default>(
    op: PartialReduce,
    shape: &[usize],
    fill: impl Fn(usize, &mut [f64], &mut S) -> Result<()> + Sync + Send,
) -> Option<Result<Chunk>> {
    let row: usize = shape.iter().skip(1).product();
    fold_rows(op, shape, |first, rows, (scratch, values): &mut (S, Vec<f64>), each: &mut dyn FnMut(&[&[f64]], Ahead)| {
        values.resize(rows * row, 0.0);
        fill(first * row, values, scratch)?;
        each(&values.chunks_exact(row).collect::<Vec<_>>(), Ahead::NONE);
        Ok(())
    })
}

/// The partial reduction over the first axis of a row-major float32 block into float64 (a
/// sum, product or NaN-skipping sum and count: the mean and nanmean of float32), each band of
/// rows widened as it is read; `None` for any other block or reduction. Casting the block
/// first made a float64 copy of it, twice its size, and one fresh partial per band.
pub fn reduce_rows_widened(op: PartialReduce, axes: &[usize], a: &Chunk) -> Option<Result<Chunk>> {
    let wide = matches!(
        op,
        PartialReduce::Sum { acc: DType::Float64 }
            | PartialReduce::Prod { acc: DType::Float64 }
            | PartialReduce::NanSum { acc: DType::Float64 }
            | PartialReduce::NanSumCount { acc: DType::Float64 }
    );
    if !wide || axes != [0] {
        return None;
    }
    let values = a.typed::<f32>().ok()?.as_slice()?;
    reduce_rows_f64(op, a.shape(), |start, out: &mut [f64], _: &mut ()| {
        let len = out.len();
        out.iter_mut().zip(&values[start..start + len]).for_each(|(o, &x)| *o = f64::from(x));
        Ok(())
    })
}

/// Rows handed to a fold at once when each row is a band of its own: read side by side, they
/// keep several memory streams in flight (a row of a window of a larger array is one short run
/// of memory, whose start the hardware prefetcher does not foresee).
const STREAMS: usize = 4;

/// Lanes of a reduction over the last axis read side by side, a `PIECE` of each in turn: eight
/// lanes of 256 values ran `mean(axis=1)` of 1000² blocks a fifth faster than four of 512, and
/// sixteen of 128 another 5-10% on an Intel Xeon.
const LANE_STREAMS: usize = 16;

/// Bytes of lanes read side by side for moments, whose second pass (the squared deviations)
/// reads them again: a batch that fits the level-2 cache is read from there, not from memory
/// (sixteen lanes of 20,000 values, 2.5 MB, made `std(axis=1)` of 1000 × 20000 blocks read at
/// 0.48 of the memory's bandwidth).
const MOMENT_BATCH_BYTES: usize = 256 * 1024;

/// Lanes of `len` values that `fold` reads side by side.
fn lane_streams(fold: Fold, len: usize) -> usize {
    match fold {
        Fold::Moments | Fold::NanMoments => (MOMENT_BATCH_BYTES / (8 * len.max(1))).clamp(1, LANE_STREAMS),
        _ => LANE_STREAMS,
    }
}

/// `reduce_rows_f64` over rows that `visit(first, rows, scratch, each)` hands to `each`
/// together, rows `first .. first + rows` of the block (a band, or `STREAMS` one-row bands),
/// with the rows after them where they lie in memory (`Ahead`).
fn fold_rows<S: Default>(
    op: PartialReduce,
    shape: &[usize],
    visit: impl Fn(usize, usize, &mut S, &mut dyn FnMut(&[&[f64]], Ahead)) -> Result<()> + Sync + Send,
) -> Option<Result<Chunk>> {
    let (rows, row) = (*shape.first()?, shape[1..].iter().product::<usize>());
    if rows == 0 || row == 0 || shape.len() < 2 {
        return None;
    }
    if op == PartialReduce::Moments {
        return Some(moments_of_rows(shape, visit));
    }
    let fold = Fold::of(op).filter(|f| !matches!(f, Fold::Moments | Fold::NanMoments))?;
    let band = band_rows(row);
    // A band of one row is that row, folded straight into the running partial.
    let (step, straight) = if band == 1 { (STREAMS, true) } else { (band, false) };
    let partials = map_groups(band_groups(rows, row), |group| {
        let mut scratch = S::default();
        let mut acc: Option<Vec<f64>> = None;
        let (start, end) = (group.start * band, (group.end * band).min(rows));
        for first in (start..end).step_by(step) {
            visit(first, step.min(end - first), &mut scratch, &mut |batch, ahead| fold.band_into(&mut acc, batch, straight, ahead))?;
        }
        let acc = acc.ok_or_else(|| internal_err!("a group without bands"))?;
        let keep = match op.stacked() {
            Some(stacked) => [&[stacked, 1][..], &shape[1..]].concat(),
            None => [&[1][..], &shape[1..]].concat(),
        };
        Array::from_shape_vec(IxDyn(&keep), acc).map(|a| Chunk::Float64(a.into())).map_err(|e| internal_err!("partial: {e}"))
    });
    Some(partials.and_then(|p| reduce_combine(op, &p)))
}

/// The partial reduction over the last axis alone of a float64 block of `shape` whose rows
/// (lanes) `lane(r)` gives in place, or `None` when `op` has no float64 fold here or lanes are
/// shorter than sixteen (they fold as strided slices elsewhere). Each lane is folded as
/// `reduce_bands` folds it (`fold_slice_map`, or `slice_moments`), so with the same values, but
/// `LANE_STREAMS` lanes are read side by side a piece at a time: one lane after another, each a
/// short run of memory, kept too few reads in flight to reach the memory's bandwidth.
pub fn reduce_lanes_f64<'m>(op: PartialReduce, shape: &[usize], lane: impl Fn(usize) -> &'m [f64] + Sync + Send) -> Option<Result<Chunk>> {
    let fold = Fold::of(op).filter(|f| !matches!(f, Fold::NanMoments))?;
    let (&len, outer) = shape.split_last()?;
    let lanes: usize = outer.iter().product();
    if len < 2 * crate::lanes::LANES || lanes == 0 {
        return None;
    }
    let streams = lane_streams(fold, len);
    let values = map_groups(groups(lanes.div_ceil(streams), streams * len), |group| {
        let mut folded = Vec::with_capacity(group.len() * streams);
        let batch = |first: usize| (first.min(lanes)..(first + streams).min(lanes)).map(&lane).collect::<Vec<_>>();
        // Long lanes are long memory streams, which the hardware prefetcher follows: asking
        // for the next batch as well ran `mean(axis=1)` of 10000² blocks a quarter slower.
        let ahead = |first: usize| if len > LONG_ROW { Vec::new() } else { batch(first) };
        for first in group.map(|batch| batch * streams) {
            folded.extend(fold.lanes(&batch(first), len, Ahead(&ahead(first + streams))));
        }
        Ok(folded)
    });
    Some(values.and_then(|values| {
        let values: Vec<[f64; 3]> = values.into_iter().flatten().collect();
        let rows = match fold {
            Fold::Moments => 3,
            Fold::NanSumCount => 2,
            _ => 1,
        };
        let mut keep = shape.to_vec();
        keep[outer.len()] = 1;
        if rows > 1 {
            keep.insert(0, rows);
        }
        let out: Vec<f64> = (0..rows).flat_map(|k| values.iter().map(move |v| v[k])).collect();
        Array::from_shape_vec(IxDyn(&keep), out).map(|a| Chunk::Float64(a.into())).map_err(|e| internal_err!("lanes partial: {e}"))
    }))
}

/// Values of a lane's pieces handed to its fold at a time, a multiple of `LANES`.
const PIECE: usize = 128;

/// Folds of lanes read side by side, a piece of each in turn, the same piece of the `i`-th
/// lane `ahead` asked for with the `i`-th lane's.
fn side_by_side(lanes: &[&[f64]], len: usize, map: impl Fn(f64) -> f64 + Copy, f: impl Fn(f64, f64) -> f64 + Copy, ahead: Ahead) -> Vec<f64> {
    let mut folds: Vec<LaneFold<f64>> = lanes.iter().map(|_| LaneFold::new(len)).collect();
    for start in (0..len).step_by(PIECE) {
        let end = (start + PIECE).min(len);
        for (i, (fold, lane)) in folds.iter_mut().zip(lanes).enumerate() {
            ahead.columns_of(i, start..end);
            push(fold, &lane[start..end], map, f);
        }
    }
    folds.into_iter().map(|fold| fold.finish(f).unwrap_or(f64::NAN)).collect()
}

/// `fold_rows` for moments: each group's rows into shifted sums (`ShiftedMoments`, the groups
/// of `reduce_bands`, which does the same, so the same values), the groups' partials merged.
fn moments_of_rows<S: Default>(
    shape: &[usize],
    visit: impl Fn(usize, usize, &mut S, &mut dyn FnMut(&[&[f64]], Ahead)) -> Result<()> + Sync + Send,
) -> Result<Chunk> {
    let (rows, row) = (shape[0], shape[1..].iter().product::<usize>());
    let band = band_rows(row);
    // Rows of one band each go four times `STREAMS` at a time: every batch reads and writes the
    // two sums of a whole row, which for a few rows cost more than the rows themselves.
    let step = if band == 1 { 4 * STREAMS } else { band };
    let partials = map_groups(band_groups(rows, row), |group| {
        let mut scratch = S::default();
        let mut acc: Option<ShiftedMoments> = None;
        let (start, end) = (group.start * band, (group.end * band).min(rows));
        for first in (start..end).step_by(step) {
            visit(first, step.min(end - first), &mut scratch, &mut |batch, ahead| ShiftedMoments::extend(&mut acc, batch, ahead))?;
        }
        let acc = acc.ok_or_else(|| internal_err!("a group without rows"))?;
        Ok(Chunk::Float64(acc.finish(&shape[1..])?.into()))
    })?;
    reduce_combine(PartialReduce::Moments, &partials)
}

/// The partial reduction over the first axis or the last axis alone of a row-major float64
/// block of at least two dimensions, its rows read where they lie (`fold_rows`,
/// `reduce_lanes_f64`) instead of copied a band at a time; `None` for any other block or
/// reduction, which `reduce_partial` reduces to the same values.
pub fn reduce_row_major_f64(op: PartialReduce, axes: &[usize], a: &Chunk) -> Option<Result<Chunk>> {
    let values = a.typed::<f64>().ok()?.as_slice()?;
    let shape = a.shape();
    let last = shape.len().checked_sub(1).filter(|&last| last > 0)?;
    let len = shape[last];
    if axes == [last] {
        return reduce_lanes_f64(op, shape, |r| &values[r * len..(r + 1) * len]);
    }
    if axes != [0] {
        return None;
    }
    let row: usize = shape[1..].iter().product();
    let rows_from = |first: usize, rows: usize| {
        let (first, end) = (first.min(shape[0]), (first + rows).min(shape[0]));
        values[first * row..end * row].chunks_exact(row).collect::<Vec<_>>()
    };
    fold_rows(op, shape, |first, rows, _: &mut (), each: &mut dyn FnMut(&[&[f64]], Ahead)| {
        each(&rows_from(first, rows), Ahead(&rows_from(first + rows, rows)));
        Ok(())
    })
}

/// The partial reduction over `axes` (at least one) of a float64 block that is not row-major
/// (a window of an in-memory array, a transpose), read where it lies a tile or band at a time
/// instead of copied to row-major order first (a block-sized allocation and a pass over
/// memory); `None` for any other block, which `reduce_partial` reduces. The same tiles, bands
/// and folds as `reduce_partial`, so the same values.
pub fn reduce_strided_f64(op: PartialReduce, axes: &[usize], a: &Chunk) -> Option<Result<Chunk>> {
    let block = a.typed::<f64>().ok()?;
    if axes.is_empty() || block.len() <= 1 || block.is_standard_layout() {
        return None;
    }
    let shape = a.shape();
    let strided = Strided::new(a, shape)?;
    let memory = match strided.memory() {
        Ok(memory) => memory,
        Err(e) => return Some(Err(e)),
    };
    let gather = |start: usize, out: &mut [f64]| strided.gather(memory, start, out);
    if axes == [0] {
        let row: usize = shape[1..].iter().product();
        // Rows read where they lie when each is contiguous (then all are: each lies in one
        // run of the innermost axis), else a band gathered at once.
        let rows_lie_whole = strided.contiguous(memory, 0, row).is_some();
        let rows_from = |first: usize, rows: usize| {
            (first..(first + rows).min(shape[0]))
                .map(|r| strided.contiguous(memory, r * row, row).ok_or_else(|| internal_err!("row {r} of a window is not contiguous")))
                .collect::<Result<Vec<_>>>()
        };
        let visit = |first: usize, rows: usize, buf: &mut Vec<f64>, each: &mut dyn FnMut(&[&[f64]], Ahead)| {
            if rows_lie_whole {
                each(&rows_from(first, rows)?, Ahead(&rows_from(first + rows, rows)?));
            } else {
                buf.resize(rows * row, 0.0);
                gather(first * row, buf);
                each(&buf.chunks_exact(row).collect::<Vec<_>>(), Ahead::NONE);
            }
            Ok(())
        };
        if let Some(partial) = fold_rows(op, shape, visit) {
            return Some(partial);
        }
    }
    if axes == [shape.len() - 1] {
        let len = shape[shape.len() - 1];
        let lanes: Option<Vec<&[f64]>> = (0..block.len() / len.max(1)).map(|r| strided.contiguous(memory, r * len, len)).collect();
        if let Some(partial) = lanes.and_then(|lanes| reduce_lanes_f64(op, shape, |r| lanes[r])) {
            return Some(partial);
        }
    }
    if axes.len() == shape.len() {
        let spans = |start, len, buf: &mut Vec<f64>, sink: &mut dyn FnMut(&[f64])| {
            strided.spans(memory, start, len, buf, sink);
            Ok(())
        };
        if let Some(partial) = reduce_flat_f64(op, shape.len(), block.len(), spans) {
            return Some(partial);
        }
    }
    Some(reduce_bands(op, axes, shape, |start, len| {
        let mut values = vec![0.0; len];
        gather(start, &mut values);
        Ok(Chunk::Float64(Array::from_vec(values).into_dyn().into()))
    }))
}

/// What an element adds to a count of the elements that are not NaN.
fn counted(x: f64) -> f64 {
    if x.is_nan() { 0.0 } else { 1.0 }
}

type Spans<'a> = dyn FnMut(usize, usize, &mut dyn FnMut(&[f64])) -> Result<()> + 'a;

/// `$body` with `$map` (what a value adds: itself, or 0 for a NaN a sum skips) and `$combine`
/// (how two partials combine) bound to the operations of the plain fold `$plain`: the one table
/// of those operations, expanded per fold so that each loop is compiled, and vectorised, for it.
macro_rules! with_ops {
    ($plain:expr, |$map:ident, $combine:ident| $body:expr) => {
        match $plain {
            Plain::Sum => { let ($map, $combine) = (|x: f64| x, <f64 as Num>::add); $body }
            Plain::Prod => { let ($map, $combine) = (|x: f64| x, <f64 as Num>::mul); $body }
            Plain::Min => { let ($map, $combine) = (|x: f64| x, <f64 as Ordered>::min_nan); $body }
            Plain::Max => { let ($map, $combine) = (|x: f64| x, <f64 as Ordered>::max_nan); $body }
            Plain::NanSum => { let ($map, $combine) = (<f64 as Ordered>::zero_nan, <f64 as Num>::add); $body }
            Plain::NanMin => { let ($map, $combine) = (|x: f64| x, <f64 as Ordered>::min_skip_nan); $body }
            Plain::NanMax => { let ($map, $combine) = (|x: f64| x, <f64 as Ordered>::max_skip_nan); $body }
        }
    };
}

/// A fold to one value per element: each value mapped, then combined into the partial.
#[derive(Clone, Copy)]
enum Plain {
    Sum,
    Prod,
    Min,
    Max,
    NanSum,
    NanMin,
    NanMax,
}

/// A float64 reduction on plain numbers: (value, 0, 0), or (count, mean, M2) for moments.
#[derive(Clone, Copy)]
enum Fold {
    Plain(Plain),
    /// NaN-skipping sum and count: (sum, count, 0); rows of sums, then rows of counts.
    NanSumCount,
    Moments,
    NanMoments,
}

impl Fold {
    fn of(op: PartialReduce) -> Option<Fold> {
        match op {
            PartialReduce::Sum { acc: DType::Float64 } => Some(Fold::Plain(Plain::Sum)),
            PartialReduce::Prod { acc: DType::Float64 } => Some(Fold::Plain(Plain::Prod)),
            PartialReduce::Min => Some(Fold::Plain(Plain::Min)),
            PartialReduce::Max => Some(Fold::Plain(Plain::Max)),
            PartialReduce::NanSum { acc: DType::Float64 } => Some(Fold::Plain(Plain::NanSum)),
            PartialReduce::NanMin => Some(Fold::Plain(Plain::NanMin)),
            PartialReduce::NanMax => Some(Fold::Plain(Plain::NanMax)),
            PartialReduce::NanSumCount { acc: DType::Float64 } => Some(Fold::NanSumCount),
            PartialReduce::Moments => Some(Fold::Moments),
            PartialReduce::NanMoments => Some(Fold::NanMoments),
            _ => None,
        }
    }

    /// The partial of the tile at `start .. start + len`: folded span by span as the values
    /// are produced, except moments, which need the whole tile (in `buf`) for two passes.
    fn tile(self, start: usize, len: usize, spans: &mut Spans, buf: &mut Vec<f64>) -> Result<[f64; 3]> {
        let value = match self {
            Fold::NanSumCount => {
                let (mut sum, mut count) = (LaneFold::new(len), LaneFold::new(len));
                spans(start, len, &mut |piece| {
                    push(&mut sum, piece, Ordered::zero_nan, Num::add);
                    push(&mut count, piece, counted, Num::add);
                })?;
                let finish = |lanes: LaneFold<f64>| lanes.finish(Num::add).ok_or_else(|| internal_err!("an empty tile"));
                return Ok([finish(sum)?, finish(count)?, 0.0]);
            }
            Fold::Moments => {
                buf.clear();
                spans(start, len, &mut |piece| buf.extend_from_slice(piece))?;
                return Ok(slice_moments(buf).into());
            }
            Fold::NanMoments => {
                buf.clear();
                spans(start, len, &mut |piece| buf.extend(piece.iter().filter(|x| !x.is_nan())))?;
                return Ok(slice_moments(buf).into());
            }
            Fold::Plain(plain) => with_ops!(plain, |map, combine| fold_spans(start, len, spans, map, combine)),
        };
        Ok([value?, 0.0, 0.0])
    }

    /// What a value counts as: a NaN adds nothing to a NaN-skipping sum.
    fn map(self, x: f64) -> f64 {
        match self {
            Fold::NanSumCount => x.zero_nan(),
            Fold::Moments | Fold::NanMoments => x,
            Fold::Plain(plain) => with_ops!(plain, |map, _combine| map(x)),
        }
    }

    /// The running partial of a first row of values.
    fn start(self, values: &[f64]) -> Vec<f64> {
        let mut partial: Vec<f64> = values.iter().map(|&x| self.map(x)).collect();
        if let Fold::NanSumCount = self {
            partial.extend(values.iter().map(|&x| counted(x)));
        }
        partial
    }

    /// Folds `rows` into the running partial `acc` (made from the first row if there is none
    /// yet): straight, row after row, or as a band whose own partial is then combined into
    /// `acc`, as `reduce_bands` does.
    fn band_into(self, acc: &mut Option<Vec<f64>>, rows: &[&[f64]], straight: bool, ahead: Ahead) {
        let Some((first, rest)) = rows.split_first() else { return };
        match acc {
            None => {
                let mut partial = self.start(first);
                self.rows_into(&mut partial, rest, ahead);
                *acc = Some(partial);
            }
            Some(acc) if straight => self.rows_into(acc, rows, ahead),
            Some(acc) => self.band_combined(acc, rows, ahead),
        }
    }

    /// `acc[i] = f(acc[i], row[i])` for each row in turn, for a fold other than moments.
    fn rows_into(self, acc: &mut [f64], rows: &[&[f64]], ahead: Ahead) {
        match self {
            Fold::NanSumCount => {
                let (sums, counts) = acc.split_at_mut(acc.len() / 2);
                Fold::Plain(Plain::NanSum).rows_into(sums, rows, ahead);
                fold_rows_into(counts, rows, |a, x| a + counted(x), Ahead::NONE);
            }
            Fold::Moments | Fold::NanMoments => {}
            Fold::Plain(plain) => with_ops!(plain, |map, combine| fold_rows_into(acc, rows, |a, x| combine(a, map(x)), ahead)),
        }
    }

    /// Combines the partial of the band `rows` (its first row mapped, the others folded in)
    /// into `acc`; what NaNs a partial holds are results, so partials combine by plain sums.
    fn band_combined(self, acc: &mut [f64], rows: &[&[f64]], ahead: Ahead) {
        match self {
            Fold::NanSumCount => {
                let (sums, counts) = acc.split_at_mut(acc.len() / 2);
                Fold::Plain(Plain::NanSum).band_combined(sums, rows, ahead);
                fold_band_into(counts, rows, counted, |a, x| a + counted(x), Num::add, Ahead::NONE);
            }
            Fold::Moments | Fold::NanMoments => {}
            Fold::Plain(plain) => with_ops!(plain, |map, combine| fold_band_into(acc, rows, map, |a, x| combine(a, map(x)), combine, ahead)),
        }
    }

    /// The fold of each of `lanes` (`len` values each, at least sixteen) as `reduce_axes` folds
    /// a lane: (value, 0, 0), (sum, count, 0), or `slice_moments`' (count, mean, M2); the
    /// lanes `ahead` asked for meanwhile.
    fn lanes(self, lanes: &[&[f64]], len: usize, ahead: Ahead) -> Vec<[f64; 3]> {
        match self {
            Fold::Plain(plain) => with_ops!(plain, |map, combine| side_by_side(lanes, len, map, combine, ahead)).into_iter().map(|v| [v, 0.0, 0.0]).collect(),
            Fold::NanSumCount => {
                let sums = side_by_side(lanes, len, Ordered::zero_nan, Num::add, ahead);
                let counts = side_by_side(lanes, len, counted, Num::add, Ahead::NONE);
                sums.into_iter().zip(counts).map(|(s, c)| [s, c, 0.0]).collect()
            }
            Fold::Moments | Fold::NanMoments => {
                let n = len as f64;
                let means: Vec<f64> = side_by_side(lanes, len, |x| x, Num::add, ahead).into_iter().map(|s| s / n).collect();
                // The second pass, one lane at a time: the lanes just read are in cache.
                lanes.iter().zip(means).map(|(lane, mean)| [n, mean, fold_lane(lane, move |x| (x - mean) * (x - mean), Num::add)]).collect()
            }
        }
    }

    fn merge(self, a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
        match self {
            Fold::NanSumCount => [Num::add(a[0], b[0]), Num::add(a[1], b[1]), 0.0],
            Fold::Moments | Fold::NanMoments => {
                let [mut n, mut mean, mut m2] = a;
                merge_moment((&mut n, &mut mean, &mut m2), (b[0], b[1], b[2]));
                [n, mean, m2]
            }
            Fold::Plain(plain) => with_ops!(plain, |_map, combine| [combine(a[0], b[0]), 0.0, 0.0]),
        }
    }

    /// The partial as `reduce_flat` shapes a 1-D tile's: `[1]`, or `[3, 1]` for moments.
    fn chunk(self, acc: [f64; 3]) -> Result<Chunk> {
        let block = match self {
            Fold::Moments | Fold::NanMoments => Array::from_shape_vec(IxDyn(&[3, 1]), acc.to_vec()),
            Fold::NanSumCount => Array::from_shape_vec(IxDyn(&[2, 1]), acc[..2].to_vec()),
            _ => Array::from_shape_vec(IxDyn(&[1]), vec![acc[0]]),
        };
        block.map(|b| Chunk::Float64(b.into())).map_err(|e| internal_err!("partial: {e}"))
    }
}

/// The fold of `map` of the values at `start .. start + len` as `spans` produces them
/// (generic over `map` and `f` so that the loop is compiled, and vectorised, for each
/// operation).
fn fold_spans(start: usize, len: usize, spans: &mut Spans, map: impl Fn(f64) -> f64 + Copy, f: impl Fn(f64, f64) -> f64 + Copy) -> Result<f64> {
    let mut lanes = LaneFold::new(len);
    spans(start, len, &mut |piece| push(&mut lanes, piece, map, f))?;
    lanes.finish(f).ok_or_else(|| internal_err!("an empty tile"))
}

/// The fold of `map` of a whole lane, compiled for AVX2 where the CPU has it.
fn fold_lane(lane: &[f64], map: impl Fn(f64) -> f64 + Copy, f: impl Fn(f64, f64) -> f64 + Copy) -> f64 {
    let mut fold = LaneFold::new(lane.len());
    push(&mut fold, lane, map, f);
    fold.finish(f).unwrap_or(f64::NAN)
}

/// Folds a piece into the lanes, compiled for AVX2 where the CPU has it (the same operations
/// in the same order, so the same result).
fn push(lanes: &mut LaneFold<f64>, piece: &[f64], map: impl Fn(f64) -> f64 + Copy, f: impl Fn(f64, f64) -> f64 + Copy) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2, checked just above.
        return unsafe { push_avx2(lanes, piece, map, f) };
    }
    lanes.push(piece, map, f)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn push_avx2(lanes: &mut LaneFold<f64>, piece: &[f64], map: impl Fn(f64) -> f64 + Copy, f: impl Fn(f64, f64) -> f64 + Copy) {
    lanes.push(piece, map, f)
}

/// `acc[i] = f(acc[i], row[i])` for each of `rows` in turn, a column window at a time, the
/// window of the rows `ahead` asked for meanwhile; compiled for AVX2 where the CPU has it (the
/// same operations in the same order for each column, so the same values).
fn fold_rows_into(acc: &mut [f64], rows: &[&[f64]], f: impl Fn(f64, f64) -> f64 + Copy, ahead: Ahead) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2, checked just above.
        return unsafe { fold_rows_into_avx2(acc, rows, f, ahead) };
    }
    fold_rows_by_window(acc, rows, f, ahead)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn fold_rows_into_avx2(acc: &mut [f64], rows: &[&[f64]], f: impl Fn(f64, f64) -> f64 + Copy, ahead: Ahead) {
    fold_rows_by_window(acc, rows, f, ahead)
}

#[inline(always)]
fn fold_rows_by_window(acc: &mut [f64], rows: &[&[f64]], f: impl Fn(f64, f64) -> f64 + Copy, ahead: Ahead) {
    let (windows, ahead) = windows(acc.len(), ahead);
    for cols in windows {
        ahead.columns(cols.clone());
        fold_window(&mut acc[cols.clone()], rows, cols, f);
    }
}

/// `part[i] = f(part[i], row[c])` for each of `rows` in turn, `c` running over `cols`: four rows
/// at once, so that a column's running value stays in a register between them and the partial
/// is read and written once per four rows instead of once per row.
#[inline(always)]
fn fold_window(part: &mut [f64], rows: &[&[f64]], cols: Range<usize>, f: impl Fn(f64, f64) -> f64 + Copy) {
    let (quads, rest) = rows.as_chunks::<4>();
    for quad in quads {
        let [a, b, c, d] = quad.map(|row| &row[cols.clone()]);
        for ((((p, &a), &b), &c), &d) in part.iter_mut().zip(a).zip(b).zip(c).zip(d) {
            *p = f(f(f(f(*p, a), b), c), d);
        }
    }
    for row in rest {
        part.iter_mut().zip(&row[cols.clone()]).for_each(|(p, &x)| *p = f(*p, x));
    }
}

/// For each column, the band's partial (`map` of its first row, each further row folded in by
/// `f`) combined into `acc` by `combine`, a column window at a time, the window of the rows
/// `ahead` asked for meanwhile; compiled for AVX2 where the CPU has it.
fn fold_band_into(acc: &mut [f64], rows: &[&[f64]], map: impl Fn(f64) -> f64 + Copy, f: impl Fn(f64, f64) -> f64 + Copy, combine: impl Fn(f64, f64) -> f64 + Copy, ahead: Ahead) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2, checked just above.
        return unsafe { fold_band_into_avx2(acc, rows, map, f, combine, ahead) };
    }
    fold_band_by_window(acc, rows, map, f, combine, ahead)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn fold_band_into_avx2(acc: &mut [f64], rows: &[&[f64]], map: impl Fn(f64) -> f64 + Copy, f: impl Fn(f64, f64) -> f64 + Copy, combine: impl Fn(f64, f64) -> f64 + Copy, ahead: Ahead) {
    fold_band_by_window(acc, rows, map, f, combine, ahead)
}

#[inline(always)]
fn fold_band_by_window(acc: &mut [f64], rows: &[&[f64]], map: impl Fn(f64) -> f64 + Copy, f: impl Fn(f64, f64) -> f64 + Copy, combine: impl Fn(f64, f64) -> f64 + Copy, ahead: Ahead) {
    let Some((first, rest)) = rows.split_first() else { return };
    let mut part = Vec::new();
    let (windows, ahead) = windows(acc.len(), ahead);
    for cols in windows {
        ahead.columns(cols.clone());
        part.resize(cols.len(), 0.0);
        part.iter_mut().zip(&first[cols.clone()]).for_each(|(p, &x)| *p = map(x));
        fold_window(&mut part, rest, cols.clone(), f);
        acc[cols].iter_mut().zip(part.iter()).for_each(|(a, &p)| *a = combine(*a, p));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reduce::reduce_bands;

    /// Values whose sums and products round differently in different orders, with NaNs for
    /// the minimum and maximum.
    fn values(n: usize) -> Vec<f64> {
        (0..n as u64).map(|i| if i % 97 == 5 { f64::NAN } else { ((i * 2654435761) % 1000) as f64 * 1e-3 + (i % 7) as f64 * 1e12 }).collect()
    }

    /// Windows, transposes and reversed views reduce as their row-major copies do, bit for bit.
    #[test]
    fn strided_blocks_reduce_like_their_row_major_copies() {
        use crate::reduce::reduce_partial;
        use ndarray::{s, ArcArray};
        let whole = ArcArray::from_shape_vec(IxDyn(&[300, 700]), values(300 * 700)).unwrap();
        let views = [
            whole.clone().slice_move(s![10..290, 5..650]).into_dyn(),
            whole.clone().slice_move(s![..;-1, 3..9]).into_dyn(),
            whole.clone().reversed_axes(),
            whole.clone().slice_move(s![1..2, ..;2]).into_dyn(),
            // rows of one band each, handed to the fold several at a time
            ArcArray::from_shape_vec(IxDyn(&[11, 9500]), values(11 * 9500)).unwrap().slice_move(s![.., 200..9300]).into_dyn(),
        ];
        let ops = [PartialReduce::Sum { acc: DType::Float64 }, PartialReduce::Prod { acc: DType::Float64 }, PartialReduce::Min, PartialReduce::Max, PartialReduce::Moments, PartialReduce::NanMoments, NAN_SUM_COUNT]
            .into_iter()
            .chain(NAN_SKIPPING);
        for view in views {
            let (strided, copy) = (Chunk::Float64(view.clone().into()), Chunk::Float64(view.as_standard_layout().into_owned().into_shared().into()));
            for op in ops.clone() {
                for axes in [&[0][..], &[1], &[0, 1]] {
                    let got = reduce_strided_f64(op, axes, &strided).expect("a strided block").unwrap();
                    let want = reduce_partial(op, axes, &copy).unwrap();
                    assert_eq!(got.shape(), want.shape(), "{:?} {op:?} {axes:?}", view.shape());
                    let (g, w) = (got.typed::<f64>().unwrap(), want.typed::<f64>().unwrap());
                    assert!(g.iter().zip(w.iter()).all(|(x, y)| x.to_bits() == y.to_bits()), "{:?} {op:?} {axes:?}", view.shape());
                }
            }
        }
        assert!(reduce_strided_f64(PartialReduce::Min, &[0], &Chunk::Float64(whole.into())).is_none());
    }

    /// Row-major blocks reduced over the first or last axis with their rows or lanes read in
    /// place give what `reduce_partial`'s bands give, bit for bit, with NaNs among the values
    /// or without.
    #[test]
    fn row_major_blocks_reduce_in_place_like_bands() {
        use crate::reduce::reduce_partial;
        let ops = [PartialReduce::Sum { acc: DType::Float64 }, PartialReduce::Prod { acc: DType::Float64 }, PartialReduce::Min, PartialReduce::Max, PartialReduce::Moments, NAN_SUM_COUNT]
            .into_iter()
            .chain(NAN_SKIPPING);
        for shape in [vec![300, 700], vec![11, 9500], vec![40, 20], vec![2, 17], vec![4, 3, 700], vec![3, 20000], vec![9, 16]] {
            let n: usize = shape.iter().product();
            for data in [values(n), values(n).into_iter().map(|x| if x.is_nan() { 0.5 } else { x - 3e12 }).collect()] {
                let block = Chunk::Float64(Array::from_shape_vec(IxDyn(&shape), data).unwrap().into());
                for op in ops.clone() {
                    for axes in [vec![0], vec![shape.len() - 1]] {
                        let got = reduce_row_major_f64(op, &axes, &block).expect("a float64 fold").unwrap();
                        let want = reduce_partial(op, &axes, &block).unwrap();
                        assert_eq!(got.shape(), want.shape(), "{shape:?} {op:?} {axes:?}");
                        let (g, w) = (got.typed::<f64>().unwrap(), want.typed::<f64>().unwrap());
                        assert!(g.iter().zip(w.iter()).all(|(x, y)| x.to_bits() == y.to_bits()), "{shape:?} {op:?} {axes:?}");
                    }
                }
            }
        }
        let short = Chunk::Float64(Array::from_shape_vec(IxDyn(&[4, 15]), values(60)).unwrap().into());
        assert!(reduce_row_major_f64(PartialReduce::Min, &[1], &short).is_none(), "lanes under sixteen fold elsewhere");
        assert!(reduce_row_major_f64(PartialReduce::NanMoments, &[0], &short).is_none());
    }

    #[test]
    fn rows_reduce_like_bands_bit_for_bit() {
        let ops = [PartialReduce::Sum { acc: DType::Float64 }, PartialReduce::Prod { acc: DType::Float64 }, PartialReduce::Min, PartialReduce::Max, PartialReduce::Moments, NAN_SUM_COUNT]
            .into_iter()
            .chain(NAN_SKIPPING);
        // One-row bands (rows longer than a band), many-row bands, several groups, a 3-D block.
        for shape in [vec![3, 9000], vec![11, 9000], vec![7, 5], vec![1000, 37], vec![2000, 300], vec![4, 3, 700]] {
            let n: usize = shape.iter().product();
            let data = values(n);
            for op in ops.clone() {
                let fill = |start: usize, out: &mut [f64], _: &mut ()| {
                    out.copy_from_slice(&data[start..start + out.len()]);
                    Ok(())
                };
                let rows = reduce_rows_f64(op, &shape, fill).expect("a float64 fold").unwrap();
                let bands = reduce_bands(op, &[0], &shape, |start, len| Ok(Chunk::Float64(Array::from_vec(data[start..start + len].to_vec()).into_dyn().into()))).unwrap();
                assert_eq!(rows.shape(), bands.shape(), "{shape:?} {op:?}");
                let (r, b) = (rows.typed::<f64>().unwrap(), bands.typed::<f64>().unwrap());
                assert!(r.iter().zip(b.iter()).all(|(x, y)| x.to_bits() == y.to_bits()), "{shape:?} {op:?}");
            }
        }
        assert!(reduce_rows_f64(PartialReduce::NanMoments, &[4, 4], |_, _, _: &mut ()| Ok(())).is_none());
        assert!(reduce_rows_f64(PartialReduce::Sum { acc: DType::Float64 }, &[0, 4], |_, _, _: &mut ()| Ok(())).is_none());
    }

    const NAN_SKIPPING: [PartialReduce; 3] = [PartialReduce::NanSum { acc: DType::Float64 }, PartialReduce::NanMin, PartialReduce::NanMax];
    const NAN_SUM_COUNT: PartialReduce = PartialReduce::NanSumCount { acc: DType::Float64 };

    /// A float32 block reduces over its first axis as its float64 copy does, bit for bit.
    #[test]
    fn float32_rows_widen_as_they_are_read() {
        use crate::reduce::reduce_partial;
        let ops = [PartialReduce::Sum { acc: DType::Float64 }, PartialReduce::Prod { acc: DType::Float64 }, PartialReduce::NanSum { acc: DType::Float64 }, NAN_SUM_COUNT];
        for shape in [vec![3, 9000], vec![11, 9000], vec![7, 5], vec![1000, 37], vec![4, 3, 700]] {
            let n: usize = shape.iter().product();
            let narrow: Vec<f32> = values(n).iter().map(|&x| (x * 1e-12) as f32).collect();
            let block = Chunk::Float32(Array::from_shape_vec(IxDyn(&shape), narrow).unwrap().into());
            for op in ops {
                let got = reduce_rows_widened(op, &[0], &block).expect("a widened fold").unwrap();
                let want = reduce_partial(op, &[0], &block.cast(DType::Float64)).unwrap();
                assert_eq!(got.shape(), want.shape(), "{shape:?} {op:?}");
                let (g, w) = (got.typed::<f64>().unwrap(), want.typed::<f64>().unwrap());
                assert!(g.iter().zip(w.iter()).all(|(x, y)| x.to_bits() == y.to_bits()), "{shape:?} {op:?}");
            }
        }
        let block = Chunk::Float32(Array::from_shape_vec(IxDyn(&[2, 2]), vec![1.0f32; 4]).unwrap().into());
        assert!(reduce_rows_widened(PartialReduce::Max, &[0], &block).is_none());
        assert!(reduce_rows_widened(NAN_SUM_COUNT, &[1], &block).is_none());
    }

    /// NaN elements are skipped wherever they fall (first in a lane, a row, a tile); NaNs the
    /// values make (∞ - ∞) are kept; a lane of NaNs only sums to 0 and has a NaN extreme.
    #[test]
    fn nan_skipping_folds_skip_nan_elements_only() {
        use crate::reduce::reduce_partial;
        let reduce = |op, data: &[f64], shape: &[usize], axes: &[usize]| {
            let block = Chunk::Float64(Array::from_shape_vec(IxDyn(shape), data.to_vec()).unwrap().into());
            reduce_partial(op, axes, &block).unwrap().typed::<f64>().unwrap().iter().copied().collect::<Vec<f64>>()
        };
        let (sum, min, max) = NAN_SKIPPING.into();
        for n in [1, 7, 40, 9000] {
            let mut data: Vec<f64> = (0..n).map(|i| (i % 13) as f64 - 6.0).collect();
            data.iter_mut().step_by(3).for_each(|x| *x = f64::NAN);
            let kept: Vec<f64> = data.iter().copied().filter(|x| !x.is_nan()).collect();
            let exact_sum: f64 = kept.iter().sum();
            let (low, high) = kept.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &x| (l.min(x), h.max(x)));
            for (shape, axes) in [(vec![n], vec![0]), (vec![1, n], vec![1]), (vec![n, 1], vec![0])] {
                assert_eq!(reduce(sum, &data, &shape, &axes), [exact_sum], "{n} {shape:?}");
                let (lo, hi) = (reduce(min, &data, &shape, &axes), reduce(max, &data, &shape, &axes));
                if kept.is_empty() {
                    assert!(lo[0].is_nan() && hi[0].is_nan());
                } else {
                    assert_eq!((lo[0], hi[0]), (low, high), "{n} {shape:?}");
                }
            }
        }
        let made = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1.0, 2.0];
        assert!(reduce(sum, &made, &[5], &[0])[0].is_nan());
        let rows = [f64::NAN, 1.0, f64::NAN, f64::NAN, 2.0, f64::NAN];
        assert_eq!(reduce(sum, &rows, &[3, 2], &[0]), [2.0, 1.0]);
        assert_eq!(reduce(max, &rows, &[3, 2], &[0]), [2.0, 1.0]);
        assert_eq!(reduce(min, &rows, &[2, 3], &[1]), [1.0, 2.0]);
    }
}
