//! A chunk's elements as raw bytes and back: row-major, in the machine's byte order
//! (little-endian on every platform tegula builds for), no header — dtype and shape travel
//! beside the bytes. Spilled chunks are written and read back this way by the same process,
//! so the round trip is bit-exact for every dtype (NaN payloads and signed zeros included).

use crate::chunk::{Block, Chunk, Wrap};
use crate::element::Elem;
use crate::with_chunk;
use crate::with_dtype;
use ndarray::{ArcArray, IxDyn};
use std::io::{Read, Write};
use tegula_core::{DType, Result, TegulaError};

/// Writes the chunk's elements, row-major.
pub fn write_raw(chunk: &Chunk, out: &mut impl Write) -> Result<()> {
    fn write<T: Elem>(a: &Block<T>, out: &mut impl Write) -> std::io::Result<()> {
        let standard = a.as_standard_layout();
        let values = standard.as_slice().unwrap_or(&[]);
        out.write_all(bytes_of(values))
    }
    with_chunk!(chunk, a => write(a, out)).map_err(|e| TegulaError::Io(format!("writing a chunk: {e}")))
}

/// Reads a chunk of `dtype` and `shape` written by `write_raw`.
pub fn read_raw(dtype: DType, shape: &[usize], input: &mut impl Read) -> Result<Chunk> {
    if dtype == DType::Bool {
        // Bytes other than 0 and 1 are not booleans: read as bytes and checked.
        let bytes: Block<u8> = read(shape, input)?;
        if bytes.iter().any(|&b| b > 1) {
            return Err(TegulaError::Io("a spilled boolean chunk holds bytes other than 0 and 1".into()));
        }
        return Ok(Chunk::Bool(bytes.mapv(|b| b == 1).into_shared()));
    }
    with_dtype!(dtype, T => read::<T>(shape, input).map(T::wrap))
}

fn read<T: Elem>(shape: &[usize], input: &mut impl Read) -> Result<Block<T>> {
    let len = shape.iter().product();
    let mut values: Vec<T> = tegula_core::memory::big_vec(len);
    values.resize(len, T::from_bool(false));
    // SAFETY: every dtype other than bool (handled by the caller) is plain old data: any bytes
    // are a valid value, and the buffer is exactly `len` initialised elements.
    let bytes = unsafe { std::slice::from_raw_parts_mut(values.as_mut_ptr().cast::<u8>(), std::mem::size_of_val(&values[..])) };
    input.read_exact(bytes).map_err(|e| TegulaError::Io(format!("reading a spilled chunk: {e}")))?;
    ArcArray::from_shape_vec(IxDyn(shape), values).map_err(|e| TegulaError::Internal(format!("spilled chunk: {e}")))
}

fn bytes_of<T: Elem>(values: &[T]) -> &[u8] {
    // SAFETY: element types are plain data without padding (bool is one byte, complex numbers
    // are two floats), so their memory is a valid byte slice of the same length in bytes.
    unsafe { std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), std::mem::size_of_val(values)) }
}
