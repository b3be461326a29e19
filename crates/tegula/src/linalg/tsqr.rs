//! Tall-skinny QR (TSQR) of a matrix in row blocks: each row block's `R`, stacked, factorised
//! again; each block of `Q` is that block's own `Q` (recomputed) times its rows of the second
//! `Q`, so no task holds more than a row block.

use super::Linalg;
use crate::array::Array;
use crate::constant::whole;
use tegula_core::{AxisChunks, ChunkSpec, LinalgOp, Result};

impl Linalg {
    /// `(factor, R)` of a tall matrix in row blocks, its `Q` being `qr_apply(x, factor)`: the
    /// row blocks' `R`s, stacked, factorised as one matrix when small enough, else by TSQR
    /// again in row blocks of at least twice `R`'s height (each level halves the height at
    /// least).
    pub(super) fn tsqr(&self, x: &Array) -> Result<(Array, Array)> {
        let n = x.shape()[1];
        let stacked = x.linalg_row_blocks(LinalgOp::Qr { complete: false, output: 1 }, &[])?;
        let rows = (2 * n).max(self.tsqr_block_bytes / (n * stacked.dtype().itemsize()));
        if stacked.shape()[0] <= rows {
            return self.qr(&stacked.rechunk(&whole())?, false);
        }
        let stacked = stacked.rechunk(&ChunkSpec::PerAxis(vec![AxisChunks::Size(rows), AxisChunks::Full]))?;
        let (factor, r) = self.tsqr(&stacked)?;
        Ok((qr_apply(&stacked, &factor)?, r))
    }
}

/// Each row block's reduced `Q` times its rows of `factor`.
pub(super) fn qr_apply(x: &Array, factor: &Array) -> Result<Array> {
    x.linalg_row_blocks(LinalgOp::QrApply, &[factor])
}
