//! Stable sorting in NumPy's order by an MSD radix sort on order-preserving integer keys
//! (`SortOrder::key`): a few linear passes over the data, where a comparison sort makes
//! `log n` of them with a mispredicted branch per comparison. Types without a key (complex)
//! and short slices fall back to the stable comparison sort; both give the same order.

use crate::order::{directed, SortOrder};
use std::any::TypeId;
use tegula_core::memory::big_vec;

/// Below this many elements the comparison sort is faster than building histograms.
const SHORT: usize = 512;

/// `values` sorted stably in NumPy's order (reversed when `descending`).
pub fn sort_values<T: SortOrder + 'static>(values: &mut [T], descending: bool) {
    if T::KEY_BYTES == 0 || values.len() < SHORT {
        values.sort_by(|p, q| directed(p.order(*q), descending));
        return;
    }
    let flip = flip_mask(T::KEY_BYTES, descending);
    if TypeId::of::<T>() == TypeId::of::<f64>() {
        // SAFETY: `T` is `f64`, so this is the same slice at its own type.
        let floats = unsafe { std::slice::from_raw_parts_mut(values.as_mut_ptr().cast::<f64>(), values.len()) };
        if sort_plain_floats(floats, descending) {
            return;
        }
    }
    sort_by_key(values, |v| v.key() ^ flip);
}

/// float64 values with no NaN and no -0.0 sorted: equal ones are then the same bits, so the
/// sort need not be stable. False, with `values` untouched, when a NaN or -0.0 is present.
fn sort_plain_floats(values: &mut [f64], descending: bool) -> bool {
    if values.iter().any(|v| v.is_nan() || (*v == 0.0 && v.is_sign_negative())) {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    if crate::vector_sort::sort_floats(values) {
        if descending {
            values.reverse();
        }
        return true;
    }
    sort_floats_as_keys(values, flip_mask(8, descending));
    true
}

/// float64 values (no NaN, no -0.0) sorted as their keys, turned into keys in place and back
/// after: working out a float's key (its NaN and zero tests) at every pass cost a fifth of the
/// sort.
fn sort_floats_as_keys(values: &mut [f64], flip: u64) {
    // SAFETY: u64 has f64's size and alignment, and every bit pattern is a valid value of both.
    let keys = unsafe { std::slice::from_raw_parts_mut(values.as_mut_ptr().cast::<u64>(), values.len()) };
    keys.iter_mut().for_each(|k| *k = f64::from_bits(*k).key() ^ flip);
    sort_by_key(keys, |&k| k);
    // A key's sign bit is set for the numbers that had it clear, whose other bits it keeps;
    // the others' bits were all reversed.
    const SIGN: u64 = 1 << 63;
    keys.iter_mut().for_each(|k| {
        let key = *k ^ flip;
        *k = if key & SIGN != 0 { key ^ SIGN } else { !key };
    });
}

/// `positions` reordered as `values` (one each) are stably sorted: an argsort when
/// `positions` count up, a merge of sorted runs' positions otherwise.
pub fn sort_positions<T: SortOrder>(values: &[T], positions: &mut [i64], descending: bool) {
    debug_assert_eq!(values.len(), positions.len());
    if T::KEY_BYTES == 0 || values.len() < SHORT {
        let mut pairs: Vec<(T, i64)> = values.iter().copied().zip(positions.iter().copied()).collect();
        pairs.sort_by(|a, b| directed(a.0.order(b.0), descending));
        positions.iter_mut().zip(pairs).for_each(|(p, (_, at))| *p = at);
        return;
    }
    let flip = flip_mask(T::KEY_BYTES, descending);
    let mut pairs: Vec<(u64, i64)> = big_vec(values.len());
    pairs.extend(values.iter().zip(positions.iter()).map(|(v, &p)| (v.key() ^ flip, p)));
    sort_by_key(&mut pairs, |pair| pair.0);
    positions.iter_mut().zip(pairs).for_each(|(p, (_, at))| *p = at);
}

/// `v`'s key, reversed when `descending`: its unsigned order is the sort's.
pub fn directed_key<T: SortOrder>(v: T, descending: bool) -> u64 {
    v.key() ^ flip_mask(T::KEY_BYTES, descending)
}

/// The mask that reverses the order of keys of `bytes` bytes when `descending`.
fn flip_mask(bytes: usize, descending: bool) -> u64 {
    match (descending, bytes) {
        (false, _) => 0,
        (true, 8..) => u64::MAX,
        (true, b) => (1u64 << (8 * b)) - 1,
    }
}

/// `items` sorted stably by `key`.
fn sort_by_key<I: Copy>(items: &mut [I], key: impl Fn(&I) -> u64) {
    // Bits above the highest one that differs between keys are the same in every item: no
    // pass sorts by them. (Every key lies between the least and the greatest, so that bit is
    // the highest where those two differ.)
    let Some(first) = items.first().map(&key) else { return };
    let (least, most) = items.iter().fold((first, first), |(lo, hi), item| {
        let k = key(item);
        (lo.min(k), hi.max(k))
    });
    let bits = u64::BITS - (least ^ most).leading_zeros();
    if bits == 0 {
        return;
    }
    let mut scratch: Vec<I> = big_vec(items.len());
    scratch.extend_from_slice(items);
    sort_from(items, &mut scratch, bits, true, &key);
}

/// Slices of at most this many items are sorted by insertion; longer ones are split by their
/// highest digit (MSD) first, so most passes run within a cache-sized slice.
const FEW: usize = 32;

/// The widest digit. Wider ones split a block in fewer passes, but their counters and the
/// places a split writes to at once no longer stay in the caches (13 bits measured best for
/// slices of 16M float64 values, 12 and 14 a little slower).
const WIDEST_DIGIT: u32 = 13;

/// The bits of the digit that splits `n` items: two values of it to each item, so a split
/// leaves slices for the insertion sort after one or two passes, their buckets mostly of one
/// item or none (an insertion sort of a run of buckets costs one mispredicted branch for each
/// item that moves).
fn digit_bits(n: usize, bits: u32) -> u32 {
    (usize::BITS - n.leading_zeros()).min(WIDEST_DIGIT).min(bits)
}

/// `from` sorted stably by the low `bits` bits of `key`, the result left in `from` when
/// `in_place`, else in `to` (as long; the other is scratch).
fn sort_from<I: Copy>(from: &mut [I], to: &mut [I], bits: u32, in_place: bool, key: &impl Fn(&I) -> u64) {
    let n = from.len();
    if n <= FEW || bits == 0 {
        let sorted: &mut [I] = if in_place { from } else { to.copy_from_slice(from); to };
        return insertion_sort(sorted, key);
    }
    let shift = bits - digit_bits(n, bits);
    let count = histogram(from, shift, bits, key);
    if count.contains(&n) {
        // The same digit in every item: on to the next one.
        return sort_from(from, to, shift, in_place, key);
    }
    scatter(from, to, &count, shift, key);
    // Each bucket, now in `to`, sorted by the lower digits into where the result belongs.
    // Consecutive small buckets are finished together by one insertion sort (no histogram):
    // most buckets are this small once a block is split once or twice, and each item only
    // moves within its own bucket, whose keys all lie between those of the buckets around it.
    let (mut start, mut small_from) = (0, 0);
    for &c in &count {
        if c > FEW && shift > 0 {
            finish_small(from, to, small_from..start, in_place, key);
            let range = start..start + c;
            sort_from(&mut to[range.clone()], &mut from[range], shift, !in_place, key);
            small_from = start + c;
        }
        start += c;
    }
    finish_small(from, to, small_from..start, in_place, key);
}

/// Items `range` of `to`, in buckets of at most `FEW` ordered by the digits above, sorted by
/// insertion into where the result belongs (`from` when `in_place`).
fn finish_small<I: Copy>(from: &mut [I], to: &mut [I], range: std::ops::Range<usize>, in_place: bool, key: &impl Fn(&I) -> u64) {
    let (bucket, other) = (&mut to[range.clone()], &mut from[range]);
    let sorted: &mut [I] = if in_place { other.copy_from_slice(bucket); other } else { bucket };
    insertion_sort(sorted, key);
}

/// `items` sorted stably by `key`, by insertion.
fn insertion_sort<I: Copy>(items: &mut [I], key: &impl Fn(&I) -> u64) {
    for i in 1..items.len() {
        let (item, k) = (items[i], key(&items[i]));
        let mut j = i;
        while j > 0 && key(&items[j - 1]) > k {
            items[j] = items[j - 1];
            j -= 1;
        }
        items[j] = item;
    }
}

/// The count of each value of the digit in bits `shift..bits` of the keys.
fn histogram<I>(items: &[I], shift: u32, bits: u32, key: &impl Fn(&I) -> u64) -> Vec<usize> {
    let mut count = vec![0usize; 1 << (bits - shift)];
    let mask = count.len() - 1;
    items.iter().for_each(|item| count[((key(item) >> shift) as usize) & mask] += 1);
    count
}

/// `from` placed into `to` by the digit at `shift` (`count` holds its values' counts),
/// keeping the order of equal digits.
fn scatter<I: Copy>(from: &[I], to: &mut [I], count: &[usize], shift: u32, key: &impl Fn(&I) -> u64) {
    let mut next = Vec::with_capacity(count.len());
    let mut total = 0;
    for &c in count {
        next.push(total);
        total += c;
    }
    let mask = count.len() - 1;
    for item in from {
        let d = ((key(item) >> shift) as usize) & mask;
        to[next[d]] = *item;
        next[d] += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use half::f16;

    /// The stable comparison sort: the order the radix sort must give.
    fn by_comparison<T: SortOrder>(values: &[T], descending: bool) -> Vec<(T, usize)> {
        let mut pairs: Vec<(T, usize)> = values.iter().copied().zip(0..).collect();
        pairs.sort_by(|a, b| directed(a.0.order(b.0), descending));
        pairs
    }

    fn check<T: SortOrder + std::fmt::Debug + 'static>(values: &[T]) {
        for descending in [false, true] {
            let expected = by_comparison(values, descending);
            let mut sorted = values.to_vec();
            sort_values(&mut sorted, descending);
            let bits = |v: &[T]| v.iter().map(|x| format!("{x:?}")).collect::<Vec<_>>();
            assert_eq!(bits(&sorted), bits(&expected.iter().map(|p| p.0).collect::<Vec<_>>()));
            let mut positions: Vec<i64> = (0..values.len() as i64).map(|p| p + 7).collect();
            sort_positions(values, &mut positions, descending);
            let want: Vec<i64> = expected.iter().map(|p| p.1 as i64 + 7).collect();
            assert_eq!(positions, want);
        }
    }

    /// A deterministic spread of bit patterns (xorshift).
    fn bits(n: usize) -> Vec<u64> {
        let mut s = 0x9E37_79B9_7F4A_7C15u64;
        (0..n)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                s
            })
            .collect()
    }

    #[test]
    fn floats_sort_as_numpy_with_signed_zeros_and_nans_kept_in_place() {
        let special = [f64::NAN, -f64::NAN, 0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, 1.0, -1.0, 5e-324];
        let mut values: Vec<f64> = bits(3000).iter().map(|&b| (b as i64 % 2000) as f64 / 8.0).collect();
        values.iter_mut().step_by(3).zip(special.iter().cycle()).for_each(|(v, &s)| *v = s);
        check(&values);
        check(&values.iter().map(|&v| v as f32).collect::<Vec<_>>());
        check(&values.iter().map(|&v| f16::from_f64(v)).collect::<Vec<_>>());
        check(&bits(2000).iter().map(|&b| f64::from_bits(b)).collect::<Vec<_>>());
        // Long enough to be split by its top digits first.
        let long: Vec<f64> = bits(300_000).iter().map(|&b| (b % 1_000_003) as f64 / 7e5 - 0.3).collect();
        check(&long);
        check(&long.iter().map(|&v| f64::from_bits(v.to_bits() & !0xFFFF)).collect::<Vec<_>>());
        // Sorted as keys (no NaN, no -0.0), with infinities, zeros and subnormals; then with
        // one -0.0, which sends them the other way.
        let mut keyed: Vec<f64> = long.iter().map(|&v| (v * 50.0).round() / 50.0).collect();
        keyed.iter_mut().step_by(997).zip([f64::INFINITY, f64::NEG_INFINITY, 5e-324, -5e-324, 0.0].iter().cycle()).for_each(|(v, &s)| *v = s);
        check(&keyed);
        keyed[12345] = -0.0;
        check(&keyed);
    }

    #[test]
    fn integers_and_bools_sort_as_numpy() {
        let b = bits(2500);
        check(&b.iter().map(|&v| v as i64).collect::<Vec<_>>());
        check(&b.iter().map(|&v| (v % 300) as i16 - 150).collect::<Vec<_>>());
        check(&b.iter().map(|&v| v as i8).collect::<Vec<_>>());
        check(&b.iter().map(|&v| v as u32).collect::<Vec<_>>());
        check(&b.iter().map(|&v| v % 2 == 0).collect::<Vec<_>>());
        check(&b[..10].iter().map(|&v| v as i32).collect::<Vec<_>>());
    }
}
