//! Blocks computed from their position alone (`SourceOp`): constants, random numbers, and
//! `arange` and `linspace` ranges, with NumPy's arithmetic so that every value is
//! bit-identical to NumPy's; whole, or a tile at a time for fused programs.

use crate::chunk::{Chunk, Wrap};
use crate::element::{Elem, C128, C64};
use crate::with_dtype;
use half::f16;
use ndarray::Array1;
use crate::random::{random, random_block, BlockPlace};
use crate::tiles::reshape;
use tegula_core::{DType, Result, Scalar, SourceOp};

/// The block `op` makes.
pub fn generate(op: &SourceOp) -> Result<Chunk> {
    match op {
        SourceOp::Full { value, dtype, shape } => Ok(Chunk::full(*dtype, shape, *value)),
        SourceOp::Arange { first, second, dtype, offset, len } => Ok(arange(*first, *second, *dtype, *offset, *len)),
        SourceOp::Linspace { start, stop, num, endpoint, dtype, offset, len } => {
            let spec = LinspaceSpec { start: *start, stop: *stop, num: *num, endpoint: *endpoint };
            Ok(linspace(&spec, *dtype, *offset, *len))
        }
        SourceOp::Random { key, dist, dtype, array_shape, start, shape } => {
            random_block(*key, *dist, *dtype, &BlockPlace { array_shape, start, shape })
        }
    }
}

/// A source's values at flat positions `start .. start + len` of its block, as a 1-D chunk.
pub(crate) fn source_tile(op: &SourceOp, shape: &[usize], start: usize, len: usize) -> Result<Chunk> {
    let run = |op: SourceOp, n: usize| generate(&op).and_then(|c| reshape(&c, &[n]));
    match op.clone() {
        SourceOp::Full { value, dtype, .. } => Ok(Chunk::full(dtype, &[len], value)),
        SourceOp::Arange { first, second, dtype, offset, .. } => {
            run(SourceOp::Arange { first, second, dtype, offset: offset + start, len }, len)
        }
        SourceOp::Linspace { start: s, stop, num, endpoint, dtype, offset, .. } => {
            run(SourceOp::Linspace { start: s, stop, num, endpoint, dtype, offset: offset + start, len }, len)
        }
        SourceOp::Random { key, dist, dtype, array_shape, start: block_start, .. } => {
            let place = BlockPlace { array_shape: &array_shape, start: &block_start, shape };
            Ok(random(key, dist, dtype, &place, start, len))
        }
    }
}

/// NumPy's arange: elements 0 and 1 are `first` and `second` converted to `dtype`; element
/// `i >= 2` is `v0 + i * (v1 - v0)` in the dtype's fill arithmetic (see `Fill`). Computes the
/// global positions `offset .. offset + len`.
pub fn arange(first: Scalar, second: Scalar, dtype: DType, offset: usize, len: usize) -> Chunk {
    with_dtype!(dtype, T => {
        let (v0, v1) = (T::from_scalar(first), T::from_scalar(second));
        let value = |i: usize| match i {
            0 => v0,
            1 => v1,
            _ => T::fill(v0, v1, i),
        };
        T::wrap(Array1::from_shape_fn(len, |i| value(offset + i)).into_dyn().into())
    })
}

/// NumPy's `fill` of a range from its first two values: integers wrap, float16 and float32
/// compute in float32, float64 in float64, complex numbers part by part.
trait Fill: Elem {
    fn fill(v0: Self, v1: Self, i: usize) -> Self;
}

macro_rules! int_fill {
    ($($t:ty),*) => {$(
        impl Fill for $t {
            fn fill(v0: $t, v1: $t, i: usize) -> $t {
                v0.wrapping_add((i as $t).wrapping_mul(v1.wrapping_sub(v0)))
            }
        }
    )*};
}
int_fill!(i8, i16, i32, i64, u8, u16, u32, u64);

impl Fill for bool {
    /// NumPy has no bool fill (ranges of more than two bools are refused when planned).
    fn fill(_: bool, v1: bool, _: usize) -> bool {
        v1
    }
}
impl Fill for f16 {
    fn fill(v0: f16, v1: f16, i: usize) -> f16 {
        f16::from_f32(f32::fill(v0.to_f32(), v1.to_f32(), i))
    }
}
impl Fill for f32 {
    fn fill(v0: f32, v1: f32, i: usize) -> f32 {
        v0 + i as f32 * (v1 - v0)
    }
}
impl Fill for f64 {
    fn fill(v0: f64, v1: f64, i: usize) -> f64 {
        v0 + i as f64 * (v1 - v0)
    }
}
impl Fill for C64 {
    fn fill(v0: C64, v1: C64, i: usize) -> C64 {
        C64::new(f32::fill(v0.re, v1.re, i), f32::fill(v0.im, v1.im, i))
    }
}
impl Fill for C128 {
    fn fill(v0: C128, v1: C128, i: usize) -> C128 {
        C128::new(f64::fill(v0.re, v1.re, i), f64::fill(v0.im, v1.im, i))
    }
}

/// NumPy's linspace of `num` values from `start` to `stop`.
pub struct LinspaceSpec {
    /// The first value.
    pub start: f64,
    /// The last value when `endpoint`, else the end of the range.
    pub stop: f64,
    /// The number of values.
    pub num: usize,
    /// Whether `stop` is the last value.
    pub endpoint: bool,
}

impl LinspaceSpec {
    /// Element `i` in float64, computed as NumPy does: `i * step + start` with
    /// `step = (stop - start) / div`, or `i / div * delta + start` when that step is zero, or
    /// `i * delta + start` when there is no divisor; the last element is `stop` with `endpoint`.
    fn value(&self, i: usize) -> f64 {
        let div = if self.endpoint { self.num.saturating_sub(1) } else { self.num };
        let delta = self.stop - self.start;
        if self.endpoint && self.num > 1 && i == self.num - 1 {
            return self.stop;
        }
        if div == 0 {
            return i as f64 * delta + self.start;
        }
        let step = delta / div as f64;
        if step == 0.0 {
            i as f64 / div as f64 * delta + self.start
        } else {
            i as f64 * step + self.start
        }
    }
}

/// Positions `offset .. offset + len` of a linspace; integer dtypes take the floor first
/// (NumPy 2 rounds integer linspaces towards minus infinity).
pub fn linspace(spec: &LinspaceSpec, dtype: DType, offset: usize, len: usize) -> Chunk {
    let value = |i: usize| {
        let v = spec.value(i);
        if dtype.is_integer() {
            v.floor()
        } else {
            v
        }
    };
    with_dtype!(dtype, T => T::wrap(Array1::from_shape_fn(len, |i| T::from_f64(value(offset + i))).into_dyn().into()))
}
