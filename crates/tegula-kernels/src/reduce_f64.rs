//! Whole-block reductions of float64 values written straight into a buffer (the float64
//! tape's output): the same tiles, groups, folds and merges as `reduce_flat`, on plain numbers
//! instead of one-element chunks, so both give bit-identical results without allocating per
//! tile.

use crate::chunk::Chunk;
use crate::element::{Num, Ordered};
use crate::parallel::{groups, map_groups};
use crate::lanes::LaneFold;
use crate::reduce::{combine_flat, merge_moment, slice_moments};
use crate::tiles::TILE;
use ndarray::{ArcArray, IxDyn};
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

type Spans<'a> = dyn FnMut(usize, usize, &mut dyn FnMut(&[f64])) -> Result<()> + 'a;

/// A float64 reduction on plain numbers: (value, 0, 0), or (count, mean, M2) for moments.
#[derive(Clone, Copy)]
enum Fold {
    Sum,
    Prod,
    Min,
    Max,
    Moments,
}

impl Fold {
    fn of(op: PartialReduce) -> Option<Fold> {
        match op {
            PartialReduce::Sum { acc: DType::Float64 } => Some(Fold::Sum),
            PartialReduce::Prod { acc: DType::Float64 } => Some(Fold::Prod),
            PartialReduce::Min => Some(Fold::Min),
            PartialReduce::Max => Some(Fold::Max),
            PartialReduce::Moments => Some(Fold::Moments),
            _ => None,
        }
    }

    /// The partial of the tile at `start .. start + len`: folded span by span as the values
    /// are produced, except moments, which need the whole tile (in `buf`) for two passes.
    fn tile(self, start: usize, len: usize, spans: &mut Spans, buf: &mut Vec<f64>) -> Result<[f64; 3]> {
        let value = match self {
            Fold::Sum => fold_spans(start, len, spans, Num::add),
            Fold::Prod => fold_spans(start, len, spans, Num::mul),
            Fold::Min => fold_spans(start, len, spans, Ordered::min_nan),
            Fold::Max => fold_spans(start, len, spans, Ordered::max_nan),
            Fold::Moments => {
                buf.clear();
                spans(start, len, &mut |piece| buf.extend_from_slice(piece))?;
                return Ok(slice_moments(buf).into());
            }
        };
        Ok([value?, 0.0, 0.0])
    }

    fn merge(self, a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
        match self {
            Fold::Sum => [Num::add(a[0], b[0]), 0.0, 0.0],
            Fold::Prod => [Num::mul(a[0], b[0]), 0.0, 0.0],
            Fold::Min => [Ordered::min_nan(a[0], b[0]), 0.0, 0.0],
            Fold::Max => [Ordered::max_nan(a[0], b[0]), 0.0, 0.0],
            Fold::Moments => {
                let [mut n, mut mean, mut m2] = a;
                merge_moment((&mut n, &mut mean, &mut m2), (b[0], b[1], b[2]));
                [n, mean, m2]
            }
        }
    }

    /// The partial as `reduce_flat` shapes a 1-D tile's: `[1]`, or `[3, 1]` for moments.
    fn chunk(self, acc: [f64; 3]) -> Result<Chunk> {
        let block = match self {
            Fold::Moments => ArcArray::from_shape_vec(IxDyn(&[3, 1]), acc.to_vec()),
            _ => ArcArray::from_shape_vec(IxDyn(&[1]), vec![acc[0]]),
        };
        block.map(Chunk::Float64).map_err(|e| internal_err!("partial: {e}"))
    }
}

/// The fold of the values at `start .. start + len` as `spans` produces them (generic over
/// `f` so that the loop is compiled, and vectorised, for each operation).
fn fold_spans(start: usize, len: usize, spans: &mut Spans, f: impl Fn(f64, f64) -> f64 + Copy) -> Result<f64> {
    let mut lanes = LaneFold::new(len);
    spans(start, len, &mut |piece| push(&mut lanes, piece, f))?;
    lanes.finish(f).ok_or_else(|| internal_err!("an empty tile"))
}

/// Folds a piece into the lanes, compiled for AVX2 where the CPU has it (the same operations
/// in the same order, so the same result).
fn push(lanes: &mut LaneFold<f64>, piece: &[f64], f: impl Fn(f64, f64) -> f64 + Copy) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2, checked just above.
        return unsafe { push_avx2(lanes, piece, f) };
    }
    lanes.push(piece, |x| x, f)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn push_avx2(lanes: &mut LaneFold<f64>, piece: &[f64], f: impl Fn(f64, f64) -> f64 + Copy) {
    lanes.push(piece, |x| x, f)
}
