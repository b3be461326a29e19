//! The algorithms of the `tegula` crate that compose operations (arg-reductions, order
//! statistics, ...), one Python function each: Python normalises the arguments NumPy's way and
//! calls one of these.

use crate::array::{wrap, PyArrayHandle};
use crate::convert::dtype;
use crate::errors::IntoPy;
use numpy::PyReadonlyArrayDyn;
use pyo3::prelude::*;
use pyo3::exceptions::PyValueError;
use tegula::ops::{Boundary, PadMode, PadStatistic, QuantileMethod, QuantileSpec, Quantiles, UniqueSpec};

/// `argmax` (`maximum`) or `argmin` along `axis` (all axes when `None`).
#[pyfunction]
#[pyo3(signature = (x, maximum, axis, keepdims))]
pub fn arg_extreme(x: &PyArrayHandle, maximum: bool, axis: Option<i64>, keepdims: bool) -> PyResult<PyArrayHandle> {
    let found = if maximum { x.inner.argmax(axis, keepdims) } else { x.inner.argmin(axis, keepdims) };
    found.py().map(wrap)
}

/// `quantile` (`nanquantile` with `skip_nan`) of `x`: `q` in `[0, 1]` as float64 values of
/// the dtype `q_dtype` NumPy holds them in, `weak` when a Python number.
#[pyfunction]
#[pyo3(signature = (x, q, q_dtype, weak, axes, method, keepdims, weights, skip_nan))]
#[allow(clippy::too_many_arguments)]
pub fn quantile(
    x: &PyArrayHandle,
    q: PyReadonlyArrayDyn<'_, f64>,
    q_dtype: &str,
    weak: bool,
    axes: Option<Vec<i64>>,
    method: &str,
    keepdims: bool,
    weights: Option<&PyArrayHandle>,
    skip_nan: bool,
) -> PyResult<PyArrayHandle> {
    let q = Quantiles::new(q.as_array().to_owned(), dtype(q_dtype)?, weak).py()?;
    let method = QuantileMethod::from_name(method).py()?;
    let spec = QuantileSpec { axes, method, keepdims, weights: weights.map(|w| w.inner.clone()), skip_nan };
    x.inner.quantile(&q, &spec).py().map(wrap)
}

/// `median` (`nanmedian` with `skip_nan`) of `x` along `axes` (all when `None`).
#[pyfunction]
pub fn median(x: &PyArrayHandle, axes: Option<Vec<i64>>, keepdims: bool, skip_nan: bool) -> PyResult<PyArrayHandle> {
    x.inner.median(axes.as_deref(), keepdims, skip_nan).py().map(wrap)
}

/// `ptp` of `x` along `axes` (all when `None`).
#[pyfunction]
pub fn ptp(x: &PyArrayHandle, axes: Option<Vec<i64>>, keepdims: bool) -> PyResult<PyArrayHandle> {
    x.inner.ptp(axes.as_deref(), keepdims).py().map(wrap)
}

/// `weights` of `x`'s shape, or of the lengths of `axes` placed to broadcast against `x`.
#[pyfunction]
pub fn aligned_weights(x: &PyArrayHandle, weights: &PyArrayHandle, axes: Option<Vec<i64>>) -> PyResult<PyArrayHandle> {
    x.inner.aligned_weights(&weights.inner, axes.as_deref()).py().map(wrap)
}

/// `x` broadcast to `shape`.
#[pyfunction]
pub fn broadcast_to(x: &PyArrayHandle, shape: Vec<usize>) -> PyResult<PyArrayHandle> {
    x.inner.broadcast_to(&shape).py().map(wrap)
}

type Handles = (PyArrayHandle, Option<PyArrayHandle>, Option<PyArrayHandle>, Option<PyArrayHandle>);

/// `unique` of `x`: the distinct values, and the first positions, inverse indices and counts
/// where asked for (`None` otherwise).
#[pyfunction]
#[pyo3(signature = (x, equal_nan, index, inverse, counts, axis))]
pub fn unique(x: &PyArrayHandle, equal_nan: bool, index: bool, inverse: bool, counts: bool, axis: Option<i64>) -> PyResult<Handles> {
    let found = x.inner.unique(&UniqueSpec { equal_nan, index, inverse, counts, axis }).py()?;
    Ok((wrap(found.values), found.index.map(wrap), found.inverse.map(wrap), found.counts.map(wrap)))
}

/// `union1d` of `a` and `b`.
#[pyfunction]
pub fn union1d(a: &PyArrayHandle, b: &PyArrayHandle) -> PyResult<PyArrayHandle> {
    a.inner.union1d(&b.inner).py().map(wrap)
}

/// `intersect1d` of `a` and `b`: the common values, and their positions in each when asked.
#[pyfunction]
pub fn intersect1d(a: &PyArrayHandle, b: &PyArrayHandle, assume_unique: bool, return_indices: bool) -> PyResult<Handles> {
    let (common, positions) = a.inner.intersect1d(&b.inner, assume_unique, return_indices).py()?;
    let [in_a, in_b] = positions.map_or([None, None], |p| p.map(Some));
    Ok((wrap(common), in_a.map(wrap), in_b.map(wrap), None))
}

/// `setdiff1d` of `a` and `b`.
#[pyfunction]
pub fn setdiff1d(a: &PyArrayHandle, b: &PyArrayHandle, assume_unique: bool) -> PyResult<PyArrayHandle> {
    a.inner.setdiff1d(&b.inner, assume_unique).py().map(wrap)
}

/// Whether each element of `x` is among those of `test` (`invert`: is not).
#[pyfunction]
pub fn isin(x: &PyArrayHandle, test: &PyArrayHandle, invert: bool) -> PyResult<PyArrayHandle> {
    x.inner.isin(&test.inner, invert).py().map(wrap)
}

/// `count_nonzero` of `x` along `axes` (all when `None`).
#[pyfunction]
pub fn count_nonzero(x: &PyArrayHandle, axes: Option<Vec<i64>>, keepdims: bool) -> PyResult<PyArrayHandle> {
    x.inner.count_nonzero(axes.as_deref(), keepdims).py().map(wrap)
}

/// `moveaxis` of `x`.
#[pyfunction]
pub fn moveaxis(x: &PyArrayHandle, source: Vec<i64>, destination: Vec<i64>) -> PyResult<PyArrayHandle> {
    x.inner.moveaxis(&source, &destination).py().map(wrap)
}

/// `pad` of `x` by `widths` (a pair per axis) in NumPy's `mode`: `values` are the constants
/// or ramp ends (0-d arrays, a pair per axis), `odd` the reflections' type, `lengths` the
/// statistics' `stat_length` (a pair per axis).
#[pyfunction]
#[pyo3(signature = (x, widths, mode, values, odd, lengths))]
pub fn pad(
    x: &PyArrayHandle,
    widths: Vec<[usize; 2]>,
    mode: &str,
    values: Option<Vec<(PyRef<'_, PyArrayHandle>, PyRef<'_, PyArrayHandle>)>>,
    odd: bool,
    lengths: Option<Vec<[usize; 2]>>,
) -> PyResult<PyArrayHandle> {
    let pairs = || -> Vec<[tegula::Array; 2]> { values.iter().flatten().map(|(a, b)| [a.inner.clone(), b.inner.clone()]).collect() };
    let statistic = |statistic| PadMode::Statistic { statistic, lengths: lengths.clone() };
    let mode = match mode {
        "constant" => PadMode::Constant(pairs()),
        "linear_ramp" => PadMode::LinearRamp(pairs()),
        "edge" => PadMode::Edge,
        "wrap" => PadMode::Wrap,
        "empty" => PadMode::Empty,
        "reflect" => PadMode::Reflect { odd },
        "symmetric" => PadMode::Symmetric { odd },
        "maximum" => statistic(PadStatistic::Maximum),
        "minimum" => statistic(PadStatistic::Minimum),
        "mean" => statistic(PadStatistic::Mean),
        "median" => statistic(PadStatistic::Median),
        other => return Err(PyValueError::new_err(format!("mode '{other}' is not supported"))),
    };
    x.inner.pad(&widths, &mode).py().map(wrap)
}

/// `einsum` of `operands` by `subscripts`, cast to `dtype` first when given.
#[pyfunction]
#[pyo3(signature = (subscripts, operands, dtype))]
pub fn einsum(subscripts: &str, operands: Vec<PyRef<'_, PyArrayHandle>>, dtype: Option<&str>) -> PyResult<PyArrayHandle> {
    let operands: Vec<&tegula::Array> = operands.iter().map(|o| &o.inner).collect();
    tegula::Array::einsum(subscripts, &operands, crate::convert::opt_dtype(dtype)?).py().map(wrap)
}

/// Boundaries as Python gives them: `"none"`, `"reflect"`, `"periodic"`, `"nearest"`, or a
/// constant as a 0-d array.
fn boundaries(given: Vec<Bound<'_, PyAny>>) -> PyResult<Vec<Boundary>> {
    given
        .into_iter()
        .map(|b| {
            if let Ok(h) = b.cast::<PyArrayHandle>() {
                return Ok(Boundary::Constant(h.get().inner.clone()));
            }
            Ok(match b.extract::<String>()?.as_str() {
                "none" => Boundary::None,
                "reflect" => Boundary::Reflect,
                "periodic" => Boundary::Periodic,
                "nearest" => Boundary::Nearest,
                other => return Err(PyValueError::new_err(format!("boundary must be 'reflect', 'periodic', 'nearest', 'none' or a constant, not {other:?}"))),
            })
        })
        .collect()
}

/// `overlap` of `x` (Dask's): `depths` a pair per axis, `boundary` one per axis.
#[pyfunction]
pub fn overlap(x: &PyArrayHandle, depths: Vec<[usize; 2]>, boundary: Vec<Bound<'_, PyAny>>, allow_rechunk: bool) -> PyResult<PyArrayHandle> {
    x.inner.overlap(&depths, &boundaries(boundary)?, allow_rechunk).py().map(wrap)
}

/// `trim_internal` of `x` (Dask's).
#[pyfunction]
pub fn trim_internal(x: &PyArrayHandle, depths: Vec<[usize; 2]>, boundary: Vec<Bound<'_, PyAny>>) -> PyResult<PyArrayHandle> {
    x.inner.trim_internal(&depths, &boundaries(boundary)?).py().map(wrap)
}

/// Registers this file's functions in the extension module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    for f in [
        wrap_pyfunction!(arg_extreme, m)?,
        wrap_pyfunction!(quantile, m)?,
        wrap_pyfunction!(median, m)?,
        wrap_pyfunction!(ptp, m)?,
        wrap_pyfunction!(aligned_weights, m)?,
        wrap_pyfunction!(broadcast_to, m)?,
        wrap_pyfunction!(unique, m)?,
        wrap_pyfunction!(union1d, m)?,
        wrap_pyfunction!(intersect1d, m)?,
        wrap_pyfunction!(setdiff1d, m)?,
        wrap_pyfunction!(isin, m)?,
        wrap_pyfunction!(count_nonzero, m)?,
        wrap_pyfunction!(moveaxis, m)?,
        wrap_pyfunction!(pad, m)?,
        wrap_pyfunction!(einsum, m)?,
        wrap_pyfunction!(overlap, m)?,
        wrap_pyfunction!(trim_internal, m)?,
    ] {
        m.add_function(f)?;
    }
    Ok(())
}
