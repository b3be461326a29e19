//! `exp`, `sin` and `cos` on `f64` written as straight-line arithmetic, so that a loop mapping
//! one of them over a slice auto-vectorises (SSE2 and up): no calls, no table look-ups, no
//! branches (every special case is a select), plain `*` and `+` only, never `mul_add`, so the
//! results are the same bit for bit whether or not the target has FMA.
//!
//! **exp.** `x` is clamped to `[-746, 710]` (beyond, the result is `0` or `inf` anyway; NaN
//! passes the clamp untouched). Then `x = n ln2 + r` with `n = round(x / ln2)` (rounded by
//! adding and subtracting 1.5 * 2^52) and `|r| <= ln2 / 2`, Cody–Waite with ln2 split in two:
//! `LN2_HI` has 42 significant bits, so `n LN2_HI` and `x - n LN2_HI` are exact, and `r` is
//! kept as a pair `r + r_lo`. `e^r = 1 + r + r^2 E(r)` with `E` of degree 10, summed so that
//! only the last addition rounds at the scale of the result. The result is
//! `e^r * 2^n1 * 2^n2` with `n1 + n2 = n`: two factors, so that neither overflows nor
//! underflows and a subnormal result is rounded once.
//!
//! **sin, cos.** `x = k pi/2 + r` with `k = round(x 2/pi)` and `|r| <= pi/4`. pi/2 is split in
//! four: three parts of 31 significant bits, so that `k * part` is exact while `|k| < 2^22`,
//! plus a rounded tail; the subtractions are done with error-free two-sums, so `r` comes out as
//! a pair `hi + lo` accurate to about 2^-156 k absolute. The closest a double below 2^22 pi/2
//! comes to a multiple of pi/2 is 2^-60.5 (at 29 pi/2; |r|/k >= 2^-74.2 over all such k,
//! found by exhaustive search), so `r` keeps a relative error below 2^-80. Then
//! `sin r = r + r^3 P(r^2)` (P of degree 6) and `cos r = 1 - r^2/2 + r^4 Q(r^2)` (Q of degree
//! 5, `1 - r^2/2` with its rounding error added back), each with the first-order correction for
//! `lo`; `k mod 4` picks which of the two and its sign. The reduction needs `|k| < 2^22`, hence
//! [`SIN_FAST_LIMIT`]: beyond it the results are wrong, and the caller must use `libm` instead
//! (a per-element fallback would put a call in the loop and stop it vectorising).
//!
//! **Coefficients.** `E`, `P` and `Q` are minimax (Remez exchange, absolute error, computed
//! with mpmath at 60 digits) fits of `(e^r - 1 - r) / r^2` on `|r| <= 0.3466`,
//! `(sin s - s) / s^3` and `(cos s - 1 + s^2/2) / s^4` on `z = s^2 <= 0.617`, rounded to
//! double. Their contribution to the relative error of the result is below 2^-61 (exp), 2^-57
//! (sin, mostly from rounding -1/6) and 2^-59 (cos).
//!
//! **Measured accuracy**, against mpmath at 50 digits on 2 * 10^5 random inputs per range
//! (exp on `[-745.2, 709.8]`, `[-1, 1]`, `[-745.2, -708]`, `|x|` log-uniform in
//! `[1e-20, 1]`; sin and cos on `[-4, 4]`, `[-1e3, 1e3]`, `[-6.5e6, 6.5e6]`, `|x|`
//! log-uniform in `[1e-10, 6.5e6]`): exp within 0.61 ulp, 0.76 ulp where the result is
//! subnormal (there the rounding of `e^r` adds to that of the scaling); sin and cos within
//! 0.77 ulp, 0.50 ulp next to multiples of pi/2. The tests compare with `libm` on 10^6 random
//! inputs per range plus the edge and hard cases: never more than 1 ulp apart.

use std::f64::consts::{FRAC_2_PI, LOG2_E};

/// `1.5 * 2^52`: adding then subtracting it rounds a double of magnitude below 2^51 to an
/// integer, and the low bits of the sum hold that integer in two's complement.
const SHIFT: f64 = 6755399441055744.0;

/// ln 2 rounded to 42 significant bits, so that `n * LN2_HI` is exact for `|n| < 2^11`.
const LN2_HI: f64 = 0.6931471805598903;
const LN2_LO: f64 = 5.497923018708371e-14;
/// Clamps for the argument of `exp`: `exp(-746)` rounds to 0 and `exp(710)` overflows, and
/// inside them `n` stays in `[-1077, 1025]`, where both scale factors are normal.
const EXP_MIN: f64 = -746.0;
const EXP_MAX: f64 = 710.0;
/// `(e^r - 1 - r) / r^2`, lowest degree first.
const EXP_POLY: [f64; 11] = [
    0.5,
    0.1666666666666667,
    0.041666666666666685,
    0.008333333333326136,
    0.0013888888888874398,
    0.00019841269874817352,
    2.4801587347338292e-05,
    2.7557255404602324e-06,
    2.7557252913539413e-07,
    2.510521509637882e-08,
    2.092158902194098e-09,
];

/// `sin` and `cos` are accurate for `|x| <= SIN_FAST_LIMIT` (and return NaN for NaN and
/// infinities); a caller must check a slice against it (`!(x.abs() > SIN_FAST_LIMIT)` also
/// lets NaN through) and use `libm` for slices that fail.
pub(crate) const SIN_FAST_LIMIT: f64 = 6.5e6;

/// pi/2 = PIO2_1 + PIO2_2 + PIO2_3 + PIO2_4 + O(2^-160); the first three have 31 significant
/// bits, so `k * PIO2_i` is exact for `|k| < 2^22`.
const PIO2_1: f64 = 1.5707963267341256;
const PIO2_2: f64 = 6.077100509014471e-11;
const PIO2_3: f64 = -2.5082788063426444e-20;
const PIO2_4: f64 = 8.4784276603689e-32;
/// Below this `sin x` rounds to `x` (`x^2 / 6 < 2^-56`); returning `x` also keeps `-0.0`.
const SIN_TINY: f64 = 7.450580596923828e-9; // 2^-27
/// `(sin s - s) / s^3` in `z = s^2`, lowest degree first.
const SIN_POLY: [f64; 7] = [
    -0.16666666666666666,
    0.008333333333333331,
    -0.00019841269841265063,
    2.7557319219336258e-06,
    -2.5052106231381743e-08,
    1.6058531442865899e-10,
    -7.586686383262257e-13,
];
/// `(cos s - 1 + s^2 / 2) / s^4` in `z = s^2`, lowest degree first.
const COS_POLY: [f64; 6] = [
    0.041666666666666664,
    -0.0013888888888887398,
    2.4801587298764307e-05,
    -2.755731727092551e-07,
    2.087614608654495e-09,
    -1.138261850348216e-11,
];

/// `e^x` for every `x` (about 0.6 ulp; see the module doc), with the special cases of
/// `libm::exp`: NaN for NaN, `inf` above ln(f64::MAX) ~ 709.78 (and for `inf`), gradual
/// underflow down to ln(2^-1075) ~ -745.13 and 0 below (and for `-inf`).
#[inline(always)]
pub(crate) fn exp(x: f64) -> f64 {
    let x = if x < EXP_MIN { EXP_MIN } else { x };
    let x = if x > EXP_MAX { EXP_MAX } else { x };
    let kd = x * LOG2_E + SHIFT;
    let n = kd - SHIFT;
    // r + r_lo = x - n ln2 to about 2^-87 (rounding to r alone would cost up to 0.18 ulp).
    let hi = x - n * LN2_HI;
    let w = n * LN2_LO;
    let r = hi - w;
    let r_lo = (hi - r) - w;
    // 1 + r split exactly into s + s_err (|r| < 1), so that only the last addition rounds
    // at the scale of the result.
    let s = 1.0 + r;
    let s_err = (1.0 - s) + r;
    let p = s + (s_err + (r * r * horner(r, &EXP_POLY) + r_lo * s));
    // n + 2048 is positive after the clamp, so halving it needs no arithmetic shift (which
    // SSE2 and AVX2 lack for 64-bit lanes); each half becomes an exponent field directly.
    let e = kd.to_bits().wrapping_sub(SHIFT.to_bits()).wrapping_add(2048);
    let e1 = e >> 1;
    let scale1 = f64::from_bits(e1.wrapping_sub(1) << 52);
    let scale2 = f64::from_bits(e.wrapping_sub(e1).wrapping_sub(1) << 52);
    p * scale1 * scale2
}

/// `sin x` for `|x| <= SIN_FAST_LIMIT` (about 0.8 ulp), NaN for NaN and infinities, `x`
/// itself for tiny `x` (so `-0.0` stays `-0.0`). Wrong for finite `|x| > SIN_FAST_LIMIT`.
#[inline(always)]
pub(crate) fn sin(x: f64) -> f64 {
    let (q, hi, lo) = reduce_pio2(x);
    let s = quadrant(q, hi, lo);
    if x.abs() < SIN_TINY { x } else { s }
}

/// `cos x` for `|x| <= SIN_FAST_LIMIT` (about 0.8 ulp), NaN for NaN and infinities. Wrong
/// for finite `|x| > SIN_FAST_LIMIT`.
#[inline(always)]
pub(crate) fn cos(x: f64) -> f64 {
    let (q, hi, lo) = reduce_pio2(x);
    quadrant(q.wrapping_add(1), hi, lo)
}

/// `(q, hi, lo)` with `x = k pi/2 + hi + lo`, `|hi| <= pi/4`, `lo` below half an ulp of `hi`,
/// and the low bits of `q` holding `k` in two's complement.
#[inline(always)]
fn reduce_pio2(x: f64) -> (u64, f64, f64) {
    let kd = x * FRAC_2_PI + SHIFT;
    let k = kd - SHIFT;
    // Exact: k * PIO2_1 is, and x is close enough to it for the difference to fit.
    let s = x - k * PIO2_1;
    let (s, err2) = two_sum(s, -(k * PIO2_2));
    let (s, err3) = two_sum(s, -(k * PIO2_3));
    let lo = (err2 + err3) - k * PIO2_4;
    let hi = s + lo;
    (kd.to_bits(), hi, (s - hi) + lo)
}

/// `sin(k pi/2 + hi + lo)` from the low two bits of `q` (= `k mod 4`).
#[inline(always)]
fn quadrant(q: u64, hi: f64, lo: f64) -> f64 {
    let v = if q & 1 == 0 { sin_kernel(hi, lo) } else { cos_kernel(hi, lo) };
    f64::from_bits(v.to_bits() ^ ((q & 2) << 62))
}

/// `sin(r + lo)` for `|r| <= pi/4`: `sin r + lo cos r`, with `cos r ~ 1 - r^2 / 2`.
#[inline(always)]
fn sin_kernel(r: f64, lo: f64) -> f64 {
    let z = r * r;
    r + (r * z * horner(z, &SIN_POLY) + lo * (1.0 - 0.5 * z))
}

/// `cos(r + lo)` for `|r| <= pi/4`: `cos r - lo r`. `w = 1 - z/2` is rounded; what it lost,
/// `(1 - w) - z/2`, is exact and added back with the small terms.
#[inline(always)]
fn cos_kernel(r: f64, lo: f64) -> f64 {
    let z = r * r;
    let hz = 0.5 * z;
    let w = 1.0 - hz;
    w + (((1.0 - w) - hz) + (z * z * horner(z, &COS_POLY) - r * lo))
}

/// `a + b` as the rounded sum and its exact rounding error (Knuth's two-sum: no condition on
/// the magnitudes).
#[inline(always)]
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// The polynomial with coefficients `c` (lowest degree first) at `x`, by Horner's rule.
#[inline(always)]
fn horner<const N: usize>(x: f64, c: &[f64; N]) -> f64 {
    c[..N - 1].iter().rev().fold(c[N - 1], |acc, &ci| acc * x + ci)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::{E, FRAC_PI_2, LN_2};

    /// Distance in representable doubles (0 when both are NaN, `u64::MAX` when one is).
    fn ulps(a: f64, b: f64) -> u64 {
        let ordered = |x: f64| {
            let b = x.to_bits() as i64;
            if b < 0 { i64::MIN - b } else { b }
        };
        match (a.is_nan(), b.is_nan()) {
            (true, true) => 0,
            (false, false) => ordered(a).abs_diff(ordered(b)),
            _ => u64::MAX,
        }
    }

    /// splitmix64, mapped to doubles.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let z = (self.0 ^ (self.0 >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            let z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }

        fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
            lo + (hi - lo) * ((self.next() >> 11) as f64 / (1u64 << 53) as f64)
        }

        /// Magnitude log-uniform in `[lo, hi]`, random sign.
        fn log_uniform(&mut self, lo: f64, hi: f64) -> f64 {
            let m = self.uniform(lo.ln(), hi.ln()).exp();
            if self.next() & 1 == 0 { m } else { -m }
        }
    }

    const SAMPLES: usize = 1_000_000;

    type Func = fn(f64) -> f64;

    fn assert_within_one_ulp(name: &str, f: Func, reference: Func, xs: impl Iterator<Item = f64>) {
        let (d, x) = xs.map(|x| (ulps(f(x), reference(x)), x)).max_by_key(|&(d, _)| d).unwrap();
        assert!(d <= 1, "{name}({x:e}) is {d} ulp from libm");
    }

    fn uniform(seed: u64, lo: f64, hi: f64) -> impl Iterator<Item = f64> {
        let mut rng = Rng(seed);
        (0..SAMPLES).map(move |_| rng.uniform(lo, hi))
    }

    fn log_uniform(seed: u64, lo: f64, hi: f64) -> impl Iterator<Item = f64> {
        let mut rng = Rng(seed);
        (0..SAMPLES).map(move |_| rng.log_uniform(lo, hi))
    }

    #[test]
    fn splits_multiply_exactly() {
        // n * LN2_HI exact for |n| < 2^11, k * PIO2_i for |k| < 2^22.
        assert!(LN2_HI.to_bits().trailing_zeros() >= 11);
        for c in [PIO2_1, PIO2_2, PIO2_3] {
            assert!(c.to_bits().trailing_zeros() >= 22, "{c:e}");
        }
        assert_eq!(LN2_HI + LN2_LO, LN_2);
        assert_eq!(PIO2_1 + PIO2_2, FRAC_PI_2);
        assert!(SIN_FAST_LIMIT * FRAC_2_PI + 0.5 < (1u64 << 22) as f64);
    }

    #[test]
    fn exp_special_values() {
        assert!(exp(f64::NAN).is_nan());
        assert_eq!(exp(f64::INFINITY), f64::INFINITY);
        assert_eq!(exp(f64::NEG_INFINITY).to_bits(), 0);
        for x in [0.0, -0.0, 5e-324, -5e-324, 1e-300, -1e-300, 1e-17, -1e-17] {
            assert_eq!(exp(x), 1.0, "exp({x:e})");
        }
        // ln of the largest double lies between these two.
        assert_eq!(exp(709.782712893384), 1.7976931348622732e308);
        assert_eq!(exp(709.7827128933841), f64::INFINITY);
        assert_eq!(exp(1e10), f64::INFINITY);
        // ln(2^-1075), where results round to the smallest subnormal or to 0, lies between.
        assert_eq!(exp(-745.1332191019411), 5e-324);
        assert_eq!(exp(-745.1332191019412).to_bits(), 0);
        assert_eq!(exp(-1e10).to_bits(), 0);
        assert_eq!(exp(1.0), E);
    }

    #[test]
    fn exp_within_one_ulp_of_libm() {
        assert_within_one_ulp("exp", exp, libm::exp, uniform(1, -746.0, 710.0));
        assert_within_one_ulp("exp", exp, libm::exp, uniform(2, -1.0, 1.0));
        assert_within_one_ulp("exp", exp, libm::exp, log_uniform(3, 1e-20, 1.0));
        // Subnormal results, and the edges of the range.
        assert_within_one_ulp("exp", exp, libm::exp, uniform(4, -745.2, -708.3));
        let edges = [-745.2, -745.13321910194, -708.396418532264, -708.3, 709.7, 709.782712893384];
        let near = |x: f64| (-64..=64).map(move |i| f64::from_bits(x.to_bits().wrapping_add_signed(i)));
        assert_within_one_ulp("exp", exp, libm::exp, edges.into_iter().flat_map(near));
    }

    #[test]
    fn sin_cos_special_values() {
        for x in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert!(sin(x).is_nan() && cos(x).is_nan(), "{x}");
        }
        for x in [0.0, -0.0, 5e-324, -5e-324, 2.2e-308, -1e-300, 1e-9, -7e-9] {
            assert_eq!(sin(x).to_bits(), x.to_bits(), "sin({x:e})");
            assert_eq!(cos(x), 1.0, "cos({x:e})");
        }
        for x in [FRAC_PI_2, -FRAC_PI_2, 2.0 * FRAC_PI_2, 3.0 * FRAC_PI_2, SIN_FAST_LIMIT, -SIN_FAST_LIMIT] {
            assert!(ulps(sin(x), libm::sin(x)) <= 1 && ulps(cos(x), libm::cos(x)) <= 1, "{x:e}");
        }
    }

    #[test]
    fn sin_cos_within_one_ulp_of_libm() {
        for (name, f, reference) in [("sin", sin as Func, libm::sin as Func), ("cos", cos, libm::cos)] {
            assert_within_one_ulp(name, f, reference, uniform(5, -4.0, 4.0));
            assert_within_one_ulp(name, f, reference, uniform(6, -1e3, 1e3));
            assert_within_one_ulp(name, f, reference, uniform(7, -SIN_FAST_LIMIT, SIN_FAST_LIMIT));
            assert_within_one_ulp(name, f, reference, log_uniform(8, 1e-10, SIN_FAST_LIMIT));
        }
    }

    /// Arguments next to multiples of pi/2, where `r` cancels most: the doubles around `k pi/2`
    /// for the largest `k` below the limit, for small `k`, for `k = 29` (the closest approach,
    /// `|r| = 2^-60.5`) and `k = 1081409` (the smallest `|r| / k`).
    #[test]
    fn sin_cos_near_multiples_of_pi_2() {
        let k_max = (SIN_FAST_LIMIT / FRAC_PI_2) as i64;
        let ks = (k_max - 2000..=k_max).chain(-2000..=2000).chain([29, 1081409]);
        let xs = ks.flat_map(|k| {
            let x = k as f64 * FRAC_PI_2;
            (-3..=3).map(move |i| f64::from_bits(x.to_bits().wrapping_add_signed(i)))
        });
        let xs: Vec<f64> = xs.filter(|x| x.abs() <= SIN_FAST_LIMIT).collect();
        assert_within_one_ulp("sin", sin, libm::sin, xs.iter().copied());
        assert_within_one_ulp("cos", cos, libm::cos, xs.iter().copied());
    }
}
