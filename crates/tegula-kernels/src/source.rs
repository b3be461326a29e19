//! Blocks computed from their position alone: `arange` and `linspace` ranges.

use crate::chunk::{Chunk, Wrap};
use crate::element::Elem;
use crate::with_dtype;
use ndarray::{Array1, ArcArray};
use tegula_core::{DType, Scalar};

/// `start + i * step` for `i` in `offset .. offset + len`; exact integer arithmetic when both
/// are integers, float64 arithmetic otherwise.
pub fn arange(start: Scalar, step: Scalar, dtype: DType, offset: usize, len: usize) -> Chunk {
    with_dtype!(dtype, T => {
        let values: Array1<T> = match (start, step) {
            (Scalar::Int(s), Scalar::Int(d)) => {
                Array1::from_shape_fn(len, |i| T::from_i128(s + (offset + i) as i128 * d))
            }
            _ => {
                let (s, d) = (start.as_f64(), step.as_f64());
                Array1::from_shape_fn(len, |i| T::from_f64(s + (offset + i) as f64 * d))
            }
        };
        T::wrap(values.into_dyn().into_shared())
    })
}

/// NumPy's linspace values `i * step + start`, with the last one exactly `stop` when
/// `endpoint` is set.
pub struct LinspaceSpec {
    pub start: f64,
    pub step: f64,
    pub stop: f64,
    pub num: usize,
    pub endpoint: bool,
}

pub fn linspace(spec: &LinspaceSpec, dtype: DType, offset: usize, len: usize) -> Chunk {
    let value = |i: usize| {
        if spec.endpoint && spec.num > 1 && i == spec.num - 1 {
            spec.stop
        } else {
            i as f64 * spec.step + spec.start
        }
    };
    with_dtype!(dtype, T => T::wrap(ArcArray::from_shape_fn(len, |i| T::from_f64(value(offset + i))).into_dyn()))
}
