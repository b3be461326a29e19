//! The edges of a histogram: the outer edges (a given range, or the data's minimum and
//! maximum, lazy or computed now) and equal bins between them as NumPy's `linspace` makes
//! them; how many sorted values lie below each edge.

use crate::array::{compute, Array};
use crate::constant::{constant, head};
use crate::constant::over_all;
use crate::ops::IndexItem;
use crate::scalar_arithmetic::Num;
use tegula_core::{promote, value_err, BinaryOp, ChunkSpec, DType, ReduceOp, Result, Scalar, UnaryOp};

/// The outer edges of a histogram as 0-d arrays, and whether they are Python numbers (a given
/// range: weak, computed in float64) or the data's own (computed in its float type).
pub(crate) struct OuterEdges {
    pub(crate) first: Array,
    pub(crate) last: Array,
    weak: bool,
}

impl OuterEdges {
    /// A given range, checked as NumPy does and widened by a half each side when empty.
    pub(crate) fn given(first: f64, last: f64) -> Result<OuterEdges> {
        if first > last {
            return Err(value_err!("max must be larger than min in range parameter."));
        }
        if !(first.is_finite() && last.is_finite()) {
            return Err(value_err!("supplied range of [{}, {}] is not finite", python_float(first), python_float(last)));
        }
        let (first, last) = if first == last { (first - 0.5, last + 0.5) } else { (first, last) };
        Ok(OuterEdges { first: float64(first)?, last: float64(last)?, weak: true })
    }

    /// The data's minimum and maximum, lazy (a range that is not finite fails when computed),
    /// widened by a half each side when equal; `[0, 1]` for no data.
    pub(crate) fn lazy(values: &Array) -> Result<OuterEdges> {
        if values.size() == 0 {
            return OuterEdges::given(0.0, 1.0);
        }
        let (first, last) = (over_all(values, ReduceOp::Min)?, over_all(values, ReduceOp::Max)?);
        let finite = first.unary(UnaryOp::Isfinite)?.binary(BinaryOp::LogicalAnd, &last.unary(UnaryOp::Isfinite)?)?;
        let first = first.checked(&finite.unary(UnaryOp::LogicalNot)?, value_err!("autodetected range is not finite"))?;
        OuterEdges::widened(first, last)
    }

    /// The data's minimum and maximum computed now (an estimator needs them as numbers), with
    /// NumPy's error when they are not finite.
    pub(crate) fn computed(values: &Array) -> Result<OuterEdges> {
        if values.size() == 0 {
            return OuterEdges::given(0.0, 1.0);
        }
        let lazy = [over_all(values, ReduceOp::Min)?, over_all(values, ReduceOp::Max)?];
        let found = numbers(&lazy)?;
        let (first, last) = (found[0][0].value(), found[1][0].value());
        if !(first.is_finite() && last.is_finite()) {
            return Err(value_err!("autodetected range of [{}, {}] is not finite", python_float(first), python_float(last)));
        }
        let number = |v: f64| if values.dtype().is_float() { Scalar::Float(v) } else { Scalar::Int(v as i128) };
        OuterEdges::widened(constant(number(first), values.dtype())?, constant(number(last), values.dtype())?)
    }

    fn widened(first: Array, last: Array) -> Result<OuterEdges> {
        let same = first.binary(BinaryOp::Equal, &last)?;
        let shift = |x: &Array, op| x.binary_scalar(op, Scalar::Float(0.5), false);
        let first = Array::where_(&same, &shift(&first, BinaryOp::Subtract)?, &first)?;
        let last = Array::where_(&same, &shift(&last, BinaryOp::Add)?, &last)?;
        Ok(OuterEdges { first, last, weak: false })
    }

    /// `bins + 1` evenly spaced edges between the outer edges, as NumPy's `linspace` makes
    /// them (in the edges' own float type, the last exactly the end), in NumPy's edge dtype
    /// (the data's float type, float64 for integers).
    pub(crate) fn even_edges(&self, data: DType, bins: usize) -> Result<Array> {
        let (edge_type, computed) = if self.weak {
            (float_of(data), DType::Float64)
        } else {
            let outer = promote(self.first.dtype(), self.last.dtype());
            (float_of(promote(outer, data)), float_of(outer))
        };
        let (first, last) = (self.first.astype(computed)?, self.last.astype(computed)?);
        let step = last.sub(&first)?.binary_scalar(BinaryOp::Divide, Scalar::Int(bins as i128), false)?;
        let auto = ChunkSpec::Auto(tegula_core::chunks::AUTO_CHUNK_BYTES);
        let inner = Array::arange(Scalar::Int(0), Scalar::Int(bins as i128), Scalar::Int(1), Some(computed), &auto)?;
        let inner = inner.binary(BinaryOp::Multiply, &step)?.binary(BinaryOp::Add, &first)?;
        Array::concatenate(&[&inner, &last.reshape(&[1])?], Some(0))?.astype(edge_type)
    }

    /// `last - first` as NumPy's histogram takes it (computed outer edges): in their float
    /// type, or integers in their unsigned type, so that the difference cannot overflow.
    pub(crate) fn difference(&self) -> Result<Num> {
        let found = numbers(&[self.first.clone(), self.last.clone()])?;
        let dtype = if self.weak { DType::Float64 } else { promote(self.first.dtype(), self.last.dtype()) };
        Ok(OuterEdges::difference_of(dtype, found[1][0], found[0][0]))
    }

    /// `high - low` of two numbers of `dtype`, as `difference`.
    pub(crate) fn difference_of(dtype: DType, high: Num, low: Num) -> Num {
        if dtype.is_float() {
            Num::of(dtype, high.value()) - Num::of(dtype, low.value())
        } else {
            Num::Double(((high.value() as i128) - (low.value() as i128)) as f64)
        }
    }
}

/// Python's text for a float (`nan`, `inf`).
fn python_float(v: f64) -> String {
    if v.is_nan() {
        "nan".into()
    } else if v.is_infinite() {
        if v > 0.0 { "inf".into() } else { "-inf".into() }
    } else {
        format!("{v:?}")
    }
}

fn float64(v: f64) -> Result<Array> {
    constant(Scalar::Float(v), DType::Float64)
}

/// The float type NumPy's histogram takes for `dtype`: its own, float64 for integers.
pub(crate) fn float_of(dtype: DType) -> DType {
    if dtype.is_float() { dtype } else { DType::Float64 }
}

/// The arrays in their common dtype, as NumPy's `searchsorted` compares them.
pub(crate) fn common(arrays: &[&Array]) -> Result<Vec<Array>> {
    let dtype = arrays.iter().map(|a| a.dtype()).reduce(promote).unwrap_or(DType::Float64);
    arrays.iter().map(|a| a.astype(dtype)).collect()
}

/// For each edge, how many of the sorted values lie below it; the last edge counts values
/// equal to it too (the last bin is closed), as NumPy's `histogram`.
pub(crate) fn below(ordered: &Array, edges: &Array) -> Result<Array> {
    let [ordered, edges] = <[Array; 2]>::try_from(common(&[ordered, edges])?).expect("two arrays");
    let last = edges.index(&[IndexItem::Slice { start: Some(-1), stop: None, step: None }])?;
    Array::concatenate(&[&ordered.searchsorted(&head(&edges)?, false, None)?, &ordered.searchsorted(&last, true, None)?], Some(0))
}

/// The arrays computed together, each as its numbers in its dtype's precision.
pub(crate) fn numbers(arrays: &[Array]) -> Result<Vec<Vec<Num>>> {
    let refs: Vec<&Array> = arrays.iter().collect();
    let (chunks, _) = compute(&refs, crate::ComputeOptions::default())?;
    chunks
        .iter()
        .zip(arrays)
        .map(|(chunk, array)| {
            let values = chunk.cast(DType::Float64);
            Ok(values.typed::<f64>()?.iter().map(|&v| Num::of(array.dtype(), v)).collect())
        })
        .collect()
}
