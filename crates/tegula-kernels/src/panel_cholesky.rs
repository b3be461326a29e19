//! The two kernels of a Cholesky factorisation by column panels (right-looking, as LAPACK's
//! blocked `potrf`): `LinalgOp::CholeskyPanel` factorises a step's panel, its rows from the
//! diagonal down (the diagonal tile's factor, the rows below it divided by that factor);
//! `LinalgOp::CholeskyUpdate` takes the panel's product out of a column block right of it,
//! as one GEMM that accumulates into the block.

use crate::field::Field;
use crate::row_major::rows;
use faer::linalg::{matmul::matmul, triangular_solve::solve_lower_triangular_in_place};
use faer::{Accum, MatMut, MatRef, Side};
use tegula_core::{linalg_err, Result};

/// The panel `x` (at least as tall as wide) factorised, row-major: its top square's lower
/// Cholesky factor `L` (only the square's lower triangle read; zeros above the diagonal), the
/// rows below multiplied by `L^-H` on the right. An error names diagonal `tile` where the top
/// square is not positive definite.
pub(crate) fn cholesky_panel<T: Field>(x: MatRef<T>, tile: u32) -> Result<Vec<T>> {
    let (m, w) = x.shape();
    let llt = x.subrows(0, w).llt(Side::Lower).map_err(|_| {
        linalg_err!("Matrix is not positive definite (in diagonal tile {tile} of a factorisation by tiles)")
    })?;
    let mut out = rows(x);
    let (mut top, below) = MatMut::from_row_major_slice_mut(&mut out, m, w).split_at_row_mut(w);
    top.copy_from(llt.L());
    // B L^-H, transposed: conj(L)^-1 B^T.
    solve_lower_triangular_in_place(llt.L().conjugate(), below.transpose_mut(), faer::get_global_parallelism());
    Ok(out)
}

/// `block` (a column block's rows from its diagonal tile down) less `P_b P_d^H`, row-major:
/// `P_b` the rows of the factorised `panel` level with the block (its last rows), `P_d` those
/// level with the block's diagonal tile (the first of them).
pub(crate) fn cholesky_update<T: Field>(panel: MatRef<T>, block: MatRef<T>) -> Vec<T> {
    let (m, w) = block.shape();
    let level = panel.subrows(panel.nrows() - m, m);
    let mut out = rows(block);
    let target = MatMut::from_row_major_slice_mut(&mut out, m, w);
    matmul(target, Accum::Add, level, level.subrows(0, w).adjoint(), -T::one_impl(), faer::get_global_parallelism());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use faer::Mat;

    fn row_major(data: &[f64], m: usize, n: usize) -> Mat<f64> {
        Mat::from_fn(m, n, |i, j| data[i * n + j])
    }

    #[test]
    fn a_panel_and_its_update_continue_the_factorisation_of_the_whole_matrix() {
        // A = G G^T + n I in two column panels of 3 and 4: L's first panel times its top
        // rows' adjoint is what the update takes out of the second.
        let n = 7;
        let g = Mat::from_fn(n, n, |i, j| ((i * 5 + j * 3) % 7) as f64 - 3.0);
        let a = &g * g.transpose() + Mat::<f64>::identity(n, n) * (n as f64);
        let l = a.llt(Side::Lower).unwrap().L().to_owned();
        let panel = row_major(&cholesky_panel(a.subcols(0, 3), 0).unwrap(), n, 3);
        let close = |x: MatRef<f64>, y: MatRef<f64>| (0..x.nrows()).all(|i| (0..x.ncols()).all(|j| (x[(i, j)] - y[(i, j)]).abs() < 1e-10));
        assert!(close(panel.as_ref(), l.subcols(0, 3)));
        let updated = row_major(&cholesky_update(panel.as_ref(), a.submatrix(3, 3, 4, 4)), 4, 4);
        let rest = updated.llt(Side::Lower).unwrap().L().to_owned();
        assert!(close(rest.as_ref(), l.submatrix(3, 3, 4, 4)));
    }

    #[test]
    fn an_indefinite_diagonal_tile_is_named() {
        let x = Mat::from_fn(3, 2, |i, j| if i == j { -1.0 } else { 0.0 });
        let err = cholesky_panel(x.as_ref(), 4).unwrap_err();
        assert!(err.to_string().contains("diagonal tile 4"));
    }
}
