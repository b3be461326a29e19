//! The element types tegula stores and the traits kernels are generic over: casting between any
//! two of them with NumPy's `astype` semantics, arithmetic that wraps for integers as NumPy's
//! does, and an ordering that propagates NaN (and orders complex numbers lexicographically).

use half::f16;
use num_complex::Complex;
use std::fmt::Debug;
use tegula_core::{DType, Scalar};

/// A `complex64` element: two `f32` parts.
pub type C64 = Complex<f32>;
/// A `complex128` element: two `f64` parts.
pub type C128 = Complex<f64>;

/// A type a chunk can hold.
pub trait Elem: Copy + Send + Sync + Debug + PartialEq + 'static {
    /// The dtype of this element type.
    const DTYPE: DType;
    /// An integer converted as NumPy's `astype` does (wrapping).
    fn from_i128(v: i128) -> Self;
    /// A float64 converted as NumPy's `astype` does.
    fn from_f64(v: f64) -> Self;
    /// A complex128 converted as NumPy's `astype` does (real types drop the imaginary part).
    fn from_c128(v: C128) -> Self;
    /// A bool as 0 or 1 (itself for bool).
    fn from_bool(v: bool) -> Self;
    /// This value as `D`, as NumPy's `astype` converts (integers wrap, complex drops the
    /// imaginary part, anything non-zero is `True`).
    fn cast<D: Elem>(self) -> D;
    /// Whether the value is not zero (its truth, as `astype(bool)` gives it).
    fn is_nonzero(self) -> bool;

    /// A Python scalar converted to this type.
    fn from_scalar(s: Scalar) -> Self {
        match s {
            Scalar::Bool(b) => Self::from_bool(b),
            Scalar::Int(v) => Self::from_i128(v),
            Scalar::Float(v) => Self::from_f64(v),
            Scalar::Complex(re, im) => Self::from_c128(C128::new(re, im)),
        }
    }
}

/// Addition and multiplication as NumPy does them for the type (wrapping integers; `or` and
/// `and` for bool), with their identities: what sums, products and matmul need.
pub trait Num: Elem {
    /// The additive identity (`False` for bool).
    fn zero() -> Self;
    /// The multiplicative identity (`True` for bool).
    fn one() -> Self;
    /// The sum (wrapping for integers, `or` for bool).
    fn add(self, o: Self) -> Self;
    /// The product (wrapping for integers, `and` for bool).
    fn mul(self, o: Self) -> Self;
}

/// Comparisons and NaN-propagating extremes.
pub trait Ordered: Elem {
    /// `self < o`, as NumPy compares (false with a NaN; complex numbers lexicographically).
    fn lt(self, o: Self) -> bool;
    /// `self <= o`, as NumPy compares.
    fn le(self, o: Self) -> bool;
    /// Whether the value is NaN (for complex numbers: either part).
    fn is_nan_value(self) -> bool;
    /// The larger of two values, NaN if either is (NumPy's `maximum`).
    fn max_nan(self, o: Self) -> Self {
        if self.is_nan_value() || o.le(self) {
            self
        } else {
            o
        }
    }
    /// The smaller of two values, NaN if either is (NumPy's `minimum`).
    fn min_nan(self, o: Self) -> Self {
        if self.is_nan_value() || self.le(o) {
            self
        } else {
            o
        }
    }
    /// The larger of two values, skipping a NaN (NumPy's `fmax`): NaN only when both are.
    fn max_skip_nan(self, o: Self) -> Self {
        if self.is_nan_value() || self.lt(o) {
            o
        } else {
            self
        }
    }
    /// The smaller of two values, skipping a NaN (NumPy's `fmin`).
    fn min_skip_nan(self, o: Self) -> Self {
        if self.is_nan_value() || o.lt(self) {
            o
        } else {
            self
        }
    }
    /// The value, or zero for a NaN (what a NaN adds to a `nansum`).
    fn zero_nan(self) -> Self
    where
        Self: Num,
    {
        if self.is_nan_value() {
            Self::zero()
        } else {
            self
        }
    }
}

macro_rules! int_elem {
    ($($t:ty => $d:ident),*) => {$(
        impl Elem for $t {
            const DTYPE: DType = DType::$d;
            fn from_i128(v: i128) -> Self { v as $t }
            fn from_f64(v: f64) -> Self { v as $t }
            fn from_c128(v: C128) -> Self { v.re as $t }
            fn from_bool(v: bool) -> Self { v as $t }
            #[inline(always)]
            fn cast<D: Elem>(self) -> D { D::from_i128(self as i128) }
            fn is_nonzero(self) -> bool { self != 0 }
        }
        impl Num for $t {
            fn zero() -> Self { 0 }
            fn one() -> Self { 1 }
            #[inline(always)]
            fn add(self, o: Self) -> Self { self.wrapping_add(o) }
            #[inline(always)]
            fn mul(self, o: Self) -> Self { self.wrapping_mul(o) }
        }
        impl Ordered for $t {
            fn lt(self, o: Self) -> bool { self < o }
            fn le(self, o: Self) -> bool { self <= o }
            fn is_nan_value(self) -> bool { false }
        }
    )*};
}
int_elem!(i8 => Int8, i16 => Int16, i32 => Int32, i64 => Int64,
          u8 => UInt8, u16 => UInt16, u32 => UInt32, u64 => UInt64);

macro_rules! float_elem {
    ($($t:ty => $d:ident, $to64:expr, $from64:expr, $from_int:expr),*) => {$(
        impl Elem for $t {
            const DTYPE: DType = DType::$d;
            fn from_i128(v: i128) -> Self { $from_int(v) }
            fn from_f64(v: f64) -> Self { $from64(v) }
            fn from_c128(v: C128) -> Self { $from64(v.re) }
            fn from_bool(v: bool) -> Self { $from64(v as u8 as f64) }
            #[inline(always)]
            fn cast<D: Elem>(self) -> D { D::from_f64($to64(self)) }
            fn is_nonzero(self) -> bool { $to64(self) != 0.0 }
        }
        impl Num for $t {
            fn zero() -> Self { $from64(0.0) }
            fn one() -> Self { $from64(1.0) }
            #[inline(always)]
            fn add(self, o: Self) -> Self { self + o }
            #[inline(always)]
            fn mul(self, o: Self) -> Self { self * o }
        }
        impl Ordered for $t {
            fn lt(self, o: Self) -> bool { self < o }
            fn le(self, o: Self) -> bool { self <= o }
            fn is_nan_value(self) -> bool { self != self }
        }
    )*};
}
// Integers convert in one rounding (`as f32` directly: through f64 an int64 could round twice).
// Through f64 is exact for float16: every integer beyond 2**53 is past float16's range.
float_elem!(
    f16 => Float16, |x: f16| x.to_f64(), f16::from_f64, |v: i128| f16::from_f64(v as f64),
    f32 => Float32, |x: f32| x as f64, |v: f64| v as f32, |v: i128| v as f32,
    f64 => Float64, |x: f64| x, |v: f64| v, |v: i128| v as f64
);

macro_rules! complex_elem {
    ($($t:ty => $d:ident, $f:ty),*) => {$(
        impl Elem for $t {
            const DTYPE: DType = DType::$d;
            fn from_i128(v: i128) -> Self { Complex::new(v as $f, 0.0) }
            fn from_f64(v: f64) -> Self { Complex::new(v as $f, 0.0) }
            fn from_c128(v: C128) -> Self { Complex::new(v.re as $f, v.im as $f) }
            fn from_bool(v: bool) -> Self { Complex::new(v as u8 as $f, 0.0) }
            #[inline(always)]
            fn cast<D: Elem>(self) -> D { D::from_c128(C128::new(self.re as f64, self.im as f64)) }
            fn is_nonzero(self) -> bool { self.re != 0.0 || self.im != 0.0 }
        }
        impl Num for $t {
            fn zero() -> Self { Complex::new(0.0, 0.0) }
            fn one() -> Self { Complex::new(1.0, 0.0) }
            #[inline(always)]
            fn add(self, o: Self) -> Self { self + o }
            #[inline(always)]
            fn mul(self, o: Self) -> Self { self * o }
        }
        /// NumPy's lexicographic order: a NaN imaginary part makes the real parts alone unable
        /// to decide (its `CLT`/`CLE` macros).
        impl Ordered for $t {
            fn lt(self, o: Self) -> bool {
                (self.re < o.re && !self.im.is_nan() && !o.im.is_nan()) || (self.re == o.re && self.im < o.im)
            }
            fn le(self, o: Self) -> bool {
                (self.re < o.re && !self.im.is_nan() && !o.im.is_nan()) || (self.re == o.re && self.im <= o.im)
            }
            fn is_nan_value(self) -> bool { self.re != self.re || self.im != self.im }
        }
    )*};
}
complex_elem!(C64 => Complex64, f32, C128 => Complex128, f64);

impl Elem for bool {
    const DTYPE: DType = DType::Bool;
    fn from_i128(v: i128) -> Self {
        v != 0
    }
    fn from_f64(v: f64) -> Self {
        v != 0.0
    }
    fn from_c128(v: C128) -> Self {
        v.re != 0.0 || v.im != 0.0
    }
    fn from_bool(v: bool) -> Self {
        v
    }
    #[inline(always)]
    fn cast<D: Elem>(self) -> D {
        D::from_bool(self)
    }
    fn is_nonzero(self) -> bool {
        self
    }
}
impl Num for bool {
    fn zero() -> Self {
        false
    }
    fn one() -> Self {
        true
    }
    fn add(self, o: Self) -> Self {
        self | o
    }
    fn mul(self, o: Self) -> Self {
        self & o
    }
}
impl Ordered for bool {
    fn lt(self, o: Self) -> bool {
        !self & o
    }
    fn le(self, o: Self) -> bool {
        !self | o
    }
    fn is_nan_value(self) -> bool {
        false
    }
}
