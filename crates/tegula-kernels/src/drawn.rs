//! Rejection-sampled values with parameters given per element (`KernelOp::Drawn`): element
//! `i` draws from the stream that starts at its word, the word `Distribution::Words` gives its
//! position, so with equal parameters it is the value the scalar-parameter source draws there.

use crate::chunk::{Block, Chunk};
use crate::rejection::Stream;
use crate::zip::map3;
use tegula_core::{value_err, DType, Rejection, Result};

/// `dist` drawn at each element of `words` (uint64) with parameters `a` and `b` (cast to
/// float64), all three broadcast together.
pub fn drawn(dist: Rejection, words: &Chunk, a: &Chunk, b: &Chunk) -> Result<Chunk> {
    let (a, b) = (a.cast(DType::Float64), b.cast(DType::Float64));
    let (ta, tb) = (a.typed::<f64>()?, b.typed::<f64>()?);
    check(dist, ta, tb)?;
    let words = words.typed::<u64>()?;
    let draw = move |word: u64, a: f64, b: f64| {
        let mut s = Stream::new(word);
        match dist {
            Rejection::Gamma => b * s.gamma(a),
            Rejection::Beta => s.beta(a, b),
            Rejection::ChiSquare => s.chisquare(a),
            Rejection::StudentT => s.standard_t(a),
            Rejection::Poisson => s.poisson(a),
            Rejection::Binomial => s.binomial(a as u64, b),
        }
    };
    match dist.dtype() {
        DType::Int64 => map3(words, ta, tb, |w, a, b| draw(w, a, b) as i64),
        _ => map3(words, ta, tb, draw),
    }
}

/// NumPy's checks of array parameters, in its order and with its messages: a NaN shape or
/// degrees of freedom draws NaN, a NaN mean is "too large", a NaN probability refused.
fn check(dist: Rejection, a: &Block<f64>, b: &Block<f64>) -> Result<()> {
    let refuse = |what: &str| Err(value_err!("{what}"));
    let any = |values: &Block<f64>, bad: fn(f64) -> bool| values.iter().any(|&v| bad(v));
    match dist {
        Rejection::Gamma if any(a, |v| v < 0.0) => refuse("shape < 0"),
        Rejection::Gamma if any(b, |v| v < 0.0) => refuse("scale < 0"),
        Rejection::Beta if any(a, |v| v <= 0.0) => refuse("a <= 0"),
        Rejection::Beta if any(b, |v| v <= 0.0) => refuse("b <= 0"),
        Rejection::ChiSquare | Rejection::StudentT if any(a, |v| v <= 0.0) => refuse("df <= 0"),
        Rejection::Poisson if any(a, |v| v < 0.0) => refuse("lam < 0 or lam contains NaNs"),
        // NumPy's bound: beyond it a count does not fit int64 with room for the tail.
        Rejection::Poisson if any(a, |v| v.is_nan() || v > 9.223_372_006_484_771e18) => refuse("lam value too large"),
        Rejection::Binomial if any(a, |v| v < 0.0) => refuse("n < 0"),
        Rejection::Binomial if any(b, |v| !(0.0..=1.0).contains(&v)) => refuse("p < 0, p > 1 or p contains NaNs"),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::{random_block, BlockPlace};
    use tegula_core::{Distribution, Scalar};

    fn block(key: u64, dist: Distribution, dtype: DType) -> Chunk {
        let place = BlockPlace { array_shape: &[6, 50], start: &[2, 10], shape: &[3, 40] };
        random_block(key, dist, dtype, &place).unwrap()
    }

    #[test]
    fn equal_parameters_draw_the_scalar_sources_values() {
        let words = block(17, Distribution::Words, DType::UInt64);
        let cases = [
            (Rejection::Gamma, 0.4, 2.0, Distribution::Gamma { shape: 0.4, scale: 2.0 }),
            (Rejection::Beta, 0.5, 3.0, Distribution::Beta { a: 0.5, b: 3.0 }),
            (Rejection::ChiSquare, 3.0, 0.0, Distribution::ChiSquare { df: 3.0 }),
            (Rejection::StudentT, 6.0, 0.0, Distribution::StudentT { df: 6.0 }),
            (Rejection::Poisson, 250.0, 0.0, Distribution::Poisson { lam: 250.0 }),
            (Rejection::Binomial, 900.0, 0.75, Distribution::Binomial { n: 900, p: 0.75 }),
        ];
        for (dist, a, b, scalar) in cases {
            let a = Chunk::full(DType::Float64, &[], Scalar::Float(a));
            let b = Chunk::full(DType::Float64, &[40], Scalar::Float(b));
            let (got, want) = (drawn(dist, &words, &a, &b).unwrap(), block(17, scalar, dist.dtype()));
            assert_eq!(got.dtype(), want.dtype());
            let (got, want) = (got.cast(DType::Float64), want.cast(DType::Float64));
            assert!(got.typed::<f64>().unwrap() == want.typed::<f64>().unwrap(), "{dist:?}");
        }
    }

    #[test]
    fn parameters_out_of_the_domain_are_numpys_errors() {
        let words = block(1, Distribution::Words, DType::UInt64);
        for (dist, a, b, message) in [
            (Rejection::Gamma, -1.0, 1.0, "shape < 0"),
            (Rejection::Gamma, 1.0, -1.0, "scale < 0"),
            (Rejection::Beta, 1.0, 0.0, "b <= 0"),
            (Rejection::StudentT, 0.0, 0.0, "df <= 0"),
            (Rejection::Poisson, f64::NAN, 0.0, "lam value too large"),
            (Rejection::Binomial, 3.0, 1.5, "p < 0, p > 1 or p contains NaNs"),
        ] {
            let a = Chunk::full(DType::Float64, &[1], Scalar::Float(a));
            let b = Chunk::full(DType::Float64, &[1], Scalar::Float(b));
            let error = drawn(dist, &words, &a, &b).unwrap_err().to_string();
            assert!(error.contains(message), "{dist:?}: {error}");
        }
    }
}
