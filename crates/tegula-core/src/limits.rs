//! The largest arrays and plans tegula accepts. Beyond these, a request is refused with an
//! error when the expression is built or planned, before anything is allocated: a process
//! that aborts on a failed allocation cannot be caught.

use crate::error::{Result, TegulaError};
use crate::value_err;

/// Axes of an array at most: NumPy's `NPY_MAXDIMS`.
pub const MAX_DIMS: usize = 64;

/// Blocks along one axis at most (each costs a word in every chunking of the plan).
pub const MAX_BLOCKS_PER_AXIS: usize = 1 << 24;

/// Tasks of one plan at most (each costs a few hundred bytes to plan, order and run).
pub const MAX_TASKS: usize = 1 << 25;

/// Refuses a shape NumPy could not hold either: more than `MAX_DIMS` axes, or more bytes
/// (`itemsize` each) than an `isize` counts (NumPy's "array is too big" `ValueError`).
pub fn check_array_shape(shape: &[usize], itemsize: usize) -> Result<()> {
    if shape.len() > MAX_DIMS {
        return Err(value_err!("maximum supported dimension for an ndarray is currently {MAX_DIMS}, found {}", shape.len()));
    }
    let bytes = shape.iter().try_fold(itemsize.max(1), |acc, &n| acc.checked_mul(n));
    match bytes {
        Some(b) if b <= isize::MAX as usize => Ok(()),
        _ if shape.contains(&0) => Ok(()),
        _ => Err(TegulaError::Value(
            "array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible size.".into(),
        )),
    }
}

/// Refuses `blocks` blocks along an axis of length `len` beyond `MAX_BLOCKS_PER_AXIS`.
pub fn check_blocks_per_axis(blocks: usize, len: usize) -> Result<()> {
    if blocks > MAX_BLOCKS_PER_AXIS {
        return Err(value_err!(
            "chunks would cut an axis of length {len} into {blocks} blocks; tegula plans at most \
             {MAX_BLOCKS_PER_AXIS} blocks per axis: use larger chunks"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_beyond_an_isize_of_bytes_or_64_axes_are_refused() {
        assert!(check_array_shape(&[1 << 62, 4], 8).is_err());
        assert!(check_array_shape(&[1 << 31, 1 << 31], 8).is_err());
        assert!(check_array_shape(&[1 << 32, 1 << 32], 1).is_err());
        assert!(check_array_shape(&[0, 1 << 62, 1 << 62], 8).is_ok());
        assert!(check_array_shape(&[1 << 59], 8).is_ok());
        assert!(check_array_shape(&[1; 64], 8).is_ok());
        assert!(check_array_shape(&[1; 65], 8).is_err());
    }
}
