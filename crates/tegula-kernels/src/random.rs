//! Counter-based random numbers: the value of an element is a hash of the stream key and the
//! element's flat position in the whole array, so it never depends on the chunking or on the
//! order blocks are computed in. The hash is SplitMix64 (which passes BigCrush): element `g` of
//! stream `key` is the finaliser applied to `key + g·γ`, so any run of positions is generated
//! independently and the loop vectorises.

use crate::chunk::{Chunk, Wrap};
use crate::element::Elem;
use crate::with_dtype;
use crate::tiles::reshape;
use crate::rejection::Stream;
use crate::ziggurat::ziggurat;
use ndarray::Array;
use tegula_core::{DType, Distribution, Result};

const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// SplitMix64's finaliser: a well-spread hash of `z`.
#[inline(always)]
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The stream key of call number `stream` of a generator seeded with `seed`.
pub fn stream_key(seed: u64, stream: u64) -> u64 {
    mix64(mix64(seed ^ 0x7465_6775_6C61).wrapping_add(stream.wrapping_mul(GAMMA)))
}

#[inline(always)]
fn bits(key: u64, counter: u64) -> u64 {
    mix64(key.wrapping_add(counter.wrapping_mul(GAMMA)))
}

/// `(x >> 11) · 2⁻⁵³`, a uniform double in [0, 1) with 53 random bits, built from integer
/// operations only (1 + the top 52 bits as a mantissa, minus one, plus the 53rd bit's half
/// ulp), because x86-64 has no vector conversion from u64 to f64 before AVX-512.
#[inline(always)]
fn unit(x: u64) -> f64 {
    let top52 = f64::from_bits(0x3FF0_0000_0000_0000 | (x >> 12)) - 1.0;
    let bit53 = f64::from_bits(((x >> 11) & 1) * 0x3CA0_0000_0000_0000);
    top52 + bit53
}

/// Where one block sits in the whole array.
pub struct BlockPlace<'a> {
    /// The shape of the whole array.
    pub array_shape: &'a [usize],
    /// The block's first element along each axis.
    pub start: &'a [usize],
    /// The shape of the block.
    pub shape: &'a [usize],
}

/// The block's values, in its shape.
pub fn random_block(key: u64, dist: Distribution, dtype: DType, place: &BlockPlace) -> Result<Chunk> {
    let size = place.shape.iter().product();
    reshape(&random(key, dist, dtype, place, 0, size), place.shape)
}

/// The values at the block's row-major positions `start .. start + len`, as a 1-D chunk.
pub fn random(key: u64, dist: Distribution, dtype: DType, place: &BlockPlace, start: usize, len: usize) -> Chunk {
    with_dtype!(dtype, T => {
        // Huge pages: first touches of fresh small pages cost more than generating the values.
        let mut data = tegula_core::memory::big_vec(len);
        data.resize(len, T::default());
        random_into(key, dist, place, start, &mut data);
        T::wrap(Array::from_vec(data).into_dyn().into())
    })
}

/// The values at the block's row-major positions `start .. start + out.len()`, written to `out`.
pub fn random_into<T: RandomElem>(key: u64, dist: Distribution, place: &BlockPlace, start: usize, out: &mut [T]) {
    let runs = runs(place, start, out.len());
    match dist {
        Distribution::Uniform { low, high } => fill_runs(&runs, out, |first, out| T::uniform(key, first, low, high, out)),
        Distribution::Normal { loc, scale } => fill_runs(&runs, out, |first, out| fill_normal(key, first, loc, scale, out)),
        Distribution::Integers { low, high } => {
            let range = (high - low) as u128;
            fill_runs(&runs, out, |first, out| fill(first, out, |g| T::from_i128(low + ((bits(key, g) as u128 * range) >> 64) as i128)))
        }
        Distribution::Gamma { shape, scale } => fill_drawn(key, &runs, out, |s| scale * s.gamma(shape)),
        Distribution::Beta { a, b } => fill_drawn(key, &runs, out, |s| s.beta(a, b)),
        Distribution::ChiSquare { df } => fill_drawn(key, &runs, out, |s| s.chisquare(df)),
        Distribution::StudentT { df } => fill_drawn(key, &runs, out, |s| s.standard_t(df)),
        Distribution::Poisson { lam } => fill_drawn(key, &runs, out, |s| s.poisson(lam)),
        Distribution::Binomial { n, p } => fill_drawn(key, &runs, out, |s| s.binomial(n, p)),
        Distribution::Words => fill_runs(&runs, out, |first, out| fill(first, out, |g| T::from_i128(bits(key, g) as i128))),
    }
}

/// Values drawn by rejection (`rejection.rs`), each from the stream of its own position.
fn fill_drawn<T: RandomElem>(key: u64, runs: &[(u64, usize)], out: &mut [T], draw: impl Fn(&mut Stream) -> f64) {
    fill_runs(runs, out, |first, out| fill(first, out, |g| T::from_f64(draw(&mut Stream::new(bits(key, g))))))
}

/// Element types with their uniform generator: 53 random bits scaled, except where a type
/// has a faster exact path (float64's vectorised copy, float32's 24 bits).
pub trait RandomElem: Elem + Default {
    /// Fills `out` with uniform values on `[low, high)` for the stream positions from `first`.
    fn uniform(key: u64, first: u64, low: f64, high: f64, out: &mut [Self]) {
        fill(first, out, |g| Self::from_f64(unit(bits(key, g)) * (high - low) + low))
    }
}
macro_rules! random_elem {
    ($($t:ty),*) => {$(impl RandomElem for $t {})*};
}
random_elem!(bool, i8, i16, i32, i64, u8, u16, u32, u64, half::f16, crate::element::C64, crate::element::C128);
impl RandomElem for f64 {
    fn uniform(key: u64, first: u64, low: f64, high: f64, out: &mut [f64]) {
        fill_uniform_f64(key, first, low, high, out)
    }
}
impl RandomElem for f32 {
    fn uniform(key: u64, first: u64, low: f64, high: f64, out: &mut [f32]) {
        fill(first, out, |g| ((bits(key, g) >> 40) as f32 * (1.0 / (1u32 << 24) as f32)) * (high - low) as f32 + low as f32)
    }
}

/// The runs of consecutive positions in the whole array (first flat position, length) that
/// make up the block's row-major positions `start .. start + len`: pieces of the block's rows.
fn runs(place: &BlockPlace, start: usize, len: usize) -> Vec<(u64, usize)> {
    let nd = place.shape.len();
    if nd == 0 {
        return vec![(0, len)];
    }
    let row = place.shape[nd - 1].max(1);
    let mut out = Vec::with_capacity(len / row + 2);
    let mut at = start;
    while at < start + len {
        let n = (row - at % row).min(start + len - at);
        let index = tegula_core::grid::unravel(at, place.shape);
        let global = index.iter().zip(place.start).zip(place.array_shape);
        let flat = global.fold(0u64, |flat, ((i, s), dim)| flat * *dim as u64 + (i + s) as u64);
        out.push((flat, n));
        at += n;
    }
    out
}

/// Generates every run, one after the other, into `out`.
fn fill_runs<T>(runs: &[(u64, usize)], out: &mut [T], mut fill_run: impl FnMut(u64, &mut [T])) {
    let mut at = 0;
    for &(first, n) in runs {
        fill_run(first, &mut out[at..at + n]);
        at += n;
    }
}

#[inline(always)]
fn fill<T>(first: u64, out: &mut [T], value: impl Fn(u64) -> T) {
    for (g, o) in (first..).zip(out.iter_mut()) {
        *o = value(g);
    }
}

/// Normal values by the ziggurat: element `g` takes the word at counter `g`, and in the ~1% of
/// cases that need more, the SplitMix64 sequence that continues from that word — so a value
/// still depends only on its position.
fn fill_normal<T: RandomElem>(key: u64, first: u64, loc: f64, scale: f64, out: &mut [T]) {
    let tables = ziggurat();
    for (g, o) in (first..).zip(out.iter_mut()) {
        let word = bits(key, g);
        let mut state = word;
        let more = move || {
            state = state.wrapping_add(GAMMA);
            mix64(state)
        };
        *o = T::from_f64(loc + scale * tables.sample(word, more));
    }
}

/// Uniform float64 values, the hot path of random generation: compiled for AVX2 too (chosen at
/// run time) since 64-bit multiplies and the float construction vectorise there, and for
/// AVX-512 (DQ, VL), which multiplies 64-bit lanes in one instruction where AVX2 takes three.
fn fill_uniform_f64(key: u64, first: u64, low: f64, high: f64, out: &mut [f64]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512dq") && std::arch::is_x86_feature_detected!("avx512vl") {
        // SAFETY: the CPU supports AVX-512 F, DQ and VL (DQ implies F), checked just above.
        return unsafe { fill_uniform_f64_avx512(key, first, low, high, out) };
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2, checked just above.
        return unsafe { fill_uniform_f64_avx2(key, first, low, high, out) };
    }
    fill_uniform_f64_portable(key, first, low, high, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn fill_uniform_f64_avx2(key: u64, first: u64, low: f64, high: f64, out: &mut [f64]) {
    fill_uniform_f64_portable(key, first, low, high, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq,avx512vl")]
unsafe fn fill_uniform_f64_avx512(key: u64, first: u64, low: f64, high: f64, out: &mut [f64]) {
    fill_uniform_f64_portable(key, first, low, high, out)
}

#[inline(always)]
fn fill_uniform_f64_portable(key: u64, first: u64, low: f64, high: f64, out: &mut [f64]) {
    let width = high - low;
    fill(first, out, |g| unit(bits(key, g)) * width + low)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_is_the_top_53_bits_scaled() {
        let edges = [0, 1 << 11, u64::MAX, u64::MAX << 11, 1 << 63];
        for x in edges.into_iter().chain((0..10_000).map(mix64)) {
            assert_eq!(unit(x), (x >> 11) as f64 / (1u64 << 53) as f64, "{x:#x}");
        }
    }

    #[test]
    fn a_normal_depends_only_on_its_position() {
        let mut whole = vec![0.0f64; 2000];
        fill_normal(5, 100, 1.0, 2.0, &mut whole);
        for (start, len) in [(1, 1), (1, 2), (3, 600), (0, 513), (7, 1024), (999, 1001)] {
            let mut part = vec![0.0f64; len];
            fill_normal(5, 100 + start as u64, 1.0, 2.0, &mut part);
            assert_eq!(part, whole[start..start + len], "run at {start} of {len}");
        }
    }

    /// Φ, the standard normal distribution function.
    fn normal_cdf(x: f64) -> f64 {
        0.5 * libm::erfc(-x / std::f64::consts::SQRT_2)
    }

    #[test]
    fn normals_follow_the_normal_distribution() {
        let n = 2_000_000;
        let mut z = vec![0.0f64; n];
        fill_normal(3, 0, 0.0, 1.0, &mut z);
        z.sort_by(f64::total_cmp);
        // Kolmogorov–Smirnov: the largest gap between the empirical and the exact distribution
        // function; 1.95 / √n is its 0.1% critical value.
        let gap = z.iter().enumerate().map(|(i, &x)| {
            let exact = normal_cdf(x);
            (exact - i as f64 / n as f64).abs().max(((i + 1) as f64 / n as f64 - exact).abs())
        });
        let gap = gap.fold(0.0, f64::max);
        assert!(gap < 1.95 / (n as f64).sqrt(), "KS distance {gap}");
        // The tail beyond the bottom layer (its own sampler): expected count ± 5 deviations.
        let beyond = z.iter().filter(|x| x.abs() > 3.654_152_885_361_009).count() as f64;
        let expected = n as f64 * 2.0 * normal_cdf(-3.654_152_885_361_009);
        assert!((beyond - expected).abs() < 5.0 * expected.sqrt(), "{beyond} beyond the tail start, {expected} expected");
        assert!(z[n - 1] > 4.5 && z[0] < -4.5, "extremes {} {}", z[0], z[n - 1]);
    }

    #[test]
    fn normals_have_the_moments_of_the_distribution() {
        let n = 1_000_000;
        let mut z = vec![0.0f64; n];
        fill_normal(9, 0, 0.0, 1.0, &mut z);
        let mean = z.iter().sum::<f64>() / n as f64;
        let var = z.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n as f64;
        let kurt = z.iter().map(|v| (v - mean).powi(4)).sum::<f64>() / n as f64 / (var * var);
        // Sampling errors: 1e-3, 1.4e-3 and 5e-3 standard deviations.
        assert!(mean.abs() < 5e-3 && (var - 1.0).abs() < 7e-3 && (kurt - 3.0).abs() < 0.03, "{mean} {var} {kurt}");
        // Neighbours (a pair's cosine and sine) are uncorrelated.
        let lag1 = z.windows(2).map(|w| w[0] * w[1]).sum::<f64>() / n as f64;
        assert!(lag1.abs() < 5e-3, "{lag1}");
    }

    #[test]
    fn vectorised_and_portable_uniform_agree() {
        let (mut a, mut b) = (vec![0.0; 1000], vec![0.0; 1000]);
        fill_uniform_f64(7, 123, -2.0, 3.0, &mut a);
        fill_uniform_f64_portable(7, 123, -2.0, 3.0, &mut b);
        assert_eq!(a, b);
        assert!(a.iter().all(|v| (-2.0..3.0).contains(v)));
        // Each compiled variant this CPU runs, not only the one chosen.
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2.
            unsafe { fill_uniform_f64_avx2(7, 123, -2.0, 3.0, &mut a) };
            assert_eq!(a, b);
        }
    }
}
