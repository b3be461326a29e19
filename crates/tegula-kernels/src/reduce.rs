//! Reduction kernels: the partial reduction of one block (reduced axes kept with length one),
//! the combination of partials, and the finishing step (mean's division, variance from
//! moments, dropping axes, the final cast).

use crate::chunk::{Block, Chunk, Wrap};
use crate::complex;
use crate::element::{Elem, Num, Ordered, C128};
use crate::lanes::{fold_slice, fold_slice_map};
use crate::parallel::{groups, groups_of_at_least, map_groups};
use crate::shifted_moments::ShiftedMoments;
use crate::tiles::{flatten, reshape, tile, TILE};
use crate::{with_chunk, with_dtype};
use ndarray::{ArrayD, ArrayViewD, Axis, IxDyn, Zip};
use tegula_core::{DType, Finish, PartialReduce, Result, TegulaError};

/// `KernelOp::ReducePartial`: the partial `op` of `a` over `axes`, kept with length one.
pub fn reduce_partial(op: PartialReduce, axes: &[usize], a: &Chunk) -> Result<Chunk> {
    if axes.is_empty() {
        return reduce_axes(op, axes, a);
    }
    let flat = flatten(a, a.shape())?;
    let part = |start, len| Ok(tile(&flat, start, len));
    if axes.len() == a.ndim() {
        return reduce_flat(op, a.ndim(), a.len(), part);
    }
    reduce_bands(op, axes, a.shape(), part)
}

/// The partial reduction over every axis of an `ndim`-dimensional block of `size` elements
/// whose row-major values `values(start, len)` gives as 1-D chunks: tile by tile, each tile
/// reduced then combined into its group's running partial; groups run in parallel and their
/// partials are combined in order. Shared by plain and fused reductions so that both round
/// identically.
pub fn reduce_flat(
    op: PartialReduce,
    ndim: usize,
    size: usize,
    values: impl Fn(usize, usize) -> Result<Chunk> + Sync + Send,
) -> Result<Chunk> {
    let tiles = size.div_ceil(TILE).max(1);
    let partials = map_groups(groups(tiles, TILE), |group| {
        let mut acc: Option<Chunk> = None;
        for t in group {
            let start = t * TILE;
            let part = reduce_axes(op, &[0], &values(start, TILE.min(size - start))?)?;
            acc = Some(match acc {
                None => part,
                Some(a) => reduce_combine(op, &[a, part])?,
            });
        }
        acc.ok_or_else(|| TegulaError::Internal("a group without tiles".into()))
    })?;
    combine_flat(op, ndim, &partials)
}

/// The groups' partials of a whole-block reduction combined, in the block's dimensions.
pub(crate) fn combine_flat(op: PartialReduce, ndim: usize, partials: &[Chunk]) -> Result<Chunk> {
    let keep = match op.stacked() {
        Some(rows) => [&[rows][..], &vec![1; ndim][..]].concat(),
        None => vec![1; ndim],
    };
    reshape(&reduce_combine(op, partials)?, &keep)
}

/// The partial reduction over `axes` (some, not all, of the axes) of a block of `shape` whose
/// row-major values `values(start, len)` gives as 1-D chunks: the block is reduced in
/// cache-sized bands of whole rows of its first axis, each band's partial then combined into
/// the running partial (first axis reduced) or joined to it (first axis kept); groups of bands
/// run in parallel. Shared by plain and fused reductions so that both round identically.
pub fn reduce_bands(
    op: PartialReduce,
    axes: &[usize],
    shape: &[usize],
    values: impl Fn(usize, usize) -> Result<Chunk> + Sync + Send,
) -> Result<Chunk> {
    let row: usize = shape[1..].iter().product();
    let band = band_rows(row);
    let across = axes.contains(&0);
    // Real moments over the first axis alone: one pass of shifted sums per group of bands.
    let shifted = op == PartialReduce::Moments && axes == [0] && shape[0] > 0 && row > 0;
    let partials = map_groups(band_groups(shape[0], row), |group| {
        let mut parts: Vec<Chunk> = Vec::new();
        let mut sums: Option<ShiftedMoments> = None;
        for b in group {
            let first = b * band;
            let rows = band.min(shape[0] - first);
            let band_values = values(first * row, rows * row)?;
            if shifted && !band_values.dtype().is_complex() {
                add_rows(&mut sums, &band_values.cast(DType::Float64), row)?;
                continue;
            }
            let band_shape = [&[rows][..], &shape[1..]].concat();
            let part = reduce_axes(op, axes, &reshape(&band_values, &band_shape)?)?;
            match parts.pop() {
                Some(acc) if across => parts.push(reduce_combine(op, &[acc, part])?),
                Some(acc) => parts.extend([acc, part]),
                None => parts.push(part),
            }
        }
        if let Some(sums) = sums {
            parts.push(Chunk::Float64(sums.finish(&shape[1..])?.into()));
        }
        Ok(parts)
    })?;
    let partials: Vec<Chunk> = partials.into_iter().flatten().collect();
    if across {
        return reduce_combine(op, &partials);
    }
    // Moments stack (count, mean, M2) on a new leading axis.
    join(&partials, if op.stacked().is_some() { 1 } else { 0 })
}

/// The rows (of `row` values each) of a float64 band added to the group's shifted sums, the
/// first of them starting the sums.
fn add_rows(sums: &mut Option<ShiftedMoments>, band: &Chunk, row: usize) -> Result<()> {
    let band = band.typed::<f64>()?;
    let copied: Vec<f64>;
    let values = match band.as_slice() {
        Some(values) => values,
        None => {
            copied = band.iter().copied().collect();
            &copied
        }
    };
    ShiftedMoments::extend(sums, &values.chunks_exact(row).collect::<Vec<_>>(), crate::ahead::Ahead::NONE);
    Ok(())
}

/// Elements per band of a reduction over some of a block's axes: a band (64 KB of float64)
/// stays under the allocator's mmap threshold, so bands reuse memory instead of faulting in
/// fresh pages.
const BAND: usize = 2 * TILE;

/// Rows of the first axis per band, for rows of `row` elements: at least one.
pub(crate) fn band_rows(row: usize) -> usize {
    (BAND / row.max(1)).max(1)
}

/// Rows of the first axis a group of bands holds at least: a group's partial, as wide as a
/// row, is made, finished and merged once per group, which for rows of a few thousand values
/// in groups of a few rows (moments merge with a division per column) cost a third of a fold.
const GROUP_ROWS: usize = 256;

/// The groups of bands of a block of `rows` rows of `row` values each, which fold in parallel.
pub(crate) fn band_groups(rows: usize, row: usize) -> Vec<std::ops::Range<usize>> {
    let band = band_rows(row);
    groups_of_at_least(rows.div_ceil(band).max(1), band * row, GROUP_ROWS.div_ceil(band))
}

/// Chunks of one dtype joined along `axis`.
fn join(parts: &[Chunk], axis: usize) -> Result<Chunk> {
    if parts.len() == 1 {
        return Ok(parts[0].clone());
    }
    with_chunk!(&parts[0], first => join_typed(first, parts, axis))
}

fn join_typed<T: Wrap>(_: &Block<T>, parts: &[Chunk], axis: usize) -> Result<Chunk> {
    let views = parts.iter().map(|p| p.typed::<T>().map(|b| b.view())).collect::<Result<Vec<_>>>()?;
    let joined = ndarray::concatenate(Axis(axis), &views).map_err(|e| TegulaError::Internal(format!("join partials: {e}")))?;
    Ok(T::wrap(joined.into()))
}

/// The partial reduction of `axes` of one block, computed along the axes.
fn reduce_axes(op: PartialReduce, axes: &[usize], a: &Chunk) -> Result<Chunk> {
    match op {
        PartialReduce::Sum { acc } => {
            let a = a.cast(acc);
            with_dtype!(acc, T => fold_axes(a.typed::<T>()?, axes, Some(T::zero()), Num::add))
        }
        PartialReduce::Prod { acc } => {
            let a = a.cast(acc);
            with_dtype!(acc, T => fold_axes(a.typed::<T>()?, axes, Some(T::one()), Num::mul))
        }
        PartialReduce::Min => with_chunk!(a, x => fold_axes(x, axes, None, Ordered::min_nan)),
        PartialReduce::Max => with_chunk!(a, x => fold_axes(x, axes, None, Ordered::max_nan)),
        PartialReduce::NanSum { acc } => {
            let a = a.cast(acc);
            with_dtype!(acc, T => fold_axes_map(a.typed::<T>()?, axes, Some(T::zero()), Ordered::zero_nan, Num::add))
        }
        PartialReduce::NanMin => with_chunk!(a, x => fold_axes(x, axes, None, Ordered::min_skip_nan)),
        PartialReduce::NanMax => with_chunk!(a, x => fold_axes(x, axes, None, Ordered::max_skip_nan)),
        PartialReduce::Any => fold_axes(a.cast(DType::Bool).typed()?, axes, Some(false), |x, y| x | y),
        PartialReduce::All => fold_axes(a.cast(DType::Bool).typed()?, axes, Some(true), |x, y| x & y),
        PartialReduce::Moments if a.dtype().is_complex() => moments::<C128>(a.cast(DType::Complex128).typed()?, axes),
        PartialReduce::Moments => moments::<f64>(a.cast(DType::Float64).typed()?, axes),
        PartialReduce::NanMoments if a.dtype().is_complex() => nan_moments::<C128>(a.cast(DType::Complex128).typed()?, axes),
        PartialReduce::NanMoments => nan_moments::<f64>(a.cast(DType::Float64).typed()?, axes),
        PartialReduce::NanSumCount { acc } => {
            let a = a.cast(acc);
            with_dtype!(acc, T => nan_sum_count(a.typed::<T>()?, axes))
        }
    }
}

/// `KernelOp::ReduceCombine`: same-shaped partials of `op` combined into one.
pub fn reduce_combine(op: PartialReduce, parts: &[Chunk]) -> Result<Chunk> {
    let first = parts.first().ok_or_else(|| TegulaError::Internal("combine of no partials".into()))?;
    match op {
        // NaNs in partial sums come from the values (∞ - ∞), not from NaN elements: kept; a
        // sum-and-count partial adds both its numbers.
        PartialReduce::Sum { .. } | PartialReduce::NanSum { .. } | PartialReduce::NanSumCount { .. } => {
            with_chunk!(first, x => fold_parts(x, parts, Num::add))
        }
        PartialReduce::Prod { .. } => with_chunk!(first, x => fold_parts(x, parts, Num::mul)),
        PartialReduce::Min => with_chunk!(first, x => fold_parts(x, parts, Ordered::min_nan)),
        PartialReduce::Max => with_chunk!(first, x => fold_parts(x, parts, Ordered::max_nan)),
        PartialReduce::NanMin => with_chunk!(first, x => fold_parts(x, parts, Ordered::min_skip_nan)),
        PartialReduce::NanMax => with_chunk!(first, x => fold_parts(x, parts, Ordered::max_skip_nan)),
        PartialReduce::Any => fold_parts(first.typed::<bool>()?, parts, |x, y| x | y),
        PartialReduce::All => fold_parts(first.typed::<bool>()?, parts, |x, y| x & y),
        op if op.is_moments() && first.dtype().is_complex() => merge_moments::<C128>(parts),
        _ => merge_moments::<f64>(parts), // moments, with or without NaNs
    }
}

/// `KernelOp::ReduceFinish`: the combined partial `a` finished, its `squeeze` axes dropped,
/// cast to `dtype`.
pub fn reduce_finish(finish: Finish, squeeze: &[usize], dtype: DType, a: &Chunk) -> Result<Chunk> {
    let value = match finish {
        Finish::Identity => a.clone(),
        Finish::AddZero => plus_zero(a),
        Finish::DivideBy(n) => match a {
            // NumPy divides by the count as a complex number (which matters for infinities)
            Chunk::Complex128(x) => Chunk::Complex128(x.mapv(|v| complex::div(v + C128::new(0.0, 0.0), C128::new(n, 0.0))).into()),
            _ => Chunk::Float64(a.cast(DType::Float64).typed::<f64>()?.mapv(|v| (v + 0.0) / n).into()),
        },
        Finish::Variance { ddof, sqrt } => variance(a, sqrt, |n, m2| m2 / (n - ddof).max(0.0))?,
        Finish::SumOverCount => match a {
            Chunk::Complex128(m) => {
                let (sum, n) = (m.index_axis(Axis(0), 0), m.index_axis(Axis(0), 1));
                Chunk::Complex128(Zip::from(&sum).and(&n).map_collect(|&s, n| complex::div(s, C128::new(n.re, 0.0))).into())
            }
            _ => {
                let m = a.cast(DType::Float64);
                let m = m.typed::<f64>()?;
                let (sum, n) = (m.index_axis(Axis(0), 0), m.index_axis(Axis(0), 1));
                Chunk::Float64(Zip::from(&sum).and(&n).map_collect(|&s, &n| s / n).into())
            }
        },
        Finish::NanVariance { ddof, sqrt } => variance(a, sqrt, |n, m2| if n - ddof > 0.0 { m2 / (n - ddof) } else { f64::NAN })?,
    };
    let value = with_chunk!(value, x => Wrap::wrap(x.map_view(|mut x| {
        for &axis in squeeze.iter().rev() {
            x = x.index_axis_move(Axis(axis), 0);
        }
        x
    })));
    Ok(value.cast(dtype))
}

/// The variance `of(n, M2)` of each (count, mean, M2) of a moments partial, or its square root.
fn variance(a: &Chunk, sqrt: bool, of: impl Fn(f64, f64) -> f64) -> Result<Chunk> {
    let m = a.cast(DType::Complex128);
    let m = m.typed::<C128>()?;
    let (n, m2) = (m.index_axis(Axis(0), 0), m.index_axis(Axis(0), 2));
    let var = Zip::from(&n).and(&m2).map_collect(|n, m2| {
        let v = of(n.re, m2.re);
        if sqrt { v.sqrt() } else { v }
    });
    Ok(Chunk::Float64(var.into()))
}

/// `a + 0.0`: negative zeros become positive, every other value stays (floating types only).
fn plus_zero(a: &Chunk) -> Chunk {
    match a {
        Chunk::Float16(x) => Chunk::Float16(x.mapv(|v| v + half::f16::ZERO).into()),
        Chunk::Float32(x) => Chunk::Float32(x.mapv(|v| v + 0.0).into()),
        Chunk::Float64(x) => Chunk::Float64(x.mapv(|v| v + 0.0).into()),
        Chunk::Complex64(x) => Chunk::Complex64(x.mapv(|v| v + num_complex::Complex32::new(0.0, 0.0)).into()),
        Chunk::Complex128(x) => Chunk::Complex128(x.mapv(|v| v + C128::new(0.0, 0.0)).into()),
        other => other.clone(),
    }
}

/// Folds `f` over `axes` of `a`, keeping them with length one. An empty axis gives `identity`
/// (reductions without one are refused before they run).
fn fold_axes<T: Wrap>(a: &Block<T>, axes: &[usize], identity: Option<T>, f: impl Fn(T, T) -> T + Copy) -> Result<Chunk> {
    fold_axes_map(a, axes, identity, |x| x, f)
}

/// Folds `f` over `map` of the elements along `axes` of `a` (the first axis folded maps every
/// element, the rest fold values already mapped).
fn fold_axes_map<T: Wrap>(a: &Block<T>, axes: &[usize], identity: Option<T>, map: impl Fn(T) -> T + Copy, f: impl Fn(T, T) -> T + Copy) -> Result<Chunk> {
    if axes.len() == a.ndim() && !a.is_empty() {
        if let Some(s) = a.as_slice_memory_order() {
            let v = fold_slice_map(s, map, f).ok_or_else(|| TegulaError::Internal("fold of an empty block".into()))?;
            return Ok(T::wrap(ArrayD::from_elem(IxDyn(&vec![1; a.ndim()]), v).into()));
        }
    }
    let mut cur: Option<ArrayD<T>> = None;
    for &axis in axes.iter().rev() {
        cur = Some(match &cur {
            Some(c) => fold_axis(c.view(), axis, identity, |x| x, f)?,
            None => fold_axis(a.view(), axis, identity, map, f)?,
        });
    }
    Ok(T::wrap(cur.map(|c| c.into()).unwrap_or_else(|| a.clone())))
}

/// Lanes shorter than this fold as strided slices (`fold_axis`).
const SHORT_LANE: usize = 16;

fn fold_axis<T: Elem>(v: ArrayViewD<T>, axis: usize, identity: Option<T>, map: impl Fn(T) -> T + Copy, f: impl Fn(T, T) -> T + Copy) -> Result<ArrayD<T>> {
    let n = v.len_of(Axis(axis));
    if n == 0 {
        let id = identity.ok_or_else(|| TegulaError::Internal("reduction of an empty block".into()))?;
        let mut shape = v.shape().to_vec();
        shape[axis] = 1;
        return Ok(ArrayD::from_elem(shape, id));
    }
    // Long contiguous lanes fold one by one; short ones (a coarsening's window of 2) cost more
    // per lane than per element, so they fold as whole slices, one per position.
    if axis + 1 == v.ndim() && v.is_standard_layout() && n >= SHORT_LANE {
        let folded = v.map_axis(Axis(axis), |lane| match lane.as_slice() {
            // Lanes are not empty: `n > 0`.
            Some(s) => fold_slice_map(s, map, f).unwrap_or(map(lane[0])),
            None => lane.iter().skip(1).fold(map(lane[0]), |acc, &x| f(acc, map(x))),
        });
        return Ok(folded.insert_axis(Axis(axis)));
    }
    let mut shape = v.shape().to_vec();
    shape[axis] = 1;
    if v.is_standard_layout() {
        // As (before, n, after): fixed-dimension loops over the slices, not n-d iteration.
        let before: usize = v.shape()[..axis].iter().product();
        let after: usize = v.shape()[axis + 1..].iter().product();
        let as3 = v.into_shape_with_order((before, n, after)).map_err(|e| TegulaError::Internal(e.to_string()))?;
        let mut acc = as3.index_axis(Axis(1), 0).mapv(map);
        for i in 1..n {
            Zip::from(&mut acc).and(as3.index_axis(Axis(1), i)).for_each(|a, &x| *a = f(*a, map(x)));
        }
        return acc.into_shape_with_order(IxDyn(&shape)).map_err(|e| TegulaError::Internal(e.to_string()));
    }
    let mut acc = v.index_axis(Axis(axis), 0).mapv(map);
    for i in 1..n {
        Zip::from(&mut acc).and(&v.index_axis(Axis(axis), i)).for_each(|a, &x| *a = f(*a, map(x)));
    }
    Ok(acc.insert_axis(Axis(axis)))
}

fn fold_parts<T: Wrap>(first: &Block<T>, parts: &[Chunk], f: impl Fn(T, T) -> T) -> Result<Chunk> {
    let mut acc = first.to_owned();
    for p in &parts[1..] {
        let p = p.typed::<T>()?;
        if p.shape() != acc.shape() {
            return Err(TegulaError::Internal(format!("partials {:?} and {:?} differ", acc.shape(), p.shape())));
        }
        Zip::from(&mut acc).and(p).for_each(|a, &x| *a = f(*a, x));
    }
    Ok(T::wrap(acc.into()))
}

/// The element types moments are accumulated in (float64 and complex128).
pub(crate) trait MomentElem: Num + Wrap + std::ops::Sub<Output = Self> + std::ops::Div<f64, Output = Self> + std::ops::Mul<f64, Output = Self> {
    fn abs2(self) -> f64;
    fn real(v: f64) -> Self;
    fn re(self) -> f64;
}
impl MomentElem for f64 {
    fn abs2(self) -> f64 {
        self * self
    }
    fn real(v: f64) -> Self {
        v
    }
    fn re(self) -> f64 {
        self
    }
}
impl MomentElem for C128 {
    fn abs2(self) -> f64 {
        self.norm_sqr()
    }
    fn real(v: f64) -> Self {
        C128::new(v, 0.0)
    }
    fn re(self) -> f64 {
        self.re
    }
}

/// Count, mean and M2 (sum of squared deviations from the mean) over `axes`, computed in two
/// passes, stacked on a new leading axis.
fn moments<T: MomentElem>(a: &Block<T>, axes: &[usize]) -> Result<Chunk> {
    if axes.len() == a.ndim() {
        if let Some(s) = a.as_slice_memory_order() {
            let (n, mean, m2) = slice_moments(s);
            let out = ArrayD::from_shape_vec(IxDyn(&[&[3][..], &vec![1; a.ndim()][..]].concat()), vec![n, mean, m2]);
            return out.map(|o| T::wrap(o.into())).map_err(|e| TegulaError::Internal(format!("moments: {e}")));
        }
    }
    if let Some(lanes) = moments_of_lanes(a, axes) {
        return lanes;
    }
    let n: usize = axes.iter().map(|&ax| a.len_of(Axis(ax))).product();
    let sum = fold_axes(a, axes, Some(T::zero()), Num::add)?;
    let sum = sum.typed::<T>()?;
    let keep = sum.shape().to_vec();
    let mean = if n == 0 { sum.mapv(|_| T::zero()) } else { sum.mapv(|s| s / n as f64) };
    let dev = Zip::from(a)
        .and(&mean.broadcast(a.raw_dim()).ok_or_else(|| TegulaError::Internal("moments broadcast".into()))?)
        .map_collect(|&x, &m| T::real((x - m).abs2()))
        .into();
    let m2 = fold_axes(&dev, axes, Some(T::zero()), Num::add)?;
    let m2 = m2.typed::<T>()?;
    let mut out = ArrayD::from_elem([&[3][..], &keep[..]].concat(), T::zero());
    out.index_axis_mut(Axis(0), 0).fill(T::real(n as f64));
    out.index_axis_mut(Axis(0), 1).assign(&mean);
    out.index_axis_mut(Axis(0), 2).assign(m2);
    Ok(T::wrap(out.into()))
}

/// Moments over the last axis alone of a row-major block, each lane's two passes
/// (`slice_moments`) made while it is in cache: no block-sized array of deviations. `None`
/// for other axes or layouts.
fn moments_of_lanes<T: MomentElem>(a: &Block<T>, axes: &[usize]) -> Option<Result<Chunk>> {
    let last = a.ndim().checked_sub(1)?;
    let lane = a.len_of(Axis(last));
    if axes != [last] || lane == 0 {
        return None;
    }
    let values = a.as_slice()?;
    let lanes = values.len() / lane;
    let mut out = vec![T::zero(); 3 * lanes];
    for (i, s) in values.chunks_exact(lane).enumerate() {
        let (n, mean, m2) = slice_moments(s);
        (out[i], out[lanes + i], out[2 * lanes + i]) = (n, mean, m2);
    }
    let mut keep = a.shape().to_vec();
    keep[last] = 1;
    let out = ArrayD::from_shape_vec(IxDyn(&[&[3][..], &keep[..]].concat()), out);
    Some(out.map(|o| T::wrap(o.into())).map_err(|e| TegulaError::Internal(format!("moments: {e}"))))
}

/// The sum and the count over `axes` of the elements that are not NaN, stacked on a new
/// leading axis: two folds of each band, which the band's reads leave in cache.
fn nan_sum_count<T: Wrap + Num + Ordered>(a: &Block<T>, axes: &[usize]) -> Result<Chunk> {
    let (sum, count) = sum_and_count_not_nan(a, axes)?;
    let (sum, count) = (sum.typed::<T>()?, count.typed::<T>()?);
    let stacked = ndarray::stack(Axis(0), &[sum.view(), count.view()]).map_err(|e| TegulaError::Internal(format!("sum and count: {e}")))?;
    Ok(T::wrap(stacked.into()))
}

/// The sum and the count over `axes` of the elements that are not NaN, axes kept.
fn sum_and_count_not_nan<T: Wrap + Num + Ordered>(a: &Block<T>, axes: &[usize]) -> Result<(Chunk, Chunk)> {
    let counted = |x: T| if x.is_nan_value() { T::zero() } else { T::one() };
    let sum = fold_axes_map(a, axes, Some(T::zero()), Ordered::zero_nan, Num::add)?;
    Ok((sum, fold_axes_map(a, axes, Some(T::zero()), counted, Num::add)?))
}

/// Count, mean and M2 over `axes` of the elements that are not NaN, stacked on a new leading
/// axis (a mean of NaN where there are none).
fn nan_moments<T: MomentElem + Ordered>(a: &Block<T>, axes: &[usize]) -> Result<Chunk> {
    if axes.len() == a.ndim() {
        if let Some(s) = a.as_slice_memory_order() {
            let kept: Vec<T> = s.iter().copied().filter(|x| !x.is_nan_value()).collect();
            let (n, mean, m2) = slice_moments(&kept);
            let out = ArrayD::from_shape_vec(IxDyn(&[&[3][..], &vec![1; a.ndim()][..]].concat()), vec![n, mean, m2]);
            return out.map(|o| T::wrap(o.into())).map_err(|e| TegulaError::Internal(format!("moments: {e}")));
        }
    }
    let (sum, n) = sum_and_count_not_nan(a, axes)?;
    let (n, sum) = (n.typed::<T>()?, sum.typed::<T>()?);
    let mean = Zip::from(n).and(sum).map_collect(|&n, &s| s / n.re());
    let dev: Block<T> = Zip::from(a)
        .and(&mean.broadcast(a.raw_dim()).ok_or_else(|| TegulaError::Internal("moments broadcast".into()))?)
        .map_collect(|&x, &m| if x.is_nan_value() { T::zero() } else { T::real((x - m).abs2()) })
        .into();
    let m2 = fold_axes(&dev, axes, Some(T::zero()), Num::add)?;
    let mut out = ArrayD::from_elem([&[3][..], n.shape()].concat(), T::zero());
    out.index_axis_mut(Axis(0), 0).assign(n);
    out.index_axis_mut(Axis(0), 1).assign(&mean);
    out.index_axis_mut(Axis(0), 2).assign(m2.typed::<T>()?);
    Ok(T::wrap(out.into()))
}

/// Count, mean and M2 of a contiguous run, without a temporary for the deviations.
pub(crate) fn slice_moments<T: MomentElem>(s: &[T]) -> (T, T, T) {
    if s.is_empty() {
        return (T::zero(), T::zero(), T::zero());
    }
    let mean = fold_slice(s, Num::add).unwrap_or(T::zero()) / s.len() as f64;
    let m2 = fold_slice_map(s, |x| T::real((x - mean).abs2()), Num::add).unwrap_or(T::zero());
    (T::real(s.len() as f64), mean, m2)
}

/// Chan et al.'s pairwise update of (count, mean, M2).
fn merge_moments<T: MomentElem>(parts: &[Chunk]) -> Result<Chunk> {
    let mut acc = parts[0].typed::<T>()?.to_owned();
    for p in &parts[1..] {
        let p = p.typed::<T>()?;
        let mut it = acc.axis_iter_mut(Axis(0));
        let (Some(an), Some(am), Some(am2)) = (it.next(), it.next(), it.next()) else {
            return Err(TegulaError::Internal("moments partial without three rows".into()));
        };
        let (pn, pm, pm2) = (p.index_axis(Axis(0), 0), p.index_axis(Axis(0), 1), p.index_axis(Axis(0), 2));
        Zip::from(an).and(am).and(am2).and(&pn).and(&pm).and(&pm2).for_each(|an, am, am2, &bn, &bm, &bm2| {
            merge_moment((an, am, am2), (bn, bm, bm2))
        });
    }
    Ok(T::wrap(acc.into()))
}

/// Merges the (count, mean, M2) of one part into those of another.
pub(crate) fn merge_moment<T: MomentElem>((an, am, am2): (&mut T, &mut T, &mut T), (bn, bm, bm2): (T, T, T)) {
    let (na, nb) = (an.re(), bn.re());
    let n = na + nb;
    // A part of no values adds nothing (its mean is 0, or NaN for NaNs only).
    if nb == 0.0 {
        return;
    }
    if na == 0.0 {
        (*an, *am, *am2) = (bn, bm, bm2);
        return;
    }
    let delta = bm - *am;
    *am = am.add(delta * (nb / n));
    *am2 = am2.add(bm2).add(T::real(delta.abs2() * na * nb / n));
    *an = T::real(n);
}
