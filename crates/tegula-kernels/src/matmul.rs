//! The product of two 2-D blocks. float32/float64 use faer's GEMM (on the current rayon pool,
//! so a big block uses every core and concurrent tasks share them); the other dtypes a
//! generic row-times-row loop with NumPy's arithmetic (wrapping integers, bool or/and).

use crate::chunk::{Block, Chunk, Wrap};
use crate::element::Num;
use crate::with_dtype;
use faer::{Accum, MatMut, MatRef, Par};
use ndarray::{Array2, ArrayView2, Ix2, Zip};
use tegula_core::{DType, Result, TegulaError};

pub fn matmul(dtype: DType, a: &Chunk, b: &Chunk) -> Result<Chunk> {
    let (a, b) = (a.cast(dtype), b.cast(dtype));
    match dtype {
        DType::Float32 => gemm(as2(a.typed::<f32>()?)?, as2(b.typed::<f32>()?)?, 1.0),
        DType::Float64 => gemm(as2(a.typed::<f64>()?)?, as2(b.typed::<f64>()?)?, 1.0),
        _ => with_dtype!(dtype, T => generic::<T>(as2(a.typed::<T>()?)?, as2(b.typed::<T>()?)?)),
    }
}

fn as2<T>(a: &Block<T>) -> Result<ArrayView2<'_, T>> {
    a.view()
        .into_dimensionality::<Ix2>()
        .map_err(|_| TegulaError::Internal(format!("matmul block is not 2-D: {:?}", a.shape())))
}

/// `a @ b` with faer, reading both operands in place whatever their strides.
fn gemm<T: faer::traits::ComplexField + Num + Wrap>(a: ArrayView2<T>, b: ArrayView2<T>, one: T) -> Result<Chunk> {
    let ((m, k), n) = (a.dim(), b.ncols());
    if b.nrows() != k {
        return Err(TegulaError::Internal(format!("matmul blocks {:?} and {:?}", a.dim(), b.dim())));
    }
    let mut out: Vec<T> = tegula_core::memory::big_vec(m * n);
    out.resize(m * n, T::zero());
    if m > 0 && n > 0 && k > 0 {
        // SAFETY: the pointers, extents and element strides are those of live ndarray views,
        // which outlive the product.
        let (lhs, rhs) = unsafe {
            (
                MatRef::from_raw_parts(a.as_ptr(), m, k, a.strides()[0], a.strides()[1]),
                MatRef::from_raw_parts(b.as_ptr(), k, n, b.strides()[0], b.strides()[1]),
            )
        };
        let dst = MatMut::from_row_major_slice_mut(&mut out, m, n);
        if is_transpose_of(&a, &b) {
            gram(lhs, rhs, dst, one);
            for i in 0..m {
                for j in 0..i {
                    out[j * n + i] = out[i * n + j];
                }
            }
        } else {
            faer::linalg::matmul::matmul(dst, Accum::Replace, lhs, rhs, one, Par::rayon(0));
        }
    }
    let out = Array2::from_shape_vec((m, n), out).map_err(|e| TegulaError::Internal(format!("matmul result: {e}")))?;
    Ok(T::wrap(out.into_dyn().into_shared()))
}

/// The lower triangle (and some of the upper) of the symmetric `x.T @ x` (`lhs` = `x.T`), in
/// column panels: the panel of columns `c0..c1` needs only rows `c0..`, so the products cost
/// a little over half of the full one, each an ordinary GEMM.
fn gram<T: faer::traits::ComplexField>(lhs: MatRef<T>, rhs: MatRef<T>, mut dst: MatMut<T>, one: T) {
    const PANELS: usize = 4;
    let n = dst.ncols();
    let width = n.div_ceil(PANELS).max(1);
    for c0 in (0..n).step_by(width) {
        let c1 = (c0 + width).min(n);
        let part = dst.as_mut().submatrix_mut(c0, c0, n - c0, c1 - c0);
        let rows = lhs.submatrix(c0, 0, n - c0, lhs.ncols());
        let cols = rhs.submatrix(0, c0, rhs.nrows(), c1 - c0);
        faer::linalg::matmul::matmul(part, Accum::Replace, rows, cols, one.clone(), Par::rayon(0));
    }
}

/// Whether `a` is `b` transposed (the same elements, axes swapped).
fn is_transpose_of<T>(a: &ArrayView2<T>, b: &ArrayView2<T>) -> bool {
    a.as_ptr() == b.as_ptr() && a.dim() == (b.ncols(), b.nrows()) && a.strides() == [b.strides()[1], b.strides()[0]]
}

fn generic<T: Num + Wrap>(a: ArrayView2<T>, b: ArrayView2<T>) -> Result<Chunk> {
    let (m, k) = a.dim();
    let n = b.ncols();
    if b.nrows() != k {
        return Err(TegulaError::Internal(format!("matmul blocks {:?} and {:?}", a.dim(), b.dim())));
    }
    let mut out = Array2::from_elem((m, n), T::zero());
    for (i, mut row) in out.rows_mut().into_iter().enumerate() {
        for p in 0..k {
            let aip = a[[i, p]];
            Zip::from(&mut row).and(b.row(p)).for_each(|o, &bv| *o = o.add(aip.mul(bv)));
        }
    }
    Ok(T::wrap(out.into_dyn().into_shared()))
}
