//! NumPy's `view(dtype)` of one block: its elements' bytes, in row-major order, read as
//! another dtype; with another itemsize the last axis scales by the ratio of the itemsizes.

use crate::chunk::{Block, Chunk, Wrap};
use crate::element::Elem;
use crate::{with_chunk, with_dtype};
use ndarray::ArrayD;
use tegula_core::{internal_err, DType, Result};

/// The bytes of `block` read as `dtype`. Neither may be boolean (not every byte is one).
pub fn bitcast(block: &Chunk, dtype: DType) -> Result<Chunk> {
    if block.dtype() == DType::Bool || dtype == DType::Bool {
        return Err(internal_err!("a bitcast of {} to {dtype}: booleans are not read from bytes", block.dtype()));
    }
    let mut shape = block.shape().to_vec();
    let (old, new) = (block.dtype().itemsize(), dtype.itemsize());
    match shape.last_mut() {
        Some(last) if *last * old % new == 0 => *last = *last * old / new,
        Some(_) => return Err(internal_err!("a block's last axis of {:?} {} holds no whole {dtype}", block.shape(), block.dtype())),
        None if old != new => return Err(internal_err!("a 0-d bitcast of {} to {dtype}", block.dtype())),
        None => {}
    }
    // A `dyn` reader, so the output types are compiled once, not once per input type.
    let mut read = |bytes: &[u8]| with_dtype!(dtype, U => from_bytes::<U>(bytes, &shape));
    with_chunk!(block, a => with_row_major_bytes(a, &mut read))
}

/// `read` of the elements' bytes in row-major order: read in place when the block is
/// row-major already, else from one row-major copy.
fn with_row_major_bytes<T: Elem>(block: &Block<T>, read: &mut dyn FnMut(&[u8]) -> Result<Chunk>) -> Result<Chunk> {
    let view = block.view();
    let standard = view.as_standard_layout();
    let elements = standard.as_slice().unwrap_or(&[]);
    // SAFETY: the slice's elements are plain values; their bytes are read, not reinterpreted.
    read(unsafe { std::slice::from_raw_parts(elements.as_ptr().cast::<u8>(), std::mem::size_of_val(elements)) })
}

/// A block of `shape` whose elements are `bytes` read as `U` (never bool: `bitcast` refuses it).
fn from_bytes<U: Elem + Wrap>(bytes: &[u8], shape: &[usize]) -> Result<Chunk> {
    let len: usize = shape.iter().product();
    if len * std::mem::size_of::<U>() != bytes.len() {
        return Err(internal_err!("{} bytes for a block of {shape:?}", bytes.len()));
    }
    let mut data: Vec<U> = tegula_core::memory::big_vec(len);
    // SAFETY: `data` has room for `len` elements, exactly `bytes.len()` bytes, and every bit
    // pattern is a valid integer, float or complex number (booleans never reach here).
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), data.as_mut_ptr().cast::<u8>(), bytes.len());
        data.set_len(len);
    }
    let array = ArrayD::from_shape_vec(shape, data).map_err(|e| internal_err!("bitcast: {e}"))?;
    Ok(Wrap::wrap(array.into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_read_as_integers_keep_their_bits_and_a_transposed_block_is_read_row_major() {
        let values = ArrayD::from_shape_vec(vec![2, 3], vec![1.5f64, -0.0, f64::INFINITY, 2.0, 1e-300, -7.25]).unwrap();
        let transposed = Chunk::Float64(values.clone().reversed_axes().into());
        let out = bitcast(&transposed, DType::Int64).unwrap();
        let expected: Vec<i64> = values.t().iter().map(|v| v.to_bits() as i64).collect();
        assert_eq!(out.shape(), &[3, 2]);
        assert_eq!(out.typed::<i64>().unwrap().view().iter().copied().collect::<Vec<_>>(), expected);
    }

    #[test]
    fn another_itemsize_scales_the_last_axis() {
        let block = Chunk::Int32(ArrayD::from_shape_vec(vec![2, 2], vec![1i32, 2, 3, 4]).unwrap().into());
        let wide = bitcast(&block, DType::Int64).unwrap();
        assert_eq!(wide.shape(), &[2, 1]);
        let narrow = bitcast(&wide, DType::Int16).unwrap();
        assert_eq!(narrow.shape(), &[2, 4]);
        let back = bitcast(&narrow, DType::Int32).unwrap();
        assert_eq!(back.typed::<i32>().unwrap().view().iter().copied().collect::<Vec<_>>(), vec![1, 2, 3, 4]);
    }

    #[test]
    fn booleans_and_split_elements_are_errors() {
        let block = Chunk::Int8(ArrayD::from_shape_vec(vec![3], vec![1i8, 2, 3]).unwrap().into());
        assert!(bitcast(&block, DType::Bool).is_err());
        assert!(bitcast(&block, DType::Int16).is_err());
    }
}
