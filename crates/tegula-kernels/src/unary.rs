//! Unary element-wise kernels, one implementation per element family.

use crate::chunk::{Block, Chunk, Wrap};
use crate::cmath;
use crate::complex::{self, Wide};
use crate::element::{Elem, C128, C64};
use crate::float_fn::float_unary_fn;
use half::f16;
use crate::with_dtype;
use crate::zip::map1;
use tegula_core::{DType, Result, TegulaError, UnaryOp};

/// `op(a)` computed in dtype `compute` (the input is converted first).
pub fn unary(op: UnaryOp, compute: DType, a: &Chunk) -> Result<Chunk> {
    let a = a.cast(compute);
    with_dtype!(compute, T => T::unary(op, a.typed::<T>()?))
}

/// Element types with the element-wise functions of one argument NumPy defines for them.
pub trait UnaryKernel: Wrap {
    /// `op(a)` of a block of this type.
    fn unary(op: UnaryOp, a: &Block<Self>) -> Result<Chunk>;
}

fn unsupported(op: UnaryOp, d: DType) -> TegulaError {
    TegulaError::Internal(format!("no {} kernel for {d}", op.name()))
}

impl UnaryKernel for bool {
    fn unary(op: UnaryOp, a: &Block<bool>) -> Result<Chunk> {
        use UnaryOp::*;
        Ok(match op {
            Abs | Floor | Ceil | Trunc | Conj | Real => map1(a, |x| x),
            Imag | Isnan | Isinf | Signbit => map1(a, |_| false),
            Isfinite => map1(a, |_| true),
            LogicalNot | Invert => map1(a, |x: bool| !x),
            _ => return Err(unsupported(op, DType::Bool)),
        })
    }
}

macro_rules! int_unary {
    ($($t:ty => $signed:expr),*) => {$(
        impl UnaryKernel for $t {
            #[allow(unused_comparisons)]
            fn unary(op: UnaryOp, a: &Block<$t>) -> Result<Chunk> {
                use UnaryOp::*;
                Ok(match op {
                    Negative => map1(a, |x: $t| x.wrapping_neg()),
                    Positive | Floor | Ceil | Trunc | Conj | Real => map1(a, |x: $t| x),
                    Abs => map1(a, |x: $t| if x < 0 { x.wrapping_neg() } else { x }),
                    Sign => map1(a, |x: $t| if x > 0 { 1 } else if x < 0 { (0 as $t).wrapping_sub(1) } else { 0 }),
                    Square => map1(a, |x: $t| x.wrapping_mul(x)),
                    // 1 / 0 as NumPy 2 gives it on x86-64: the type's minimum for 32- and
                    // 64-bit integers, 0 for narrower and unsigned ones.
                    Reciprocal => map1(a, |x: $t| match x {
                        0 if std::mem::size_of::<$t>() >= 4 => <$t>::MIN,
                        0 => 0,
                        x => (1 as $t).wrapping_div(x),
                    }),
                    Imag => map1(a, |_| 0 as $t),
                    Isnan | Isinf => map1(a, |_| false),
                    Isfinite => map1(a, |_| true),
                    Signbit => map1(a, |x: $t| x < 0),
                    Invert => map1(a, |x: $t| !x),
                    _ => return Err(unsupported(op, <$t>::DTYPE)),
                })
            }
        }
    )*};
}
int_unary!(i8 => true, i16 => true, i32 => true, i64 => true, u8 => false, u16 => false, u32 => false, u64 => false);

macro_rules! float_unary {
    ($($t:ty),*) => {$(
        impl UnaryKernel for $t {
            fn unary(op: UnaryOp, a: &Block<$t>) -> Result<Chunk> {
                float_unary_fn!(op, $t, |f| Ok(map1(a, f)), match op {
                    UnaryOp::Isnan => Ok(map1(a, |x: $t| num_traits::Float::is_nan(x))),
                    UnaryOp::Isinf => Ok(map1(a, |x: $t| num_traits::Float::is_infinite(x))),
                    UnaryOp::Isfinite => Ok(map1(a, |x: $t| num_traits::Float::is_finite(x))),
                    UnaryOp::Signbit => Ok(map1(a, |x: $t| num_traits::Float::is_sign_negative(x))),
                    _ => Err(unsupported(op, <$t>::DTYPE)),
                })
            }
        }
    )*};
}
float_unary!(f16, f32, f64);

macro_rules! complex_unary {
    ($($t:ty => $f:ty),*) => {$(
        impl UnaryKernel for $t {
            fn unary(op: UnaryOp, a: &Block<$t>) -> Result<Chunk> {
                use UnaryOp::*;
                Ok(match op {
                    Negative => map1(a, |x: $t| -x),
                    Positive => map1(a, |x: $t| x),
                    Conj => map1(a, |x: $t| x.conj()),
                    Real => map1(a, |x: $t| x.re),
                    Imag => map1(a, |x: $t| x.im),
                    Abs => map1(a, |x: $t| x.norm()),
                    Sqrt => map1(a, |x: $t| x.via(cmath::csqrt)),
                    Exp => map1(a, |x: $t| x.via(cmath::cexp)),
                    Expm1 => map1(a, |x: $t| x.via(complex::expm1)),
                    Log => map1(a, |x: $t| x.via(cmath::clog)),
                    Log1p => map1(a, |x: $t| x.via(complex::log1p)),
                    Log2 => map1(a, |x: $t| x.via(|z| cmath::clog(z) * std::f64::consts::LOG2_E)),
                    Log10 => map1(a, |x: $t| x.via(|z| cmath::clog(z) * std::f64::consts::LOG10_E)),
                    Sin => map1(a, |x: $t| x.via(cmath::csin)),
                    Cos => map1(a, |x: $t| x.via(cmath::ccos)),
                    Tan => map1(a, |x: $t| x.via(cmath::ctan)),
                    Arcsin => map1(a, |x: $t| x.via(cmath::casin)),
                    Arccos => map1(a, |x: $t| x.via(cmath::cacos)),
                    Arctan => map1(a, |x: $t| x.via(cmath::catan)),
                    Sinh => map1(a, |x: $t| x.via(cmath::csinh)),
                    Cosh => map1(a, |x: $t| x.via(cmath::ccosh)),
                    Tanh => map1(a, |x: $t| x.via(cmath::ctanh)),
                    Arcsinh => map1(a, |x: $t| x.via(cmath::casinh)),
                    Arccosh => map1(a, |x: $t| x.via(cmath::cacosh)),
                    Arctanh => map1(a, |x: $t| x.via(cmath::catanh)),
                    Rint => map1(a, |x: $t| <$t>::new(x.re.round_ties_even(), x.im.round_ties_even())),
                    Sign => map1(a, |x: $t| { let n = x.norm(); if n == 0.0 { <$t>::new(0.0, 0.0) } else { x / n } }),
                    Square => map1(a, |x: $t| x * x),
                    Reciprocal => map1(a, |x: $t| complex::div(<$t>::new(1.0, 0.0), x)),
                    Isnan => map1(a, |x: $t| x.re.is_nan() || x.im.is_nan()),
                    Isinf => map1(a, |x: $t| x.re.is_infinite() || x.im.is_infinite()),
                    Isfinite => map1(a, |x: $t| x.re.is_finite() && x.im.is_finite()),
                    Floor | Ceil | Trunc | LogicalNot | Invert | Signbit => return Err(unsupported(op, <$t>::DTYPE)),
                })
            }
        }
    )*};
}
complex_unary!(C64 => f32, C128 => f64);
