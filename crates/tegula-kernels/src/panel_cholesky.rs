//! The kernels of a Cholesky factorisation by tiles (right-looking, as PLASMA's and Dask's):
//! `LinalgOp::CholeskyPanel` factorises a diagonal tile (or a panel, its rows from the
//! diagonal down: the diagonal tile's factor, the rows below it divided by that factor);
//! `LinalgOp::CholeskyBelow` divides a tile below a factorised diagonal tile by that factor;
//! `LinalgOp::CholeskyUpdate` takes the product of two tiles of `L` out of a tile of the
//! trailing matrix, as one GEMM that accumulates into it, and
//! `LinalgOp::CholeskyDiagonalUpdate` a tile's product with itself out of a diagonal tile, its
//! lower half only.

use crate::field::Field;
use crate::matmul::parallelism;
use crate::row_major::rows;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::cholesky::llt::factor::{self as llt, LltError};
use faer::linalg::{matmul::matmul, triangular_solve::solve_lower_triangular_in_place};
use faer::{Accum, Mat, MatMut, MatRef};
use tegula_core::{linalg_err, Result};

/// The panel `x` (at least as tall as wide) factorised, row-major: its top square's lower
/// Cholesky factor `L` (only the square's lower triangle read; zeros above the diagonal), the
/// rows below multiplied by `L^-H` on the right. An error names diagonal `tile` where the top
/// square is not positive definite.
pub(crate) fn cholesky_panel<T: Field>(x: MatRef<T>, tile: u32) -> Result<Vec<T>> {
    let (m, w) = x.shape();
    let factor = lower_factor(x.subrows(0, w)).map_err(|_| {
        linalg_err!("Matrix is not positive definite (in diagonal tile {tile} of a factorisation by tiles)")
    })?;
    let mut out = rows(x);
    let (mut top, below) = MatMut::from_row_major_slice_mut(&mut out, m, w).split_at_row_mut(w);
    top.copy_from(&factor);
    divide_by_adjoint(factor.as_ref(), below);
    Ok(out)
}

/// The lower Cholesky factor of square `x` (its lower triangle read), column-major with zeros
/// above the diagonal, as faer's `llt` makes it but on the threads that are idle
/// (`parallelism`) instead of faer's fixed splits: its blocking depends on the size alone, so
/// the bits are the same either way, and a tile factorised while the other threads run
/// updates no longer waits for them.
fn lower_factor<T: Field>(x: MatRef<T>) -> std::result::Result<Mat<T>, LltError> {
    let n = x.nrows();
    let par = parallelism(n, n);
    let mut factor = Mat::zeros(n, n);
    factor.copy_from_triangular_lower(x);
    let mut scratch = MemBuffer::new(llt::cholesky_in_place_scratch::<T>(n, par, Default::default()));
    llt::cholesky_in_place(factor.as_mut(), Default::default(), par, MemStack::new(&mut scratch), Default::default())?;
    for j in 1..n {
        factor.col_mut(j).subrows_mut(0, j).fill(T::zero_impl());
    }
    Ok(factor)
}

/// `below` (row-major) times `L^-H` on the right, in place, for a lower factor `L` read by
/// columns: transposed, `conj(L)^-1 B^T`. On the idle threads (`parallelism`; the bits do not
/// depend on them, faer's blocking following the shapes, and narrow tiles run on one thread).
fn divide_by_adjoint<T: Field>(factor: MatRef<T>, below: MatMut<T>) {
    let par = parallelism(below.nrows(), below.ncols());
    solve_lower_triangular_in_place(factor.conjugate(), below.transpose_mut(), par);
}

/// `tile` times the inverse of `factor`'s adjoint on the right (`factor`: a lower Cholesky
/// factor, zeros above its diagonal), row-major: a tile of `L` below the diagonal.
pub(crate) fn cholesky_below<T: Field>(factor: MatRef<T>, tile: MatRef<T>) -> Vec<T> {
    let (m, w) = tile.shape();
    let mut out = rows(tile);
    // The factor copied column-major: faer's triangular solves run at a fraction of their
    // speed on a row-major one.
    divide_by_adjoint(factor.to_owned().as_ref(), MatMut::from_row_major_slice_mut(&mut out, m, w));
    out
}

/// `tile` less `left right^H`, row-major: `left` the tile of `L` level with `tile` in the
/// panel's column, `right` the one level with `tile`'s column's diagonal.
pub(crate) fn cholesky_update<T: Field>(left: MatRef<T>, tile: MatRef<T>, right: MatRef<T>) -> Vec<T> {
    let (m, w) = tile.shape();
    let mut out = rows(tile);
    let target = MatMut::from_row_major_slice_mut(&mut out, m, w);
    // Split only when another thread is idle, as products are (the same bits either way).
    matmul(target, Accum::Add, left, right.adjoint(), -T::one_impl(), parallelism(m, w));
    out
}

/// The diagonal `tile` less `left left^H` on and below its diagonal (above it as it was),
/// row-major: faer's triangular product computes only the blocks it keeps, half a GEMM.
pub(crate) fn cholesky_diagonal_update<T: Field>(left: MatRef<T>, tile: MatRef<T>) -> Vec<T> {
    use faer::linalg::matmul::triangular::{matmul, BlockStructure};
    let full = BlockStructure::Rectangular;
    let n = tile.nrows();
    let mut out = rows(tile);
    let target = MatMut::from_row_major_slice_mut(&mut out, n, n);
    let (lower, minus_one) = (BlockStructure::TriangularLower, -T::one_impl());
    matmul(target, lower, Accum::Add, left, full, left.adjoint(), full, minus_one, parallelism(n, n));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use faer::Side;

    fn row_major(data: &[f64], m: usize, n: usize) -> Mat<f64> {
        Mat::from_fn(m, n, |i, j| data[i * n + j])
    }

    #[test]
    fn tiles_below_and_their_updates_continue_the_factorisation_of_the_whole_matrix() {
        // A = G G^T + n I in tiles of 3 rows and columns (the last of 1): the first diagonal
        // tile's factor, the tiles below divided by it, and the trailing tiles less their
        // products are what the whole matrix's factor holds there.
        let n = 7;
        let g = Mat::from_fn(n, n, |i, j| ((i * 5 + j * 3) % 7) as f64 - 3.0);
        let a = &g * g.transpose() + Mat::<f64>::identity(n, n) * (n as f64);
        let l = a.llt(Side::Lower).unwrap().L().to_owned();
        let close = |x: MatRef<f64>, y: MatRef<f64>| (0..x.nrows()).all(|i| (0..x.ncols()).all(|j| (x[(i, j)] - y[(i, j)]).abs() < 1e-10));
        let diagonal = row_major(&cholesky_panel(a.submatrix(0, 0, 3, 3), 0).unwrap(), 3, 3);
        assert!(close(diagonal.as_ref(), l.submatrix(0, 0, 3, 3)));
        let spans = [(3, 3), (6, 1)];
        let below: Vec<Mat<f64>> = spans.iter().map(|&(r, h)| row_major(&cholesky_below(diagonal.as_ref(), a.submatrix(r, 0, h, 3)), h, 3)).collect();
        for (&(r, h), tile) in spans.iter().zip(&below) {
            assert!(close(tile.as_ref(), l.submatrix(r, 0, h, 3)));
        }
        // The trailing matrix's lower tiles, updated (the diagonal ones on and below their
        // diagonal only, the rest as they were), factorise as the rest of L.
        let mut rest = Mat::<f64>::zeros(4, 4);
        for (i, &(r, h)) in spans.iter().enumerate() {
            for (j, &(c, w)) in spans.iter().enumerate().take(i) {
                let updated = row_major(&cholesky_update(below[i].as_ref(), a.submatrix(r, c, h, w), below[j].as_ref()), h, w);
                rest.submatrix_mut(r - 3, c - 3, h, w).copy_from(&updated);
            }
            let tile = a.submatrix(r, r, h, h);
            let updated = row_major(&cholesky_diagonal_update(below[i].as_ref(), tile), h, h);
            let full = row_major(&cholesky_update(below[i].as_ref(), tile, below[i].as_ref()), h, h);
            assert!((0..h).all(|p| (0..h).all(|q| if q <= p { (updated[(p, q)] - full[(p, q)]).abs() < 1e-10 } else { updated[(p, q)] == tile[(p, q)] })));
            rest.submatrix_mut(r - 3, r - 3, h, h).copy_from(&updated);
        }
        let rest = rest.llt(Side::Lower).unwrap().L().to_owned();
        assert!(close(rest.as_ref(), l.submatrix(3, 3, 4, 4)));
    }

    #[test]
    fn an_indefinite_diagonal_tile_is_named() {
        let x = Mat::from_fn(3, 2, |i, j| if i == j { -1.0 } else { 0.0 });
        let err = cholesky_panel(x.as_ref(), 4).unwrap_err();
        assert!(err.to_string().contains("diagonal tile 4"));
    }
}
