//! Which sorted positions each quantile reads, and the weights between them: NumPy's methods
//! (the nine of Hyndman and Fan, and `lower`, `higher`, `nearest`, `midpoint`), computed as a
//! lazy expression of the lane length `n` and the quantiles `q` in `q`'s dtype, operation for
//! operation as NumPy computes them, so the positions are NumPy's in float32 as in float64.

use crate::array::Array;
use crate::constant::constant;
use tegula_core::{value_err, BinaryOp, DType, Result, Scalar, UnaryOp};

/// NumPy's `method=` of `quantile` and `percentile`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuantileMethod {
    /// Interpolates linearly between the two nearest elements (the default).
    Linear,
    /// The element below.
    Lower,
    /// The element above.
    Higher,
    /// The nearest element (ties to the even position).
    Nearest,
    /// The mean of the elements below and above.
    Midpoint,
    /// The first element whose empirical distribution reaches `q`.
    InvertedCdf,
    /// `InvertedCdf`, averaged where the distribution equals `q`.
    AveragedInvertedCdf,
    /// The nearest element, ties to the even one.
    ClosestObservation,
    /// Linear interpolation of the inverted distribution (Hyndman–Fan 4).
    InterpolatedInvertedCdf,
    /// Hyndman–Fan 5.
    Hazen,
    /// Hyndman–Fan 6.
    Weibull,
    /// Hyndman–Fan 8.
    MedianUnbiased,
    /// Hyndman–Fan 9.
    NormalUnbiased,
}

const NAMES: [(QuantileMethod, &str); 13] = [
    (QuantileMethod::Linear, "linear"),
    (QuantileMethod::Lower, "lower"),
    (QuantileMethod::Higher, "higher"),
    (QuantileMethod::Nearest, "nearest"),
    (QuantileMethod::Midpoint, "midpoint"),
    (QuantileMethod::InvertedCdf, "inverted_cdf"),
    (QuantileMethod::AveragedInvertedCdf, "averaged_inverted_cdf"),
    (QuantileMethod::ClosestObservation, "closest_observation"),
    (QuantileMethod::InterpolatedInvertedCdf, "interpolated_inverted_cdf"),
    (QuantileMethod::Hazen, "hazen"),
    (QuantileMethod::Weibull, "weibull"),
    (QuantileMethod::MedianUnbiased, "median_unbiased"),
    (QuantileMethod::NormalUnbiased, "normal_unbiased"),
];

impl QuantileMethod {
    /// NumPy's name of the method.
    pub fn name(self) -> &'static str {
        NAMES.iter().find(|(m, _)| *m == self).map(|(_, n)| *n).expect("every method is named")
    }

    /// The method NumPy calls `name`; NumPy's error otherwise.
    pub fn from_name(name: &str) -> Result<QuantileMethod> {
        NAMES.iter().find(|(_, n)| *n == name).map(|(m, _)| *m).ok_or_else(|| {
            let mut names: Vec<&str> = NAMES.iter().map(|(_, n)| *n).collect();
            names.sort_unstable();
            value_err!("'{name}' is not a valid method. Use one of: {names:?}")
        })
    }

    /// `(alpha, beta)` of the continuous Hyndman–Fan methods.
    fn continuous(self) -> Option<(f64, f64)> {
        use QuantileMethod::*;
        match self {
            InterpolatedInvertedCdf => Some((0.0, 1.0)),
            Hazen => Some((0.5, 0.5)),
            Weibull => Some((0.0, 0.0)),
            MedianUnbiased => Some((1.0 / 3.0, 1.0 / 3.0)),
            NormalUnbiased => Some((3.0 / 8.0, 3.0 / 8.0)),
            _ => None,
        }
    }
}

/// The sorted positions a quantile reads: one (int64) for the methods that pick an element,
/// or the two around it and the weight of the upper one.
pub(crate) enum Positions {
    One(Array),
    Two { below: Array, above: Array, gamma: Array },
}

/// The positions of `method` for lanes of length `n` (a float array of `q`'s dtype, or int64
/// for integer `q`) and quantiles `q`, broadcast against each other.
pub(crate) fn positions(method: QuantileMethod, n: &Array, q: &Array) -> Result<Positions> {
    use QuantileMethod::*;
    let n_minus_one_q = || n.binary_scalar(BinaryOp::Subtract, Scalar::Int(1), false)?.mul(q);
    let n_q = || n.mul(q);
    let virtual_index = match method {
        Lower => return Ok(Positions::One(n_minus_one_q()?.unary(UnaryOp::Floor)?.astype(DType::Int64)?)),
        Higher => return Ok(Positions::One(n_minus_one_q()?.unary(UnaryOp::Ceil)?.astype(DType::Int64)?)),
        Nearest => return Ok(Positions::One(n_minus_one_q()?.unary(UnaryOp::Rint)?.astype(DType::Int64)?)),
        InvertedCdf => {
            let v = minus(&n_q()?, Scalar::Int(1))?;
            return Ok(Positions::One(discrete(&v, |gamma, _| gamma.binary_scalar(BinaryOp::Equal, Scalar::Int(0), false))?));
        }
        ClosestObservation => {
            // Ties between two observations go to the even one.
            let v = minus(&n_q()?, Scalar::Float(1.5))?;
            let odd_tie = |gamma: &Array, v: &Array| {
                let odd = v.unary(UnaryOp::Floor)?.binary_scalar(BinaryOp::Remainder, Scalar::Int(2), false)?;
                let odd = odd.binary_scalar(BinaryOp::Equal, Scalar::Int(1), false)?;
                gamma.binary_scalar(BinaryOp::Equal, Scalar::Int(0), false)?.binary(BinaryOp::LogicalAnd, &odd)
            };
            return Ok(Positions::One(discrete(&v, odd_tie)?));
        }
        Linear => {
            let v = n_minus_one_q()?;
            if !v.dtype().is_float() {
                return Ok(Positions::One(v.astype(DType::Int64)?));
            }
            v
        }
        Midpoint => {
            let v = n_minus_one_q()?;
            v.unary(UnaryOp::Floor)?.add(&v.unary(UnaryOp::Ceil)?)?.binary_scalar(BinaryOp::Multiply, Scalar::Float(0.5), true)?
        }
        AveragedInvertedCdf => minus(&n_q()?, Scalar::Int(1))?,
        _ => {
            let (alpha, beta) = method.continuous().expect("the other methods are continuous");
            let shift = q.binary_scalar(BinaryOp::Multiply, Scalar::Float(1.0 - alpha - beta), false)?;
            let shift = shift.binary_scalar(BinaryOp::Add, Scalar::Float(alpha), true)?;
            minus(&n_q()?.add(&shift)?, Scalar::Int(1))?
        }
    };
    interpolated(method, n, &virtual_index)
}

/// The positions below and above the virtual index `v`, and the weight of the upper one; past
/// either end, both positions are the end element.
fn interpolated(method: QuantileMethod, n: &Array, v: &Array) -> Result<Positions> {
    let end = n.binary_scalar(BinaryOp::Subtract, Scalar::Int(1), false)?;
    let past_end = v.binary(BinaryOp::GreaterEqual, &end)?;
    let before_start = v.binary_scalar(BinaryOp::Less, Scalar::Int(0), false)?;
    let zero = constant(Scalar::Int(0), DType::Int64)?;
    let clipped = Array::where_(&past_end, &end, &Array::where_(&before_start, &zero, &v.unary(UnaryOp::Floor)?)?)?;
    let below = clipped.astype(DType::Int64)?;
    let outside = past_end.binary(BinaryOp::LogicalOr, &before_start)?;
    let above = Array::where_(&outside, &below, &below.binary_scalar(BinaryOp::Add, Scalar::Int(1), false)?)?;
    let dtype = v.dtype();
    let mut gamma = v.sub(&below)?.astype(dtype)?;
    let choose = |cond: Array, yes: f64, no: f64| -> Result<Array> {
        Array::where_(&cond, &constant(Scalar::Float(yes), dtype)?, &constant(Scalar::Float(no), dtype)?)
    };
    match method {
        QuantileMethod::AveragedInvertedCdf => gamma = choose(gamma.binary_scalar(BinaryOp::Equal, Scalar::Int(0), false)?, 0.5, 1.0)?,
        QuantileMethod::Midpoint => {
            let whole = v.binary_scalar(BinaryOp::Remainder, Scalar::Int(1), false)?.binary_scalar(BinaryOp::Equal, Scalar::Int(0), false)?;
            gamma = choose(whole, 0.0, 0.5)?;
        }
        _ => {}
    }
    Ok(Positions::Two { below, above, gamma })
}

/// The index of the discontinuous methods: the position after the virtual index `v`, or the
/// one before it where `take_below(fraction, v)`; never below the first.
fn discrete(v: &Array, take_below: impl Fn(&Array, &Array) -> Result<Array>) -> Result<Array> {
    let below = v.unary(UnaryOp::Floor)?;
    let next = below.binary_scalar(BinaryOp::Add, Scalar::Int(1), false)?;
    let index = Array::where_(&take_below(&v.sub(&below)?, v)?, &below, &next)?.astype(DType::Int64)?;
    index.binary_scalar(BinaryOp::Maximum, Scalar::Int(0), false)
}

/// `v - value`, with `value` a weak scalar (a Python number in NumPy's formulas).
fn minus(v: &Array, value: Scalar) -> Result<Array> {
    v.binary_scalar(BinaryOp::Subtract, value, false)
}
