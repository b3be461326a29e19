//! Distributions drawn by rejection: gamma (and from it beta, chi-square and Student's t),
//! Poisson and binomial. Each element draws from a stream of its own, the SplitMix64 sequence
//! that starts at its counter-based word, as the ziggurat's rare second draws do, so a value
//! depends only on the seed, the call and its position, however many draws it took.
//!
//! The algorithms are those NumPy and the literature use: Marsaglia and Tsang's squeeze for
//! gamma (shape below 1 by `gamma(shape + 1) · u^(1/shape)`, in logarithms so tiny shapes
//! keep their precision), beta as `X / (X + Y)` of two gammas, Hörmann's transformed
//! rejection for Poisson (PTRS, mean ≥ 10; multiplication of uniforms below) and binomial
//! (BTRS, `n·min(p, 1 − p)` ≥ 10; waiting times of a geometric below).

use crate::ziggurat::ziggurat;

const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// One element's stream of random words and the variates made from them.
pub(crate) struct Stream {
    state: u64,
}

impl Stream {
    pub(crate) fn new(word: u64) -> Stream {
        Stream { state: word }
    }

    fn word(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GAMMA);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1), 53 random bits.
    fn uniform(&mut self) -> f64 {
        (self.word() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in (0, 1]: never zero, for logarithms.
    fn open_uniform(&mut self) -> f64 {
        1.0 - self.uniform()
    }

    fn normal(&mut self) -> f64 {
        let first = self.word();
        ziggurat().sample(first, || self.word())
    }

    /// `ln` of a standard gamma variate of `shape` > 0 (NaN for a NaN shape, as NumPy).
    fn ln_gamma_variate(&mut self, shape: f64) -> f64 {
        if shape.is_nan() {
            return f64::NAN;
        }
        if shape < 1.0 {
            // G(a) = G(a + 1) · U^(1/a); in logarithms, as G(a) underflows for tiny a.
            let boosted = self.ln_gamma_variate(shape + 1.0);
            return boosted + self.open_uniform().ln() / shape;
        }
        let d = shape - 1.0 / 3.0;
        let c = 1.0 / (9.0 * d).sqrt();
        loop {
            let (x, v) = loop {
                let x = self.normal();
                let v = 1.0 + c * x;
                if v > 0.0 {
                    break (x, v * v * v);
                }
            };
            let u = self.open_uniform();
            if u < 1.0 - 0.0331 * (x * x) * (x * x) || u.ln() < 0.5 * x * x + d * (1.0 - v + v.ln()) {
                return (d * v).ln();
            }
        }
    }

    /// A standard gamma variate of `shape` ≥ 0 (0 for shape 0, as NumPy).
    pub(crate) fn gamma(&mut self, shape: f64) -> f64 {
        if shape == 0.0 {
            return 0.0;
        }
        self.ln_gamma_variate(shape).exp()
    }

    /// Beta(`a`, `b`), `a`, `b` > 0: `X / (X + Y)` of gammas, as `1 / (1 + e^(ln Y − ln X))`.
    pub(crate) fn beta(&mut self, a: f64, b: f64) -> f64 {
        let (x, y) = (self.ln_gamma_variate(a), self.ln_gamma_variate(b));
        1.0 / (1.0 + (y - x).exp())
    }

    /// Chi-square with `df` > 0 degrees of freedom: `2 · gamma(df / 2)`.
    pub(crate) fn chisquare(&mut self, df: f64) -> f64 {
        2.0 * self.gamma(df / 2.0)
    }

    /// Student's t with `df` > 0 degrees of freedom: `N / sqrt(chi²(df) / df)`.
    pub(crate) fn standard_t(&mut self, df: f64) -> f64 {
        let n = self.normal();
        n / (self.chisquare(df) / df).sqrt()
    }

    /// Poisson with mean `lam` ≥ 0.
    pub(crate) fn poisson(&mut self, lam: f64) -> f64 {
        if lam == 0.0 {
            return 0.0;
        }
        if lam < 10.0 {
            let limit = (-lam).exp();
            let mut product = self.open_uniform();
            let mut k = 0.0;
            while product > limit {
                product *= self.open_uniform();
                k += 1.0;
            }
            return k;
        }
        let ln_lam = lam.ln();
        let b = 0.931 + 2.53 * lam.sqrt();
        let a = -0.059 + 0.02483 * b;
        let inv_alpha = 1.1239 + 1.1328 / (b - 3.4);
        let v_r = 0.9277 - 3.6224 / (b - 2.0);
        loop {
            let u = self.uniform() - 0.5;
            let v = self.uniform();
            let us = 0.5 - u.abs();
            let k = ((2.0 * a / us + b) * u + lam + 0.43).floor();
            if us >= 0.07 && v <= v_r {
                return k;
            }
            if k < 0.0 || (us < 0.013 && v > us) {
                continue;
            }
            let s = (v * inv_alpha / (a / (us * us) + b)).ln();
            let t = -lam + k * ln_lam - libm::lgamma(k + 1.0);
            if s <= t {
                return k;
            }
        }
    }

    /// Binomial with `n` trials of probability `p` in [0, 1].
    pub(crate) fn binomial(&mut self, n: u64, p: f64) -> f64 {
        if p > 0.5 {
            return n as f64 - self.binomial(n, 1.0 - p);
        }
        if n == 0 || p == 0.0 {
            return 0.0;
        }
        let n = n as f64;
        if n * p < 10.0 {
            // Successes before the waiting times of a geometric pass n.
            let ln_q = (-p).ln_1p();
            let (mut waited, mut k) = (0.0, 0.0);
            loop {
                waited += (self.open_uniform().ln() / ln_q).ceil();
                if waited > n {
                    return k;
                }
                k += 1.0;
            }
        }
        btrs(self, n, p)
    }
}

/// Hörmann's BTRS for `n·p` ≥ 10, `p` ≤ 1/2.
fn btrs(stream: &mut Stream, n: f64, p: f64) -> f64 {
    let spq = (n * p * (1.0 - p)).sqrt();
    let b = 1.15 + 2.53 * spq;
    let a = -0.0873 + 0.0248 * b + 0.01 * p;
    let c = n * p + 0.5;
    let v_r = 0.92 - 4.2 / b;
    let r = p / (1.0 - p);
    let alpha = (2.83 + 5.1 / b) * spq;
    let m = ((n + 1.0) * p).floor();
    loop {
        let u = stream.uniform() - 0.5;
        let v = stream.uniform();
        let us = 0.5 - u.abs();
        let k = ((2.0 * a / us + b) * u + c).floor();
        if k < 0.0 || k > n {
            continue;
        }
        if us >= 0.07 && v <= v_r {
            return k;
        }
        let v = (v * alpha / (a / (us * us) + b)).ln();
        let bound = (m + 0.5) * ((m + 1.0) / (r * (n - m + 1.0))).ln()
            + (n + 1.0) * ((n - m + 1.0) / (n - k + 1.0)).ln()
            + (k + 0.5) * (r * (n - k + 1.0) / (k + 1.0)).ln()
            + stirling_tail(m)
            + stirling_tail(n - m)
            - stirling_tail(k)
            - stirling_tail(n - k);
        if v <= bound {
            return k;
        }
    }
}

/// `ln k! − (ln √(2π) + (k + ½) ln(k + 1) − (k + 1))`, the tail of Stirling's series.
fn stirling_tail(k: f64) -> f64 {
    const SMALL: [f64; 10] = [
        0.081_061_466_795_327_26,
        0.041_340_695_955_409_29,
        0.027_677_925_684_998_34,
        0.020_790_672_103_765_09,
        0.016_644_691_189_821_19,
        0.013_876_128_823_070_75,
        0.011_896_709_945_891_77,
        0.010_411_265_261_972_09,
        0.009_255_462_182_712_733,
        0.008_330_563_433_362_87,
    ];
    if k <= 9.0 {
        return SMALL[k as usize];
    }
    let sq = (k + 1.0) * (k + 1.0);
    (1.0 / 12.0 - (1.0 / 360.0 - 1.0 / 1260.0 / sq) / sq) / (k + 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mean_var(mut draw: impl FnMut(&mut Stream) -> f64) -> (f64, f64) {
        let n = 200_000;
        let values: Vec<f64> = (0..n).map(|i: u64| draw(&mut Stream::new(i.wrapping_mul(0x2545_F491_4F6C_DD1D)))).collect();
        let mean = values.iter().sum::<f64>() / n as f64;
        let var = values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n as f64;
        (mean, var)
    }

    fn close(got: (f64, f64), want: (f64, f64)) {
        let (m, v) = got;
        assert!((m - want.0).abs() < 0.02 * want.1.sqrt().max(want.0.abs() * 0.01), "mean {m} != {}", want.0);
        assert!((v - want.1).abs() < 0.05 * want.1, "variance {v} != {}", want.1);
    }

    #[test]
    fn moments_match_the_distributions() {
        for shape in [0.3, 1.0, 4.5] {
            close(mean_var(|s| s.gamma(shape)), (shape, shape));
        }
        close(mean_var(|s| s.beta(2.0, 5.0)), (2.0 / 7.0, 10.0 / (49.0 * 8.0)));
        close(mean_var(|s| s.chisquare(3.0)), (3.0, 6.0));
        close(mean_var(|s| s.standard_t(10.0)), (0.0, 10.0 / 8.0));
        for lam in [0.5, 7.0, 40.0, 1e4] {
            close(mean_var(|s| s.poisson(lam)), (lam, lam));
        }
        for (n, p) in [(10, 0.3), (100, 0.5), (1000, 0.02), (5000, 0.9)] {
            let n_f = n as f64;
            close(mean_var(|s| s.binomial(n, p)), (n_f * p, n_f * p * (1.0 - p)));
        }
    }

    #[test]
    fn edge_parameters_give_numpys_values() {
        let mut s = Stream::new(1);
        assert_eq!(s.gamma(0.0), 0.0);
        assert_eq!(s.poisson(0.0), 0.0);
        assert_eq!(s.binomial(0, 0.4), 0.0);
        assert_eq!(s.binomial(7, 1.0), 7.0);
        assert_eq!(s.binomial(7, 0.0), 0.0);
        let tiny = s.beta(1e-3, 1e-3);
        assert!((0.0..=1.0).contains(&tiny));
        assert!(s.gamma(f64::NAN).is_nan() && s.beta(1.0, f64::NAN).is_nan() && s.standard_t(f64::NAN).is_nan());
    }
}
