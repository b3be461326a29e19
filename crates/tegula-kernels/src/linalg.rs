//! Dense linear algebra of each matrix (the last two axes) of a block, with faer, in the
//! block's own dtype (float32/float64/complex64/complex128). Decompositions follow NumPy's
//! conventions: `Vh` not `V`, `R` upper triangular, eigenvalues ascending, singular values
//! descending; singular or non-positive-definite matrices are `LinAlgError`s, as LAPACK's
//! `info > 0` is in NumPy (an exactly zero pivot of LAPACK's LU factorisation is singular).

use crate::chunk::{Block, Chunk, Wrap};
use crate::element::{Elem, C128, C64};
use crate::field::Field;
use crate::row_major::{banded_copy, rows};
use crate::scaling::power_of_two_scaling;
use crate::panel_cholesky::{cholesky_below, cholesky_diagonal_update, cholesky_panel, cholesky_update};
use crate::panel_lu::{lu_update, panel_lu};
use crate::tall_qr::{tall_q_times, tall_r};
use faer::linalg::solvers::{DenseSolveCore, Solve};
use faer::traits::{ComplexField, RealField};
use faer::complex::Complex;
use faer::{Mat, MatRef, Side};
use ndarray::ArrayD;
use tegula_core::{internal_err, linalg_err, DType, LinalgOp, Result};

/// `KernelOp::Linalg`: `op` of each matrix (the last two axes) of the inputs.
pub fn linalg(op: LinalgOp, inputs: &[Chunk]) -> Result<Chunk> {
    crate::field::fixed_splits();
    match inputs.first().map(Chunk::dtype) {
        Some(DType::Float32) => typed::<f32>(op, inputs),
        Some(DType::Float64) => typed::<f64>(op, inputs),
        Some(DType::Complex64) => typed::<C64>(op, inputs),
        Some(DType::Complex128) => typed::<C128>(op, inputs),
        d => Err(internal_err!("{} of a {d:?} block", op.name())),
    }
}

/// The matrices of one block: `(count, m, n)`, row-major; the block itself where it already
/// is (no copy), else a row-major copy.
pub(crate) struct Stack<T: 'static> {
    pub(crate) stack: Vec<usize>,
    /// Three axes: `(count, m, n)`.
    pub(crate) data: Block<T>,
}

impl<T> Stack<T> {
    /// `(count, m, n)`.
    pub(crate) fn dim(&self) -> (usize, usize, usize) {
        let s = self.data.shape();
        (s[0], s[1], s[2])
    }
}

impl<T: Field> Stack<T> {
    pub(crate) fn new(c: &Chunk) -> Result<Stack<T>> {
        let a: &Block<T> = c.typed()?;
        let s = a.shape();
        if s.len() < 2 {
            return Err(internal_err!("linalg block of shape {s:?}"));
        }
        let (stack, (m, n)) = (s[..s.len() - 2].to_vec(), (s[s.len() - 2], s[s.len() - 1]));
        let count = stack.iter().product();
        let standard = if a.is_standard_layout() { a.clone() } else { a.as_standard_layout().into_owned().into() };
        let data = standard.try_map_view(|v| v.into_shape_with_order(ndarray::IxDyn(&[count, m, n])));
        Ok(Stack { stack, data: data.map_err(|e| internal_err!("linalg block: {e}"))? })
    }
    /// Matrix `i`, copied column-major (the layout faer factorises in; faer's own copy of a
    /// row-major matrix goes element by element down each column, a new cache line each time).
    pub(crate) fn matrix(&self, i: usize) -> Mat<T> {
        let x = self.view(i);
        let mut out = Mat::zeros(x.nrows(), x.ncols());
        banded_copy(out.as_mut(), x);
        out
    }
    /// Matrix `i` in place.
    fn view(&self, i: usize) -> MatRef<'_, T> {
        let (_, m, n) = self.dim();
        let view = self.data.index_axis(ndarray::Axis(0), i);
        // SAFETY: the pointer, extents and element strides are those of a view of `self.data`,
        // which the returned matrix borrows.
        unsafe { MatRef::from_raw_parts(view.as_ptr(), m, n, view.strides()[0], view.strides()[1]) }
    }
}

fn typed<T: Field>(op: LinalgOp, inputs: &[Chunk]) -> Result<Chunk> {
    let a = Stack::<T>::new(&inputs[0])?;
    let b = inputs.get(1).map(Stack::<T>::new).transpose()?;
    let c = inputs.get(2).map(Stack::<T>::new).transpose()?;
    let (m, n) = (a.dim().1, a.dim().2);
    let shape = |tail: &[usize]| a.stack.iter().chain(tail).copied().collect::<Vec<usize>>();
    let k = m.min(n);
    let x = |i: usize| a.matrix(i);
    match op {
        LinalgOp::Cholesky { upper } => each(&a, &shape(&[n, n]), |i| cholesky(x(i).as_ref(), upper)),
        LinalgOp::Inv => each(&a, &shape(&[n, n]), |i| Ok(rows(lu(x(i).as_ref())?.inverse().as_ref()))),
        LinalgOp::Solve => {
            let b = b.ok_or_else(|| internal_err!("solve needs two inputs"))?;
            let k = b.dim().2;
            each(&a, &shape(&[n, k]), |i| Ok(rows(lu(x(i).as_ref())?.solve(b.matrix(i).as_ref().as_ref()).as_ref())))
        }
        LinalgOp::SolveTriangular { lower, unit_diagonal } => {
            let b = b.ok_or_else(|| internal_err!("solve_triangular needs two inputs"))?;
            let k = b.dim().2;
            each(&a, &shape(&[n, k]), |i| solve_triangular(a.view(i), b.matrix(i), lower, unit_diagonal))
        }
        LinalgOp::Det => each(&a, &shape(&[]), |i| Ok(vec![det(x(i).as_ref())])),
        LinalgOp::Slogdet { output: 0 } => each(&a, &shape(&[]), |i| Ok(vec![slogdet(x(i).as_ref()).0])),
        LinalgOp::Slogdet { .. } => each(&a, &shape(&[]), |i| Ok(vec![slogdet(x(i).as_ref()).1])),
        LinalgOp::Qr { complete, output } => {
            if output == 1 && !complete {
                // The `R` of a row block of TSQR: factorised in slabs, read in place.
                return each(&a, &shape(&[k, n]), |i| Ok(rows(tall_r(a.view(i)).as_ref())));
            }
            each(&a, &shape(&op.result_shape(&[(m, n)])), |i| Ok(qr(x(i).as_ref(), complete, output)))
        }
        LinalgOp::Svd { output: 1, .. } => each(&a, &shape(&[k]), |i| singular_values(x(i).as_ref())),
        LinalgOp::Svd { full, output } => {
            each(&a, &shape(&op.result_shape(&[(m, n)])), |i| svd(x(i).as_ref(), full, output == 0))
        }
        LinalgOp::Eigh { output: 0 } => each(&a, &shape(&[n]), |i| eigvalsh(x(i).as_ref())),
        LinalgOp::Eigh { .. } => each(&a, &shape(&[n, n]), |i| Ok(eigh_pair(x(i).as_ref())?.1)),
        LinalgOp::Eig { output } => each(&a, &shape(&op.result_shape(&[(m, n)])), |i| eig(x(i).as_ref(), output)),
        LinalgOp::Pinv { rtol } => each(&a, &shape(&[n, m]), |i| pinv(x(i).as_ref(), rtol)),
        LinalgOp::QrApply => {
            let b = b.ok_or_else(|| internal_err!("qr-apply needs two inputs"))?;
            each(&a, &shape(&[m, b.dim().2]), |i| tall_q_times(a.view(i), b.view(i)))
        }
        LinalgOp::PanelLu { refuse_singular, output } => each(&a, &shape(&op.result_shape(&[(m, n)])), |i| {
            let (packed, swaps) = panel_lu(x(i), refuse_singular)?;
            Ok(if output == 0 { packed } else { swaps })
        }),
        LinalgOp::LuUpdate => {
            let (Some(swaps), Some(block)) = (b, c) else { return Err(internal_err!("lu-update needs three inputs")) };
            each(&a, &shape(&[m, block.dim().2]), |i| Ok(lu_update(a.view(i), swaps.view(i), block.view(i))))
        }
        LinalgOp::CholeskyPanel { at } => each(&a, &shape(&[m, n]), |i| cholesky_panel(a.view(i), at.row)),
        LinalgOp::CholeskyBelow { .. } => {
            let tile = b.ok_or_else(|| internal_err!("cholesky-below needs two inputs"))?;
            let (_, rows, cols) = tile.dim();
            each(&a, &shape(&[rows, cols]), |i| Ok(cholesky_below(a.view(i), tile.view(i))))
        }
        LinalgOp::CholeskyUpdate { .. } => {
            let (Some(tile), Some(right)) = (b, c) else { return Err(internal_err!("cholesky-update needs three inputs")) };
            let (_, rows, cols) = tile.dim();
            each(&a, &shape(&[rows, cols]), |i| Ok(cholesky_update(a.view(i), tile.view(i), right.view(i))))
        }
        LinalgOp::CholeskyDiagonalUpdate { .. } => {
            let tile = b.ok_or_else(|| internal_err!("cholesky-diagonal-update needs two inputs"))?;
            let (_, rows, cols) = tile.dim();
            each(&a, &shape(&[rows, cols]), |i| Ok(cholesky_diagonal_update(a.view(i), tile.view(i))))
        }
    }
}

/// The results of `f` for each matrix (by its index) of `a`, one after another, as a block
/// of `shape`.
fn each<T, U: Wrap>(a: &Stack<T>, shape: &[usize], f: impl FnMut(usize) -> Result<Vec<U>>) -> Result<Chunk> {
    let count = a.dim().0;
    let mut parts = (0..count).map(f);
    // One matrix's result is the block as it is, not copied.
    let mut out = match count {
        1 => parts.next().expect("one matrix")?,
        _ => Vec::with_capacity(shape.iter().product()),
    };
    for part in parts {
        out.extend(part?);
    }
    let out = ArrayD::from_shape_vec(shape, out).map_err(|e| internal_err!("linalg result: {e}"))?;
    Ok(U::wrap(out.into()))
}

/// The conjugate transpose's elements in row-major order.
pub(crate) fn adjoint_rows<T: Field>(x: MatRef<T>) -> Vec<T> {
    rows(x.adjoint().to_owned().as_ref())
}

/// The lower (or `upper`) Cholesky factor, or NumPy's error.
fn cholesky<T: Field>(x: MatRef<T>, upper: bool) -> Result<Vec<T>> {
    let llt = x.llt(Side::Lower).map_err(|_| linalg_err!("Matrix is not positive definite"))?;
    Ok(if upper { adjoint_rows(llt.L()) } else { rows(llt.L()) })
}

/// `t^-1 b` for a triangular `t` (its `lower` or upper triangle, ones on the diagonal where
/// `unit`), or SciPy's error where a diagonal element is zero.
fn solve_triangular<T: Field>(t: MatRef<T>, mut b: Mat<T>, lower: bool, unit: bool) -> Result<Vec<T>> {
    use faer::linalg::triangular_solve as ts;
    if let Some(i) = (0..t.nrows()).find(|&i| !unit && t[(i, i)] == T::zero_impl()) {
        return Err(linalg_err!("singular matrix: resolution failed at diagonal {i}"));
    }
    let par = faer::get_global_parallelism();
    match (lower, unit) {
        (true, false) => ts::solve_lower_triangular_in_place(t, b.as_mut(), par),
        (true, true) => ts::solve_unit_lower_triangular_in_place(t, b.as_mut(), par),
        (false, false) => ts::solve_upper_triangular_in_place(t, b.as_mut(), par),
        (false, true) => ts::solve_unit_upper_triangular_in_place(t, b.as_mut(), par),
    }
    Ok(rows(b.as_ref()))
}

/// The LU factorisation of a square matrix, or NumPy's error when it is singular.
fn lu<T: Field>(x: MatRef<T>) -> Result<faer::linalg::solvers::PartialPivLu<T>> {
    let lu = x.partial_piv_lu();
    if singular(x, &pivots(&lu)) {
        return Err(linalg_err!("Singular matrix"));
    }
    Ok(lu)
}

/// The diagonal of `U`.
fn pivots<T: Field>(lu: &faer::linalg::solvers::PartialPivLu<T>) -> Vec<T> {
    let u = lu.U();
    (0..u.nrows()).map(|i| u[(i, i)]).collect()
}

/// Whether NumPy would call `x` singular: LAPACK's LU meets an exactly zero pivot (`info > 0`).
/// faer's blocked LU rounds in another order and may leave a pivot of rounding noise where
/// LAPACK's unblocked steps reach an exact zero (`arange(36).reshape(6, 6)`: ~1e-16 after 30),
/// so when one of faer's `pivots` is that small, or NaN (a zero column), the verdict is LAPACK's
/// order of operations (`unblocked_lu_meets_zero_pivot`). A tiny pivot alone is no verdict:
/// `diag(1, 1e-20)` is regular, and NumPy inverts it exactly.
fn singular<T: Field>(x: MatRef<T>, pivots: &[T]) -> bool {
    let moduli: Vec<f64> = pivots.iter().map(|d| d.cast::<C128>().norm()).collect();
    let largest = moduli.iter().copied().fold(0.0, f64::max);
    let eps: f64 = T::R::epsilon_impl().cast();
    let floor = largest * moduli.len() as f64 * eps * 16.0;
    moduli.iter().any(|&m| m.is_nan() || m <= floor) && unblocked_lu_meets_zero_pivot(x)
}

/// Whether LAPACK's unblocked LU (`getf2`) of the square `x` meets an exactly zero pivot: for
/// each column, the row of largest `|re| + |im|` (the first of equals) is swapped up, the column
/// below the pivot scaled by its reciprocal, and the rest updated by their product (rank one).
fn unblocked_lu_meets_zero_pivot<T: Field>(x: MatRef<T>) -> bool {
    let n = x.nrows();
    let mut a = rows(x);
    for j in 0..n {
        let column = (j..n).map(|i| (i, T::abs1_impl(&a[i * n + j])));
        let (p, largest) = column.fold((j, T::R::zero_impl()), |best, c| if c.1 > best.1 { c } else { best });
        if largest == T::R::zero_impl() && a[p * n + j] == T::zero_impl() {
            return true;
        }
        for k in 0..n {
            a.swap(j * n + k, p * n + k);
        }
        let reciprocal = T::recip_impl(&a[j * n + j]);
        let (done, below) = a.split_at_mut((j + 1) * n);
        let pivot_row = &done[j * n + j + 1..(j + 1) * n];
        for row in below.chunks_exact_mut(n) {
            let factor = row[j] * reciprocal;
            row[j] = factor;
            for (r, &u) in row[j + 1..].iter_mut().zip(pivot_row) {
                *r -= factor * u;
            }
        }
    }
    false
}

/// The sign of the row permutation and the diagonal of `U` of `x`'s LU factorisation
/// (`det = sign * prod(diagonal)`); `None` when the matrix is singular (`singular`).
fn lu_diagonal<T: Field>(x: MatRef<T>) -> Option<(f64, Vec<T>)> {
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
    let diagonal = pivots(&lu);
    (!singular(x, &diagonal)).then_some((sign, diagonal))
}

/// The determinant; 0 for a singular matrix, as LAPACK's exact zero pivot gives NumPy.
fn det<T: Field>(x: MatRef<T>) -> T {
    match lu_diagonal(x) {
        Some((sign, diagonal)) => diagonal.into_iter().fold(T::from_f64(sign), |acc, d| acc * d),
        None => T::from_f64(0.0),
    }
}

/// `(sign, log|det|)`, computed in double precision: a sign of zero and `-inf` for a singular
/// matrix, as NumPy's.
pub(crate) fn slogdet<T: Field>(x: MatRef<T>) -> (T, T::R) {
    let Some((sign, diagonal)) = lu_diagonal(x) else {
        return (T::from_f64(0.0), T::R::from_f64(f64::NEG_INFINITY));
    };
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
    if output == 0 { qr_q(&qr, complete) } else { qr_r(&qr, x.shape(), complete) }
}

pub(crate) fn qr_q<T: Field>(qr: &faer::linalg::solvers::Qr<T>, complete: bool) -> Vec<T> {
    rows(if complete { qr.compute_Q() } else { qr.compute_thin_Q() }.as_ref())
}

/// The upper triangle of faer's `R`, with zero rows below it up to `m` when complete.
pub(crate) fn qr_r<T: Field>(qr: &faer::linalg::solvers::Qr<T>, (m, n): (usize, usize), complete: bool) -> Vec<T> {
    let r = qr.thin_R();
    let height = if complete { m } else { r.nrows() };
    let at = |i: usize, j: usize| if j >= i && i < r.nrows() { r[(i, j)] } else { T::zero_impl() };
    (0..height).flat_map(|i| (0..n).map(move |j| at(i, j))).collect()
}

/// `x` divided by the power of two nearest below its largest modulus, and that power: faer's
/// SVD and eigensolvers do not converge on matrices near the overflow threshold (LAPACK scales
/// them the same way). Singular values and eigenvalues scale back; vectors are unchanged.
pub(crate) fn scaled<T: Field>(x: MatRef<T>) -> (Mat<T>, f64) {
    let largest: f64 = x.norm_max().cast();
    if !(largest.is_finite() && largest > 0.0) {
        return (x.to_owned(), 1.0);
    }
    let (factors, scale) = power_of_two_scaling(largest);
    let [f, g] = factors.map(T::from_f64);
    (Mat::from_fn(x.nrows(), x.ncols(), |r, c| x[(r, c)] * f * g), scale)
}

pub(crate) fn not_converged() -> tegula_core::TegulaError {
    linalg_err!("Eigenvalues did not converge")
}

fn eigvalsh<T: Field>(x: MatRef<T>) -> Result<Vec<T::R>> {
    let (x, scale) = scaled(x);
    let values = x.self_adjoint_eigenvalues(Side::Lower).map_err(|_| not_converged())?;
    Ok(values.into_iter().map(|v| T::R::from_f64(v.cast::<f64>() * scale)).collect())
}

/// `output` 0: the eigenvalues of the eigendecomposition, 1: its eigenvectors, 2: the
/// eigenvalues alone.
fn eig<T: Field>(x: MatRef<T>, output: u8) -> Result<Vec<T::Z>> {
    if output == 2 {
        let (x, scale) = scaled(x);
        let values = x.eigenvalues().map_err(|_| not_converged())?;
        return Ok(values.into_iter().map(|v| unscaled::<T>(v, scale)).collect());
    }
    let (values, vectors) = eig_pair(x)?;
    Ok(if output == 0 { values } else { vectors })
}

/// Two results of one factorisation of a matrix, each row-major.
pub(crate) type Pair<A, B> = (Vec<A>, Vec<B>);

/// The eigenvalues of a general matrix and its eigenvectors, unit columns in the same order.
pub(crate) fn eig_pair<T: Field>(x: MatRef<T>) -> Result<Pair<T::Z, T::Z>> {
    let (x, scale) = scaled(x);
    let e = x.eigen().map_err(|_| not_converged())?;
    let values = e.S().column_vector().iter().map(|&v| unscaled::<T>(v, scale)).collect();
    Ok((values, rows(unit_columns(e.U()).as_ref()).into_iter().map(T::Z::from).collect()))
}

/// An eigenvalue of a matrix divided by `scale` (`scaled`), scaled back.
fn unscaled<T: Field>(v: Complex<T::R>, scale: f64) -> T::Z {
    let (re, im): (f64, f64) = (v.re.cast(), v.im.cast());
    Complex::new(T::R::from_f64(re * scale), T::R::from_f64(im * scale)).into()
}

/// The eigenvalues (ascending) and eigenvectors of a Hermitian matrix (its lower triangle).
pub(crate) fn eigh_pair<T: Field>(x: MatRef<T>) -> Result<Pair<T::R, T>> {
    let (x, scale) = scaled(x);
    let e = x.self_adjoint_eigen(Side::Lower).map_err(|_| not_converged())?;
    let values = e.S().column_vector().iter().map(|v| T::R::from_f64(T::real_part_impl(v).cast::<f64>() * scale)).collect();
    Ok((values, rows(e.U())))
}

/// Each column divided by its norm and by the phase of its largest element, so the vectors
/// are unit vectors with a real, positive largest element (LAPACK's convention, NumPy's).
pub(crate) fn unit_columns<R: RealField + Wrap + Copy>(u: MatRef<Complex<R>>) -> Mat<Complex<R>> {
    let mut out = u.to_owned();
    for j in 0..u.ncols() {
        let column: Vec<C128> = (0..u.nrows()).map(|i| C128::new(u[(i, j)].re.cast(), u[(i, j)].im.cast())).collect();
        let norm = column.iter().map(|z| z.norm_sqr()).sum::<f64>().sqrt();
        let largest = column.iter().copied().fold(C128::new(0.0, 0.0), |a, z| if z.norm() > a.norm() { z } else { a });
        if norm == 0.0 || largest.norm() == 0.0 {
            continue;
        }
        let divisor = largest / largest.norm() * norm;
        for (i, z) in column.into_iter().enumerate() {
            let q = z / divisor;
            out[(i, j)] = Complex::new(R::from_f64(q.re), R::from_f64(q.im));
        }
    }
    out
}

fn singular_values<T: Field>(x: MatRef<T>) -> Result<Vec<T::R>> {
    if x.nrows() == 0 || x.ncols() == 0 {
        return Ok(Vec::new());
    }
    if let Some(values) = T::two_stage_singular_values(x) {
        return values;
    }
    let (x, scale) = scaled(x);
    let values = x.singular_values().map_err(|_| linalg_err!("SVD did not converge"))?;
    Ok(values.into_iter().map(|v| T::R::from_f64(v.cast::<f64>() * scale)).collect())
}

/// `U` (when `left`) or `Vh` of `x`'s SVD, square when `full`.
fn svd<T: Field>(x: MatRef<T>, full: bool, left: bool) -> Result<Vec<T>> {
    let (u, _, vh) = svd_factors(x, full)?;
    Ok(if left { u } else { vh })
}

/// `U`, the singular values and `Vh` of a matrix, each row-major.
pub(crate) type Svd<T> = (Vec<T>, Vec<<T as Field>::R>, Vec<T>);

/// `U`, the singular values and `Vh` of `x`, `U` and `Vh` square when `full`.
pub(crate) fn svd_factors<T: Field>(x: MatRef<T>, full: bool) -> Result<Svd<T>> {
    let (m, n) = x.shape();
    if m == 0 || n == 0 {
        // No singular vectors to compute: NumPy's full factors are identities.
        let (u, v) = if full { ((m, m), (n, n)) } else { ((m, 0), (0, n)) };
        let identity = |(r, c): (usize, usize)| rows(Mat::<T>::identity(r, c).as_ref());
        return Ok((identity(u), Vec::new(), identity(v)));
    }
    let (x, scale) = scaled(x);
    let svd = if full { x.svd() } else { x.thin_svd() }.map_err(|_| linalg_err!("SVD did not converge"))?;
    let values = svd.S().column_vector().iter().map(|v| T::R::from_f64(T::real_part_impl(v).cast::<f64>() * scale)).collect();
    Ok((rows(svd.U()), values, adjoint_rows(svd.V())))
}

/// `V diag(1/s) U^H`, inverting the singular values above `rtol` times the largest.
fn pinv<T: Field>(x: MatRef<T>, rtol: Option<f64>) -> Result<Vec<T>> {
    let (m, n) = x.shape();
    if m == 0 || n == 0 {
        return Ok(vec![T::zero_impl(); m * n]);
    }
    let (x, scale) = scaled(x);
    let svd = x.thin_svd().map_err(|_| linalg_err!("SVD did not converge"))?;
    let (u, v) = (svd.U(), svd.V());
    let s: Vec<f64> = (0..m.min(n)).map(|i| svd.S().column_vector()[i].cast::<f64>() * scale).collect();
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scaling::two_to_the;

    /// A symmetric `n × n` matrix of integers in `[−8, 8]`, times `2^exponent` (exact down to
    /// `2⁻¹⁴⁶` in float32 and `2⁻¹⁰⁷¹` in float64, subnormal as it is there).
    fn integers<T: Field>(n: usize, exponent: i32) -> Mat<T> {
        Mat::from_fn(n, n, |i, j| T::from_f64(((((i + j) * 7 + i * j % 5) % 17) as f64 - 8.0) * two_to_the(exponent)))
    }

    /// The singular values and eigenvalues of the integer matrix times `2^exponent` are its own
    /// times that power, rounded once: the scaling is exact, also where the power's
    /// reciprocal lies past the type's range. Below and above the two-stage SVD's threshold.
    fn assert_values_scale_exactly<T: Field<R = T>>(exponent: i32) {
        let times_power = |values: Vec<T>| values.into_iter().map(|v| T::from_f64(v.cast::<f64>() * two_to_the(exponent))).collect::<Vec<T>>();
        for n in [40, 520] {
            let (x, tiny) = (integers::<T>(n, 0), integers::<T>(n, exponent));
            assert_eq!(singular_values(tiny.as_ref()).unwrap(), times_power(singular_values(x.as_ref()).unwrap()), "{n} × {n}, 2^{exponent}");
            assert_eq!(eigvalsh(tiny.as_ref()).unwrap(), times_power(eigvalsh(x.as_ref()).unwrap()), "{n} × {n}, 2^{exponent}");
        }
    }

    #[test]
    fn matrices_below_the_scaling_range_scale_exactly() {
        // Largest magnitudes below 2⁻¹²⁸ (float32) and 2⁻¹⁰²² (float64), and far above 1.
        crate::field::fixed_splits();
        assert_values_scale_exactly::<f32>(-140);
        assert_values_scale_exactly::<f64>(-1066);
        assert_values_scale_exactly::<f32>(100);
    }
}
