//! Dense linear algebra of each matrix (the last two axes) of a block, with faer, in the
//! block's own dtype (float32/float64/complex64/complex128). Decompositions follow NumPy's
//! conventions: `Vh` not `V`, `R` upper triangular, eigenvalues ascending, singular values
//! descending; singular or non-positive-definite matrices are `LinAlgError`s, as LAPACK's
//! `info > 0` is in NumPy (an exactly zero pivot of the LU factorisation is singular).

use crate::chunk::{Block, Chunk, Wrap};
use crate::element::{Elem, C128, C64};
use faer::linalg::solvers::{DenseSolveCore, Solve};
use faer::traits::{ComplexField, RealField};
use faer::{Mat, MatRef, Side};
use ndarray::ArrayD;
use std::ops::{Add, Mul};
use tegula_core::{internal_err, linalg_err, DType, LinalgOp, Result};

/// An element type faer factorises, with its real counterpart.
pub trait Field: ComplexField<Real = Self::R> + Wrap + Copy + Add<Output = Self> + Mul<Output = Self> {
    type R: RealField + Wrap + Copy;
}
impl Field for f32 {
    type R = f32;
}
impl Field for f64 {
    type R = f64;
}
impl Field for C64 {
    type R = f32;
}
impl Field for C128 {
    type R = f64;
}

pub fn linalg(op: LinalgOp, inputs: &[Chunk]) -> Result<Chunk> {
    match inputs.first().map(Chunk::dtype) {
        Some(DType::Float32) => typed::<f32>(op, inputs),
        Some(DType::Float64) => typed::<f64>(op, inputs),
        Some(DType::Complex64) => typed::<C64>(op, inputs),
        Some(DType::Complex128) => typed::<C128>(op, inputs),
        d => Err(internal_err!("{} of a {d:?} block", op.name())),
    }
}

/// The matrices of one block: `(count, m, n)`, read row-major.
struct Stack<T> {
    stack: Vec<usize>,
    data: ndarray::Array3<T>,
}

impl<T: Field> Stack<T> {
    fn new(c: &Chunk) -> Result<Stack<T>> {
        let a: &Block<T> = c.typed()?;
        let s = a.shape();
        if s.len() < 2 {
            return Err(internal_err!("linalg block of shape {s:?}"));
        }
        let (stack, (m, n)) = (s[..s.len() - 2].to_vec(), (s[s.len() - 2], s[s.len() - 1]));
        let count = stack.iter().product();
        let data = a.as_standard_layout().into_owned().into_shape_with_order((count, m, n));
        Ok(Stack { stack, data: data.map_err(|e| internal_err!("linalg block: {e}"))? })
    }
    fn matrix(&self, i: usize) -> Mat<T> {
        let (_, m, n) = self.data.dim();
        Mat::from_fn(m, n, |r, c| self.data[[i, r, c]])
    }
}

fn typed<T: Field>(op: LinalgOp, inputs: &[Chunk]) -> Result<Chunk> {
    let a = Stack::<T>::new(&inputs[0])?;
    let b = inputs.get(1).map(Stack::<T>::new).transpose()?;
    let (m, n) = (a.data.dim().1, a.data.dim().2);
    let shape = |tail: &[usize]| a.stack.iter().chain(tail).copied().collect::<Vec<usize>>();
    let k = m.min(n);
    let x = |i: usize| a.matrix(i);
    match op {
        LinalgOp::Cholesky { upper } => each(&a, &shape(&[n, n]), |i| cholesky(x(i).as_ref(), upper)),
        LinalgOp::Inv => each(&a, &shape(&[n, n]), |i| Ok(rows(lu(x(i).as_ref())?.inverse().as_ref()))),
        LinalgOp::Solve => {
            let b = b.ok_or_else(|| internal_err!("solve needs two inputs"))?;
            let k = b.data.dim().2;
            each(&a, &shape(&[n, k]), |i| Ok(rows(lu(x(i).as_ref())?.solve(b.matrix(i).as_ref()).as_ref())))
        }
        LinalgOp::Det => each(&a, &shape(&[]), |i| Ok(vec![det(x(i).as_ref())])),
        LinalgOp::Slogdet { output: 0 } => each(&a, &shape(&[]), |i| Ok(vec![slogdet(x(i).as_ref()).0])),
        LinalgOp::Slogdet { .. } => each(&a, &shape(&[]), |i| Ok(vec![slogdet(x(i).as_ref()).1])),
        LinalgOp::Qr { complete, output } => {
            each(&a, &shape(&op.result_shape(&[(m, n)])), |i| Ok(qr(x(i).as_ref(), complete, output)))
        }
        LinalgOp::Svd { output: 1, .. } => each(&a, &shape(&[k]), |i| singular_values(x(i).as_ref())),
        LinalgOp::Svd { full, output } => {
            each(&a, &shape(&op.result_shape(&[(m, n)])), |i| svd(x(i).as_ref(), full, output == 0))
        }
        LinalgOp::Eigh { output: 0 } => each(&a, &shape(&[n]), |i| {
            x(i).as_ref().self_adjoint_eigenvalues(Side::Lower).map_err(|_| linalg_err!("Eigenvalues did not converge"))
        }),
        LinalgOp::Eigh { .. } => each(&a, &shape(&[n, n]), |i| {
            let e = x(i).as_ref().self_adjoint_eigen(Side::Lower).map_err(|_| linalg_err!("Eigenvalues did not converge"))?;
            Ok(rows(e.U()))
        }),
        LinalgOp::Pinv { rtol } => each(&a, &shape(&[n, m]), |i| pinv(x(i).as_ref(), rtol)),
    }
}

/// The results of `f` for each matrix (by its index) of `a`, one after another, as a block
/// of `shape`.
fn each<T, U: Wrap>(a: &Stack<T>, shape: &[usize], f: impl FnMut(usize) -> Result<Vec<U>>) -> Result<Chunk> {
    let mut out = Vec::with_capacity(shape.iter().product());
    for part in (0..a.data.dim().0).map(f) {
        out.extend(part?);
    }
    let out = ArrayD::from_shape_vec(shape, out).map_err(|e| internal_err!("linalg result: {e}"))?;
    Ok(U::wrap(out.into_shared()))
}

/// A matrix's elements in row-major order.
fn rows<T: Field>(x: MatRef<T>) -> Vec<T> {
    (0..x.nrows()).flat_map(|r| (0..x.ncols()).map(move |c| x[(r, c)])).collect()
}

/// The conjugate transpose's elements in row-major order.
fn adjoint_rows<T: Field>(x: MatRef<T>) -> Vec<T> {
    rows(x.adjoint().to_owned().as_ref())
}

fn cholesky<T: Field>(x: MatRef<T>, upper: bool) -> Result<Vec<T>> {
    let llt = x.llt(Side::Lower).map_err(|_| linalg_err!("Matrix is not positive definite"))?;
    Ok(if upper { adjoint_rows(llt.L()) } else { rows(llt.L()) })
}

/// The LU factorisation of a square matrix, or NumPy's error when a pivot is exactly zero.
fn lu<T: Field>(x: MatRef<T>) -> Result<faer::linalg::solvers::PartialPivLu<T>> {
    let lu = x.partial_piv_lu();
    let u = lu.U();
    if (0..u.nrows()).any(|i| u[(i, i)] == T::zero_impl()) {
        return Err(linalg_err!("Singular matrix"));
    }
    Ok(lu)
}

/// The sign of the row permutation and the diagonal of `U` of `x`'s LU factorisation
/// (`det = sign * prod(diagonal)`).
fn lu_diagonal<T: Field>(x: MatRef<T>) -> (f64, Vec<T>) {
    let lu = x.partial_piv_lu();
    let (forward, _) = lu.P().arrays();
    let mut seen = vec![false; forward.len()];
    let mut sign = 1.0;
    for start in 0..forward.len() {
        let mut len = 0;
        let mut i = start;
        while !seen[i] {
            seen[i] = true;
            i = forward[i];
            len += 1;
        }
        // A cycle of `len` elements is `len - 1` transpositions.
        if len > 0 && len % 2 == 0 {
            sign = -sign;
        }
    }
    let u = lu.U();
    (sign, (0..u.nrows()).map(|i| u[(i, i)]).collect())
}

fn det<T: Field>(x: MatRef<T>) -> T {
    let (sign, diagonal) = lu_diagonal(x);
    diagonal.into_iter().fold(T::from_f64(sign), |acc, d| acc * d)
}

/// `(sign, log|det|)`, computed in double precision: a sign of zero and `-inf` for a singular
/// matrix, as NumPy's.
fn slogdet<T: Field>(x: MatRef<T>) -> (T, T::R) {
    let (sign, diagonal) = lu_diagonal(x);
    let (mut sign, mut log) = (C128::new(sign, 0.0), 0.0f64);
    for d in diagonal {
        let d: C128 = d.cast();
        let modulus = d.norm();
        if modulus == 0.0 {
            return (T::from_f64(0.0), T::R::from_f64(f64::NEG_INFINITY));
        }
        sign *= d / modulus;
        log += modulus.ln();
    }
    (T::from_c128(sign), T::R::from_f64(log))
}

fn qr<T: Field>(x: MatRef<T>, complete: bool, output: u8) -> Vec<T> {
    let qr = x.qr();
    if output == 0 {
        return rows(if complete { qr.compute_Q() } else { qr.compute_thin_Q() }.as_ref());
    }
    // The upper triangle of faer's `R`, with zero rows below it up to `m` when complete.
    let (r, n) = (qr.thin_R(), x.ncols());
    let height = if complete { x.nrows() } else { r.nrows() };
    let at = |i: usize, j: usize| if j >= i && i < r.nrows() { r[(i, j)] } else { T::zero_impl() };
    (0..height).flat_map(|i| (0..n).map(move |j| at(i, j))).collect()
}

fn singular_values<T: Field>(x: MatRef<T>) -> Result<Vec<T::R>> {
    if x.nrows() == 0 || x.ncols() == 0 {
        return Ok(Vec::new());
    }
    x.singular_values().map_err(|_| linalg_err!("SVD did not converge"))
}

/// `U` (when `left`) or `Vh` of `x`'s SVD, square when `full`.
fn svd<T: Field>(x: MatRef<T>, full: bool, left: bool) -> Result<Vec<T>> {
    let (m, n) = x.shape();
    if m == 0 || n == 0 {
        // No singular vectors to compute: NumPy's full factors are identities.
        let size = match (full, left) {
            (true, true) => (m, m),
            (true, false) => (n, n),
            (false, true) => (m, 0),
            (false, false) => (0, n),
        };
        return Ok(rows(Mat::<T>::identity(size.0, size.1).as_ref()));
    }
    let svd = if full { x.svd() } else { x.thin_svd() }.map_err(|_| linalg_err!("SVD did not converge"))?;
    Ok(if left { rows(svd.U()) } else { adjoint_rows(svd.V()) })
}

/// `V diag(1/s) U^H`, inverting the singular values above `rtol` times the largest.
fn pinv<T: Field>(x: MatRef<T>, rtol: Option<f64>) -> Result<Vec<T>> {
    let (m, n) = x.shape();
    if m == 0 || n == 0 {
        return Ok(vec![T::zero_impl(); m * n]);
    }
    let svd = x.thin_svd().map_err(|_| linalg_err!("SVD did not converge"))?;
    let (u, v) = (svd.U(), svd.V());
    let s: Vec<f64> = (0..m.min(n)).map(|i| svd.S().column_vector()[i].cast::<f64>()).collect();
    let rtol = rtol.unwrap_or(m.max(n) as f64 * T::R::epsilon_impl().cast::<f64>());
    let cutoff = rtol * s.iter().copied().fold(0.0, f64::max);
    let inverse: Vec<T> = s.iter().map(|&s| T::from_f64(if s > cutoff { 1.0 / s } else { 0.0 })).collect();
    let mut out = Vec::with_capacity(n * m);
    for i in 0..n {
        for j in 0..m {
            let terms = (0..inverse.len()).map(|l| v[(i, l)] * inverse[l] * T::conj_impl(&u[(j, l)]));
            out.push(terms.fold(T::zero_impl(), |acc, t| acc + t));
        }
    }
    Ok(out)
}
