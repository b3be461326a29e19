//! The QR of a tall block by TSQR inside it. Householder QR of a tall matrix at once passes over
//! all its rows once per column, at memory speed; here the rows are cut into slabs of about
//! 1 MB, each factorised in cache (in parallel), their `R`s stacked and factorised the same way
//! again. So `x = diag(Q_slab) · Q_stack · R`, and `Q` is never formed: `Q @ b` applies the
//! stack's `Q`, then each slab's reflectors to its part. Both passes factorise the same slabs
//! the same way, so the `Q` applied is the one whose `R` the first pass returned.

use crate::field::Field;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::householder as hh;
use faer::{Mat, MatMut, MatRef};
use rayon::prelude::*;
use tegula_core::{internal_err, Result};

/// Rows per slab: about 1 MB of a matrix `n` wide, and at least `2n`, so stacking shrinks.
fn slab_rows(n: usize) -> usize {
    (131_072 / n.max(1)).max(2 * n).max(64)
}

/// The slabs `(first row, rows)` of an `m × n` matrix, or one slab when it is not tall.
fn slabs(m: usize, n: usize) -> Vec<(usize, usize)> {
    let h = slab_rows(n);
    if m <= 2 * h {
        return vec![(0, m)];
    }
    (0..m).step_by(h).map(|r0| (r0, h.min(m - r0))).collect()
}

/// The `min(m, n) × n` upper triangular `R` of `x = Q R`.
pub(crate) fn tall_r<T: Field>(x: MatRef<T>) -> Mat<T> {
    if slabs(x.nrows(), x.ncols()).len() == 1 {
        return x.qr().thin_R().to_owned();
    }
    tall_r(stacked_rs(x).as_ref())
}

/// The `R`s of the slabs of `x`, one above the other.
fn stacked_rs<T: Field>(x: MatRef<T>) -> Mat<T> {
    let n = x.ncols();
    let parts: Vec<Mat<T>> =
        slabs(x.nrows(), n).into_par_iter().map(|(r0, h)| x.subrows(r0, h).qr().thin_R().to_owned()).collect();
    let mut out = Mat::zeros(parts.iter().map(Mat::nrows).sum(), n);
    let mut at = 0;
    for part in parts {
        out.as_mut().subrows_mut(at, part.nrows()).copy_from(&part);
        at += part.nrows();
    }
    out
}

/// `Q @ b`, row-major (`m × k`), for the thin `Q` of [`tall_r`]'s factorisation of `x`; `b` has
/// `min(m, n)` rows.
pub(crate) fn tall_q_times<T: Field>(x: MatRef<T>, b: MatRef<T>) -> Result<Vec<T>> {
    let (m, n, k) = (x.nrows(), x.ncols(), b.ncols());
    if b.nrows() != m.min(n) {
        return Err(internal_err!("qr-apply of a {m}x{n} matrix to {} rows", b.nrows()));
    }
    let parts = slabs(m, n);
    // Zeros in huge pages: `q_times` needs its rows below `b`'s zero.
    let mut out = tegula_core::memory::big_vec(m * k);
    out.resize(m * k, T::zero_impl());
    if parts.len() == 1 {
        q_times(x, b, MatMut::from_row_major_slice_mut(&mut out, m, k));
        return Ok(out);
    }
    let stack = stacked_rs(x);
    let inner = tall_q_times(stack.as_ref(), b)?;
    let inner = MatRef::from_row_major_slice(&inner, stack.nrows(), k);
    // Every slab but the last has `slab_rows` rows, so the output's row-major chunks of that
    // many rows are the slabs' parts; slab `s` takes rows `s·min(h, n)..` of the inner product.
    let h = slab_rows(n);
    out.par_chunks_mut(h * k.max(1)).zip(parts).enumerate().for_each(|(s, (dst, (r0, rows)))| {
        let dst = MatMut::from_row_major_slice_mut(&mut dst[..rows * k], rows, k);
        q_times(x.subrows(r0, rows), inner.subrows(s * h.min(n), rows.min(n)), dst);
    });
    Ok(out)
}

/// `dst = Q @ b` for the thin `Q` of faer's QR of `x`, where `dst` holds zeros: the reflectors
/// applied in place to `b` padded with those zero rows, never forming `Q`.
fn q_times<T: Field>(x: MatRef<T>, b: MatRef<T>, mut dst: MatMut<T>) {
    let qr = x.qr();
    let (m, k) = (x.nrows(), b.ncols());
    dst.as_mut().subrows_mut(0, b.nrows()).copy_from(b);
    let scratch = hh::apply_block_householder_sequence_on_the_left_in_place_scratch::<T>(m, qr.Q_coeff().nrows(), k);
    let mut buffer = MemBuffer::new(scratch);
    let (basis, coeff, par) = (qr.Q_basis(), qr.Q_coeff(), faer::get_global_parallelism());
    hh::apply_block_householder_sequence_on_the_left_in_place_with_conj(basis, coeff, faer::Conj::No, dst, par, MemStack::new(&mut buffer));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: MatRef<f64>, b: MatRef<f64>, tol: f64) -> bool {
        (0..a.nrows()).all(|i| (0..a.ncols()).all(|j| (a[(i, j)] - b[(i, j)]).abs() <= tol))
    }

    #[test]
    fn slabbed_factors_multiply_back_and_q_is_orthonormal() {
        // One slab; three slabs; slabs whose stacked R's are slabbed again (twice).
        for (m, n) in [(50, 4), (60_000, 5), (5_000, 300)] {
            let x = Mat::<f64>::from_fn(m, n, |i, j| (((i * 7919 + j * 104_729) % 1_000) as f64 / 500.0 - 1.0) + (i == j) as u8 as f64);
            let r = tall_r(x.as_ref());
            assert_eq!(r.shape(), (n, n));
            assert!((0..n).all(|i| (0..i).all(|j| r[(i, j)] == 0.0)), "R is upper triangular");
            let q = tall_q_times(x.as_ref(), Mat::<f64>::identity(n, n).as_ref()).unwrap();
            let q = MatRef::from_row_major_slice(&q, m, n);
            assert!(close((q.transpose() * q).as_ref(), Mat::<f64>::identity(n, n).as_ref(), 1e-10), "{m}x{n}: QᵀQ = I");
            assert!(close((q * &r).as_ref(), x.as_ref(), 1e-9), "{m}x{n}: QR = x");
        }
        assert!(tall_q_times(Mat::<f64>::zeros(10, 3).as_ref(), Mat::<f64>::zeros(4, 3).as_ref()).is_err());
    }
}
