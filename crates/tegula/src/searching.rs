//! Searching built from reductions: `argmax`/`argmin` find the extreme value, then the first
//! position holding it (two passes over the input, both chunked and fused).

use crate::array::Array;
use crate::constant::constant;
use crate::ops::ReduceSpec;
use tegula_core::{value_err, AxisChunks, BinaryOp, ChunkSpec, DType, ReduceOp, Result, Scalar, TegulaError, UnaryOp};

impl Array {
    /// The int64 position of the first largest element along `axis` (of the flattened array
    /// when `None`); NaN (NaT) counts as the largest, as in NumPy.
    pub fn argmax(&self, axis: Option<i64>, keepdims: bool) -> Result<Array> {
        self.arg_extreme(axis, keepdims, ReduceOp::Max)
    }

    /// The int64 position of the first smallest element along `axis`; NaN counts as the
    /// smallest, as in NumPy.
    pub fn argmin(&self, axis: Option<i64>, keepdims: bool) -> Result<Array> {
        self.arg_extreme(axis, keepdims, ReduceOp::Min)
    }

    fn arg_extreme(&self, axis: Option<i64>, keepdims: bool, op: ReduceOp) -> Result<Array> {
        let ndim = self.ndim();
        let axis = axis.map(|a| checked_axis(a, ndim)).transpose()?;
        let shape = self.shape();
        if self.size() == 0 && axis.is_none_or(|a| ndim == 0 || shape[a] == 0) {
            return Err(value_err!("attempt to get arg{} of an empty sequence", op.name()));
        }
        if ndim == 0 {
            return constant(Scalar::Int(0), DType::Int64);
        }
        let axes: Vec<usize> = axis.map_or_else(|| (0..ndim).collect(), |a| vec![a]);
        let as_axes = |keep: bool| ReduceSpec { axes: axis.map(|a| vec![a as i64]), keepdims: keep, ..ReduceSpec::new(op) };
        let extreme = self.reduce(&as_axes(true))?;
        let mut hit = self.binary(BinaryOp::Equal, &extreme)?;
        let dtype = self.dtype();
        if dtype.is_float() || dtype.is_complex() || dtype.is_time() {
            // NumPy returns the first NaN (NaT), which the extreme then is.
            let both_nan = extreme.unary(UnaryOp::Isnan)?.binary(BinaryOp::LogicalAnd, &self.unary(UnaryOp::Isnan)?)?;
            hit = hit.binary(BinaryOp::LogicalOr, &both_nan)?;
        }
        let past_end: usize = axes.iter().map(|&a| shape[a]).product();
        let positions = Array::where_(&hit, &self.flat_positions(&axes)?, &constant(Scalar::Int(past_end as i128), DType::Int64)?)?;
        positions.reduce(&ReduceSpec { op: ReduceOp::Min, ..as_axes(keepdims) })
    }

    /// Each element's row-major position within the sub-array spanned by `axes` (int64), as a
    /// sum of broadcast ranges, one per axis: generated, never stored.
    pub(crate) fn flat_positions(&self, axes: &[usize]) -> Result<Array> {
        let (shape, ndim) = (self.shape(), self.ndim());
        let mut total: Option<Array> = None;
        let mut stride = 1i64;
        for &a in axes.iter().rev() {
            let chunks = ChunkSpec::PerAxis(vec![AxisChunks::Explicit(self.chunks().sizes()[a].clone())]);
            let range = Array::arange(Scalar::Int(0), Scalar::Int(shape[a] as i128), Scalar::Int(1), Some(DType::Int64), &chunks)?;
            let term = range.index(&along_axis(a, ndim))?.mul_scalar(stride)?;
            total = Some(match total {
                Some(t) => t.add(&term)?,
                None => term,
            });
            stride *= shape[a] as i64;
        }
        total.map_or_else(|| constant(Scalar::Int(0), DType::Int64), Ok)
    }
}

/// `axis` (negative counts from the end) checked against `ndim` axes; a 0-d array takes
/// axis 0 or -1, as NumPy's arg-reductions do.
pub(crate) fn checked_axis(axis: i64, ndim: usize) -> Result<usize> {
    let n = ndim.max(1) as i64;
    if !(-n..n).contains(&axis) {
        return Err(TegulaError::Axis { axis, ndim });
    }
    Ok(axis.rem_euclid(n) as usize)
}

/// An index putting a 1-d array's axis at `axis` of `ndim` axes (new axes elsewhere).
fn along_axis(axis: usize, ndim: usize) -> Vec<crate::ops::IndexItem> {
    use crate::ops::IndexItem::{NewAxis, Slice};
    (0..ndim).map(|i| if i == axis { Slice { start: None, stop: None, step: None } } else { NewAxis }).collect()
}
