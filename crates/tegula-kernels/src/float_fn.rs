//! The element functions of the float-to-float operations, written once: the block kernels map
//! them over blocks and the float64 tape over registers, so fused and unfused plans compute
//! every element with the same code.

use crate::vecmath;
use half::f16;

/// Runs `$body` with `$f` bound to the element function of unary `$op` on the float type `$t`
/// when `$op` maps floats to floats; evaluates `$other` otherwise (predicates such as `isnan`).
macro_rules! float_unary_fn {
    ($op:expr, $t:ty, |$f:ident| $body:expr, $other:expr) => {{
        #[allow(unused_imports)]
        use {$crate::element::Elem, $crate::float_fn::{LibmHyperbolic, Transcendental}, num_traits::Float, tegula_core::UnaryOp::*};
        let zero = <$t>::from_f64(0.0);
        let one = <$t>::from_f64(1.0);
        match $op {
            Negative => { let $f = |x: $t| -x; $body }
            Positive | Conj | Real => { let $f = |x: $t| x; $body }
            Abs => { let $f = |x: $t| Float::abs(x); $body }
            Sqrt => { let $f = |x: $t| Float::sqrt(x); $body }
            Exp => { let $f = |x: $t| Transcendental::exp(x); $body }
            Expm1 => { let $f = |x: $t| Float::exp_m1(x); $body }
            Log => { let $f = |x: $t| Float::ln(x); $body }
            Log1p => { let $f = |x: $t| Float::ln_1p(x); $body }
            Log2 => { let $f = |x: $t| Float::log2(x); $body }
            Log10 => { let $f = |x: $t| Float::log10(x); $body }
            Sin => { let $f = |x: $t| Transcendental::sin(x); $body }
            Cos => { let $f = |x: $t| Transcendental::cos(x); $body }
            Tan => { let $f = |x: $t| Float::tan(x); $body }
            Arcsin => { let $f = |x: $t| Float::asin(x); $body }
            Arccos => { let $f = |x: $t| Float::acos(x); $body }
            Arctan => { let $f = |x: $t| Float::atan(x); $body }
            Sinh => { let $f = |x: $t| Float::sinh(x); $body }
            Cosh => { let $f = |x: $t| Float::cosh(x); $body }
            Tanh => { let $f = |x: $t| Float::tanh(x); $body }
            Arcsinh => { let $f = |x: $t| LibmHyperbolic::asinh(x); $body }
            Arccosh => { let $f = |x: $t| LibmHyperbolic::acosh(x); $body }
            Arctanh => { let $f = |x: $t| LibmHyperbolic::atanh(x); $body }
            Floor => { let $f = |x: $t| Float::floor(x); $body }
            Ceil => { let $f = |x: $t| Float::ceil(x); $body }
            Trunc => { let $f = |x: $t| Float::trunc(x); $body }
            Rint => { let $f = |x: $t| <$t>::from_f64(x.cast::<f64>().round_ties_even()); $body }
            Sign => { let $f = move |x: $t| if x > zero { one } else if x < zero { -one } else if x == zero { zero } else { x }; $body }
            Square => { let $f = |x: $t| x * x; $body }
            Reciprocal => { let $f = move |x: $t| one / x; $body }
            Imag => { let $f = move |_: $t| zero; $body }
            _ => $other,
        }
    }};
}
pub(crate) use float_unary_fn;

/// Runs `$body` with `$f` bound to the element function of binary `$op` on the float type `$t`
/// when `$op` maps floats to floats; evaluates `$other` otherwise (comparisons, bitwise ops).
macro_rules! float_binary_fn {
    ($op:expr, $t:ty, |$f:ident| $body:expr, $other:expr) => {{
        #[allow(unused_imports)]
        use {$crate::element::{Elem, Num, Ordered}, $crate::float_fn::{float_floor_div, float_rem, logaddexp, NextAfter}, num_traits::Float, tegula_core::BinaryOp::*};
        match $op {
            Add => { let $f = |x: $t, y: $t| Num::add(x, y); $body }
            Subtract => { let $f = |x: $t, y: $t| x - y; $body }
            Multiply => { let $f = |x: $t, y: $t| Num::mul(x, y); $body }
            Divide => { let $f = |x: $t, y: $t| x / y; $body }
            FloorDivide => { let $f = |x: $t, y: $t| <$t>::from_f64(float_floor_div(x.cast::<f64>(), y.cast::<f64>())); $body }
            Remainder => { let $f = |x: $t, y: $t| <$t>::from_f64(float_rem(x.cast::<f64>(), y.cast::<f64>())); $body }
            Power => { let $f = |x: $t, y: $t| Float::powf(x, y); $body }
            Maximum => { let $f = |x: $t, y: $t| Ordered::max_nan(x, y); $body }
            Minimum => { let $f = |x: $t, y: $t| Ordered::min_nan(x, y); $body }
            Arctan2 => { let $f = |x: $t, y: $t| Float::atan2(x, y); $body }
            Copysign => { let $f = |x: $t, y: $t| Float::copysign(x, y); $body }
            Hypot => { let $f = |x: $t, y: $t| Float::hypot(x, y); $body }
            Logaddexp => { let $f = |x: $t, y: $t| <$t>::from_f64(logaddexp(x.cast::<f64>(), y.cast::<f64>())); $body }
            Nextafter => { let $f = |x: $t, y: $t| NextAfter::next_after(x, y); $body }
            _ => $other,
        }
    }};
}
pub(crate) use float_binary_fn;

/// `exp`, `sin` and `cos` as tegula computes them: float64 with the vectorisable `vecmath`
/// (within 1 ulp of the C library; `sin` and `cos` of arguments beyond its range from the C
/// library), float32 and float16 with the C library.
pub(crate) trait Transcendental: Sized {
    fn exp(self) -> Self;
    fn sin(self) -> Self;
    fn cos(self) -> Self;
}
impl Transcendental for f64 {
    #[inline(always)]
    fn exp(self) -> f64 {
        vecmath::exp(self)
    }
    #[inline(always)]
    fn sin(self) -> f64 {
        if beyond_vecmath(self) { f64::sin(self) } else { vecmath::sin(self) }
    }
    #[inline(always)]
    fn cos(self) -> f64 {
        if beyond_vecmath(self) { f64::cos(self) } else { vecmath::cos(self) }
    }
}
macro_rules! libm_transcendental {
    ($($t:ty),*) => {$(
        impl Transcendental for $t {
            fn exp(self) -> $t { num_traits::Float::exp(self) }
            fn sin(self) -> $t { num_traits::Float::sin(self) }
            fn cos(self) -> $t { num_traits::Float::cos(self) }
        }
    )*};
}
libm_transcendental!(f16, f32);

/// Whether `vecmath`'s `sin` and `cos` cannot take `x` (the tape computes a whole span with
/// them, then recomputes these elements, which gives the same values as `Transcendental`).
#[inline(always)]
pub(crate) fn beyond_vecmath(x: f64) -> bool {
    x.abs() > vecmath::SIN_FAST_LIMIT
}

/// Python's float floor division (the divmod algorithm NumPy uses).
pub(crate) fn float_floor_div(a: f64, b: f64) -> f64 {
    if b == 0.0 {
        return a / b;
    }
    let m = a % b;
    let mut div = (a - m) / b;
    if m != 0.0 && ((b < 0.0) != (m < 0.0)) {
        div -= 1.0;
    }
    if div == 0.0 {
        return (0.0f64).copysign(a / b);
    }
    let floor = div.floor();
    if div - floor > 0.5 {
        floor + 1.0
    } else {
        floor
    }
}

/// `log(exp(a) + exp(b))` without overflow, as NumPy computes it.
pub(crate) fn logaddexp(a: f64, b: f64) -> f64 {
    if a == b {
        return a + std::f64::consts::LN_2; // also infinities of one sign
    }
    let d = a - b;
    if d > 0.0 {
        a + (-d).exp().ln_1p()
    } else if d <= 0.0 {
        b + d.exp().ln_1p()
    } else {
        d // NaN
    }
}

/// The next representable value after `self` towards `towards` (C's `nextafter`).
pub(crate) trait NextAfter: Sized {
    fn next_after(self, towards: Self) -> Self;
}
macro_rules! next_after {
    ($($t:ty => $bits:ty),*) => {$(
        impl NextAfter for $t {
            fn next_after(self, towards: $t) -> $t {
                if self.is_nan() || towards.is_nan() {
                    return <$t>::NAN;
                }
                if self == towards {
                    return towards;
                }
                if self == <$t>::from_bits(0) || self == -<$t>::from_bits(0) {
                    let tiny = <$t>::from_bits(1);
                    return if towards > self { tiny } else { -tiny };
                }
                // Moving away from zero adds one to the magnitude's bits; towards zero subtracts one.
                let away = (towards > self) == (self > <$t>::from_bits(0));
                let bits = self.to_bits();
                <$t>::from_bits(if away { bits + 1 } else { bits - 1 })
            }
        }
    )*};
}
next_after!(f64 => u64, f32 => u32, f16 => u16);

/// Python's float remainder: the result has the divisor's sign.
pub(crate) fn float_rem(a: f64, b: f64) -> f64 {
    if b == 0.0 {
        return f64::NAN;
    }
    let m = a % b;
    if m == 0.0 {
        (0.0f64).copysign(b)
    } else if (b < 0.0) != (m < 0.0) {
        m + b
    } else {
        m
    }
}

/// The inverse hyperbolic functions with the C library's algorithms (the `libm` crate), as
/// NumPy calls them: Rust's own formulas lose thousands of ulps near the edges of the domain.
/// float16 computes in float32, as NumPy does. `libm`'s acosh expects `x >= 1` (it returns a
/// finite value for `x <= -2`), so the domain is checked here.
pub(crate) trait LibmHyperbolic {
    fn asinh(self) -> Self;
    fn acosh(self) -> Self;
    fn atanh(self) -> Self;
}
impl LibmHyperbolic for f64 {
    fn asinh(self) -> f64 {
        libm::asinh(self)
    }
    fn acosh(self) -> f64 {
        if self < 1.0 {
            f64::NAN
        } else {
            libm::acosh(self)
        }
    }
    fn atanh(self) -> f64 {
        libm::atanh(self)
    }
}
impl LibmHyperbolic for f32 {
    fn asinh(self) -> f32 {
        libm::asinhf(self)
    }
    fn acosh(self) -> f32 {
        if self < 1.0 {
            f32::NAN
        } else {
            libm::acoshf(self)
        }
    }
    fn atanh(self) -> f32 {
        libm::atanhf(self)
    }
}
impl LibmHyperbolic for f16 {
    fn asinh(self) -> f16 {
        f16::from_f32(libm::asinhf(self.to_f32()))
    }
    fn acosh(self) -> f16 {
        f16::from_f32(LibmHyperbolic::acosh(self.to_f32()))
    }
    fn atanh(self) -> f16 {
        f16::from_f32(libm::atanhf(self.to_f32()))
    }
}
