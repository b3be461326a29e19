//! Source nodes: stored arrays (in memory or on disk), constants, ranges and random numbers.

use crate::node::{next_id, Node, NodeKind, NodeRef, SourceKind, Window};
use crate::resource::{Resource, ResourceKind};
use std::any::Any;
use std::sync::Arc;
use tegula_core::{value_err, Chunks, DType, Distribution, Result, Scalar};

/// An array whose values are already in memory (`data` is opaque to planning).
pub fn stored(data: Arc<dyn Any + Send + Sync>, dtype: DType, chunks: Chunks) -> NodeRef {
    from_store(data, ResourceKind::Array, dtype, chunks)
}

/// An array whose values are read from `data`, which lives in `kind`.
pub fn from_store(data: Arc<dyn Any + Send + Sync>, kind: ResourceKind, dtype: DType, chunks: Chunks) -> NodeRef {
    from_resource(Arc::new(Resource::new(next_id(), kind, data)), dtype, chunks)
}

/// An array whose values `stored` (an array in memory or a source) holds.
pub fn from_resource(stored: Arc<Resource>, dtype: DType, chunks: Chunks) -> NodeRef {
    Node::new(NodeKind::Source(SourceKind::Stored(stored), Window::default()), vec![], dtype, chunks)
}

/// NumPy's `full`: an array of `chunks` whose every element is `value` in `dtype`.
pub fn full(value: Scalar, dtype: DType, chunks: Chunks) -> Result<NodeRef> {
    value.check_fits(dtype)?;
    if value.default_dtype().is_complex() && !dtype.is_complex() {
        return Err(tegula_core::dtype_err!("cannot fill a {dtype} array with a complex value"));
    }
    Node::checked(NodeKind::Source(SourceKind::Full(value), Window::default()), vec![], dtype, chunks)
}

/// NumPy's arange whose first two values are `first` and `second` (`start` and `start + step`),
/// with `chunks` giving the (one-dimensional) length. Like NumPy, the values stored first must
/// fit an integer dtype, and a bool range has at most two values.
pub fn arange(first: Scalar, second: Scalar, dtype: DType, chunks: Chunks) -> Result<NodeRef> {
    if chunks.ndim() != 1 {
        return Err(value_err!("arange is one-dimensional"));
    }
    if matches!(first, Scalar::Complex(..)) || matches!(second, Scalar::Complex(..)) {
        return Err(tegula_core::dtype_err!("arange does not support complex values"));
    }
    let len = chunks.shape()[0];
    if dtype == DType::Bool && len > 2 {
        return Err(tegula_core::dtype_err!(
            "arange() is only supported for booleans when the result has at most length 2."
        ));
    }
    if len > 0 {
        first.check_fits(dtype)?;
    }
    if len > 1 {
        second.check_fits(dtype)?;
    }
    Node::checked(NodeKind::Source(SourceKind::Arange { first, second }, Window::default()), vec![], dtype, chunks)
}

/// NumPy's `linspace(start, stop, num, endpoint)` with `chunks` giving `num`.
pub fn linspace(start: f64, stop: f64, endpoint: bool, dtype: DType, chunks: Chunks) -> Result<NodeRef> {
    if chunks.ndim() != 1 {
        return Err(value_err!("linspace is one-dimensional"));
    }
    let kind = SourceKind::Linspace { start, stop, endpoint };
    Node::checked(NodeKind::Source(kind, Window::default()), vec![], dtype, chunks)
}

/// NumPy's checks of the rejection-sampled distributions' parameters: a NaN shape draws NaNs,
/// a NaN count parameter is refused.
fn check_parameters(dist: Distribution) -> Result<()> {
    let refuse = |what: &str| Err(value_err!("{what}"));
    match dist {
        Distribution::Gamma { shape, .. } if shape < 0.0 => refuse("shape < 0"),
        Distribution::Gamma { scale, .. } if scale < 0.0 => refuse("scale < 0"),
        Distribution::Beta { a, .. } if a <= 0.0 => refuse("a <= 0"),
        Distribution::Beta { b, .. } if b <= 0.0 => refuse("b <= 0"),
        Distribution::ChiSquare { df } | Distribution::StudentT { df } if df <= 0.0 => refuse("df <= 0"),
        Distribution::Poisson { lam } if lam < 0.0 || lam.is_nan() => refuse("lam < 0 or lam is NaN"),
        // NumPy's bound: beyond it a count does not fit int64 with room for the tail.
        Distribution::Poisson { lam } if lam > 9.223_372_006_484_771e18 => refuse("lam value too large"),
        Distribution::Binomial { p, .. } if !(0.0..=1.0).contains(&p) => refuse("p < 0, p > 1 or p is NaN"),
        Distribution::Binomial { n, .. } if n > i64::MAX as u64 => refuse("n too large"),
        _ => Ok(()),
    }
}

/// An array of `chunks` drawn from `dist` by the counter-based generator keyed `key`.
pub fn random(key: u64, dist: Distribution, dtype: DType, chunks: Chunks) -> Result<NodeRef> {
    match dist {
        Distribution::Integers { low, high } => {
            if !dtype.is_integer() {
                return Err(tegula_core::dtype_err!("integers() needs an integer dtype, got {dtype}"));
            }
            if low >= high {
                return Err(value_err!("low >= high"));
            }
            let (lo, hi) = dtype.integer_bounds().unwrap_or((0, 0));
            if low < lo || high - 1 > hi {
                return Err(value_err!("integers() bounds [{low}, {high}) are out of range for {dtype}"));
            }
        }
        Distribution::Words if dtype != DType::UInt64 => {
            return Err(tegula_core::dtype_err!("random words are uint64, not {dtype}"));
        }
        Distribution::Words => {}
        Distribution::Poisson { .. } | Distribution::Binomial { .. } if !dtype.is_integer() => {
            return Err(tegula_core::dtype_err!("random counts need an integer dtype, got {dtype}"));
        }
        _ if !dist.is_count() && (!dtype.is_float() || dtype == DType::Float16) => {
            return Err(tegula_core::dtype_err!("random floats need dtype float32 or float64, got {dtype}"));
        }
        Distribution::Uniform { low, high } if !(low.is_finite() && high.is_finite()) => {
            return Err(value_err!("uniform() bounds must be finite, got [{low}, {high})"));
        }
        Distribution::Normal { scale, .. } if scale < 0.0 => {
            return Err(value_err!("scale < 0"));
        }
        _ => check_parameters(dist)?,
    }
    Node::checked(NodeKind::Source(SourceKind::Random { key, dist }, Window::default()), vec![], dtype, chunks)
}
