//! `tegula.linalg`'s functions that choose an algorithm or compose others, one binding each of
//! `tegula::linalg::Linalg`'s methods. `limits` is `(tsqr_block_bytes, whole_matrix_bytes,
//! min_tile)`, the Python module's size limits (which tests lower).

use crate::array::{wrap, PyArrayHandle};
use crate::convert::opt_dtype;
use crate::errors::IntoPy;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyString;
use tegula::linalg::{Linalg, NormOrder, Sampling};
use tegula::Array;

type Limits = (usize, usize, usize);

fn linalg((tsqr_block_bytes, whole_matrix_bytes, min_tile): Limits) -> Linalg {
    Linalg { tsqr_block_bytes, whole_matrix_bytes, min_tile }
}

/// `ord=` as NumPy takes it: `None`, `"fro"`, `"nuc"` or a number.
fn norm_order(ord: Option<&Bound<'_, PyAny>>) -> PyResult<Option<NormOrder>> {
    let Some(ord) = ord.filter(|o| !o.is_none()) else { return Ok(None) };
    if let Ok(text) = ord.cast::<PyString>() {
        return match text.to_string().as_str() {
            "fro" => Ok(Some(NormOrder::Fro)),
            "nuc" => Ok(Some(NormOrder::Nuc)),
            other => Err(PyValueError::new_err(format!("Invalid norm order '{other}'"))),
        };
    }
    Ok(Some(NormOrder::P(ord.extract::<f64>()?)))
}

#[pyfunction]
fn qr(x: &PyArrayHandle, complete: bool, limits: Limits) -> PyResult<(PyArrayHandle, PyArrayHandle)> {
    let (q, r) = linalg(limits).qr(&x.inner, complete).py()?;
    Ok((wrap(q), wrap(r)))
}

#[pyfunction]
fn cholesky(x: &PyArrayHandle, upper: bool, limits: Limits) -> PyResult<PyArrayHandle> {
    linalg(limits).cholesky(&x.inner, upper).py().map(wrap)
}

#[pyfunction]
fn solve_triangular(t: &PyArrayHandle, b: &PyArrayHandle, lower: bool, unit_diagonal: bool, limits: Limits) -> PyResult<PyArrayHandle> {
    linalg(limits).solve_triangular(&t.inner, &b.inner, lower, unit_diagonal).py().map(wrap)
}

#[pyfunction]
fn solve(a: &PyArrayHandle, b: &PyArrayHandle, limits: Limits) -> PyResult<PyArrayHandle> {
    linalg(limits).solve(&a.inner, &b.inner).py().map(wrap)
}

#[pyfunction]
fn inv(x: &PyArrayHandle, limits: Limits) -> PyResult<PyArrayHandle> {
    linalg(limits).inv(&x.inner).py().map(wrap)
}

#[pyfunction]
fn det(x: &PyArrayHandle, limits: Limits) -> PyResult<PyArrayHandle> {
    linalg(limits).det(&x.inner).py().map(wrap)
}

#[pyfunction]
fn slogdet(x: &PyArrayHandle, limits: Limits) -> PyResult<(PyArrayHandle, PyArrayHandle)> {
    let (sign, log) = linalg(limits).slogdet(&x.inner).py()?;
    Ok((wrap(sign), wrap(log)))
}

#[pyfunction]
fn cho_solve(c: &PyArrayHandle, lower: bool, b: &PyArrayHandle, limits: Limits) -> PyResult<PyArrayHandle> {
    linalg(limits).cho_solve(&c.inner, lower, &b.inner).py().map(wrap)
}

#[pyfunction]
fn svd(x: &PyArrayHandle, full: bool, limits: Limits) -> PyResult<(PyArrayHandle, PyArrayHandle, PyArrayHandle)> {
    let (u, s, vh) = linalg(limits).svd(&x.inner, full).py()?;
    Ok((wrap(u), wrap(s), wrap(vh)))
}

#[pyfunction]
fn svdvals(x: &PyArrayHandle, limits: Limits) -> PyResult<PyArrayHandle> {
    linalg(limits).svdvals(&x.inner).py().map(wrap)
}

/// `rtol`: a number (one task per matrix) or an array, one tolerance per matrix.
#[pyfunction]
#[pyo3(signature = (x, rtol, per_matrix, limits))]
fn pinv(x: &PyArrayHandle, rtol: Option<f64>, per_matrix: Option<&PyArrayHandle>, limits: Limits) -> PyResult<PyArrayHandle> {
    match per_matrix {
        Some(r) => linalg(limits).pinv_each(&x.inner, &r.inner),
        None => linalg(limits).pinv(&x.inner, rtol),
    }
    .py()
    .map(wrap)
}

#[pyfunction]
#[pyo3(signature = (x, rtol, limits))]
fn matrix_rank(x: &PyArrayHandle, rtol: Option<&PyArrayHandle>, limits: Limits) -> PyResult<PyArrayHandle> {
    linalg(limits).matrix_rank(&x.inner, rtol.map(|r| &r.inner)).py().map(wrap)
}

#[pyfunction]
#[pyo3(signature = (a, b, rcond, limits))]
fn lstsq(a: &PyArrayHandle, b: &PyArrayHandle, rcond: Option<f64>, limits: Limits) -> PyResult<(PyArrayHandle, PyArrayHandle, usize, PyArrayHandle)> {
    let found = linalg(limits).lstsq(&a.inner, &b.inner, rcond).py()?;
    Ok((wrap(found.x), wrap(found.residuals), found.rank, wrap(found.s)))
}

#[pyfunction]
fn matrix_power(x: &PyArrayHandle, n: i64) -> PyResult<PyArrayHandle> {
    Linalg::default().matrix_power(&x.inner, n).py().map(wrap)
}

#[pyfunction]
fn multi_dot(arrays: Vec<PyRef<'_, PyArrayHandle>>) -> PyResult<PyArrayHandle> {
    let arrays: Vec<&Array> = arrays.iter().map(|a| &a.inner).collect();
    Linalg::default().multi_dot(&arrays).py().map(wrap)
}

#[pyfunction]
fn cross(a: &PyArrayHandle, b: &PyArrayHandle, axis: i64) -> PyResult<PyArrayHandle> {
    a.inner.cross(&b.inner, axis).py().map(wrap)
}

#[pyfunction]
fn diagonal(x: &PyArrayHandle, offset: i64) -> PyResult<PyArrayHandle> {
    x.inner.diagonal(offset).py().map(wrap)
}

#[pyfunction]
#[pyo3(signature = (x, offset, dtype=None))]
fn trace(x: &PyArrayHandle, offset: i64, dtype: Option<&str>) -> PyResult<PyArrayHandle> {
    x.inner.trace(offset, opt_dtype(dtype)?).py().map(wrap)
}

#[pyfunction]
#[pyo3(signature = (x, axes, keepdims, ord))]
fn vector_norm(x: &PyArrayHandle, axes: Option<Vec<i64>>, keepdims: bool, ord: &Bound<'_, PyAny>) -> PyResult<PyArrayHandle> {
    let ord = norm_order(Some(ord))?.unwrap_or(NormOrder::P(2.0));
    Linalg::default().vector_norm(&x.inner, axes.as_deref(), keepdims, ord).py().map(wrap)
}

#[pyfunction]
#[pyo3(signature = (x, keepdims, ord, limits))]
fn matrix_norm(x: &PyArrayHandle, keepdims: bool, ord: &Bound<'_, PyAny>, limits: Limits) -> PyResult<PyArrayHandle> {
    let ord = norm_order(Some(ord))?.unwrap_or(NormOrder::Fro);
    linalg(limits).matrix_norm(&x.inner, keepdims, ord).py().map(wrap)
}

#[pyfunction]
#[pyo3(signature = (x, ord, axes, keepdims, limits))]
fn norm(x: &PyArrayHandle, ord: Option<&Bound<'_, PyAny>>, axes: Option<Vec<i64>>, keepdims: bool, limits: Limits) -> PyResult<PyArrayHandle> {
    linalg(limits).norm(&x.inner, norm_order(ord)?, axes.as_deref(), keepdims).py().map(wrap)
}

#[pyfunction]
#[pyo3(signature = (x, p, limits))]
fn cond(x: &PyArrayHandle, p: Option<&Bound<'_, PyAny>>, limits: Limits) -> PyResult<PyArrayHandle> {
    linalg(limits).cond(&x.inner, norm_order(p)?).py().map(wrap)
}

/// `svd_compressed` of `a` (Dask's), its Gaussian sample drawn by a generator of `seed`.
#[pyfunction]
#[pyo3(signature = (a, k, power_iterations, oversamples, orthonormalise_each, seed, coerce_signs, limits))]
#[allow(clippy::too_many_arguments)]
fn svd_compressed(
    a: &PyArrayHandle,
    k: usize,
    power_iterations: usize,
    oversamples: usize,
    orthonormalise_each: bool,
    seed: u64,
    coerce_signs: bool,
    limits: Limits,
) -> PyResult<(PyArrayHandle, PyArrayHandle, PyArrayHandle)> {
    let sampling = Sampling { k, power_iterations, oversamples, orthonormalise_each, coerce_signs };
    let (u, s, vh) = linalg(limits).svd_compressed(&a.inner, &sampling, &tegula::random::Generator::new(seed)).py()?;
    Ok((wrap(u), wrap(s), wrap(vh)))
}

/// Registers this file's functions in the extension module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    for f in [
        wrap_pyfunction!(cho_solve, m)?,
        wrap_pyfunction!(cholesky, m)?,
        wrap_pyfunction!(det, m)?,
        wrap_pyfunction!(inv, m)?,
        wrap_pyfunction!(slogdet, m)?,
        wrap_pyfunction!(solve, m)?,
        wrap_pyfunction!(qr, m)?,
        wrap_pyfunction!(solve_triangular, m)?,
        wrap_pyfunction!(svd, m)?,
        wrap_pyfunction!(svdvals, m)?,
        wrap_pyfunction!(pinv, m)?,
        wrap_pyfunction!(matrix_rank, m)?,
        wrap_pyfunction!(lstsq, m)?,
        wrap_pyfunction!(matrix_power, m)?,
        wrap_pyfunction!(multi_dot, m)?,
        wrap_pyfunction!(cross, m)?,
        wrap_pyfunction!(diagonal, m)?,
        wrap_pyfunction!(trace, m)?,
        wrap_pyfunction!(vector_norm, m)?,
        wrap_pyfunction!(matrix_norm, m)?,
        wrap_pyfunction!(norm, m)?,
        wrap_pyfunction!(cond, m)?,
        wrap_pyfunction!(svd_compressed, m)?,
    ] {
        m.add_function(f)?;
    }
    Ok(())
}
