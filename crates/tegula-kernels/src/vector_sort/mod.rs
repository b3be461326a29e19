//! float64 values sorted by a quicksort on vectors: each partition step compares a vector of
//! values with the pivot at once and packs them to either end, and short slices are finished
//! by a sorting network held in registers. Where a radix sort makes a pass per digit over
//! memory with scattered writes, this makes `log n` streaming passes with no mispredicted
//! branch. Eight values a vector on AVX-512 (`avx512.rs`), four on AVX2 (`avx2.rs`); other
//! CPUs keep the radix sort (`radix.rs`).

/// `sort_registers`, for one instruction set: the `LANES R` values of `regs` sorted (register
/// by register, lane by lane) by a bitonic network. Sorted runs of `s` values are merged into
/// runs of `2 s`, each merge comparing the first run with the second reversed, then halving
/// the distance between compared values. The invoking module supplies `sort_lanes`,
/// `clean_lanes` and `reverse` on its vector type.
macro_rules! sort_registers {
    ($features:literal, $vector:ty, $min:ident, $max:ident) => {
        #[target_feature(enable = $features)]
        unsafe fn sort_registers<const R: usize>(regs: &mut [$vector; R]) {
            for reg in regs.iter_mut() {
                *reg = sort_lanes(*reg);
            }
            let mut run = 2; // registers in a run after this merge
            while run <= R {
                for start in (0..R).step_by(run) {
                    for i in 0..run / 2 {
                        let (a, b) = (regs[start + i], reverse(regs[start + run - 1 - i]));
                        regs[start + i] = $min(a, b);
                        regs[start + run - 1 - i] = reverse($max(a, b));
                    }
                }
                let mut distance = run / 4;
                while distance >= 1 {
                    for r in (0..R).filter(|r| r & distance == 0) {
                        let (a, b) = (regs[r], regs[r + distance]);
                        regs[r] = $min(a, b);
                        regs[r + distance] = $max(a, b);
                    }
                    distance /= 2;
                }
                for reg in regs.iter_mut() {
                    *reg = clean_lanes(*reg);
                }
                run *= 2;
            }
        }
    };
}
use sort_registers;

mod avx2;
mod avx512;

/// Vectors a partition reads at a time: their loads and comparisons overlap, where one at a
/// time waits for the last one's counts to choose where to read next.
const STEP: usize = 4;

/// Where a partition reads its next `width` values: from the side with fewer free places
/// between where it reads and where it writes (`low_end` at the front, `high_start` at the
/// back), whose read bound moves past them.
#[inline(always)]
fn next_read(read_from: &mut usize, read_to: &mut usize, low_end: usize, high_start: usize, width: usize) -> usize {
    // Chosen without a branch: which side it is follows the data, so it is not predicted.
    let from_front = *read_from - low_end <= high_start - *read_to;
    let at = if from_front { *read_from } else { *read_to - width };
    *read_from += width * from_front as usize;
    *read_to -= width * !from_front as usize;
    at
}

/// `values`, which hold no NaN, sorted ascending; false, with `values` untouched, where the
/// CPU has neither AVX-512 nor AVX2. Equal values may change places: callers sort only values
/// whose equals are the same bits (so no -0.0 beside 0.0).
pub fn sort_floats(values: &mut [f64]) -> bool {
    debug_assert!(!values.iter().any(|v| v.is_nan()));
    let depth = 2 * (usize::BITS - values.len().leading_zeros());
    if avx512::usable() {
        // SAFETY: the CPU has what the AVX-512 kernels use, checked just now.
        unsafe { quicksort::<avx512::Kernels>(values, depth) };
    } else if avx2::usable() {
        // SAFETY: the CPU has what the AVX2 kernels use, checked just now.
        unsafe { quicksort::<avx2::Kernels>(values, depth) };
    } else {
        return false;
    }
    true
}

/// What a quicksort needs from one instruction set. Callers check the CPU has it first.
trait Kernels {
    /// Slices of at most this many values are sorted by `sort_small`; longer ones partitioned.
    const SMALL: usize;
    /// A pivot for `values` (longer than `SMALL`): the median of a few values spread over it.
    unsafe fn pivot(values: &[f64]) -> f64;
    /// `values` (longer than `SMALL`) reordered so that those below `pivot` (at most `pivot`
    /// when `OR_EQUAL`) come first; returns how many they are.
    unsafe fn partition<const OR_EQUAL: bool>(values: &mut [f64], pivot: f64) -> usize;
    /// `values` (at most `SMALL`) sorted.
    unsafe fn sort_small(values: &mut [f64]);
}

/// `values` sorted; after `depth` more partitions the rest is left to the library's sort, so
/// that inputs which defeat the pivot choice still take `n log n`.
unsafe fn quicksort<K: Kernels>(mut values: &mut [f64], mut depth: u32) {
    while values.len() > K::SMALL {
        if depth == 0 {
            values.sort_unstable_by(f64::total_cmp);
            return;
        }
        depth -= 1;
        let pivot = K::pivot(values);
        let mut lower = K::partition::<false>(values, pivot);
        if lower == 0 {
            // The pivot is the least value: its copies go first and are done.
            lower = K::partition::<true>(values, pivot);
            values = &mut values[lower..];
            continue;
        }
        // The shorter side by recursion, the longer by the loop, so the stack stays `log n`.
        let (low, high) = values.split_at_mut(lower);
        if low.len() < high.len() {
            quicksort::<K>(low, depth);
            values = high;
        } else {
            quicksort::<K>(high, depth);
            values = low;
        }
    }
    K::sort_small(values);
}

/// For each mask of `L` lanes (`M = 2^L` masks) that are lower, the lane order that puts them
/// first and the others last, each in their order.
const fn lower_first<const L: usize, const M: usize>() -> [[u8; L]; M] {
    let mut table = [[0u8; L]; M];
    let mut mask = 0;
    while mask < M {
        let (mut next, mut lane) = (0, 0);
        while lane < L {
            if mask & (1 << lane) != 0 {
                table[mask][next] = lane as u8;
                next += 1;
            }
            lane += 1;
        }
        lane = 0;
        while lane < L {
            if mask & (1 << lane) == 0 {
                table[mask][next] = lane as u8;
                next += 1;
            }
            lane += 1;
        }
        mask += 1;
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic stream of bit patterns (xorshift).
    fn bits(n: usize, seed: u64) -> impl Iterator<Item = u64> {
        let mut s = seed | 1;
        (0..n).map(move |_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        })
    }

    /// A quicksort on one instruction set.
    type Sort = unsafe fn(&mut [f64], u32);

    /// `values` sorted by every instruction set this CPU has, each equal to the library's sort.
    fn check(values: Vec<f64>) {
        let mut expected = values.clone();
        expected.sort_by(f64::total_cmp);
        let expected: Vec<u64> = expected.iter().map(|v| v.to_bits()).collect();
        let depth = 2 * (usize::BITS - values.len().leading_zeros());
        let mut sorts: Vec<(&str, Sort)> = Vec::new();
        if avx512::usable() {
            sorts.push(("avx512", quicksort::<avx512::Kernels>));
        }
        if avx2::usable() {
            sorts.push(("avx2", quicksort::<avx2::Kernels>));
        }
        for (name, sort) in sorts {
            let mut sorted = values.clone();
            // SAFETY: the CPU has the instruction set, checked above.
            unsafe { sort(&mut sorted, depth) };
            assert_eq!(sorted.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), expected, "{name}, {} values", values.len());
        }
    }

    #[test]
    fn sorts_every_length_through_the_networks_and_a_partition() {
        for n in 0..300 {
            check(bits(n, n as u64).map(|b| (b % 1000) as f64 - 400.5).collect());
        }
    }

    #[test]
    fn sorts_spread_repeated_sorted_and_reversed_values() {
        let n = 100_003;
        check(bits(n, 3).map(|b| f64::from_bits(b >> 2)).collect());
        check(bits(n, 5).map(|b| (b % 3) as f64).collect());
        check(vec![2.5; n]);
        check((0..n).map(|i| i as f64).collect());
        check((0..n).rev().map(|i| i as f64 * 0.5).collect());
        let mut specials: Vec<f64> = bits(n, 9).map(|b| (b % 50) as f64 - 25.0).collect();
        specials.iter_mut().step_by(7).zip([f64::INFINITY, f64::NEG_INFINITY, 5e-324, f64::MAX].iter().cycle()).for_each(|(v, &s)| *v = s);
        check(specials);
        // Sawtooth and organ pipe, which defeat simple pivot choices.
        check((0..n).map(|i| (i % 1000) as f64).collect());
        check((0..n).map(|i| i.min(n - i) as f64).collect());
    }

    #[test]
    fn a_table_puts_the_lower_lanes_first_in_order() {
        let table = lower_first::<4, 16>();
        assert_eq!(table[0b0000], [0, 1, 2, 3]);
        assert_eq!(table[0b1010], [1, 3, 0, 2]);
        assert_eq!(table[0b0100], [2, 0, 1, 3]);
        assert_eq!(table[0b1111], [0, 1, 2, 3]);
    }
}
