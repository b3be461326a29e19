//! Blocks made from their position alone: constants, ranges and counter-based random
//! numbers. A source task has no inputs, and a fused program generates its sources tile by
//! tile (`Instr::Source`), so these values are never stored unless something needs them whole.

use crate::dtype::DType;
use crate::ops::Distribution;
use crate::scalar::Scalar;
use serde::{Deserialize, Serialize};

/// A block made from its position alone: a constant, a range or random numbers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum SourceOp {
    /// A block filled with one value.
    Full {
        /// The value of every element.
        value: Scalar,
        /// The dtype of the block.
        dtype: DType,
        /// The shape of the block.
        shape: Vec<usize>,
    },
    /// NumPy's arange for the global positions `offset .. offset + len`: elements 0 and 1 are
    /// `first` and `second`, element `i` is `first + i * (second - first)` in `dtype`'s arithmetic.
    Arange {
        /// Element 0 of the whole range.
        first: Scalar,
        /// Element 1 of the whole range (`first` plus the step).
        second: Scalar,
        /// The dtype of the block.
        dtype: DType,
        /// The block's first position in the whole range.
        offset: usize,
        /// The number of elements of the block.
        len: usize,
    },
    /// NumPy's `linspace(start, stop, num, endpoint)` for the positions `offset .. offset + len`.
    Linspace {
        /// NumPy's `start`.
        start: f64,
        /// NumPy's `stop`.
        stop: f64,
        /// The number of samples in the whole range.
        num: usize,
        /// Whether `stop` is the last sample.
        endpoint: bool,
        /// The dtype of the block.
        dtype: DType,
        /// The block's first position in the whole range.
        offset: usize,
        /// The number of elements of the block.
        len: usize,
    },
    /// Counter-based random values: element values depend only on `key` and their flat position
    /// in `array_shape`; `start`/`shape` locate this block.
    Random {
        /// The key of the random stream (from the seed and the draw).
        key: u64,
        /// The distribution values are drawn from.
        dist: Distribution,
        /// The dtype of the block.
        dtype: DType,
        /// The shape of the whole array.
        array_shape: Vec<usize>,
        /// The block's first element along each axis.
        start: Vec<usize>,
        /// The shape of the block.
        shape: Vec<usize>,
    },
}

impl SourceOp {
    /// A short name for plans and reports.
    pub fn label(&self) -> &'static str {
        match self {
            SourceOp::Full { .. } => "full",
            SourceOp::Arange { .. } => "arange",
            SourceOp::Linspace { .. } => "linspace",
            SourceOp::Random { .. } => "random",
        }
    }
}
