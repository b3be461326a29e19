//! A block as bytes inside a message: an array resource shipped by value in a fragment, and
//! blocks small enough to travel inside the messages between the caller and its worker
//! processes (a file for an 8-byte partial sum costs a worker a create, a write and a close and
//! the caller an open, a read and an unlink, more than the block's task).

use serde::{Deserialize, Serialize};
use tegula_core::{DType, Result};
use tegula_kernels::raw::{chunk_from_bytes, with_bytes};
use tegula_kernels::Chunk;

/// Blocks of at most this many bytes travel inside messages, larger ones as files.
pub(crate) const INLINE_BYTES: usize = 16 << 10;

/// A block's elements, row-major, in native byte order.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct InlineBlock {
    dtype: DType,
    shape: Vec<usize>,
    #[serde(with = "serde_bytes")]
    bytes: Vec<u8>,
}

impl InlineBlock {
    /// The block as bytes.
    pub(crate) fn new(chunk: &Chunk) -> InlineBlock {
        with_bytes(chunk, |bytes| InlineBlock { dtype: chunk.dtype(), shape: chunk.shape().to_vec(), bytes: bytes.to_vec() })
    }

    /// The block as bytes, where it takes at most `most` bytes.
    pub(crate) fn of(chunk: &Chunk, most: usize) -> Option<InlineBlock> {
        (chunk.len() * chunk.dtype().itemsize() <= most).then(|| InlineBlock::new(chunk))
    }

    /// The block again (a `Value` error where its bytes do not make one of its shape).
    pub(crate) fn to_chunk(&self) -> Result<Chunk> {
        chunk_from_bytes(self.dtype, &self.shape, |out| {
            if out.len() != self.bytes.len() {
                return Err(tegula_core::value_err!("a block of {} bytes for {} expected", self.bytes.len(), out.len()));
            }
            out.copy_from_slice(&self.bytes);
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{Array, IxDyn};
    use tegula_kernels::Wrap;

    #[test]
    fn blocks_come_back_equal_and_large_ones_stay_out() {
        let block = f64::wrap(Array::from_shape_fn(IxDyn(&[3, 4]), |i| (i[0] * 4 + i[1]) as f64 * 0.5).into());
        let flags = bool::wrap(Array::from_shape_fn(IxDyn(&[5]), |i| i[0] % 2 == 0).into());
        for chunk in [block, flags] {
            let sent = InlineBlock::of(&chunk, 96).expect("small enough");
            let bytes = postcard::to_stdvec(&sent).unwrap();
            let back = postcard::from_bytes::<InlineBlock>(&bytes).unwrap().to_chunk().unwrap();
            assert_eq!(back.shape(), chunk.shape());
            assert!(with_bytes(&back, |a| with_bytes(&chunk, |b| a == b)));
        }
        let large = f64::wrap(Array::zeros(IxDyn(&[13])).into());
        assert!(InlineBlock::of(&large, 96).is_none(), "104 bytes over 96");
    }
}
