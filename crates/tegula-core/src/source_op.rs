//! Blocks made from their position alone: constants, ranges and counter-based random
//! numbers. A source task has no inputs, and a fused program generates its sources tile by
//! tile (`Instr::Source`), so these values are never stored unless something needs them whole.

use crate::dtype::DType;
use crate::ops::Distribution;
use crate::scalar::Scalar;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum SourceOp {
    /// A block filled with one value.
    Full { value: Scalar, dtype: DType, shape: Vec<usize> },
    /// NumPy's arange for the global positions `offset .. offset + len`: elements 0 and 1 are
    /// `first` and `second`, element `i` is `first + i * (second - first)` in `dtype`'s arithmetic.
    Arange { first: Scalar, second: Scalar, dtype: DType, offset: usize, len: usize },
    /// NumPy's `linspace(start, stop, num, endpoint)` for the positions `offset .. offset + len`.
    Linspace { start: f64, stop: f64, num: usize, endpoint: bool, dtype: DType, offset: usize, len: usize },
    /// Counter-based random values: element values depend only on `key` and their flat position
    /// in `array_shape`; `start`/`shape` locate this block.
    Random { key: u64, dist: Distribution, dtype: DType, array_shape: Vec<usize>, start: Vec<usize>, shape: Vec<usize> },
}

impl SourceOp {
    pub fn label(&self) -> &'static str {
        match self {
            SourceOp::Full { .. } => "full",
            SourceOp::Arange { .. } => "arange",
            SourceOp::Linspace { .. } => "linspace",
            SourceOp::Random { .. } => "random",
        }
    }
}
