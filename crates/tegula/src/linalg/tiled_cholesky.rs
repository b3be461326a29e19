//! Cholesky of a matrix too big for one task, by square tiles (right-looking, as PLASMA's and
//! Dask's): for each diagonal tile in turn, its factor (`LinalgOp::CholeskyPanel` of the tile
//! alone, POTRF), each tile below it divided by that factor's adjoint (`CholeskyBelow`,
//! TRSM), then each lower tile of the trailing matrix less the product of the two tiles of
//! that column level with its row and its column (`CholeskyUpdate`, a GEMM; on the diagonal
//! `CholeskyDiagonalUpdate`, a SYRK: half the flops). A task reads and makes tiles, never a
//! column of them, so the tiles of a trailing matrix can be updated where they lie, on any of
//! a cluster's nodes. Only the lower triangle of the matrix is read, as NumPy's `cholesky`
//! reads it; the plan stays lazy.

use super::adjoint;
use super::tiles::{assemble, slice, spans, Tile};
use crate::array::Array;
use tegula_core::{LinalgOp, Result, TileAt};

/// The lower Cholesky factor `L` of the Hermitian positive-definite matrix `x` (`L^H` when
/// `upper`), in tiles of `tile` rows and columns.
pub(super) fn tiled_cholesky(x: &Array, upper: bool, tile: usize) -> Result<Array> {
    let op = LinalgOp::Cholesky { upper: false };
    op.check(&[(x.shape()[0], x.shape()[1])])?;
    // Integers factorised in float64, as by the whole-matrix kernel (and NumPy).
    let x = x.astype(op.compute_dtype(x.dtype())?)?;
    let spans = spans(x.shape()[0], tile);
    // The lower tiles, `tiles[i][j]` for `j <= i`: what is left of the matrix to factorise,
    // then, column by column, `L`.
    let mut tiles: Vec<Vec<Array>> =
        spans.iter().enumerate().map(|(i, &rows)| spans[..=i].iter().map(|&cols| slice(&x, rows, cols)).collect()).collect::<Result<_>>()?;
    let at = |row: usize, column: usize| TileAt { row: row as u32, column: column as u32, tiles: spans.len() as u32 };
    for k in 0..spans.len() {
        let factor = tiles[k][k].linalg(LinalgOp::CholeskyPanel { at: at(k, k) }, &[])?;
        for (i, row) in tiles.iter_mut().enumerate().skip(k + 1) {
            row[k] = factor.linalg(LinalgOp::CholeskyBelow { at: at(i, k) }, &[&row[k]])?;
        }
        tiles[k][k] = factor;
        for i in k + 1..spans.len() {
            for j in k + 1..i {
                tiles[i][j] = tiles[i][k].linalg(LinalgOp::CholeskyUpdate { at: at(i, j) }, &[&tiles[i][j], &tiles[j][k]])?;
            }
            tiles[i][i] = tiles[i][k].linalg(LinalgOp::CholeskyDiagonalUpdate { at: at(i, i) }, &[&tiles[i][i]])?;
        }
    }
    // Zeros above the diagonal.
    let rows: Vec<Vec<Tile>> = tiles.into_iter().map(|row| (0..spans.len()).map(|j| row.get(j).cloned()).collect()).collect();
    let lower = assemble(&rows, &spans, &spans, x.dtype())?;
    if upper {
        adjoint(&lower)
    } else {
        Ok(lower)
    }
}
