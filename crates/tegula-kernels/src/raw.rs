//! A chunk's elements as raw bytes and back: row-major, in the machine's byte order
//! (little-endian on every platform tegula builds for), no header — dtype and shape travel
//! beside the bytes. Spilled chunks are written and read back this way by the same process
//! (and stored arrays' regions travel to and from storage this way),
//! so the round trip is bit-exact for every dtype (NaN payloads and signed zeros included).

use crate::chunk::{Block, Chunk, Wrap};
use crate::element::Elem;
use crate::with_chunk;
use crate::with_dtype;
use ndarray::{Array, IxDyn};
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

/// A new chunk of `dtype` and `shape` whose bytes (row-major, native order) `fill` writes.
/// Booleans must be bytes 0 or 1.
pub fn chunk_from_bytes(dtype: DType, shape: &[usize], fill: impl FnOnce(&mut [u8]) -> Result<()>) -> Result<Chunk> {
    if dtype == DType::Bool {
        // Bytes other than 0 and 1 are not booleans: filled as bytes and checked.
        let bytes: Block<u8> = filled(shape, fill)?;
        if bytes.iter().any(|&b| b > 1) {
            return Err(TegulaError::Io("a boolean chunk holds bytes other than 0 and 1".into()));
        }
        return Ok(Chunk::Bool(bytes.mapv(|b| b == 1).into()));
    }
    with_dtype!(dtype, T => filled::<T>(shape, fill).map(T::wrap))
}

/// Where the bytes of a big chunk start: a multiple of this, so a stored chunk can be read
/// straight from the disk into them (`O_DIRECT` needs aligned memory).
const BYTES_ALIGN: usize = 4096;
/// Chunks of fewer bytes are not aligned (the alignment costs up to `BYTES_ALIGN` bytes).
const ALIGN_FROM: usize = 1 << 20;

fn filled<T: Elem>(shape: &[usize], fill: impl FnOnce(&mut [u8]) -> Result<()>) -> Result<Block<T>> {
    let len: usize = shape.iter().product();
    let size = std::mem::size_of::<T>();
    let pad = if len * size >= ALIGN_FROM { BYTES_ALIGN / size } else { 0 };
    let mut values: Vec<T> = tegula_core::memory::big_vec(len + pad);
    values.resize(len + pad, T::from_bool(false));
    // Every element size divides BYTES_ALIGN, so some skip of at most `pad` elements aligns.
    let skip = if pad > 0 { values.as_ptr().align_offset(BYTES_ALIGN).min(pad) } else { 0 };
    let elements = &mut values[skip..skip + len];
    // SAFETY: every dtype other than bool (handled by the caller) is plain old data: any bytes
    // are a valid value, and `elements` is `len` initialised elements.
    let bytes = unsafe { std::slice::from_raw_parts_mut(elements.as_mut_ptr().cast::<u8>(), std::mem::size_of_val(elements)) };
    fill(bytes)?;
    let flat = Array::from_vec(values).slice_move(ndarray::s![skip..skip + len]);
    flat.into_shape_with_order(IxDyn(shape)).map(Block::from).map_err(|e| TegulaError::Internal(format!("chunk from bytes: {e}")))
}

fn bytes_of<T: Elem>(values: &[T]) -> &[u8] {
    // SAFETY: element types are plain data without padding (bool is one byte, complex numbers
    // are two floats), so their memory is a valid byte slice of the same length in bytes.
    unsafe { std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), std::mem::size_of_val(values)) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn big_chunks_start_aligned_and_hold_their_bytes() {
        for (dtype, shape) in [(DType::Float64, vec![300, 500]), (DType::Int16, vec![1 << 20]), (DType::Complex128, vec![7, 3])] {
            let len: usize = shape.iter().product::<usize>() * dtype.itemsize();
            let mut at = 0;
            let chunk = chunk_from_bytes(dtype, &shape, |bytes| {
                at = bytes.as_ptr() as usize;
                bytes.iter_mut().enumerate().for_each(|(i, b)| *b = (i % 251) as u8);
                Ok(())
            })
            .unwrap();
            assert!(len < ALIGN_FROM || at % BYTES_ALIGN == 0, "{dtype:?} at {at:#x}");
            assert_eq!(chunk.shape(), &shape[..]);
            with_bytes(&chunk, |b| {
                assert_eq!(b.as_ptr() as usize, at, "read in place");
                assert!(b.iter().enumerate().all(|(i, &v)| v == (i % 251) as u8));
            });
        }
    }
}
