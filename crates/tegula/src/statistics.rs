//! NumPy's order statistics: `median`, `quantile` and `percentile`, and their NaN-skipping
//! variants. Each lane along the reduced axes gives up the few positions each quantile needs in
//! sorted order, found by selection (`sorted_take`) without sorting the lanes. The positions and
//! interpolation weights are computed from the lane length and `q` as a small lazy expression in
//! `q`'s precision (NumPy's arithmetic, operation for operation); for the NaN-skipping variants
//! the length is each lane's count of values that are not NaN. Weighted quantiles
//! (`inverted_cdf` only, as NumPy) sort each lane once, carry the weights along and pick the
//! first element whose cumulative weight reaches `q`.

use crate::array::{compute, Array};
use crate::constant::{at_axis, constant, whole};
use crate::ops::{IndexItem, ReduceSpec, ScanSpec, SortSpec};
use crate::quantile_positions::{positions, Positions};
use tegula_core::shape::normalize_axis;
use tegula_core::{
    index_err, value_err, BinaryOp, DType, ReduceOp, Result, Scalar, ScanOp,
    TegulaError, UnaryOp, NAT,
};

pub use crate::quantile_positions::QuantileMethod;

/// The quantiles asked for: values in `[0, 1]` (percentiles divided by 100) of any shape, with
/// the dtype NumPy would hold them in, which sets the precision of the positions, and whether
/// they were a Python number (whose interpolation weights then take the data's float dtype:
/// NumPy's weak promotion).
#[derive(Debug, Clone)]
pub struct Quantiles {
    values: ndarray::ArrayD<f64>,
    dtype: DType,
    weak: bool,
}

impl Quantiles {
    /// `values` held as `dtype` (a float or integer dtype; float32 values must be exact in
    /// float32), each in `[0, 1]`; `weak`: a Python scalar rather than an array.
    pub fn new(values: ndarray::ArrayD<f64>, dtype: DType, weak: bool) -> Result<Quantiles> {
        if !(dtype.is_float() || dtype.is_integer() || dtype == DType::Bool) {
            return Err(TegulaError::DType(format!("quantiles must be real numbers, not {dtype}")));
        }
        if !values.iter().all(|q| (0.0..=1.0).contains(q)) {
            return Err(value_err!("Quantiles must be in the range [0, 1]"));
        }
        Ok(Quantiles { values, dtype, weak })
    }

    /// Float64 quantiles in an array of shape `[len]`, as `np.quantile(x, [..])` takes a list.
    pub fn of(values: &[f64]) -> Result<Quantiles> {
        Quantiles::new(ndarray::ArrayD::from_shape_vec(vec![values.len()], values.to_vec()).expect("1-d"), DType::Float64, false)
    }

    /// One float64 quantile given as a number (a 0-d result).
    pub fn scalar(q: f64) -> Result<Quantiles> {
        Quantiles::new(ndarray::arr0(q).into_dyn(), DType::Float64, true)
    }

    fn shape(&self) -> Vec<usize> {
        self.values.shape().to_vec()
    }

    /// The values flattened, as a lazy array of their dtype with `ndim - 1` leading axes of
    /// length one (so they broadcast against lanes along a last axis).
    fn along_last_axis(&self, ndim: usize) -> Result<Array> {
        let flat = self.values.iter().copied().collect::<Vec<_>>();
        let mut shape = vec![1usize; ndim - 1];
        shape.push(flat.len());
        let values = ndarray::ArrayD::from_shape_vec(shape, flat).expect("same length");
        Array::from_ndarray(values, &whole())?.astype(self.dtype)
    }
}

/// How `quantile` reduces: over which axes, by which method, whether the reduced axes stay
/// (length one), with which weights (`inverted_cdf` only), and whether NaN values are skipped.
#[derive(Debug, Clone)]
pub struct QuantileSpec {
    /// `None`: every axis.
    pub axes: Option<Vec<i64>>,
    /// NumPy's `method=`.
    pub method: QuantileMethod,
    /// Keep the reduced axes as length one.
    pub keepdims: bool,
    /// Weights of the elements: of the array's shape, or of the reduced axes' lengths in
    /// `axes`' order (NumPy's two forms).
    pub weights: Option<Array>,
    /// NumPy's `nanquantile`: the quantiles of the values that are not NaN.
    pub skip_nan: bool,
}

impl QuantileSpec {
    /// Linear quantiles over `axes`, no weights, NaN propagating.
    pub fn new(axes: Option<&[i64]>) -> QuantileSpec {
        QuantileSpec { axes: axes.map(<[i64]>::to_vec), method: QuantileMethod::Linear, keepdims: false, weights: None, skip_nan: false }
    }
}

impl Array {
    /// The `q`-th quantiles along `spec.axes` (NumPy's `quantile`, or `nanquantile` with
    /// `spec.skip_nan`): `q`'s axes first, then the kept axes.
    pub fn quantile(&self, q: &Quantiles, spec: &QuantileSpec) -> Result<Array> {
        if self.dtype().is_complex() {
            return Err(TegulaError::DType("a must be an array of real numbers".into()));
        }
        let skip_nan = spec.skip_nan && (self.dtype().is_float() || self.dtype().is_time());
        if let Some(w) = &spec.weights {
            if spec.method != QuantileMethod::InvertedCdf {
                return Err(value_err!("Only method 'inverted_cdf' supports weights. Got: {}.", spec.method.name()));
            }
            let w = self.aligned_weights(w, spec.axes.as_deref())?.broadcast_to(&self.shape())?;
            if spec.skip_nan && self.size() == 0 {
                return self.nan_mean(spec.axes.as_deref(), spec.keepdims);
            }
            return self.weighted_quantile(q, &w, spec, skip_nan);
        }
        if spec.skip_nan && self.size() == 0 {
            return self.nan_mean(spec.axes.as_deref(), spec.keepdims);
        }
        let lanes = Lanes::of(self, spec.axes.as_deref())?;
        if skip_nan {
            return lanes.nan_quantile(q, spec);
        }
        lanes.quantile(q, spec)
    }

    /// The median along `axes` (all axes when `None`): the mean of the middle one or two
    /// elements of each sorted lane, NaN where a lane holds NaN; with `skip_nan`, NumPy's
    /// `nanmedian` (NaN where a lane holds nothing else).
    pub fn median(&self, axes: Option<&[i64]>, keepdims: bool, skip_nan: bool) -> Result<Array> {
        let dtype = self.dtype();
        if skip_nan && (dtype.is_float() || dtype.is_complex() || dtype.is_time()) {
            if self.size() == 0 {
                return self.nan_mean(axes, keepdims);
            }
            return Lanes::of(self, axes)?.nan_median(keepdims);
        }
        Lanes::of(self, axes)?.median(keepdims)
    }

    /// The range of values (maximum minus minimum) along `axes`, in the input's dtype (so
    /// integers wrap, as NumPy's `ptp`).
    pub fn ptp(&self, axes: Option<&[i64]>, keepdims: bool) -> Result<Array> {
        let extreme = |op| self.reduce(&ReduceSpec { axes: axes.map(<[i64]>::to_vec), keepdims, ..ReduceSpec::new(op) });
        extreme(ReduceOp::Max)?.sub(&extreme(ReduceOp::Min)?)
    }

    fn nan_mean(&self, axes: Option<&[i64]>, keepdims: bool) -> Result<Array> {
        self.reduce(&ReduceSpec { axes: axes.map(<[i64]>::to_vec), keepdims, ..ReduceSpec::new(ReduceOp::NanMean) })
    }

    /// `weights` of this array's shape, or of the reduced axes' lengths (in `axes`' order) with
    /// length-one axes elsewhere, so they broadcast against this array; NumPy's errors (shared
    /// by the weighted quantiles and `average`).
    pub fn aligned_weights(&self, weights: &Array, axes: Option<&[i64]>) -> Result<Array> {
        let shape = self.shape();
        if weights.shape() == shape {
            return Ok(weights.clone());
        }
        let Some(axes) = axes else {
            return Err(TegulaError::DType("Axis must be specified when shapes of a and weights differ.".into()));
        };
        let axes = axes.iter().map(|&a| normalize_axis(a, self.ndim())).collect::<Result<Vec<_>>>()?;
        if weights.shape() != axes.iter().map(|&a| shape[a]).collect::<Vec<_>>() {
            return Err(value_err!("Shape of weights must be consistent with shape of a along specified axis."));
        }
        // The weights' axes follow `axes`' order; put them in the array's.
        let mut order: Vec<usize> = (0..axes.len()).collect();
        order.sort_by_key(|&i| axes[i]);
        let permuted = weights.transpose(Some(&order.iter().map(|&i| i as i64).collect::<Vec<_>>()))?;
        let dims: Vec<i64> = (0..self.ndim()).map(|i| if axes.contains(&i) { shape[i] as i64 } else { 1 }).collect();
        permuted.reshape(&dims)
    }

    fn weighted_quantile(&self, q: &Quantiles, weights: &Array, spec: &QuantileSpec, skip_nan: bool) -> Result<Array> {
        let lanes = Lanes::of(self, spec.axes.as_deref())?;
        let mut weight_lanes = Lanes::of(weights, spec.axes.as_deref())?.values.astype(DType::Float64)?;
        let n = lanes.length();
        let lane_nan = lanes.values.unary(UnaryOp::Isnan)?;
        if skip_nan {
            weight_lanes = Array::where_(&lane_nan, &constant(Scalar::Float(0.0), DType::Float64)?, &weight_lanes)?;
        }
        let total = weight_lanes.reduce(&ReduceSpec { axes: Some(vec![-1]), ..ReduceSpec::new(ReduceOp::Sum) })?;
        let mut unusable = total.unary(UnaryOp::Isfinite)?.unary(UnaryOp::LogicalNot)?.binary(
            BinaryOp::LogicalOr,
            &total.binary_scalar(BinaryOp::Equal, Scalar::Int(0), false)?,
        )?;
        let present = lane_nan.unary(UnaryOp::LogicalNot)?.reduce(&ReduceSpec { axes: Some(vec![-1]), ..ReduceSpec::new(ReduceOp::Any) })?;
        if skip_nan {
            unusable = unusable.binary(BinaryOp::LogicalAnd, &present)?;
        }
        let negative = weights.binary_scalar(BinaryOp::Less, Scalar::Int(0), false)?.reduce(&ReduceSpec::new(ReduceOp::Any))?;
        let unusable = unusable.reduce(&ReduceSpec::new(ReduceOp::Any))?;
        let (found, _) = compute(&[&negative, &unusable], crate::ComputeOptions::default())?;
        let truth = |i: usize| found[i].typed::<bool>().map(|b| b.iter().any(|&v| v));
        if truth(0)? {
            return Err(value_err!("Weights must be non-negative."));
        }
        if n == 0 {
            return Err(index_err!("cannot do a non-empty take from an empty axes."));
        }
        if truth(1)? {
            return Err(value_err!("Weights included NaN, inf or were all zero."));
        }
        let last = lanes.values.ndim() as i64 - 1;
        let order = lanes.values.sorted(&SortSpec::new(last, false, true))?;
        let ordered = lanes.values.take_along_axis(&order, last)?;
        let scan = ScanSpec { op: ScanOp::Sum, axis: Some(last), dtype: None, include_initial: false };
        let cumulative = weight_lanes.take_along_axis(&order, last)?.cumulative(&scan)?;
        let lane_total = cumulative.index(&last_items(lanes.values.ndim(), IndexItem::Slice { start: Some(-1), stop: None, step: None }))?;
        let mut cdf = cumulative.binary(BinaryOp::Divide, &lane_total)?;
        if q.dtype.is_float() {
            // Compared in q's precision, as NumPy's searchsorted.
            cdf = cdf.astype(q.dtype)?;
        }
        // NumPy's searchsorted(cdf, q, side="left"): the count of cdf values below q, with the
        // zeros of leading zero weights counted as below q = 0 too.
        let mut dims: Vec<i64> = lanes.kept.iter().map(|&d| d as i64).collect();
        dims.extend([1, n as i64]);
        let cdf = cdf.reshape(&dims)?;
        let qs = q.along_last_axis(2)?.reshape(&[-1, 1])?;
        let below = cdf.binary(BinaryOp::Less, &qs)?.binary(BinaryOp::LogicalOr, &cdf.binary_scalar(BinaryOp::Equal, Scalar::Int(0), false)?)?;
        let count = below.reduce(&ReduceSpec { axes: Some(vec![-1]), ..ReduceSpec::new(ReduceOp::Sum) })?;
        let index = count.binary_scalar(BinaryOp::Minimum, Scalar::Int(n as i128 - 1), false)?;
        let mut result = ordered.take_along_axis(&index, last)?;
        result = if skip_nan {
            Array::where_(&present.expand_dims(&[-1])?, &result, &constant(Scalar::Float(f64::NAN), result.dtype())?)?
        } else {
            let last_value = ordered.index(&last_items(ordered.ndim(), IndexItem::Slice { start: Some(-1), stop: None, step: None }))?;
            nan_where_lane_has_nan(result, &last_value)?
        };
        lanes.finish(result.moveaxis(&[-1], &[0])?, q, spec.keepdims)
    }
}

/// An array with the reduced axes merged into one last axis, with the shape without them and
/// the shape with them kept as length one.
struct Lanes {
    values: Array,
    kept: Vec<usize>,
    kept_dims: Vec<usize>,
}

impl Lanes {
    fn of(x: &Array, axes: Option<&[i64]>) -> Result<Lanes> {
        let ndim = x.ndim();
        let mut reduced = match axes {
            None => (0..ndim).collect::<Vec<_>>(),
            Some(axes) => axes.iter().map(|&a| normalize_axis(a, ndim)).collect::<Result<Vec<_>>>()?,
        };
        reduced.sort_unstable();
        if reduced.windows(2).any(|w| w[0] == w[1]) {
            return Err(value_err!("duplicate value in 'axis'"));
        }
        let shape = x.shape();
        let kept: Vec<usize> = (0..ndim).filter(|a| !reduced.contains(a)).map(|a| shape[a]).collect();
        let kept_dims: Vec<usize> = (0..ndim).map(|a| if reduced.contains(&a) { 1 } else { shape[a] }).collect();
        let order: Vec<i64> = (0..ndim).filter(|a| !reduced.contains(a)).chain(reduced.iter().copied()).map(|a| a as i64).collect();
        let length: usize = reduced.iter().map(|&a| shape[a]).product();
        let mut dims: Vec<i64> = kept.iter().map(|&d| d as i64).collect();
        dims.push(length as i64);
        let values = x.transpose(Some(&order))?.reshape(&dims)?;
        Ok(Lanes { values, kept, kept_dims })
    }

    fn length(&self) -> usize {
        *self.values.shape().last().expect("lanes have a last axis")
    }

    fn last_axis(&self) -> i64 {
        self.values.ndim() as i64 - 1
    }

    /// `result` (the quantiles' axes first, then the kept ones flattened into place) in its
    /// final shape: `q`'s shape, then the kept axes (as length one where reduced, with
    /// `keepdims`).
    fn finish(&self, result: Array, q: &Quantiles, keepdims: bool) -> Result<Array> {
        let dims = q.shape().into_iter().chain(if keepdims { self.kept_dims.clone() } else { self.kept.clone() }).map(|d| d as i64);
        result.reshape(&dims.collect::<Vec<_>>())
    }

    fn finish_median(&self, result: Array, keepdims: bool) -> Result<Array> {
        let dims = if keepdims { &self.kept_dims } else { &self.kept };
        result.reshape(&dims.iter().map(|&d| d as i64).collect::<Vec<_>>())
    }

    /// The elements at `positions` (int64, broadcasting against the lanes but for their last
    /// axis) of each lane in sorted order.
    fn sorted_take(&self, positions: &Array) -> Result<Array> {
        let block_bytes = SortSpec::new(self.last_axis(), false, false).block_bytes;
        self.values.sorted_take(&positions.astype(DType::Int64)?, self.last_axis(), block_bytes)
    }

    /// The mean of the middle one or two elements, NaN where the last sorted one is NaN.
    fn median(&self, keepdims: bool) -> Result<Array> {
        let n = self.length();
        let mean_last = |a: &Array| a.reduce(&ReduceSpec { axes: Some(vec![-1]), ..ReduceSpec::new(ReduceOp::Mean) });
        if n == 0 {
            return self.finish_median(mean_last(&self.values)?, keepdims);
        }
        // One middle element when n is odd (its mean is itself, even near overflow), two when even.
        let mut middle = if n % 2 == 1 { vec![n / 2] } else { vec![n / 2 - 1, n / 2] };
        middle.push(n - 1);
        let taken = self.sorted_take(&positions_array(&middle, self.values.ndim())?)?;
        let ndim = taken.ndim();
        let middles = taken.index(&last_items(ndim, IndexItem::Slice { start: None, stop: Some(-1), step: None }))?;
        let last = taken.index(&last_items(ndim, IndexItem::Int(-1)))?;
        let result = nan_where_lane_has_nan(mean_last(&middles)?, &last)?;
        self.finish_median(result, keepdims)
    }

    /// The counts of values that are not NaN, int64 with a length-one last axis.
    fn counts(&self) -> Result<Array> {
        let present = self.values.unary(UnaryOp::Isnan)?.unary(UnaryOp::LogicalNot)?;
        present.reduce(&ReduceSpec { axes: Some(vec![-1]), keepdims: true, dtype: Some(DType::Int64), ..ReduceSpec::new(ReduceOp::Sum) })
    }

    /// The sorted lanes' values at lazy positions (one array of positions per lane in each of
    /// `indices`), in one selection; a lane without values (an index below 0) reads its first
    /// element, which the caller replaces by NaN.
    fn gather(&self, indices: &[&Array]) -> Result<Vec<Array>> {
        let last = self.last_axis();
        let joined = Array::concatenate(indices, Some(last))?.binary_scalar(BinaryOp::Maximum, Scalar::Int(0), false)?;
        let taken = self.sorted_take(&joined)?;
        let mut start = 0i64;
        indices
            .iter()
            .map(|i| {
                let len = *i.shape().last().expect("positions have a last axis") as i64;
                let part = taken.index(&last_items(taken.ndim(), IndexItem::Slice { start: Some(start), stop: Some(start + len), step: None }));
                start += len;
                part
            })
            .collect()
    }

    fn nan_median(&self, keepdims: bool) -> Result<Array> {
        let count = self.counts()?;
        let low_at = count.binary_scalar(BinaryOp::Subtract, Scalar::Int(1), false)?.binary_scalar(BinaryOp::FloorDivide, Scalar::Int(2), false)?;
        let high_at = count.binary_scalar(BinaryOp::FloorDivide, Scalar::Int(2), false)?;
        let [low, high]: [Array; 2] = self.gather(&[&low_at, &high_at])?.try_into().expect("two parts");
        let both = Array::concatenate(&[&low, &high], Some(self.last_axis()))?;
        let mean = both.reduce(&ReduceSpec { axes: Some(vec![-1]), keepdims: true, ..ReduceSpec::new(ReduceOp::Mean) })?;
        // One middle element when the count is odd: itself, even where the mean would overflow.
        let odd = count.binary_scalar(BinaryOp::Remainder, Scalar::Int(2), false)?.binary_scalar(BinaryOp::Equal, Scalar::Int(1), false)?;
        let middle = Array::where_(&odd, &low, &mean)?;
        let none = count.binary_scalar(BinaryOp::Equal, Scalar::Int(0), false)?;
        let result = Array::where_(&none, &missing_value(middle.dtype())?, &middle)?;
        let result = result.index(&last_items(result.ndim(), IndexItem::Int(0)))?;
        self.finish_median(result, keepdims)
    }

    fn quantile(&self, q: &Quantiles, spec: &QuantileSpec) -> Result<Array> {
        let n = self.length();
        if n == 0 {
            return Err(index_err!("cannot do a non-empty take from an empty axes."));
        }
        let ndim = self.values.ndim();
        let length = constant(Scalar::Int(n as i128), if q.dtype.is_float() { q.dtype } else { DType::Int64 })?;
        let qs = q.along_last_axis(ndim)?;
        let last_at = positions_array(&[n - 1], ndim)?;
        let (result, taken) = match positions(spec.method, &length.reshape(&vec![1; ndim])?, &qs)? {
            Positions::One(index) => {
                let taken = self.sorted_take(&Array::concatenate(&[&index, &last_at], Some(-1))?)?;
                (taken.index(&last_items(ndim, IndexItem::Slice { start: None, stop: Some(-1), step: None }))?, taken)
            }
            Positions::Two { below, above, gamma } => {
                let m = *below.shape().last().expect("positions") as i64;
                let taken = self.sorted_take(&Array::concatenate(&[&below, &above, &last_at], Some(-1))?)?;
                let part = |start, stop| taken.index(&last_items(ndim, IndexItem::Slice { start: Some(start), stop: Some(stop), step: None }));
                (lerp(&part(0, m)?, &part(m, 2 * m)?, &gamma, q.weak)?, taken)
            }
        };
        let last = taken.index(&last_items(ndim, IndexItem::Slice { start: Some(-1), stop: None, step: None }))?;
        let result = nan_where_lane_has_nan(result, &last)?;
        self.finish(result.moveaxis(&[-1], &[0])?, q, spec.keepdims)
    }

    /// The quantiles of each lane's values that are not NaN: positions from each lane's count
    /// (in `q`'s precision, as NumPy computes them from an integer length), gathered per lane.
    fn nan_quantile(&self, q: &Quantiles, spec: &QuantileSpec) -> Result<Array> {
        let count = self.counts()?;
        let length = if q.dtype.is_float() { count.astype(q.dtype)? } else { count.clone() };
        let qs = q.along_last_axis(self.values.ndim())?;
        let result = match positions(spec.method, &length, &qs)? {
            Positions::One(index) => self.gather(&[&index])?.remove(0),
            Positions::Two { below, above, gamma } => {
                let [a, b]: [Array; 2] = self.gather(&[&below, &above])?.try_into().expect("two parts");
                lerp(&a, &b, &gamma, q.weak)?
            }
        };
        let none = count.binary_scalar(BinaryOp::Equal, Scalar::Int(0), false)?;
        let result = Array::where_(&none, &missing_value(result.dtype())?, &result)?;
        self.finish(result.moveaxis(&[-1], &[0])?, q, spec.keepdims)
    }
}

/// NumPy's interpolation between `a` and `b`: from `a` below the midpoint, from `b` above it,
/// so that `gamma = 0` and `gamma = 1` give `a` and `b` exactly. The weights take `a`'s float
/// dtype (float64 for integers and times) where `q` was a number, else `gamma`'s.
fn lerp(a: &Array, b: &Array, gamma: &Array, weak: bool) -> Result<Array> {
    let dtype = match weak {
        true if a.dtype().is_float() => a.dtype(),
        true => DType::Float64,
        false => gamma.dtype(),
    };
    let diff = b.sub(a)?;
    let t = gamma.astype(dtype)?;
    let rest = gamma.binary_scalar(BinaryOp::Subtract, Scalar::Int(1), true)?.astype(dtype)?;
    let upper = b.sub(&diff.mul(&rest)?)?;
    let lower = a.add(&diff.mul(&t)?)?;
    Array::where_(&gamma.binary_scalar(BinaryOp::GreaterEqual, Scalar::Float(0.5), false)?, &upper, &lower)
}

/// NaN (NaT for times) sorts last: a lane whose last sorted element (`last`, broadcasting
/// against `result`) is NaN has NaN statistics.
fn nan_where_lane_has_nan(result: Array, last: &Array) -> Result<Array> {
    let dtype = last.dtype();
    if !(dtype.is_float() || dtype.is_complex() || dtype.is_time()) {
        return Ok(result);
    }
    Array::where_(&last.unary(UnaryOp::Isnan)?, &missing_value(result.dtype())?, &result)
}

/// A 0-d NaN of `dtype`, or NaT of a time dtype's unit.
fn missing_value(dtype: DType) -> Result<Array> {
    if dtype.is_time() {
        return constant(Scalar::Int(NAT.into()), DType::Int64)?.astype(dtype);
    }
    constant(Scalar::Float(f64::NAN), dtype)
}

/// Fixed positions along a last axis, int64, with `ndim - 1` leading axes of length one.
fn positions_array(positions: &[usize], ndim: usize) -> Result<Array> {
    let mut shape = vec![1usize; ndim - 1];
    shape.push(positions.len());
    let values = ndarray::ArrayD::from_shape_vec(shape, positions.iter().map(|&p| p as i64).collect()).expect("same length");
    Array::from_ndarray(values, &whole())
}

/// An index of `ndim` items: the whole of every axis but the last, which takes `last`.
fn last_items(ndim: usize, last: IndexItem) -> Vec<IndexItem> {
    at_axis(ndim, ndim - 1, last)
}
