//! The algorithms of the `tegula` crate that compose operations (arg-reductions, order
//! statistics, ...), one Python function each: Python normalises the arguments NumPy's way and
//! calls one of these.

use crate::array::{wrap, PyArrayHandle};
use crate::errors::IntoPy;
use pyo3::prelude::*;

/// `argmax` (`maximum`) or `argmin` along `axis` (all axes when `None`).
#[pyfunction]
#[pyo3(signature = (x, maximum, axis, keepdims))]
pub fn arg_extreme(x: &PyArrayHandle, maximum: bool, axis: Option<i64>, keepdims: bool) -> PyResult<PyArrayHandle> {
    let found = if maximum { x.inner.argmax(axis, keepdims) } else { x.inner.argmin(axis, keepdims) };
    found.py().map(wrap)
}

/// Registers this file's functions in the extension module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(arg_extreme, m)?)?;
    Ok(())
}
