//! The two kernels of an LU factorisation by tiles with partial pivoting (right-looking, by
//! panels of columns as LAPACK's blocked `getrf`): `LinalgOp::PanelLu` factorises the panel
//! of a step, its rows from the diagonal down, choosing each pivot down the whole column, so
//! the pivots are those of the unblocked factorisation; `LinalgOp::LuUpdate` applies the
//! panel's swaps and factor to a column block right of it (or of the right-hand sides).

use crate::field::Field;
use crate::row_major::rows;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::lu::partial_pivoting::factor as lu;
use faer::linalg::{matmul::matmul, triangular_solve::solve_unit_lower_triangular_in_place};
use faer::{Accum, Mat, MatMut, MatRef};
use tegula_core::{linalg_err, Result};

/// The panel `a` (at least as tall as wide) factorised with partial pivoting, row-major: its
/// rows swapped, the unit lower `L` below the diagonal and `U` on and above it; and the swaps
/// (element `i` the row swapped with row `i`, in order) as whole numbers. A zero pivot is an
/// error where `refuse_singular`, else left for the caller (its `U` has a zero on the diagonal).
/// Factorised in place: a panel of an out-of-core factorisation is as big as the memory
/// budget allows, and a copy would go beyond it.
pub(crate) fn panel_lu<T: Field>(mut a: Mat<T>, refuse_singular: bool) -> Result<(Vec<T>, Vec<T>)> {
    let (m, w) = a.shape();
    let (mut perm, mut perm_inv) = (vec![0usize; m], vec![0usize; m]);
    let par = faer::get_global_parallelism();
    let params = Default::default();
    let mut buffer = MemBuffer::new(lu::lu_in_place_scratch::<usize, T>(m, w, par, params));
    lu::lu_in_place(a.as_mut(), &mut perm, &mut perm_inv, par, MemStack::new(&mut buffer), params);
    if refuse_singular && (0..w).any(|i| a[(i, i)] == T::zero_impl()) {
        return Err(linalg_err!("Singular matrix"));
    }
    let swaps = swaps_of(&perm, w).into_iter().map(|s| T::from_f64(s as f64)).collect();
    Ok((rows(a.as_ref()), swaps))
}

/// The swaps of rows `i` and `s[i]` (`s[i] >= i`), for `i` in `0..width` in order, that
/// arrange the rows as `perm` says (row `i` of the result is row `perm[i]` of the input).
fn swaps_of(perm: &[usize], width: usize) -> Vec<usize> {
    // `position[r]`: where row `r` of the input is now; `holding[p]`: the input row at `p`.
    let mut position: Vec<usize> = (0..perm.len()).collect();
    let mut holding = position.clone();
    (0..width)
        .map(|i| {
            let j = position[perm[i]];
            let (at_i, at_j) = (holding[i], holding[j]);
            holding.swap(i, j);
            (position[at_i], position[at_j]) = (j, i);
            j
        })
        .collect()
}

/// `block` (as many rows as `panel`) updated by the factorised panel and its `swaps` (a row),
/// row-major: rows swapped; the top `width` rows divided by the panel's unit lower triangle;
/// the rest less the panel's lower rows times the new top rows. The block is worked on in
/// row-major order (a swap moves two runs of memory), the panel read where it is.
pub(crate) fn lu_update<T: Field>(panel: MatRef<T>, swaps: MatRef<T>, block: MatRef<T>) -> Vec<T> {
    let (w, (m, c)) = (panel.ncols(), block.shape());
    let mut out = rows(block);
    for i in 0..w {
        let j = swaps[(0, i)].cast::<f64>() as usize;
        if j > i {
            let (upper, lower) = out.split_at_mut(j * c);
            upper[i * c..(i + 1) * c].swap_with_slice(&mut lower[..c]);
        }
    }
    let par = faer::get_global_parallelism();
    let (mut top, bottom) = MatMut::from_row_major_slice_mut(&mut out, m, c).split_at_row_mut(w);
    solve_unit_lower_triangular_in_place(panel.subrows(0, w), top.as_mut(), par);
    matmul(bottom, Accum::Add, panel.subrows(w, m - w), top.as_ref(), -T::one_impl(), par);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use faer::Mat;

    /// A matrix of `m` rows and `n` columns whose elements repeat no pattern a pivot could
    /// follow by chance.
    fn scrambled(m: usize, n: usize, seed: u64) -> Mat<f64> {
        Mat::from_fn(m, n, |i, j| (((i * 7919 + j * 104_729) as u64 ^ seed) % 1013) as f64 / 1013.0 - 0.5)
    }

    fn row_major(data: &[f64], m: usize, n: usize) -> Mat<f64> {
        Mat::from_fn(m, n, |i, j| data[i * n + j])
    }

    fn close(a: MatRef<f64>, b: MatRef<f64>) -> bool {
        (0..a.nrows()).all(|i| (0..a.ncols()).all(|j| (a[(i, j)] - b[(i, j)]).abs() < 1e-12))
    }

    /// The swaps applied in order to the rows of `x`.
    fn swapped(x: MatRef<f64>, swaps: &[f64]) -> Mat<f64> {
        let mut out = x.to_owned();
        for (i, &j) in swaps.iter().enumerate() {
            for c in 0..out.ncols() {
                let (a, b) = (out[(i, c)], out[(j as usize, c)]);
                (out[(i, c)], out[(j as usize, c)]) = (b, a);
            }
        }
        out
    }

    #[test]
    fn swaps_arrange_rows_as_the_permutation() {
        // Row 0 takes input row 3, row 1 input row 0, row 2 input row 2.
        let perm = [3, 0, 2, 1];
        let swaps = swaps_of(&perm, 3);
        let mut rows: Vec<usize> = (0..4).collect();
        for (i, &j) in swaps.iter().enumerate() {
            assert!(j >= i);
            rows.swap(i, j);
        }
        assert_eq!(&rows[..3], &perm[..3]);
    }

    #[test]
    fn panel_factors_multiply_back_to_the_swapped_panel() {
        let (m, w) = (37, 9);
        let x = scrambled(m, w, 5);
        let (packed, swaps) = panel_lu(x.clone(), true).unwrap();
        let packed = row_major(&packed, m, w);
        let l = Mat::from_fn(m, w, |i, j| if i == j { 1.0 } else if i > j { packed[(i, j)] } else { 0.0 });
        let u = Mat::from_fn(w, w, |i, j| if i <= j { packed[(i, j)] } else { 0.0 });
        assert!(close((&l * &u).as_ref(), swapped(x.as_ref(), &swaps).as_ref()));
        // Partial pivoting: no multiplier is larger than one.
        assert!((0..m).all(|i| (0..w.min(i)).all(|j| l[(i, j)].abs() <= 1.0)));
    }

    #[test]
    fn an_update_continues_the_factorisation_of_the_whole_matrix() {
        // [P | B] = L [U | T]: the update gives `T` on top, and below, what is left to factorise.
        let (m, w, c) = (23, 6, 5);
        let (x, block) = (scrambled(m, w, 1), scrambled(m, c, 2));
        let (packed, swaps) = panel_lu(x, true).unwrap();
        let packed = row_major(&packed, m, w);
        let updated = row_major(&lu_update(packed.as_ref(), row_major(&swaps, 1, w).as_ref(), block.as_ref()), m, c);
        let l = Mat::from_fn(m, w, |i, j| if i == j { 1.0 } else if i > j { packed[(i, j)] } else { 0.0 });
        let top = updated.subrows(0, w);
        let mut rebuilt = &l * top;
        for i in w..m {
            for j in 0..c {
                rebuilt[(i, j)] += updated[(i, j)];
            }
        }
        assert!(close(rebuilt.as_ref(), swapped(block.as_ref(), &swaps).as_ref()));
    }

    #[test]
    fn a_zero_pivot_is_singular_where_refused() {
        let mut x = scrambled(8, 4, 3);
        for i in 0..8 {
            x[(i, 2)] = 0.0;
        }
        assert!(panel_lu(x.clone(), true).is_err());
        let (packed, _) = panel_lu(x, false).unwrap();
        assert_eq!(packed[2 * 4 + 2], 0.0);
    }
}
