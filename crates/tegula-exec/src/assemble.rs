//! Joining an output's blocks into one array.

use tegula_core::grid::{block_indices, offsets};
use tegula_core::{Chunks, DType, Piece, Result};
use tegula_kernels::Chunk;

/// One chunk holding the whole output (the block itself when there is only one).
pub fn assemble_output(chunks: &Chunks, dtype: DType, blocks: Vec<Chunk>) -> Result<Chunk> {
    if let [only] = blocks.as_slice() {
        return Ok(only.cast(dtype));
    }
    let starts: Vec<Vec<usize>> = chunks.sizes().iter().map(|s| offsets(s)).collect();
    let pieces = block_indices(&chunks.numblocks())
        .enumerate()
        .map(|(i, idx)| Piece {
            input: i,
            src: chunks.block_shape(&idx).into_iter().map(|n| (0, n)).collect(),
            dst: idx.iter().enumerate().map(|(a, &b)| starts[a][b]).collect(),
        })
        .collect::<Vec<_>>();
    tegula_kernels::assemble::assemble(&blocks, &chunks.shape(), &pieces)
}
