//! 0-d constant arrays, the scalars that algorithms built from operations combine with arrays.

use crate::array::Array;
use tegula_core::{AxisChunks, ChunkSpec, DType, Result, Scalar};

/// A 0-d array of `dtype` holding `value`.
pub(crate) fn constant(value: Scalar, dtype: DType) -> Result<Array> {
    Array::full(&[], value, Some(dtype), &ChunkSpec::All(AxisChunks::Full))
}
