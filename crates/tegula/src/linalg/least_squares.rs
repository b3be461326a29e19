//! NumPy's `linalg.lstsq`. For a matrix at least as tall as wide, `a` and `b` side by side are
//! factorised by one QR (TSQR for a tall one in row blocks, tiles for a big one in several
//! column blocks): `R`'s top left square is `a`'s `R`, its top right `Q^H b`, its bottom
//! right holds the residuals, so `a` is read once. The small square's singular values give
//! the rank; at full rank the solution is the square's triangular solve, else the minimum-norm
//! one from its SVD. A wider matrix goes through its pseudo-inverse.

use super::tiles::slice;
use super::{adjoint, Linalg};
use crate::array::{compute, Array, ComputeOptions};
use crate::constant::{all, constant, whole};
use crate::ops::{IndexItem, ReduceSpec};
use tegula_core::{linalg_err, promote, AxisChunks, ChunkSpec, DType, LinalgOp, ReduceOp, Result, Scalar, UnaryOp};

/// What `lstsq` returns: NumPy's `(x, residuals, rank, s)`.
#[derive(Debug, Clone)]
pub struct Lstsq {
    /// The least-squares solution (the minimum-norm one when the matrix is rank deficient).
    pub x: Array,
    /// The squared residuals per column where the rank is full and the matrix taller than
    /// wide, else empty.
    pub residuals: Array,
    /// The matrix's rank (computed when `lstsq` is called: the residuals' shape depends on it).
    pub rank: usize,
    /// The singular values of the matrix.
    pub s: Array,
}

impl Linalg {
    /// NumPy's `linalg.lstsq`: `x` minimising `|b - a x|` (the minimum-norm one when `a` is rank
    /// deficient), from the singular values above `rcond` times the largest (default
    /// `max(M, N)` times float64's epsilon, as NumPy's). The rank is computed now, and with
    /// it, for a matrix at least as tall as wide, the `R` of `a` and `b` side by side (small:
    /// as wide as they are).
    pub fn lstsq(&self, a: &Array, b: &Array, rcond: Option<f64>) -> Result<Lstsq> {
        if a.ndim() != 2 {
            return Err(linalg_err!("{}-dimensional array given. Array must be two-dimensional", a.ndim()));
        }
        if !(1..=2).contains(&b.ndim()) {
            return Err(linalg_err!("{}-dimensional array given. Array must be one or two-dimensional", b.ndim()));
        }
        let (m, n) = (a.shape()[0], a.shape()[1]);
        if b.shape()[0] != m {
            return Err(linalg_err!("Incompatible dimensions"));
        }
        // NumPy's default: double precision's epsilon whatever the dtype (its lstsq computes in
        // double precision).
        let rtol = rcond.unwrap_or(m.max(n) as f64 * f64::EPSILON);
        let columns = if b.ndim() == 1 { b.index(&[all(), IndexItem::NewAxis])? } else { b.clone() };
        if m < n || n == 0 || columns.shape()[1] == 0 {
            return self.lstsq_by_pinv(a, b, rtol);
        }
        let (x, residuals, rank, s) = self.lstsq_by_qr(a, &columns, rtol)?;
        if b.ndim() == 1 {
            return Ok(Lstsq { x: x.index(&[all(), IndexItem::Int(0)])?, residuals, rank, s });
        }
        Ok(Lstsq { x, residuals, rank, s })
    }

    /// `lstsq` of a matrix at least as tall as wide, `b` 2-d: `(x, residuals, rank, s)`.
    fn lstsq_by_qr(&self, a: &Array, b: &Array, rtol: f64) -> Result<(Array, Array, usize, Array)> {
        let (m, n, k) = (a.shape()[0], a.shape()[1], b.shape()[1]);
        let dtype = LinalgOp::Qr { complete: false, output: 1 }.compute_dtype(promote(a.dtype(), b.dtype()))?;
        let joined = Array::concatenate(&[&a.astype(dtype)?, &b.astype(dtype)?], Some(1))?;
        // `a` in one column block: `b` joins it there, so a tall `a` goes through TSQR.
        let joined = if a.chunks().numblocks()[1] == 1 {
            joined.rechunk(&ChunkSpec::PerAxis(vec![AxisChunks::Size(a.chunks().sizes()[0][0].max(1)), AxisChunks::Full]))?
        } else {
            joined
        };
        let r = computed(&[&self.qr(&joined, false)?.1])?.remove(0);
        let (square, projected) = (slice(&r, (0, n), (0, n))?, slice(&r, (0, n), (n, n + k))?);
        let s = computed(&[&self.svdvals(&square)?])?.remove(0);
        let values = float_values(&s)?;
        let cutoff = rtol * values.iter().copied().fold(0.0, f64::max);
        let rank = values.iter().filter(|&&v| v > cutoff).count();
        let smallest_diagonal = float_values(&square.diagonal(0)?.unary(UnaryOp::Abs)?)?.into_iter().fold(f64::INFINITY, f64::min);
        let x = if rank == n && smallest_diagonal > cutoff {
            // Full rank (and a triangle to solve: rounding may leave an exact zero on R's
            // diagonal where the singular values hold noise): R x = Q^H b, no singular vectors.
            square.linalg(LinalgOp::SolveTriangular { lower: false, unit_diagonal: false }, &[&projected])?
        } else {
            minimum_norm(self, &square, &projected, cutoff, dtype)?
        };
        let residuals = if rank == n && m > n {
            column_squares(&slice(&r, (n, r.shape()[0]), (n, n + k))?)?
        } else {
            Array::zeros(&[0], dtype.real_part(), &whole())?
        };
        Ok((x, residuals, rank, s))
    }

    /// `lstsq` through the pseudo-inverse (a matrix wider than tall, or an empty one).
    fn lstsq_by_pinv(&self, a: &Array, b: &Array, rtol: f64) -> Result<Lstsq> {
        let (m, n) = (a.shape()[0], a.shape()[1]);
        let x = self.pinv(a, Some(rtol))?.matmul(b)?;
        let s = self.svdvals(a)?;
        let rank = self.matrix_rank(a, Some(&constant(Scalar::Float(rtol), DType::Float64)?))?;
        let rank = rank.compute()?.typed::<i64>()?.iter().next().copied().unwrap_or(0) as usize;
        let residuals = if rank == n && m > n {
            let sums = column_squares(&b.sub(&a.matmul(&x)?)?)?;
            if b.ndim() == 1 {
                sums.index(&[IndexItem::NewAxis])?
            } else {
                sums
            }
        } else {
            Array::zeros(&[0], s.dtype(), &whole())?
        };
        Ok(Lstsq { x, residuals, rank, s })
    }
}

/// The sum of the squared moduli down each column (the first axis) of `x`.
fn column_squares(x: &Array) -> Result<Array> {
    let moduli = x.unary(UnaryOp::Abs)?;
    moduli.mul(&moduli)?.reduce(&ReduceSpec { axes: Some(vec![0]), ..ReduceSpec::new(ReduceOp::Sum) })
}

/// The values of the real array `x`, computed, as float64.
fn float_values(x: &Array) -> Result<Vec<f64>> {
    Ok(x.compute()?.cast(DType::Float64).typed::<f64>()?.iter().copied().collect())
}

/// `V S^+ U^H z` for the SVD `U S V^H` of `square`, the singular values at or under `cutoff`
/// left out: the minimum-norm least-squares solution where `square` is rank deficient.
fn minimum_norm(la: &Linalg, square: &Array, z: &Array, cutoff: f64, dtype: DType) -> Result<Array> {
    let (u, s, vh) = la.svd(square, false)?;
    let [u, s, vh]: [Array; 3] = computed(&[&u, &s, &vh])?.try_into().expect("U, S and Vh");
    let inverse: Vec<f64> = float_values(&s)?.iter().map(|&v| if v > cutoff { 1.0 / v } else { 0.0 }).collect();
    let inverse = Array::from_ndarray(ndarray::Array1::from(inverse).into_dyn(), &whole())?.astype(dtype.real_part())?;
    let projected = adjoint(&u)?.matmul(z)?;
    adjoint(&vh)?.matmul(&projected.mul(&inverse.index(&[all(), IndexItem::NewAxis])?)?)
}

/// The arrays computed together, each now one block in memory.
fn computed(arrays: &[&Array]) -> Result<Vec<Array>> {
    let (chunks, _) = compute(arrays, ComputeOptions::default())?;
    chunks.into_iter().map(|c| Array::from_chunk(c, &whole())).collect()
}
