//! `tegula.fft`: one binding of each transform family of `tegula::fft`, and `roll`.

use crate::array::{wrap, PyArrayHandle};
use crate::convert::opt_dtype;
use crate::errors::IntoPy;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use tegula::fft::{self, FftNorm};

/// The one-dimensional transform `kind` (fft, ifft, rfft, irfft, hfft, ihfft) along `axis`.
#[pyfunction]
#[pyo3(signature = (x, kind, n, axis, norm))]
fn transform(x: &PyArrayHandle, kind: &str, n: Option<i64>, axis: i64, norm: Option<&str>) -> PyResult<PyArrayHandle> {
    let norm = FftNorm::from_name(norm).py()?;
    let f = match kind {
        "fft" => fft::fft,
        "ifft" => fft::ifft,
        "rfft" => fft::rfft,
        "irfft" => fft::irfft,
        "hfft" => fft::hfft,
        "ihfft" => fft::ihfft,
        _ => return Err(PyValueError::new_err(format!("unknown transform {kind:?}"))),
    };
    f(&x.inner, n, axis, norm).py().map(wrap)
}

/// The n-dimensional transform `kind` (fftn, ifftn, rfftn, irfftn) over `axes` with sizes `s`.
#[pyfunction]
#[pyo3(signature = (x, kind, s, axes, norm))]
fn transform_n(x: &PyArrayHandle, kind: &str, s: Option<Vec<Option<i64>>>, axes: Option<Vec<i64>>, norm: Option<&str>) -> PyResult<PyArrayHandle> {
    let norm = FftNorm::from_name(norm).py()?;
    let f = match kind {
        "fftn" => fft::fftn,
        "ifftn" => fft::ifftn,
        "rfftn" => fft::rfftn,
        "irfftn" => fft::irfftn,
        _ => return Err(PyValueError::new_err(format!("unknown transform {kind:?}"))),
    };
    f(&x.inner, s.as_deref(), axes.as_deref(), norm).py().map(wrap)
}

/// `fftfreq`, or `rfftfreq` when `real`.
#[pyfunction]
#[pyo3(signature = (n, d, dtype, real))]
fn fftfreq(n: usize, d: f64, dtype: Option<&str>, real: bool) -> PyResult<PyArrayHandle> {
    let dtype = opt_dtype(dtype)?;
    if real { fft::rfftfreq(n, d, dtype) } else { fft::fftfreq(n, d, dtype) }.py().map(wrap)
}

/// `fftshift`, or `ifftshift` when `inverse`.
#[pyfunction]
#[pyo3(signature = (x, axes, inverse))]
fn fftshift(x: &PyArrayHandle, axes: Option<Vec<i64>>, inverse: bool) -> PyResult<PyArrayHandle> {
    if inverse { fft::ifftshift(&x.inner, axes.as_deref()) } else { fft::fftshift(&x.inner, axes.as_deref()) }.py().map(wrap)
}

/// `roll` of `x` by `shifts` along `axes` (the flattened array when `None`).
#[pyfunction]
#[pyo3(signature = (x, shifts, axes))]
fn roll(x: &PyArrayHandle, shifts: Vec<i64>, axes: Option<Vec<i64>>) -> PyResult<PyArrayHandle> {
    x.inner.roll(&shifts, axes.as_deref()).py().map(wrap)
}

/// Registers this file's functions in the extension module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    for f in [wrap_pyfunction!(transform, m)?, wrap_pyfunction!(transform_n, m)?, wrap_pyfunction!(fftfreq, m)?, wrap_pyfunction!(fftshift, m)?, wrap_pyfunction!(roll, m)?] {
        m.add_function(f)?;
    }
    Ok(())
}
