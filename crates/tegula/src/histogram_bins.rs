//! NumPy's bin-count estimators for `histogram` (`bins="auto"`, `"fd"`, ...): the number of
//! bins, hence the result's shape, depends on the data, so the statistics an estimator needs
//! (range, standard deviation, skewness, quartiles) are computed when the expression is built,
//! together in one computation, as `unique`'s length is. The formulas are NumPy's, evaluated
//! with NumPy's scalar precision rules (`scalar_arithmetic.rs`), so the count is NumPy's.
//! `"stone"` minimises NumPy's estimate of the integrated squared error over its trial
//! histograms (1 to `max(100, sqrt(n))` bins), all counted in one computation.

use crate::array::Array;
use crate::histogram_edges::{below, numbers, OuterEdges};
use crate::scalar_arithmetic::Num;
use crate::statistics::{QuantileSpec, Quantiles};
use crate::constant::over_all;
use tegula_core::{value_err, BinaryOp, ReduceOp, Result, Scalar};

/// How `histogram` chooses its number of equal bins from the data: NumPy's estimators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinEstimator {
    /// The smaller of Sturges' and Freedman–Diaconis' widths (at most twice `Sqrt`'s bins).
    Auto,
    /// Freedman–Diaconis: twice the interquartile range over the cube root of the count.
    Fd,
    /// Doane: Sturges' rule corrected for skewness.
    Doane,
    /// Scott: from the standard deviation.
    Scott,
    /// Rice: twice the cube root of the count.
    Rice,
    /// Sturges: `log2(n) + 1` bins.
    Sturges,
    /// The square root of the count.
    Sqrt,
    /// Stone: least estimated integrated squared error over trial histograms.
    Stone,
}

impl BinEstimator {
    /// The estimator of NumPy's name (`"auto"`, `"fd"`, ...); anything else is NumPy's
    /// `ValueError`.
    pub fn from_name(name: &str) -> Result<BinEstimator> {
        Ok(match name {
            "auto" => BinEstimator::Auto,
            "fd" => BinEstimator::Fd,
            "doane" => BinEstimator::Doane,
            "scott" => BinEstimator::Scott,
            "rice" => BinEstimator::Rice,
            "sturges" => BinEstimator::Sturges,
            "sqrt" => BinEstimator::Sqrt,
            "stone" => BinEstimator::Stone,
            _ => return Err(value_err!("'{name}' is not a valid estimator for `bins`")),
        })
    }
}

/// How many equal bins an estimator gives, and whether Stone's search ended at its last
/// trial (NumPy warns: the number may be suboptimal).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BinCount {
    /// The number of equal bins.
    pub count: usize,
    /// Stone's search ended at its largest trial.
    pub suboptimal: bool,
}

/// The number of equal bins `estimator` gives the 1-D `values` between the outer edges
/// (computed numbers): the values outside them are left out first.
pub(crate) fn estimated_bins(values: &Array, estimator: BinEstimator, outer: &OuterEdges) -> Result<BinCount> {
    let inside = values
        .binary(BinaryOp::GreaterEqual, &outer.first)?
        .binary(BinaryOp::LogicalAnd, &values.binary(BinaryOp::LessEqual, &outer.last)?)?;
    let x = values.masked(&inside)?;
    let plain = |count| Ok(BinCount { count, suboptimal: false });
    if x.size() == 0 {
        return plain(1);
    }
    let (width, suboptimal) = match estimator {
        BinEstimator::Stone => stone_width(&x, outer)?,
        _ => (width(estimator, x.size(), &Statistics::of(&x, estimator)?), false),
    };
    if width.value() == 0.0 {
        return plain(1);
    }
    let width = if x.dtype().is_integer() && width.value() < 1.0 { Num::Weak(1.0) } else { width };
    let bins = (outer.difference()? / width).value().ceil();
    if !bins.is_finite() {
        return Err(value_err!("cannot convert float {bins} to integer: the estimated bin width is {}", width.value()));
    }
    Ok(BinCount { count: bins as usize, suboptimal })
}

/// The statistics an estimator's formula reads, in NumPy's precision for each.
struct Statistics {
    ptp: Num,
    std: Num,
    skew: Num,
    quartiles: (Num, Num),
}

impl Statistics {
    fn of(x: &Array, estimator: BinEstimator) -> Result<Statistics> {
        let mut lazy = vec![x.ptp(None, false)?];
        if matches!(estimator, BinEstimator::Scott | BinEstimator::Doane) {
            lazy.push(x.std(None, false)?);
        }
        if estimator == BinEstimator::Doane {
            let deviation = x.sub(&x.mean(None, false)?)?;
            let ratio = deviation.binary(BinaryOp::Divide, &x.std(None, false)?)?;
            lazy.push(ratio.binary_scalar(BinaryOp::Power, Scalar::Int(3), false)?.mean(None, false)?);
        }
        if matches!(estimator, BinEstimator::Fd | BinEstimator::Auto) {
            lazy.push(x.quantile(&Quantiles::of(&[0.75, 0.25])?, &QuantileSpec::new(None))?);
        }
        let mut found = numbers(&lazy)?.into_iter();
        let mut next = |wanted: bool| if wanted { found.next().unwrap_or_default() } else { Vec::new() };
        let first = |values: Vec<Num>| values.first().copied().unwrap_or(Num::Double(0.0));
        let ptp = first(next(true));
        let std = first(next(matches!(estimator, BinEstimator::Scott | BinEstimator::Doane)));
        let skew = first(next(estimator == BinEstimator::Doane));
        let quartiles = next(matches!(estimator, BinEstimator::Fd | BinEstimator::Auto));
        let quartiles = (first(quartiles.clone()), quartiles.get(1).copied().unwrap_or(Num::Double(0.0)));
        Ok(Statistics { ptp, std, skew, quartiles })
    }
}

/// NumPy's bin width of `estimator` for `n` values with statistics `s`.
fn width(estimator: BinEstimator, n: usize, s: &Statistics) -> Num {
    let count = n as f64;
    let log2n = Num::Double(count.log2());
    let sqrtn = Num::Double(count.sqrt());
    let sturges = s.ptp / (log2n + Num::Weak(1.0));
    match estimator {
        BinEstimator::Sqrt => s.ptp / sqrtn,
        BinEstimator::Sturges => sturges,
        BinEstimator::Rice => s.ptp / Num::Weak(2.0 * count.powf(1.0 / 3.0)),
        BinEstimator::Scott => Num::Weak((24.0 * std::f64::consts::PI.powf(0.5) / count).powf(1.0 / 3.0)) * s.std,
        BinEstimator::Doane => {
            // NaN is not above zero either.
            if n <= 2 || s.std.value().partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
                return Num::Double(0.0);
            }
            let sg1 = Num::Double((6.0 * (n - 2) as f64 / ((count + 1.0) * (n + 3) as f64)).sqrt());
            let skewness = (Num::Weak(1.0) + s.skew.map(f64::abs) / sg1).map(f64::log2);
            s.ptp / (Num::Weak(1.0) + log2n + skewness)
        }
        BinEstimator::Fd | BinEstimator::Auto | BinEstimator::Stone => {
            let fd = Num::Weak(2.0) * (s.quartiles.0 - s.quartiles.1) * Num::Weak(count.powf(-1.0 / 3.0));
            if estimator == BinEstimator::Fd {
                return fd;
            }
            // Python's max and min: the first argument unless the second is strictly beyond.
            let half_sqrt = s.ptp / sqrtn / Num::Weak(2.0);
            let larger = if half_sqrt.value() > fd.value() { half_sqrt } else { fd };
            if sturges.value() < larger.value() { sturges } else { larger }
        }
    }
}

/// Stone's width: the data's range over the trial number of bins whose estimated integrated
/// squared error, from the trial's counts, is least (the first such); and whether that is
/// the last trial.
fn stone_width(x: &Array, outer: &OuterEdges) -> Result<(Num, bool)> {
    let n = x.size();
    let upper = 100.max((n as f64).sqrt() as usize);
    let ordered = x.sort(0, false)?;
    let mut lazy = vec![x.max(None, false)?, over_all(x, ReduceOp::Min)?];
    for bins in 1..=upper {
        lazy.push(crate::constant::diff(&below(&ordered, &outer.even_edges(x.dtype(), bins)?)?)?);
    }
    let numbers = numbers(&lazy)?;
    let ptp = OuterEdges::difference_of(x.dtype(), numbers[0][0], numbers[1][0]);
    if n <= 1 || ptp.value() == 0.0 {
        return Ok((Num::Double(0.0), false));
    }
    let error = |bins: usize| {
        let dot: f64 = numbers[bins + 1].iter().map(|c| c.value() / n as f64).map(|p| p * p).sum();
        (Num::Weak(2.0) - Num::Weak((n + 1) as f64) * Num::Double(dot)) / (ptp / Num::Weak(bins as f64))
    };
    let mut best = 1;
    for bins in 2..=upper {
        if error(bins).value() < error(best).value() {
            best = bins;
        }
    }
    Ok((ptp / Num::Weak(best as f64), best == upper))
}
