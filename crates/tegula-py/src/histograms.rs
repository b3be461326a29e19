//! The counting functions of the `tegula` crate (`histogram`, `histogramdd`, `bincount`,
//! `digitize`) and the lazy data checks NumPy's errors from the data need, one Python
//! function each.

use crate::array::{wrap, PyArrayHandle};
use crate::errors::IntoPy;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use tegula::ops::{BinEstimator, Bins};
use tegula::TegulaError;

/// `value`, raising `error` ("ValueError" or "ZeroDivisionError") with `message` when
/// computed if any element of `failed` (broadcast to it) is true.
#[pyfunction]
pub fn checked(value: &PyArrayHandle, failed: &PyArrayHandle, error: &str, message: String) -> PyResult<PyArrayHandle> {
    let error = match error {
        "ValueError" => TegulaError::Value(message),
        "ZeroDivisionError" => TegulaError::ZeroDivision(message),
        other => return Err(PyValueError::new_err(format!("no check raises {other}"))),
    };
    value.inner.checked(&failed.inner, error).py().map(wrap)
}

/// One axis's bins: a count, edges, or an estimator's name.
fn bins(count: Option<usize>, edges: Option<&PyArrayHandle>, estimator: Option<&str>) -> PyResult<Bins> {
    Ok(match (count, edges, estimator) {
        (Some(count), _, _) => Bins::Count(count),
        (_, Some(edges), _) => Bins::Edges(edges.inner.clone()),
        (_, _, Some(name)) => Bins::Estimator(BinEstimator::from_name(name).py()?),
        _ => return Err(PyValueError::new_err("bins: a count, edges or an estimator")),
    })
}

/// `histogram` of `x`: its counts, edges, and whether an estimator's search ended at its
/// largest trial.
#[pyfunction]
#[pyo3(signature = (x, count, edges, estimator, range, density, weights))]
#[allow(clippy::too_many_arguments)]
pub fn histogram(
    x: &PyArrayHandle,
    count: Option<usize>,
    edges: Option<&PyArrayHandle>,
    estimator: Option<&str>,
    range: Option<(f64, f64)>,
    density: bool,
    weights: Option<&PyArrayHandle>,
) -> PyResult<(PyArrayHandle, PyArrayHandle, bool)> {
    let bins = bins(count, edges, estimator)?;
    let h = x.inner.histogram(&bins, range, density, weights.map(|w| &w.inner)).py()?;
    Ok((wrap(h.counts), wrap(h.edges), h.suboptimal_bins))
}

/// `histogramdd` of coordinate `columns`: per axis a count or edges, and a range or `None`.
#[pyfunction]
pub fn histogramdd(
    columns: Vec<PyRef<'_, PyArrayHandle>>,
    counts: Vec<Option<usize>>,
    edges: Vec<Option<PyRef<'_, PyArrayHandle>>>,
    ranges: Vec<Option<(f64, f64)>>,
    density: bool,
    weights: Option<&PyArrayHandle>,
) -> PyResult<(PyArrayHandle, Vec<PyArrayHandle>)> {
    let bins = counts.iter().zip(&edges).map(|(c, e)| bins(*c, e.as_deref(), None)).collect::<PyResult<Vec<_>>>()?;
    let columns: Vec<tegula::Array> = columns.iter().map(|c| c.inner.clone()).collect();
    let (hist, edges) = tegula::Array::histogramdd(&columns, &bins, &ranges, density, weights.map(|w| &w.inner)).py()?;
    Ok((wrap(hist), edges.into_iter().map(wrap).collect()))
}

/// `bincount` of the 1-D integers `x`.
#[pyfunction]
pub fn bincount(x: &PyArrayHandle, weights: Option<&PyArrayHandle>, minlength: usize) -> PyResult<PyArrayHandle> {
    x.inner.bincount(weights.map(|w| &w.inner), minlength).py().map(wrap)
}

/// `digitize` of `x` into `bins`.
#[pyfunction]
pub fn digitize(x: &PyArrayHandle, bins: &PyArrayHandle, right: bool) -> PyResult<PyArrayHandle> {
    x.inner.digitize(&bins.inner, right).py().map(wrap)
}

/// Registers this file's functions in the extension module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    for f in [
        wrap_pyfunction!(checked, m)?,
        wrap_pyfunction!(histogram, m)?,
        wrap_pyfunction!(histogramdd, m)?,
        wrap_pyfunction!(bincount, m)?,
        wrap_pyfunction!(digitize, m)?,
    ] {
        m.add_function(f)?;
    }
    Ok(())
}
