//! A chunk's elements as raw bytes and back, in the machine's byte order (little-endian on
//! every platform tegula builds for), no header — dtype and shape travel beside the bytes.
//! Stored arrays' regions travel to and from storage row-major (`with_bytes`,
//! `chunk_from_bytes`); spilled chunks and the blocks worker processes exchange keep the order
//! their axes lie in memory (`with_bytes_in_memory_order`, `chunk_from_bytes_in_order`), so a
//! transposed block is read back with the same strides: kernels whose last bits depend on
//! their operands' layout (faer's products) give the same bits on every executor. Either
//! round trip is bit-exact for every dtype (NaN payloads and signed zeros included).

use crate::chunk::{Block, Chunk, Wrap};
use crate::element::Elem;
use crate::layout::{memory_order, transpose};
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

/// Calls `f` with the chunk's elements as bytes in the order they lie in memory, and the order
/// of its axes there, outermost first (`[0, 1]` for a row-major matrix, `[1, 0]` for its
/// transpose). A block whose axes lie in no such order (a window with gaps) is copied row-major.
pub fn with_bytes_in_memory_order<R>(chunk: &Chunk, f: impl FnOnce(&[u8], &[usize]) -> R) -> R {
    match memory_order(chunk) {
        Some((order, ordered)) => with_bytes(&ordered, |bytes| f(bytes, &order)),
        None => with_bytes(chunk, |bytes| f(bytes, &(0..chunk.ndim()).collect::<Vec<_>>())),
    }
}

/// A new chunk of `dtype` and `shape` whose bytes `fill` writes with its axes in memory in
/// `order` (as `with_bytes_in_memory_order` gave them): a view with the written chunk's strides.
pub fn chunk_from_bytes_in_order(dtype: DType, shape: &[usize], order: &[usize], fill: impl FnOnce(&mut [u8]) -> Result<()>) -> Result<Chunk> {
    // Where each axis lies in memory; an order that is no permutation of the axes leaves a gap.
    let mut place = vec![usize::MAX; shape.len()];
    order.iter().enumerate().for_each(|(i, &axis)| if let Some(p) = place.get_mut(axis) { *p = i });
    if order.len() != shape.len() || place.contains(&usize::MAX) {
        return Err(TegulaError::Io(format!("axis order {order:?} for a {}-d chunk", shape.len())));
    }
    let stored: Vec<usize> = order.iter().map(|&axis| shape[axis]).collect();
    transpose(&chunk_from_bytes(dtype, &stored, fill)?, &place)
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

    #[test]
    fn a_block_read_back_in_its_memory_order_keeps_its_strides_and_values() {
        let source = Block::from(ndarray::Array::from_shape_fn(IxDyn(&[3, 4, 5]), |i| (i[0] * 100 + i[1] * 10 + i[2]) as f64));
        let row_major = Chunk::Float64(source.clone());
        for perm in [[0, 1, 2], [2, 1, 0], [1, 2, 0], [0, 2, 1]] {
            let permuted = transpose(&row_major, &perm).unwrap();
            let (bytes, order) = with_bytes_in_memory_order(&permuted, |b, o| (b.to_vec(), o.to_vec()));
            let back = chunk_from_bytes_in_order(DType::Float64, permuted.shape(), &order, |out| {
                out.copy_from_slice(&bytes);
                Ok(())
            })
            .unwrap();
            let (p, b) = (permuted.typed::<f64>().unwrap(), back.typed::<f64>().unwrap());
            assert_eq!(p, b, "{perm:?}");
            assert_eq!(p.strides(), b.strides(), "{perm:?}");
        }
        // A window with gaps travels row-major.
        let window = crate::layout::load(&row_major, &[(0, 3), (1, 3), (0, 5)]).unwrap();
        let order = with_bytes_in_memory_order(&window, |_, o| o.to_vec());
        assert_eq!(order, [0, 1, 2]);
        for bad in [vec![0, 0, 1], vec![0, 1], vec![0, 1, 3]] {
            assert!(chunk_from_bytes_in_order(DType::Float64, &[3, 4, 5], &bad, |_| Ok(())).is_err(), "{bad:?}");
        }
    }
}
