//! The quicksort's kernels on AVX-512: eight values a vector, slices of at most 128 values
//! finished by a sorting network over up to 16 registers.

use super::STEP;
use std::arch::x86_64::*;

/// Values in one vector.
const LANES: usize = 8;

/// The most registers a sorting network holds; slices of up to `LANES * NETWORK_REGISTERS`
/// values are sorted by it.
const NETWORK_REGISTERS: usize = 16;

/// Whether the CPU has what these kernels use.
pub(super) fn usable() -> bool {
    std::arch::is_x86_feature_detected!("avx512f") && std::arch::is_x86_feature_detected!("popcnt")
}

/// The kernels, for `super::quicksort`.
pub(super) struct Kernels;

impl super::Kernels for Kernels {
    const SMALL: usize = LANES * NETWORK_REGISTERS;

    unsafe fn pivot(values: &[f64]) -> f64 {
        pivot(values)
    }

    unsafe fn partition<const OR_EQUAL: bool>(values: &mut [f64], pivot: f64) -> usize {
        partition::<OR_EQUAL>(values, pivot)
    }

    unsafe fn sort_small(values: &mut [f64]) {
        sort_small(values)
    }
}

/// The median of eight values spread over `values` (at least 16 long).
#[target_feature(enable = "avx512f,popcnt")]
unsafe fn pivot(values: &[f64]) -> f64 {
    let step = values.len() / LANES;
    let picked: [f64; LANES] = std::array::from_fn(|i| values[i * step + step / 2]);
    let sorted: [f64; LANES] = std::mem::transmute(sort_lanes(_mm512_loadu_pd(picked.as_ptr())));
    sorted[LANES / 2]
}

/// `values` reordered in place so that those below `pivot` (at most `pivot` when `OR_EQUAL`)
/// come first; returns how many they are. `values` must hold at least `(2 STEP + 1) LANES`.
///
/// `STEP` vectors at each end are read ahead, which leaves `2 STEP LANES` free places between
/// where the lower values are written (from the front) and the upper ones (from the back).
/// Each step reads `STEP` vectors from the side with fewer free places, so neither side's
/// writes reach values not yet read; the vectors read ahead fill the last free places.
#[target_feature(enable = "avx512f,popcnt")]
unsafe fn partition<const OR_EQUAL: bool>(values: &mut [f64], pivot: f64) -> usize {
    let n = values.len();
    debug_assert!(n >= (2 * STEP + 1) * LANES);
    let mut ends = Ends { base: values.as_mut_ptr(), low_end: 0, high_start: n, pivot: _mm512_set1_pd(pivot) };
    let base = ends.base;
    let load = |at: usize| _mm512_loadu_pd(base.add(at));
    // The values past a whole number of vectors, from the front, while the last vectors are
    // held: their writes land in places already read.
    let last: [__m512d; STEP] = std::array::from_fn(|i| load(n - (i + 1) * LANES));
    let odd = n % LANES;
    ends.place_some::<OR_EQUAL>(_mm512_maskz_loadu_pd(first_lanes(odd), base), first_lanes(odd));
    let first: [__m512d; STEP] = std::array::from_fn(|i| load(odd + i * LANES));
    let (mut read_from, mut read_to) = (odd + STEP * LANES, n - STEP * LANES);
    while (read_to - read_from) % (STEP * LANES) != 0 {
        let at = super::next_read(&mut read_from, &mut read_to, ends.low_end, ends.high_start, LANES);
        ends.place::<OR_EQUAL>(load(at));
    }
    while read_from < read_to {
        let at = super::next_read(&mut read_from, &mut read_to, ends.low_end, ends.high_start, STEP * LANES);
        let read: [__m512d; STEP] = std::array::from_fn(|i| load(at + i * LANES));
        read.into_iter().for_each(|v| ends.place::<OR_EQUAL>(v));
    }
    first.into_iter().chain(last).for_each(|v| ends.place::<OR_EQUAL>(v));
    ends.low_end
}

/// Where a partition writes: lower values at `low_end` and up, upper ones below `high_start`.
struct Ends {
    base: *mut f64,
    low_end: usize,
    high_start: usize,
    pivot: __m512d,
}

impl Ends {
    #[target_feature(enable = "avx512f")]
    unsafe fn lower<const OR_EQUAL: bool>(&self, v: __m512d) -> __mmask8 {
        if OR_EQUAL {
            _mm512_cmp_pd_mask::<_CMP_LE_OQ>(v, self.pivot)
        } else {
            _mm512_cmp_pd_mask::<_CMP_LT_OQ>(v, self.pivot)
        }
    }

    /// The lanes of `v` written to either side: one permutation puts the lower ones first and
    /// the upper ones last, and two masked stores write each part where it goes.
    #[target_feature(enable = "avx512f,popcnt")]
    unsafe fn place<const OR_EQUAL: bool>(&mut self, v: __m512d) {
        let lower = self.lower::<OR_EQUAL>(v);
        let l = lower.count_ones() as usize;
        let order = _mm512_cvtepu8_epi64(_mm_loadl_epi64(LOWER_FIRST[lower as usize].as_ptr().cast()));
        let split = _mm512_permutexvar_pd(order, v);
        _mm512_mask_storeu_pd(self.base.add(self.low_end), first_lanes(l), split);
        // The upper lanes end the vector, so it is stored to end at `high_start`; the lanes
        // masked off may lie before the slice, hence the pointer computed by wrapping.
        _mm512_mask_storeu_pd(self.base.wrapping_add(self.high_start).wrapping_sub(LANES), !first_lanes(l), split);
        self.low_end += l;
        self.high_start -= LANES - l;
    }

    /// The lanes of `v` picked by `within` written to either side.
    #[target_feature(enable = "avx512f,popcnt")]
    unsafe fn place_some<const OR_EQUAL: bool>(&mut self, v: __m512d, within: __mmask8) {
        let lower = self.lower::<OR_EQUAL>(v) & within;
        let upper = !lower & within;
        let l = lower.count_ones() as usize;
        let u = within.count_ones() as usize - l;
        _mm512_mask_storeu_pd(self.base.add(self.low_end), first_lanes(l), _mm512_maskz_compress_pd(lower, v));
        self.high_start -= u;
        _mm512_mask_storeu_pd(self.base.add(self.high_start), first_lanes(u), _mm512_maskz_compress_pd(upper, v));
        self.low_end += l;
    }
}

/// For each mask of lower lanes, the lane order that puts them first and the others last.
static LOWER_FIRST: [[u8; LANES]; 256] = super::lower_first::<LANES, 256>();

/// The mask of the first `n` lanes (`n <= LANES`).
fn first_lanes(n: usize) -> __mmask8 {
    ((1u32 << n) - 1) as __mmask8
}

/// `values` (at most `LANES * NETWORK_REGISTERS`) sorted by a network over the fewest
/// registers that hold them, the places past the end filled with +inf.
#[target_feature(enable = "avx512f,popcnt")]
unsafe fn sort_small(values: &mut [f64]) {
    match values.len().div_ceil(LANES) {
        0 => {}
        1 => sort_in_registers::<1>(values),
        2 => sort_in_registers::<2>(values),
        3..=4 => sort_in_registers::<4>(values),
        5..=8 => sort_in_registers::<8>(values),
        _ => sort_in_registers::<16>(values),
    }
}

#[target_feature(enable = "avx512f,popcnt")]
unsafe fn sort_in_registers<const R: usize>(values: &mut [f64]) {
    let n = values.len();
    let infinity = _mm512_set1_pd(f64::INFINITY);
    let lanes_at = |r: usize| first_lanes(n.saturating_sub(r * LANES).min(LANES));
    let mut regs: [__m512d; R] = std::array::from_fn(|r| _mm512_mask_loadu_pd(infinity, lanes_at(r), values.as_ptr().add((r * LANES).min(n))));
    sort_registers(&mut regs);
    for (r, reg) in regs.iter().enumerate() {
        _mm512_mask_storeu_pd(values.as_mut_ptr().add((r * LANES).min(n)), lanes_at(r), *reg);
    }
}

// The `8 R` values of `regs` sorted by the bitonic network (`super::sort_registers!`).
super::sort_registers!("avx512f,popcnt", __m512d, _mm512_min_pd, _mm512_max_pd);

/// The eight lanes of `v` sorted: runs of 1, 2 and 4 lanes merged as in `sort_registers`.
#[target_feature(enable = "avx512f,popcnt")]
unsafe fn sort_lanes(v: __m512d) -> __m512d {
    let v = exchange(v, [1, 0, 3, 2, 5, 4, 7, 6], 0xAA);
    let v = exchange(v, [3, 2, 1, 0, 7, 6, 5, 4], 0xCC);
    let v = exchange(v, [1, 0, 3, 2, 5, 4, 7, 6], 0xAA);
    let v = exchange(v, [7, 6, 5, 4, 3, 2, 1, 0], 0xF0);
    clean_lanes(v)
}

/// A register whose two halves are each a sorted run apart (bitonic within it) sorted, by
/// comparing lanes 4, 2 and 1 apart.
#[target_feature(enable = "avx512f,popcnt")]
unsafe fn clean_lanes(v: __m512d) -> __m512d {
    let v = exchange(v, [4, 5, 6, 7, 0, 1, 2, 3], 0xF0);
    let v = exchange(v, [2, 3, 0, 1, 6, 7, 4, 5], 0xCC);
    exchange(v, [1, 0, 3, 2, 5, 4, 7, 6], 0xAA)
}

/// Each lane of `v` compared with lane `partner[lane]`: the lanes in `upper` keep the greater.
#[target_feature(enable = "avx512f,popcnt")]
unsafe fn exchange(v: __m512d, partner: [i64; LANES], upper: __mmask8) -> __m512d {
    let other = _mm512_permutexvar_pd(_mm512_loadu_si512(partner.as_ptr().cast()), v);
    _mm512_mask_blend_pd(upper, _mm512_min_pd(v, other), _mm512_max_pd(v, other))
}

#[target_feature(enable = "avx512f,popcnt")]
unsafe fn reverse(v: __m512d) -> __m512d {
    _mm512_permutexvar_pd(_mm512_set_epi64(0, 1, 2, 3, 4, 5, 6, 7), v)
}
