//! Cholesky of a matrix too big for one task, by column panels (right-looking, as LAPACK's
//! blocked `potrf`): for each column of tiles in turn, its rows from the diagonal down are one
//! panel, factorised in one task (the diagonal tile's factor, the rows below divided by it:
//! `LinalgOp::CholeskyPanel`); then every column block right of it, from its own diagonal
//! down, less the panel's product, as one GEMM per block (`LinalgOp::CholeskyUpdate`). Only
//! the lower triangle of the matrix is read, as NumPy's `cholesky` reads it; the plan stays
//! lazy: one graph of panel factorisations and updates.

use super::adjoint;
use super::tiles::{slice, spans};
use crate::array::Array;
use crate::constant::whole;
use tegula_core::{LinalgOp, Result};

/// The lower Cholesky factor `L` of the Hermitian positive-definite matrix `x` (`L^H` when
/// `upper`), in panels of `tile` columns.
pub(super) fn tiled_cholesky(x: &Array, upper: bool, tile: usize) -> Result<Array> {
    let op = LinalgOp::Cholesky { upper: false };
    op.check(&[(x.shape()[0], x.shape()[1])])?;
    // Integers factorised in float64, as by the whole-matrix kernel (and NumPy).
    let x = x.astype(op.compute_dtype(x.dtype())?)?;
    let n = x.shape()[0];
    let spans = spans(n, tile);
    // What is left of each column block to factorise: its rows from its diagonal tile down.
    let mut left: Vec<Array> = spans.iter().map(|&(start, stop)| slice(&x, (start, n), (start, stop))).collect::<Result<_>>()?;
    let mut columns = Vec::with_capacity(spans.len());
    for (k, &(start, stop)) in spans.iter().enumerate() {
        let panel = left[k].linalg(LinalgOp::CholeskyPanel { tile: k as u32 }, &[])?;
        for block in &mut left[k + 1..] {
            *block = panel.linalg(LinalgOp::CholeskyUpdate, &[block])?;
        }
        // Column k of `L`: zeros above the diagonal tile, then the panel.
        let above = Array::zeros(&[start, stop - start], x.dtype(), &whole())?;
        columns.push(Array::concatenate(&[&above, &panel], Some(0))?);
    }
    let lower = Array::concatenate(&columns.iter().collect::<Vec<_>>(), Some(1))?;
    if upper {
        adjoint(&lower)
    } else {
        Ok(lower)
    }
}
