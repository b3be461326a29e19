//! NumPy's `pad`, one axis after another as NumPy does (so corners see the earlier axes'
//! padding). Each side of an axis is a few lazy operations joined to the array by
//! `concatenate`: constants, gathers at positions computed here (their number is the pad
//! width, never the array's length), reductions for the statistic modes and an element-wise
//! ramp.

use crate::array::Array;
use crate::constant::{at_axis, whole};
use crate::ops::{IndexItem, ReduceSpec};
use tegula_core::{result_type, value_err, BinaryOp, DType, ReduceOp, Result, Scalar, TegulaError, UnaryOp};

/// The statistic a side's padding repeats (NumPy's statistic modes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PadStatistic {
    /// `maximum`.
    Maximum,
    /// `minimum`.
    Minimum,
    /// `mean` (rounded half to even for integers).
    Mean,
    /// `median` (rounded half to even for integers).
    Median,
}

/// How `pad` fills (NumPy's `mode=` with its options, one `[before, after]` pair per axis where
/// NumPy takes pairs).
#[derive(Debug, Clone)]
pub enum PadMode {
    /// Constants (0-d arrays, cast unsafely to the array's dtype as NumPy assigns them).
    Constant(Vec<[Array; 2]>),
    /// The edge element repeated.
    Edge,
    /// A ramp from each end value (a 0-d array) to the edge element.
    LinearRamp(Vec<[Array; 2]>),
    /// Mirror images about the edge elements (`odd`: each image also negated about its edge).
    Reflect {
        /// NumPy's `reflect_type="odd"`.
        odd: bool,
    },
    /// Mirror images about the edges themselves (`odd`: as for `Reflect`).
    Symmetric {
        /// NumPy's `reflect_type="odd"`.
        odd: bool,
    },
    /// The array repeated periodically.
    Wrap,
    /// Undefined values (zeros here).
    Empty,
    /// A statistic of the `lengths` elements at each end (all of the axis when `None`).
    Statistic {
        /// Which statistic.
        statistic: PadStatistic,
        /// NumPy's `stat_length`, one pair per axis.
        lengths: Option<Vec<[usize; 2]>>,
    },
}

impl Array {
    /// This array padded by `widths` (`[before, after]` per axis) as `mode` says.
    pub fn pad(&self, widths: &[[usize; 2]], mode: &PadMode) -> Result<Array> {
        let ndim = self.ndim();
        let per_axis = |len: usize, what: &str| {
            if len == ndim {
                Ok(())
            } else {
                Err(value_err!("{what} has {len} pairs for {ndim} axes"))
            }
        };
        per_axis(widths.len(), "pad_width")?;
        match mode {
            PadMode::Constant(values) | PadMode::LinearRamp(values) => per_axis(values.len(), "the values")?,
            PadMode::Statistic { lengths: Some(lengths), .. } => per_axis(lengths.len(), "stat_length")?,
            _ => {}
        }
        let fills_empty = matches!(mode, PadMode::Constant(_) | PadMode::Empty);
        for (axis, w) in widths.iter().enumerate() {
            if (w[0] > 0 || w[1] > 0) && self.shape()[axis] == 0 && !fills_empty {
                return Err(value_err!("can't extend empty axis {axis} using modes other than 'constant' or 'empty'"));
            }
        }
        let mut x = self.clone();
        for (axis, &[before, after]) in widths.iter().enumerate() {
            if before == 0 && after == 0 {
                continue;
            }
            let first = side(&x, mode, axis, 0, before)?;
            let last = side(&x, mode, axis, 1, after)?;
            let parts: Vec<&Array> = [first.as_ref(), Some(&x), last.as_ref()].into_iter().flatten().collect();
            x = Array::concatenate(&parts, Some(axis as i64))?;
        }
        Ok(x)
    }
}

/// One side's padding (`side` 0: before, 1: after) of `width` along `axis`, or `None` when
/// `width` is 0.
fn side(x: &Array, mode: &PadMode, axis: usize, side: usize, width: usize) -> Result<Option<Array>> {
    if width == 0 {
        return Ok(None);
    }
    let n = x.shape()[axis];
    let padding = match mode {
        PadMode::Constant(values) => constant(x, axis, width, &values[axis][side])?,
        PadMode::Empty => constant(x, axis, width, &Array::zeros(&[], x.dtype(), &whole())?)?,
        PadMode::Edge => x.take_positions(&vec![if side == 0 { 0 } else { n as i64 - 1 }; width], axis as i64)?,
        PadMode::Wrap => x.take_positions(&positions(n, side, width).iter().map(|p| p.rem_euclid(n as i64)).collect::<Vec<_>>(), axis as i64)?,
        PadMode::Reflect { odd } => reflected(x, axis, side, width, false, *odd)?,
        PadMode::Symmetric { odd } => reflected(x, axis, side, width, true, *odd)?,
        PadMode::LinearRamp(ends) => ramp(x, axis, side, width, &ends[axis][side])?,
        PadMode::Statistic { statistic, lengths } => {
            let length = lengths.as_ref().map_or(n, |l| l[axis][side].min(n));
            statistic_padding(x, axis, side, width, *statistic, length)?
        }
    };
    Ok(Some(padding))
}

/// `x`'s shape with `axis` `width` long.
fn side_shape(x: &Array, axis: usize, width: usize) -> Vec<usize> {
    let mut shape = x.shape();
    shape[axis] = width;
    shape
}

/// A shape of ones but `width` along `axis`.
fn along(x: &Array, axis: usize, width: usize) -> Vec<usize> {
    let mut shape = vec![1; x.ndim()];
    shape[axis] = width;
    shape
}

fn constant(x: &Array, axis: usize, width: usize, value: &Array) -> Result<Array> {
    value.astype(x.dtype())?.broadcast_to(&side_shape(x, axis, width))
}

/// The positions of one side's padding relative to the array's first element.
fn positions(n: usize, side: usize, width: usize) -> Vec<i64> {
    let (n, width) = (n as i64, width as i64);
    if side == 0 {
        (-width..0).collect()
    } else {
        (n..n + width).collect()
    }
}

/// A 1-d array of `values` shaped to lie along `axis`.
fn laid_along(x: &Array, axis: usize, values: Vec<i64>) -> Result<Array> {
    let shape = along(x, axis, values.len());
    Array::from_ndarray(ndarray::ArrayD::from_shape_vec(shape, values).expect("one value per position"), &whole())
}

/// The element at one end of `axis`, kept as length one.
fn edge(x: &Array, axis: usize, side: usize) -> Result<Array> {
    let n = x.shape()[axis] as i64;
    let start = if side == 0 { 0 } else { n - 1 };
    x.index(&at_axis(x.ndim(), axis, IndexItem::Slice { start: Some(start), stop: Some(start + 1), step: None }))
}

/// Mirror images of the array continued periodically: `reflect` mirrors about the edge
/// elements (period 2(n-1)), `symmetric` about the edges themselves (period 2n). With `odd`
/// each image is also negated about its edge, which adds twice the end-to-end change per
/// period: NumPy's iterated reflections in closed form.
fn reflected(x: &Array, axis: usize, side: usize, width: usize, symmetric: bool, odd: bool) -> Result<Array> {
    let n = x.shape()[axis] as i64;
    let period = if symmetric { 2 * n } else { (2 * (n - 1)).max(1) };
    let mut index = Vec::with_capacity(width);
    let mut mirrored = Vec::with_capacity(width);
    let mut periods = Vec::with_capacity(width);
    for p in positions(n as usize, side, width) {
        let (whole_periods, offset) = (p.div_euclid(period), p.rem_euclid(period));
        let flip = offset >= n && n > 1;
        index.push(if n == 1 { 0 } else if offset >= n { period - offset - i64::from(symmetric) } else { offset });
        mirrored.push(i64::from(flip));
        periods.push(2 * whole_periods);
    }
    let images = x.take_positions(&index, axis as i64)?;
    if !odd {
        return Ok(images);
    }
    if x.dtype() == DType::Bool {
        return Err(TegulaError::DType(
            "numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, the `^` operator, or the logical_xor function instead.".into(),
        ));
    }
    let (first, last) = (edge(x, axis, 0)?, edge(x, axis, 1)?);
    let mirrored = laid_along(x, axis, mirrored)?.astype(DType::Bool)?;
    let drift = laid_along(x, axis, periods)?.astype(x.dtype())?.mul(&last.sub(&first)?)?;
    let flipped = last.binary_scalar(BinaryOp::Multiply, Scalar::Int(2), true)?.sub(&images)?;
    Array::where_(&mirrored, &flipped, &images)?.add(&drift)
}

/// NumPy's `linspace(end, edge, width, endpoint=False)` before the array (reversed after it):
/// computed in the inexact type of the end value and the array, then cast to the array's
/// dtype (integers rounded down first, as linspace does).
fn ramp(x: &Array, axis: usize, side: usize, width: usize, end: &Array) -> Result<Array> {
    let inexact = result_type(&[end.dtype(), x.dtype(), DType::Float16])?;
    let end = end.astype(inexact)?;
    let delta = edge(x, axis, side)?.astype(inexact)?.sub(&end)?;
    let steps: Vec<i64> = if side == 0 { (0..width as i64).collect() } else { (0..width as i64).rev().collect() };
    let steps = laid_along(x, axis, steps)?.astype(inexact)?;
    let w = Scalar::Int(width as i128);
    let step = delta.binary_scalar(BinaryOp::Divide, w, false)?;
    // linspace multiplies by the step, unless some step is zero: then by delta after dividing.
    let some_step_zero = step.binary_scalar(BinaryOp::Equal, Scalar::Int(0), false)?.reduce(&ReduceSpec::new(ReduceOp::Any))?;
    let divided_first = steps.binary_scalar(BinaryOp::Divide, w, false)?.mul(&delta)?;
    let mut ramp = Array::where_(&some_step_zero, &divided_first, &steps.mul(&step)?)?.add(&end)?;
    if x.dtype().is_integer() {
        ramp = ramp.unary(UnaryOp::Floor)?;
    }
    ramp.astype(x.dtype())
}

/// The maximum, minimum, mean or median of the `length` elements at this side's end,
/// repeated `width` times (means and medians of integers rounded half to even, as NumPy).
fn statistic_padding(x: &Array, axis: usize, side: usize, width: usize, statistic: PadStatistic, length: usize) -> Result<Array> {
    if length == 0 && matches!(statistic, PadStatistic::Maximum | PadStatistic::Minimum) {
        return Err(value_err!("stat_length of 0 yields no value for padding"));
    }
    let n = x.shape()[axis] as i64;
    let start = if side == 0 { 0 } else { n - length as i64 };
    let part = x.index(&at_axis(x.ndim(), axis, IndexItem::Slice { start: Some(start), stop: Some(start + length as i64), step: None }))?;
    let axes = [axis as i64];
    let reduce = |op| part.reduce(&ReduceSpec { axes: Some(axes.to_vec()), keepdims: true, ..ReduceSpec::new(op) });
    let mut stat = match statistic {
        PadStatistic::Maximum => reduce(ReduceOp::Max)?,
        PadStatistic::Minimum => reduce(ReduceOp::Min)?,
        PadStatistic::Mean => reduce(ReduceOp::Mean)?,
        PadStatistic::Median => part.median(Some(&axes), true, false)?,
    };
    if x.dtype().is_integer() && matches!(statistic, PadStatistic::Mean | PadStatistic::Median) {
        stat = stat.unary(UnaryOp::Rint)?;
    }
    stat.astype(x.dtype())?.broadcast_to(&side_shape(x, axis, width))
}
