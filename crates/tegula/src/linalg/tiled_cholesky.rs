//! Cholesky of a matrix too big for one task, by tiles (right-looking, as PLASMA and Dask
//! do): for each diagonal tile in turn, its own Cholesky factor (POTRF), the tiles below it
//! divided by that factor (a triangular solve, TRSM), and every tile of the trailing lower
//! triangle less the products of the new column's tiles (GEMM; SYRK on the diagonal). Only the
//! lower triangle of the matrix is read, as NumPy's `cholesky` reads it; the plan stays lazy:
//! one graph of whole-tile factorisations, solves and products.

use super::adjoint;
use super::tiles::{assemble, slice, spans, Tile};
use crate::array::Array;
use tegula_core::{LinalgOp, Result};

/// The lower Cholesky factor `L` of the Hermitian positive-definite matrix `x` (`L^H` when
/// `upper`), in `tile`×`tile` tiles.
pub(super) fn tiled_cholesky(x: &Array, upper: bool, tile: usize) -> Result<Array> {
    let op = LinalgOp::Cholesky { upper: false, tile: None };
    op.check(&[(x.shape()[0], x.shape()[1])])?;
    // Integers factorised in float64, as by the whole-matrix kernel (and NumPy).
    let x = x.astype(op.compute_dtype(x.dtype())?)?;
    let spans = spans(x.shape()[0], tile);
    let t = spans.len();
    // The lower tiles (`a[i][j]`, `j <= i`), each replaced by `L`'s as the columns are done.
    let mut a: Vec<Vec<Array>> = (0..t).map(|i| (0..=i).map(|j| slice(&x, spans[i], spans[j])).collect()).collect::<Result<_>>()?;
    for k in 0..t {
        let diagonal = a[k][k].linalg(LinalgOp::Cholesky { upper: false, tile: Some(k as u32) }, &[])?;
        // L_ik = A_ik L_kk^-H, that is (L_kk^-1 A_ik^H)^H.
        let below = LinalgOp::SolveTriangular { lower: true, unit_diagonal: false };
        for row in &mut a[k + 1..] {
            row[k] = adjoint(&diagonal.linalg(below, &[&adjoint(&row[k])?])?)?;
        }
        a[k][k] = diagonal;
        let column: Vec<Array> = a[k + 1..].iter().map(|row| row[k].clone()).collect();
        for (j, right) in (k + 1..).zip(&column) {
            let right = adjoint(right)?;
            for (row, left) in a[j..].iter_mut().zip(&column[j - k - 1..]) {
                row[j] = row[j].sub(&left.matmul(&right)?)?;
            }
        }
    }
    let tiles: Vec<Vec<Tile>> = a.into_iter().map(|row| (0..t).map(|j| row.get(j).cloned()).collect()).collect();
    let lower = assemble(&tiles, &spans, &spans, x.dtype())?;
    if upper {
        adjoint(&lower)
    } else {
        Ok(lower)
    }
}
