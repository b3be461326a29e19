//! The outputs of a task with several, packed as one block of bytes (each output's elements,
//! row-major, one after another; dtypes and shapes are the plan's), and one output unpacked:
//! so a block stays one value to hold, spill and send, whatever a task produces.

use crate::chunk::Chunk;
use crate::raw::{chunk_from_bytes, with_bytes};
use ndarray::Array1;
use tegula_core::{internal_err, DType, Result};

/// The outputs' bytes, one after another, as a 1-D uint8 block.
pub fn pack(outputs: &[Chunk]) -> Chunk {
    let mut bytes = Vec::with_capacity(outputs.iter().map(Chunk::nbytes).sum());
    for output in outputs {
        with_bytes(output, |b| bytes.extend_from_slice(b));
    }
    Chunk::UInt8(Array1::from_vec(bytes).into_dyn().into())
}

/// The output of `dtype` and `shape` whose bytes start at `offset` in `packed`.
pub fn part(packed: &Chunk, offset: usize, dtype: DType, shape: &[usize]) -> Result<Chunk> {
    with_bytes(packed, |bytes| {
        let len = shape.iter().product::<usize>() * dtype.itemsize();
        let range = bytes.get(offset..offset + len).ok_or_else(|| {
            internal_err!("output bytes {offset}..{} of a packed block of {} bytes", offset + len, bytes.len())
        })?;
        chunk_from_bytes(dtype, shape, |out| {
            out.copy_from_slice(range);
            Ok(())
        })
    })
}
