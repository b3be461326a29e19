//! NumPy's sort order, a total order over every element type: numbers ascending with NaN last
//! (all NaNs equal); complex numbers lexicographically, then those with a NaN part in NumPy's
//! classes `R + nanj`, `nan + Rj`, `nan + nanj` (its `CLT` macro), each ordered by its number part.

use crate::element::{C128, C64};
use half::f16;
use std::cmp::Ordering;

/// Element types in NumPy's sort order.
pub trait SortOrder: Copy {
    /// How `self` compares with `other` in NumPy's sort order (NaN last).
    fn order(self, other: Self) -> Ordering;
    /// The bytes of `key`; 0 where the type has none (complex numbers).
    const KEY_BYTES: usize = 0;
    /// An unsigned key in the same order: equal elements (-0.0 and 0.0, any two NaNs) have
    /// equal keys, so a stable sort by key is a stable sort by `order`.
    fn key(self) -> u64 {
        0
    }
}

/// `o`, reversed when `descending`.
pub(crate) fn directed(o: Ordering, descending: bool) -> Ordering {
    if descending { o.reverse() } else { o }
}

/// Ascending with NaN after every number (`partial_cmp` decides numbers).
fn nan_last<F: PartialOrd + Copy>(a: F, b: F) -> Ordering {
    // A NaN is the only value not equal to itself (these types have no `is_nan` in common).
    #[allow(clippy::eq_op)]
    let nan = (a != a, b != b);
    match nan {
        (false, false) => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
        (a_nan, b_nan) => a_nan.cmp(&b_nan),
    }
}

macro_rules! unsigned_order {
    ($($t:ty),*) => {$(
        impl SortOrder for $t {
            fn order(self, other: Self) -> Ordering { self.cmp(&other) }
            const KEY_BYTES: usize = std::mem::size_of::<$t>();
            fn key(self) -> u64 { self as u64 }
        }
    )*};
}
unsigned_order!(bool, u8, u16, u32, u64);

macro_rules! signed_order {
    ($($t:ty => $u:ty),*) => {$(
        impl SortOrder for $t {
            fn order(self, other: Self) -> Ordering { self.cmp(&other) }
            const KEY_BYTES: usize = std::mem::size_of::<$t>();
            // Flipping the sign bit puts negatives below positives in unsigned order.
            fn key(self) -> u64 { ((self as $u) ^ (1 << (<$u>::BITS - 1))) as u64 }
        }
    )*};
}
signed_order!(i8 => u8, i16 => u16, i32 => u32, i64 => u64);

macro_rules! float_order {
    ($($t:ty => $u:ty, $zero:expr),*) => {$(
        impl SortOrder for $t {
            fn order(self, other: Self) -> Ordering { nan_last(self, other) }
            const KEY_BYTES: usize = std::mem::size_of::<$t>();
            // Negatives' bits reversed, positives' sign bit set: the IEEE order of the bits;
            // -0.0 is keyed as 0.0, and every NaN above infinity.
            fn key(self) -> u64 {
                #[allow(clippy::eq_op)]
                if self != self {
                    return <$u>::MAX as u64;
                }
                let bits = if self == $zero { 0 } else { self.to_bits() };
                let sign = 1 << (<$u>::BITS - 1);
                (if bits & sign != 0 { !bits } else { bits | sign }) as u64
            }
        }
    )*};
}
float_order!(f16 => u16, f16::ZERO, f32 => u32, 0.0, f64 => u64, 0.0);

macro_rules! complex_order {
    ($($t:ty),*) => {$(
        impl SortOrder for $t {
            fn order(self, other: Self) -> Ordering {
                // The class: which parts are NaN (real NaN weighs more than imaginary NaN).
                let class = |z: $t| 2 * (z.re != z.re) as u8 + (z.im != z.im) as u8;
                let (ca, cb) = (class(self), class(other));
                if ca != cb {
                    return ca.cmp(&cb);
                }
                match ca {
                    0 => nan_last(self.re, other.re).then(nan_last(self.im, other.im)),
                    1 => nan_last(self.re, other.re),
                    2 => nan_last(self.im, other.im),
                    _ => Ordering::Equal,
                }
            }
        }
    )*};
}
complex_order!(C64, C128);
