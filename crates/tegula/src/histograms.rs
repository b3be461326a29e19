//! NumPy's counting functions: `digitize` (`searchsorted` into the bins), `bincount`,
//! `histogram` and `histogramdd`. Counts come from a sort: the number of values below each
//! bin edge is a `searchsorted` of the edges into the sorted values, and a bin's count the
//! difference of its two edges' (weighted: of a running sum of the weights in sorted order,
//! as NumPy's `histogram` with explicit edges). `bincount`'s length depends on the largest
//! value, which is computed when the expression is built, as `unique`'s length is; a
//! histogram's range, from the data's minimum and maximum, stays lazy, and a range that is
//! not finite is NumPy's `ValueError` when computed.

use crate::array::Array;
use crate::constant::{constant, diff, head, over_all, tail, whole};
use crate::histogram_bins::{estimated_bins, BinCount, BinEstimator};
use crate::histogram_edges::{below, common, numbers, OuterEdges};
use crate::ops::{IndexItem, ScanSpec};
use tegula_core::{
    dtype_err, promote, value_err, BinaryOp, ChunkSpec, DType, ReduceOp, Result, Scalar, ScanOp, TegulaError,
};

/// How `histogram` cuts the range into bins.
#[derive(Debug, Clone)]
pub enum Bins {
    /// This many equal bins over the range.
    Count(usize),
    /// These increasing edges (1-D); the last bin is closed.
    Edges(Array),
    /// As many equal bins as NumPy's estimator gives (its statistics are computed now).
    Estimator(BinEstimator),
}

/// A histogram: the (weighted) count in each bin and the bins' edges.
#[derive(Debug, Clone)]
pub struct Histogram {
    /// The count (or sum of weights, or density) of each bin.
    pub counts: Array,
    /// The `bins + 1` edges.
    pub edges: Array,
    /// An estimator's search ended at its largest trial (NumPy warns that the number of bins
    /// may be suboptimal).
    pub suboptimal_bins: bool,
}

/// The (weighted) count of the 1-D `values` in each bin between consecutive `edges`.
fn counts(values: &Array, edges: &Array, weights: Option<&Array>) -> Result<Array> {
    let Some(weights) = weights else {
        return diff(&below(&values.sort(0, false)?, edges)?);
    };
    let order = values.argsort(0, false)?;
    let wide = promote(weights.dtype(), if weights.dtype().is_float() || weights.dtype().is_complex() { DType::Float64 } else { DType::Int64 });
    let scan = ScanSpec { op: ScanOp::Sum, axis: Some(0), dtype: None, include_initial: true };
    let running = weights.take(&order, Some(0))?.astype(wide)?.cumulative(&scan)?;
    diff(&running.take(&below(&values.take(&order, Some(0))?, edges)?, Some(0))?)?.astype(weights.dtype())
}

/// NumPy's bin edges for the 1-D `values`: `Count` equal bins over the range (given, else
/// the data's, lazy), or the given increasing edges (checked now).
fn edges(values: &Array, bins: &Bins, range: Option<(f64, f64)>) -> Result<Array> {
    match bins {
        Bins::Count(0) => Err(value_err!("`bins` must be positive, when an integer")),
        Bins::Count(count) => outer_edges(values, range)?.even_edges(values.dtype(), *count),
        Bins::Edges(edges) => {
            if edges.ndim() != 1 {
                return Err(value_err!("`bins` must be 1d, when an array"));
            }
            let decreasing = over_all(&tail(edges)?.binary(BinaryOp::Less, &head(edges)?)?, ReduceOp::Any)?;
            if numbers(&[decreasing])?[0][0].value() != 0.0 {
                return Err(value_err!("`bins` must increase monotonically, when an array"));
            }
            Ok(edges.clone())
        }
        Bins::Estimator(_) => Err(TegulaError::DType("an estimator of the number of bins is for 1-D histograms only".into())),
    }
}

fn outer_edges(values: &Array, range: Option<(f64, f64)>) -> Result<OuterEdges> {
    match range {
        Some((first, last)) => OuterEdges::given(first, last),
        None => OuterEdges::lazy(values),
    }
}

impl Array {
    /// NumPy's `digitize`: the index of the bin of each value (`bins`: increasing or
    /// decreasing edges, checked now; `right`: bins closed on the right).
    pub fn digitize(&self, bins: &Array, right: bool) -> Result<Array> {
        if self.dtype().is_complex() {
            return Err(dtype_err!("x may not be complex"));
        }
        if bins.ndim() != 1 {
            let depth = if bins.ndim() == 0 { "object of too small depth for desired array" } else { "object too deep for desired array" };
            return Err(value_err!("{depth}"));
        }
        let steps = diff(bins)?;
        let zero = |op| over_all(&steps.binary_scalar(op, Scalar::Int(0), false)?, ReduceOp::All);
        let found = numbers(&[zero(BinaryOp::GreaterEqual)?, zero(BinaryOp::LessEqual)?])?;
        let search = |edges: &Array| {
            let [edges, x] = <[Array; 2]>::try_from(common(&[edges, self])?).expect("two arrays");
            edges.searchsorted(&x, !right, None)
        };
        if found[0][0].value() != 0.0 {
            return search(bins);
        }
        if found[1][0].value() != 0.0 {
            let reversed = bins.index(&[IndexItem::Slice { start: None, stop: None, step: Some(-1) }])?;
            return search(&reversed)?.binary_scalar(BinaryOp::Subtract, Scalar::Int(bins.size() as i128), true);
        }
        Err(value_err!("bins must be monotonically increasing or decreasing"))
    }

    /// NumPy's `bincount`: how often each value `0..=max` of the 1-D non-negative integers
    /// occurs (or the sum of their float64 `weights`), at least `minlength` of them. The
    /// result's length, and whether a value is negative, are computed now.
    pub fn bincount(&self, weights: Option<&Array>, minlength: usize) -> Result<Array> {
        if self.ndim() != 1 {
            let depth = if self.ndim() == 0 { "object of too small depth for desired array" } else { "object too deep for desired array" };
            return Err(value_err!("{depth}"));
        }
        let dtype = self.dtype();
        if !(dtype == DType::Bool || dtype.is_integer() && dtype != DType::UInt64) {
            return Err(dtype_err!("Cannot cast array data from dtype('{dtype}') to dtype('int64') according to the rule 'safe'"));
        }
        let weights = match weights {
            None => None,
            Some(w) if w.shape() != self.shape() => return Err(value_err!("The weights and list don't have the same length.")),
            Some(w) if w.dtype().is_complex() || w.dtype().is_time() => {
                return Err(dtype_err!("Cannot cast array data from dtype('{}') to dtype('float64') according to the rule 'safe'", w.dtype()))
            }
            Some(w) => Some(w.astype(DType::Float64)?),
        };
        if self.size() == 0 {
            return Array::zeros(&[minlength], DType::Int64, &whole());
        }
        let x = self.astype(DType::Int64)?;
        let found = numbers(&[over_all(&x, ReduceOp::Min)?, over_all(&x, ReduceOp::Max)?])?;
        if found[0][0].value() < 0.0 {
            return Err(value_err!("'list' argument must have no negative elements"));
        }
        let length = (found[1][0].value() as usize + 1).max(minlength);
        let auto = ChunkSpec::Auto(tegula_core::chunks::AUTO_CHUNK_BYTES);
        let edges = Array::arange(Scalar::Int(0), Scalar::Int(length as i128 + 1), Scalar::Int(1), Some(DType::Int64), &auto)?;
        counts(&x, &edges, weights.as_ref())
    }

    /// NumPy's `histogram` of the flattened array: the (weighted) counts in `bins` over
    /// `range` (the data's when `None`), and the edges. `density` divides by the total and
    /// the bins' widths. `weights` has this array's shape; estimators take no weights.
    pub fn histogram(&self, bins: &Bins, range: Option<(f64, f64)>, density: bool, weights: Option<&Array>) -> Result<Histogram> {
        let values = self.reshape(&[-1])?;
        let weights = match weights {
            Some(w) if w.shape() != self.shape() => return Err(value_err!("weights should have the same shape as a.")),
            Some(w) => Some(w.reshape(&[-1])?),
            None => None,
        };
        let (edges, suboptimal_bins) = match bins {
            Bins::Estimator(estimator) => {
                if weights.is_some() {
                    return Err(dtype_err!("Automated estimation of the number of bins is not supported for weighted data"));
                }
                let outer = match range {
                    Some((first, last)) => OuterEdges::given(first, last)?,
                    None => OuterEdges::computed(&values)?,
                };
                let BinCount { count, suboptimal } = estimated_bins(&values, *estimator, &outer)?;
                (outer.even_edges(values.dtype(), count)?, suboptimal)
            }
            _ => (edges(&values, bins, range)?, false),
        };
        let mut counts = counts(&values, &edges, weights.as_ref())?;
        if density {
            let total = counts.sum(None, false)?;
            counts = counts.binary(BinaryOp::Divide, &diff(&edges)?.astype(DType::Float64)?)?.binary(BinaryOp::Divide, &total)?;
        }
        Ok(Histogram { counts, edges, suboptimal_bins })
    }

    /// NumPy's `histogramdd` of `D` coordinate columns (1-D, one length): the (weighted)
    /// counts of the points in a grid of bins (float64, `D` axes) and each axis's edges.
    /// `bins` and `ranges`: one per column. Each point's cell is found by `searchsorted` per
    /// axis and its flat position counted over all cells.
    pub fn histogramdd(columns: &[Array], bins: &[Bins], ranges: &[Option<(f64, f64)>], density: bool, weights: Option<&Array>) -> Result<(Array, Vec<Array>)> {
        if columns.iter().any(|c| c.ndim() != 1 || c.shape() != columns[0].shape()) {
            return Err(value_err!("the coordinates of the sample must be 1-d arrays of one length"));
        }
        if bins.len() != columns.len() {
            return Err(value_err!("The dimension of bins must be equal to the dimension of the sample x."));
        }
        if ranges.len() != columns.len() {
            return Err(value_err!("range argument must have one entry per dimension"));
        }
        let columns = common(&columns.iter().collect::<Vec<_>>())?;
        let edges = columns.iter().zip(bins).zip(ranges).map(|((c, b), r)| edges(c, b, *r)).collect::<Result<Vec<_>>>()?;
        // One outlier bin at each end of every axis.
        let shape: Vec<usize> = edges.iter().map(|e| e.size() + 1).collect();
        let mut flat = constant(Scalar::Int(0), DType::Int64)?;
        for (i, (column, e)) in columns.iter().zip(&edges).enumerate() {
            let stride: usize = shape[i + 1..].iter().product();
            flat = flat.binary(BinaryOp::Add, &cell(column, e)?.binary_scalar(BinaryOp::Multiply, Scalar::Int(stride as i128), false)?)?;
        }
        let weights = weights.map(|w| w.reshape(&[-1])?.astype(DType::Float64)).transpose()?;
        let size: usize = shape.iter().product();
        let auto = ChunkSpec::Auto(tegula_core::chunks::AUTO_CHUNK_BYTES);
        let cells = Array::arange(Scalar::Int(0), Scalar::Int(size as i128 + 1), Scalar::Int(1), Some(DType::Int64), &auto)?;
        let signed: Vec<i64> = shape.iter().map(|&s| s as i64).collect();
        let hist = counts(&flat, &cells, weights.as_ref())?.reshape(&signed)?.astype(DType::Float64)?;
        let inner: Vec<IndexItem> = shape.iter().map(|_| IndexItem::Slice { start: Some(1), stop: Some(-1), step: None }).collect();
        let mut hist = hist.index(&inner)?;
        if density {
            let total = hist.sum(None, false)?;
            for (i, e) in edges.iter().enumerate() {
                let along: Vec<i64> = (0..edges.len()).map(|j| if j == i { -1 } else { 1 }).collect();
                hist = hist.binary(BinaryOp::Divide, &diff(e)?.astype(DType::Float64)?.reshape(&along)?)?;
            }
            hist = hist.binary(BinaryOp::Divide, &total)?;
        }
        Ok((hist, edges))
    }
}

/// Each value's bin along one axis, 1 for the first bin (0 below the first edge, one past
/// the last bin above the last edge), the last edge belonging to the last bin, as NumPy's.
fn cell(values: &Array, edges: &Array) -> Result<Array> {
    let [values, edges] = <[Array; 2]>::try_from(common(&[values, edges])?).expect("two arrays");
    let cell = edges.searchsorted(&values, true, None)?;
    let last = edges.index(&[IndexItem::Int(-1)])?;
    let on_last = values.binary(BinaryOp::Equal, &last)?;
    Array::where_(&on_last, &cell.binary_scalar(BinaryOp::Subtract, Scalar::Int(1), false)?, &cell)
}
