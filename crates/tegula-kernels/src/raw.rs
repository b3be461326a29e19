//! A chunk's elements as raw bytes and back: row-major, in the machine's byte order
//! (little-endian on every platform tegula builds for), no header — dtype and shape travel
//! beside the bytes. Spilled chunks are written and read back this way by the same process
//! (and stored arrays' regions travel to and from storage this way),
//! so the round trip is bit-exact for every dtype (NaN payloads and signed zeros included).

use crate::chunk::{Block, Chunk, Wrap};
use crate::element::Elem;
use crate::with_chunk;
use crate::with_dtype;
use ndarray::{ArcArray, IxDyn};
use std::io::{Read, Write};
use tegula_core::{DType, Result, TegulaError};

/// Calls `f` with the chunk's elements as bytes, row-major (copied only when the chunk is not
/// already contiguous and row-major).
pub fn with_bytes<R>(chunk: &Chunk, f: impl FnOnce(&[u8]) -> R) -> R {
    fn bytes<T: Elem, R>(a: &Block<T>, f: impl FnOnce(&[u8]) -> R) -> R {
        let standard = a.as_standard_layout();
        f(bytes_of(standard.as_slice().unwrap_or(&[])))
    }
    with_chunk!(chunk, a => bytes(a, f))
}

/// Writes the chunk's elements, row-major.
pub fn write_raw(chunk: &Chunk, out: &mut impl Write) -> Result<()> {
    with_bytes(chunk, |b| out.write_all(b)).map_err(|e| TegulaError::Io(format!("writing a chunk: {e}")))
}

/// Reads a chunk of `dtype` and `shape` written by `write_raw`.
pub fn read_raw(dtype: DType, shape: &[usize], input: &mut impl Read) -> Result<Chunk> {
    chunk_from_bytes(dtype, shape, |bytes| {
        input.read_exact(bytes).map_err(|e| TegulaError::Io(format!("reading a spilled chunk: {e}")))
    })
}

/// A new chunk of `dtype` and `shape` whose bytes (row-major, native order) `fill` writes.
/// Booleans must be bytes 0 or 1.
pub fn chunk_from_bytes(dtype: DType, shape: &[usize], fill: impl FnOnce(&mut [u8]) -> Result<()>) -> Result<Chunk> {
    if dtype == DType::Bool {
        // Bytes other than 0 and 1 are not booleans: filled as bytes and checked.
        let bytes: Block<u8> = filled(shape, fill)?;
        if bytes.iter().any(|&b| b > 1) {
            return Err(TegulaError::Io("a boolean chunk holds bytes other than 0 and 1".into()));
        }
        return Ok(Chunk::Bool(bytes.mapv(|b| b == 1).into_shared()));
    }
    with_dtype!(dtype, T => filled::<T>(shape, fill).map(T::wrap))
}

fn filled<T: Elem>(shape: &[usize], fill: impl FnOnce(&mut [u8]) -> Result<()>) -> Result<Block<T>> {
    let len = shape.iter().product();
    let mut values: Vec<T> = tegula_core::memory::big_vec(len);
    values.resize(len, T::from_bool(false));
    // SAFETY: every dtype other than bool (handled by the caller) is plain old data: any bytes
    // are a valid value, and the buffer is exactly `len` initialised elements.
    let bytes = unsafe { std::slice::from_raw_parts_mut(values.as_mut_ptr().cast::<u8>(), std::mem::size_of_val(&values[..])) };
    fill(bytes)?;
    ArcArray::from_shape_vec(IxDyn(shape), values).map_err(|e| TegulaError::Internal(format!("chunk from bytes: {e}")))
}

fn bytes_of<T: Elem>(values: &[T]) -> &[u8] {
    // SAFETY: element types are plain data without padding (bool is one byte, complex numbers
    // are two floats), so their memory is a valid byte slice of the same length in bytes.
    unsafe { std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), std::mem::size_of_val(values)) }
}
