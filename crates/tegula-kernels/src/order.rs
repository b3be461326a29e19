//! NumPy's sort order, a total order over every element type: numbers ascending with NaN last
//! (all NaNs equal); complex numbers lexicographically, then those with a NaN part in NumPy's
//! classes `R + nanj`, `nan + Rj`, `nan + nanj` (its `CLT` macro), each ordered by its number part.

use crate::element::{C128, C64};
use half::f16;
use std::cmp::Ordering;

pub trait SortOrder: Copy {
    fn order(self, other: Self) -> Ordering;
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

macro_rules! total_order {
    ($($t:ty),*) => {$(
        impl SortOrder for $t {
            fn order(self, other: Self) -> Ordering { self.cmp(&other) }
        }
    )*};
}
total_order!(bool, i8, i16, i32, i64, u8, u16, u32, u64);

macro_rules! float_order {
    ($($t:ty),*) => {$(
        impl SortOrder for $t {
            fn order(self, other: Self) -> Ordering { nan_last(self, other) }
        }
    )*};
}
float_order!(f16, f32, f64);

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
