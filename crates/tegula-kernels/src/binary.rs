//! Binary element-wise kernels, one implementation per element family (bool, integer, float,
//! complex), each matching the op once outside the loop.

use crate::chunk::{Block, Chunk, Wrap};
use crate::complex;
use crate::element::{Elem, Num, Ordered, C128, C64};
use crate::float_fn::float_binary_fn;
use crate::zip::{map2, map3};
use crate::{with_chunk, with_dtype};
use half::f16;
use tegula_core::{BinaryOp, DType, Result, TegulaError};

/// `op(a, b)` computed in dtype `compute` (inputs are converted first).
pub fn binary(op: BinaryOp, compute: DType, a: &Chunk, b: &Chunk) -> Result<Chunk> {
    let (a, b) = (a.cast(compute), b.cast(compute));
    with_dtype!(compute, T => T::binary(op, a.typed::<T>()?, b.typed::<T>()?))
}

/// `where(cond, a, b)` with the choices converted to `compute`.
pub fn where_(compute: DType, cond: &Chunk, a: &Chunk, b: &Chunk) -> Result<Chunk> {
    let (cond, a, b) = (cond.cast(DType::Bool), a.cast(compute), b.cast(compute));
    let cond = cond.typed::<bool>()?;
    with_chunk!(&a, x => map3(cond, x, b.typed()?, |c, p, q| if c { p } else { q }))
}

/// Element types with the element-wise functions of two arguments NumPy defines for them.
pub trait BinaryKernel: Wrap {
    /// `op(a, b)` of two blocks of this type, broadcast together.
    fn binary(op: BinaryOp, a: &Block<Self>, b: &Block<Self>) -> Result<Chunk>;
}

fn unsupported(op: BinaryOp, d: DType) -> TegulaError {
    TegulaError::Internal(format!("no {} kernel for {d}", op.name()))
}

/// The ops every element family shares (comparisons, extremes, add, multiply); `None` when `op` is not one.
fn ordered<T: Ordered + Num + Wrap>(op: BinaryOp, a: &Block<T>, b: &Block<T>) -> Option<Result<Chunk>> {
    use BinaryOp::*;
    Some(match op {
        Equal => map2(a, b, |x, y| x == y),
        NotEqual => map2(a, b, |x, y| x != y),
        Less => map2(a, b, |x: T, y| x.lt(y)),
        LessEqual => map2(a, b, |x: T, y| x.le(y)),
        Greater => map2(a, b, |x: T, y| y.lt(x)),
        GreaterEqual => map2(a, b, |x: T, y| y.le(x)),
        Maximum => map2(a, b, |x: T, y| x.max_nan(y)),
        Minimum => map2(a, b, |x: T, y| x.min_nan(y)),
        Add => map2(a, b, |x: T, y| Num::add(x, y)),
        Multiply => map2(a, b, |x: T, y| Num::mul(x, y)),
        _ => return None,
    })
}

impl BinaryKernel for bool {
    fn binary(op: BinaryOp, a: &Block<bool>, b: &Block<bool>) -> Result<Chunk> {
        use BinaryOp::*;
        if let Some(r) = ordered(op, a, b) {
            return r;
        }
        match op {
            BitwiseAnd | LogicalAnd => map2(a, b, |x, y| x & y),
            BitwiseOr | LogicalOr => map2(a, b, |x, y| x | y),
            BitwiseXor | LogicalXor => map2(a, b, |x, y| x ^ y),
            _ => Err(unsupported(op, DType::Bool)),
        }
    }
}

macro_rules! int_binary {
    ($($t:ty),*) => {$(
        impl BinaryKernel for $t {
            fn binary(op: BinaryOp, a: &Block<$t>, b: &Block<$t>) -> Result<Chunk> {
                use BinaryOp::*;
                if let Some(r) = ordered(op, a, b) {
                    return r;
                }
                match op {
                    Subtract => map2(a, b, |x: $t, y| x.wrapping_sub(y)),
                    FloorDivide => map2(a, b, |x: $t, y| {
                        if y == 0 { return 0; }
                        let q = x.wrapping_div(y);
                        #[allow(unused_comparisons)]
                        let negative = (x.wrapping_rem(y) != 0) && ((x < 0) != (y < 0));
                        if negative { q.wrapping_sub(1) } else { q }
                    }),
                    Remainder => map2(a, b, |x: $t, y| {
                        if y == 0 { return 0; }
                        let r = x.wrapping_rem(y);
                        #[allow(unused_comparisons)]
                        let adjust = r != 0 && ((r < 0) != (y < 0));
                        if adjust { r.wrapping_add(y) } else { r }
                    }),
                    Power => int_power(a, b),
                    BitwiseAnd => map2(a, b, |x: $t, y| x & y),
                    BitwiseOr => map2(a, b, |x: $t, y| x | y),
                    BitwiseXor => map2(a, b, |x: $t, y| x ^ y),
                    // NumPy: shifting by the bit width or more gives 0 (-1 for a negative value
                    // shifted right); a negative count, as an unsigned count, is such a shift.
                    LeftShift => map2(a, b, |x: $t, y| if (y as u64) < <$t>::BITS as u64 { x << y } else { 0 }),
                    #[allow(unused_comparisons)]
                    RightShift => map2(a, b, |x: $t, y| {
                        if (y as u64) < <$t>::BITS as u64 { x >> y } else if x < 0 { x >> (<$t>::BITS - 1) } else { 0 }
                    }),
                    _ => Err(unsupported(op, <$t>::DTYPE)),
                }
            }
        }
    )*};
}
int_binary!(i8, i16, i32, i64, u8, u16, u32, u64);

/// Integer power with wrapping, as NumPy; a negative exponent among the elements computed
/// is NumPy's `ValueError` (one broadcast over nothing is not).
fn int_power<T: Num + Ordered + Wrap>(a: &Block<T>, b: &Block<T>) -> Result<Chunk> {
    let negative = std::cell::Cell::new(false);
    let out = map2(a, b, |x: T, y: T| {
        if y.lt(T::zero()) {
            negative.set(true);
        }
        let (mut base, mut exp, mut acc) = (x, y.cast::<u64>(), T::one());
        while exp > 0 {
            if exp & 1 == 1 {
                acc = acc.mul(base);
            }
            base = base.mul(base);
            exp >>= 1;
        }
        acc
    })?;
    if negative.get() {
        return Err(TegulaError::Value("Integers to negative integer powers are not allowed.".into()));
    }
    Ok(out)
}

macro_rules! float_binary {
    ($($t:ty),*) => {$(
        impl BinaryKernel for $t {
            fn binary(op: BinaryOp, a: &Block<$t>, b: &Block<$t>) -> Result<Chunk> {
                float_binary_fn!(op, $t, |f| map2(a, b, f), ordered(op, a, b).unwrap_or_else(|| Err(unsupported(op, <$t>::DTYPE))))
            }
        }
    )*};
}
float_binary!(f16, f32, f64);

macro_rules! complex_binary {
    ($($t:ty),*) => {$(
        impl BinaryKernel for $t {
            fn binary(op: BinaryOp, a: &Block<$t>, b: &Block<$t>) -> Result<Chunk> {
                use BinaryOp::*;
                if let Some(r) = ordered(op, a, b) {
                    return r;
                }
                match op {
                    Subtract => map2(a, b, |x: $t, y| x - y),
                    Divide => map2(a, b, complex::div),
                    Power => map2(a, b, complex::pow),
                    _ => Err(unsupported(op, <$t>::DTYPE)),
                }
            }
        }
    )*};
}
complex_binary!(C64, C128);
