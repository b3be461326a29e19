//! The quicksort's kernels on AVX2: four values a vector, slices of at most 64 values finished
//! by a sorting network over up to 16 registers. AVX2 has no masked compress, so a partition
//! writes whole vectors to both ends, which the free places between the ends allow while
//! there are two vectors' worth of them.

use super::STEP;
use std::arch::x86_64::*;

/// Values in one vector.
const LANES: usize = 4;

/// The most registers a sorting network holds.
const NETWORK_REGISTERS: usize = 16;

/// Whether the CPU has what these kernels use.
pub(super) fn usable() -> bool {
    std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("popcnt")
}

/// The kernels, for `super::quicksort`.
pub(super) struct Kernels;

impl super::Kernels for Kernels {
    const SMALL: usize = LANES * NETWORK_REGISTERS;

    unsafe fn pivot(values: &[f64]) -> f64 {
        const PICKED: usize = 8;
        let step = values.len() / PICKED;
        let mut picked: [f64; PICKED] = std::array::from_fn(|i| values[i * step + step / 2]);
        picked.sort_unstable_by(f64::total_cmp);
        picked[PICKED / 2]
    }

    unsafe fn partition<const OR_EQUAL: bool>(values: &mut [f64], pivot: f64) -> usize {
        partition::<OR_EQUAL>(values, pivot)
    }

    unsafe fn sort_small(values: &mut [f64]) {
        sort_small(values)
    }
}

/// `values` reordered in place so that those below `pivot` (at most `pivot` when `OR_EQUAL`)
/// come first; returns how many they are. `values` must hold at least `(2 STEP + 1) LANES`.
///
/// As on AVX-512 (`avx512::partition`): `STEP` vectors at each end are read ahead, each step
/// reads `STEP` vectors from the side with fewer free places, and the vectors read ahead fill
/// the last free places.
#[target_feature(enable = "avx2,popcnt")]
unsafe fn partition<const OR_EQUAL: bool>(values: &mut [f64], pivot: f64) -> usize {
    let n = values.len();
    debug_assert!(n >= (2 * STEP + 1) * LANES);
    let mut ends = Ends { base: values.as_mut_ptr(), low_end: 0, high_start: n, pivot: _mm256_set1_pd(pivot) };
    let base = ends.base;
    let load = |at: usize| _mm256_loadu_pd(base.add(at));
    // The values past a whole number of vectors, one by one from the front, while the last
    // vectors are held: their writes land in places already read.
    let last: [__m256d; STEP] = std::array::from_fn(|i| load(n - (i + 1) * LANES));
    let odd = n % LANES;
    for i in 0..odd {
        ends.place_one::<OR_EQUAL>(*base.add(i), pivot);
    }
    let first: [__m256d; STEP] = std::array::from_fn(|i| load(odd + i * LANES));
    let (mut read_from, mut read_to) = (odd + STEP * LANES, n - STEP * LANES);
    while (read_to - read_from) % (STEP * LANES) != 0 {
        let at = super::next_read(&mut read_from, &mut read_to, ends.low_end, ends.high_start, LANES);
        ends.place::<OR_EQUAL>(load(at));
    }
    while read_from < read_to {
        let at = super::next_read(&mut read_from, &mut read_to, ends.low_end, ends.high_start, STEP * LANES);
        let read: [__m256d; STEP] = std::array::from_fn(|i| load(at + i * LANES));
        read.into_iter().for_each(|v| ends.place::<OR_EQUAL>(v));
    }
    // The held vectors fill the last `2 STEP` vectors' places: all but the last with two
    // places' room at least, the last one exactly in the places left.
    let held: [__m256d; 2 * STEP] = std::array::from_fn(|i| if i < STEP { first[i] } else { last[i - STEP] });
    held[..2 * STEP - 1].iter().for_each(|&v| ends.place::<OR_EQUAL>(v));
    ends.place_last::<OR_EQUAL>(held[2 * STEP - 1]);
    ends.low_end
}

/// Where a partition writes: lower values at `low_end` and up, upper ones below `high_start`.
struct Ends {
    base: *mut f64,
    low_end: usize,
    high_start: usize,
    pivot: __m256d,
}

impl Ends {
    /// The lanes of `v` below the pivot (or equal, with `OR_EQUAL`), one bit each.
    #[target_feature(enable = "avx2")]
    unsafe fn lower<const OR_EQUAL: bool>(&self, v: __m256d) -> usize {
        let below = if OR_EQUAL { _mm256_cmp_pd::<_CMP_LE_OQ>(v, self.pivot) } else { _mm256_cmp_pd::<_CMP_LT_OQ>(v, self.pivot) };
        _mm256_movemask_pd(below) as usize
    }

    /// `v` with its lower lanes first and its upper ones last, and how many are lower.
    #[target_feature(enable = "avx2,popcnt")]
    unsafe fn split<const OR_EQUAL: bool>(&self, v: __m256d) -> (__m256d, usize) {
        let lower = self.lower::<OR_EQUAL>(v);
        let order = _mm256_loadu_si256(LOWER_FIRST[lower].as_ptr().cast());
        (_mm256_castps_pd(_mm256_permutevar8x32_ps(_mm256_castpd_ps(v), order)), lower.count_ones() as usize)
    }

    /// The lanes of `v` written to either side, with at least two vectors' free places between
    /// the sides: the whole vector at both ends, each part landing where it goes and the rest
    /// on free places.
    #[target_feature(enable = "avx2,popcnt")]
    unsafe fn place<const OR_EQUAL: bool>(&mut self, v: __m256d) {
        debug_assert!(self.high_start - self.low_end >= 2 * LANES);
        let (split, l) = self.split::<OR_EQUAL>(v);
        _mm256_storeu_pd(self.base.add(self.low_end), split);
        _mm256_storeu_pd(self.base.add(self.high_start - LANES), split);
        self.low_end += l;
        self.high_start -= LANES - l;
    }

    /// The lanes of `v` written to the last free places, exactly one vector's.
    #[target_feature(enable = "avx2,popcnt")]
    unsafe fn place_last<const OR_EQUAL: bool>(&mut self, v: __m256d) {
        debug_assert_eq!(self.high_start - self.low_end, LANES);
        let (split, l) = self.split::<OR_EQUAL>(v);
        _mm256_storeu_pd(self.base.add(self.low_end), split);
        self.low_end += l;
        self.high_start = self.low_end;
    }

    /// One value written to its side; `low_end` and `high_start - 1` must be free places.
    unsafe fn place_one<const OR_EQUAL: bool>(&mut self, value: f64, pivot: f64) {
        if value < pivot || (OR_EQUAL && value == pivot) {
            *self.base.add(self.low_end) = value;
            self.low_end += 1;
        } else {
            self.high_start -= 1;
            *self.base.add(self.high_start) = value;
        }
    }
}

/// For each mask of lower lanes, the 32-bit words of the lane order that puts them first and
/// the others last (`_mm256_permutevar8x32_ps` moves words, two a value).
static LOWER_FIRST: [[u32; 2 * LANES]; 16] = words(super::lower_first::<LANES, 16>());

const fn words(lanes: [[u8; LANES]; 16]) -> [[u32; 2 * LANES]; 16] {
    let mut table = [[0u32; 2 * LANES]; 16];
    let mut mask = 0;
    while mask < 16 {
        let mut lane = 0;
        while lane < LANES {
            table[mask][2 * lane] = 2 * lanes[mask][lane] as u32;
            table[mask][2 * lane + 1] = 2 * lanes[mask][lane] as u32 + 1;
            lane += 1;
        }
        mask += 1;
    }
    table
}

/// `values` (at most `LANES * NETWORK_REGISTERS`) sorted by a network over the fewest
/// registers that hold them, copied through a buffer whose places past the end hold +inf.
#[target_feature(enable = "avx2")]
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

#[target_feature(enable = "avx2")]
unsafe fn sort_in_registers<const R: usize>(values: &mut [f64]) {
    let mut buffer = [f64::INFINITY; LANES * NETWORK_REGISTERS];
    buffer[..values.len()].copy_from_slice(values);
    let mut regs: [__m256d; R] = std::array::from_fn(|r| _mm256_loadu_pd(buffer.as_ptr().add(r * LANES)));
    sort_registers(&mut regs);
    for (r, reg) in regs.iter().enumerate() {
        _mm256_storeu_pd(buffer.as_mut_ptr().add(r * LANES), *reg);
    }
    values.copy_from_slice(&buffer[..values.len()]);
}

// The `4 R` values of `regs` sorted by the bitonic network (`super::sort_registers!`).
super::sort_registers!("avx2", __m256d, _mm256_min_pd, _mm256_max_pd);

/// Partner lanes, as `_mm256_permute4x64_pd`'s immediate: lanes 1 apart, 2 apart, reversed.
const NEXT: i32 = 0b10_11_00_01;
const TWO_APART: i32 = 0b01_00_11_10;
const REVERSED: i32 = 0b00_01_10_11;

/// The four lanes of `v` sorted: pairs, then the pairs merged.
#[target_feature(enable = "avx2")]
unsafe fn sort_lanes(v: __m256d) -> __m256d {
    let v = exchange::<NEXT, 0b1010>(v);
    let v = exchange::<REVERSED, 0b1100>(v);
    exchange::<NEXT, 0b1010>(v)
}

/// A register whose two halves are each a sorted run apart (bitonic within it) sorted, by
/// comparing lanes 2 and 1 apart.
#[target_feature(enable = "avx2")]
unsafe fn clean_lanes(v: __m256d) -> __m256d {
    let v = exchange::<TWO_APART, 0b1100>(v);
    exchange::<NEXT, 0b1010>(v)
}

/// Each lane of `v` compared with its partner (`PARTNER`): the lanes in `UPPER` keep the greater.
#[target_feature(enable = "avx2")]
unsafe fn exchange<const PARTNER: i32, const UPPER: i32>(v: __m256d) -> __m256d {
    let other = _mm256_permute4x64_pd::<PARTNER>(v);
    _mm256_blend_pd::<UPPER>(_mm256_min_pd(v, other), _mm256_max_pd(v, other))
}

#[target_feature(enable = "avx2")]
unsafe fn reverse(v: __m256d) -> __m256d {
    _mm256_permute4x64_pd::<REVERSED>(v)
}
