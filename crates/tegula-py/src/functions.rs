//! Module-level functions: creating arrays, joining them and computing them.

use crate::array::{wrap, PyArrayHandle};
use crate::convert::{block_to_numpy, chunk_from_numpy, chunk_spec, dtype, numpy_time_dtype, opt_dtype, scalar, shape};
use crate::errors::IntoPy;
use crate::options::{compute_options, report_dict};
use crate::watch::{compute_watched, persist_watched, trace_dict, Watch};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::path::PathBuf;
use tegula::{Array, random::{Distribution, Rejection}};

#[pyfunction]
#[pyo3(signature = (array, chunks=None))]
pub fn from_numpy(array: &Bound<'_, PyAny>, chunks: Option<&Bound<'_, PyAny>>) -> PyResult<PyArrayHandle> {
    let time = numpy_time_dtype(array)?;
    let counts = Array::from_chunk(chunk_from_numpy(array)?, &chunk_spec(chunks)?).py()?;
    match time {
        Some(dtype) => counts.astype(dtype).py().map(wrap),
        None => Ok(wrap(counts)),
    }
}

#[pyfunction]
#[pyo3(signature = (shape_, value, dtype=None, chunks=None))]
pub fn full(
    shape_: &Bound<'_, PyAny>,
    value: &Bound<'_, PyAny>,
    dtype: Option<&str>,
    chunks: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyArrayHandle> {
    let shape = shape(shape_)?;
    Array::full(&shape, scalar(value)?, opt_dtype(dtype)?, &chunk_spec(chunks)?).py().map(wrap)
}

#[pyfunction]
#[pyo3(signature = (start, stop, step, dtype=None, chunks=None))]
pub fn arange(
    start: &Bound<'_, PyAny>,
    stop: &Bound<'_, PyAny>,
    step: &Bound<'_, PyAny>,
    dtype: Option<&str>,
    chunks: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyArrayHandle> {
    let (start, stop, step) = (scalar(start)?, scalar(stop)?, scalar(step)?);
    Array::arange(start, stop, step, opt_dtype(dtype)?, &chunk_spec(chunks)?).py().map(wrap)
}

#[pyfunction]
#[pyo3(signature = (start, stop, num, endpoint, dtype, chunks=None))]
pub fn linspace(
    start: f64,
    stop: f64,
    num: i64,
    endpoint: bool,
    dtype: &str,
    chunks: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyArrayHandle> {
    let num = usize::try_from(num).map_err(|_| PyValueError::new_err(format!("Number of samples, {num}, must be non-negative.")))?;
    Array::linspace(start, stop, num, endpoint, crate::convert::dtype(dtype)?, &chunk_spec(chunks)?).py().map(wrap)
}

#[pyfunction]
#[pyo3(signature = (arrays, axis))]
pub fn concatenate(arrays: Vec<PyRef<'_, PyArrayHandle>>, axis: Option<i64>) -> PyResult<PyArrayHandle> {
    Array::concatenate(&arrays.iter().map(|a| &a.inner).collect::<Vec<_>>(), axis).py().map(wrap)
}

#[pyfunction]
pub fn stack(arrays: Vec<PyRef<'_, PyArrayHandle>>, axis: i64) -> PyResult<PyArrayHandle> {
    Array::stack(&arrays.iter().map(|a| &a.inner).collect::<Vec<_>>(), axis).py().map(wrap)
}

/// Counter-based random generator (the Rust side of `tegula.random.Generator`).
#[pyclass(name = "_Generator", module = "tegula._tegula", frozen)]
pub struct PyGenerator {
    inner: tegula::random::Generator,
}

#[pymethods]
impl PyGenerator {
    #[new]
    fn new(seed: u64) -> Self {
        PyGenerator { inner: tegula::random::Generator::new(seed) }
    }

    /// `dist` is "uniform" (a=low, b=high), "normal" (a=loc, b=scale), "integers" (a=low,
    /// b=high exclusive, as Python ints), "gamma" (a=shape, b=scale), "beta" (a, b),
    /// "chisquare" and "standard_t" (a=df), "poisson" (a=lam) or "binomial" (a=n, b=p).
    #[pyo3(signature = (dist, a, b, shape_, dtype_, chunks=None))]
    fn draw(
        &self,
        dist: &str,
        a: &Bound<'_, PyAny>,
        b: &Bound<'_, PyAny>,
        shape_: &Bound<'_, PyAny>,
        dtype_: &str,
        chunks: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyArrayHandle> {
        let dist = match dist {
            "uniform" => Distribution::Uniform { low: a.extract()?, high: b.extract()? },
            "normal" => Distribution::Normal { loc: a.extract()?, scale: b.extract()? },
            "integers" => Distribution::Integers { low: a.extract()?, high: b.extract()? },
            "gamma" => Distribution::Gamma { shape: a.extract()?, scale: b.extract()? },
            "beta" => Distribution::Beta { a: a.extract()?, b: b.extract()? },
            "chisquare" => Distribution::ChiSquare { df: a.extract()? },
            "standard_t" => Distribution::StudentT { df: a.extract()? },
            "poisson" => Distribution::Poisson { lam: a.extract()? },
            "binomial" => Distribution::Binomial { n: a.extract()?, p: b.extract()? },
            other => return Err(PyValueError::new_err(format!("unknown distribution {other:?}"))),
        };
        self.inner.draw(dist, &shape(shape_)?, dtype(dtype_)?, &chunk_spec(chunks)?).py().map(wrap)
    }

    /// The distribution or ordering `name` composed of uniform and normal draws (the methods
    /// of `tegula::random::Generator` of that name): `params` numbers or arrays, `shape` the
    /// result's (the parameters' broadcast shape when `None`), `n` the length to permute.
    #[pyo3(signature = (name, params, shape_, chunks=None, dtype_=None))]
    fn compose(
        &self,
        name: &str,
        params: Vec<Bound<'_, PyAny>>,
        shape_: Option<Vec<usize>>,
        chunks: Option<&Bound<'_, PyAny>>,
        dtype_: Option<&str>,
    ) -> PyResult<PyArrayHandle> {
        use tegula::random::Param;
        let params = params
            .iter()
            .map(|p| match p.cast::<PyArrayHandle>() {
                Ok(h) => Ok(Param::Array(h.get().inner.clone())),
                Err(_) => p.extract::<f64>().map(Param::Number),
            })
            .collect::<PyResult<Vec<_>>>()?;
        let (g, shape, chunks) = (&self.inner, shape_.as_deref(), &chunk_spec(chunks)?);
        let fixed = || shape.ok_or_else(|| PyValueError::new_err(format!("{name} needs a shape")));
        let one = |i: usize| params.get(i).ok_or_else(|| PyValueError::new_err(format!("{name} needs {} parameters", i + 1)));
        let drawn = match name {
            "uniform" => g.uniform(one(0)?, one(1)?, shape, chunks),
            "normal" => g.normal(one(0)?, one(1)?, shape, chunks),
            "standard_exponential" => g.standard_exponential(fixed()?, crate::convert::opt_dtype(dtype_)?.unwrap_or(tegula::DType::Float64), chunks),
            "exponential" => g.exponential(one(0)?, shape, chunks),
            "lognormal" => g.lognormal(one(0)?, one(1)?, shape, chunks),
            "laplace" => g.laplace(one(0)?, one(1)?, shape, chunks),
            "logistic" => g.logistic(one(0)?, one(1)?, shape, chunks),
            "gumbel" => g.gumbel(one(0)?, one(1)?, shape, chunks),
            "weibull" => g.weibull(one(0)?, shape, chunks),
            "pareto" => g.pareto(one(0)?, shape, chunks),
            "rayleigh" => g.rayleigh(one(0)?, shape, chunks),
            "power" => g.power(one(0)?, shape, chunks),
            "standard_cauchy" => g.standard_cauchy(fixed()?, chunks),
            "permutation" => g.permutation(fixed()?.first().copied().unwrap_or(0), chunks),
            other => return Err(PyValueError::new_err(format!("unknown distribution {other:?}"))),
        };
        drawn.py().map(wrap)
    }

    /// `triangular` of parameters known now (float64 arrays broadcast against each other).
    #[pyo3(signature = (left, mode, right, shape_, chunks=None))]
    fn triangular(
        &self,
        left: numpy::PyReadonlyArrayDyn<'_, f64>,
        mode: numpy::PyReadonlyArrayDyn<'_, f64>,
        right: numpy::PyReadonlyArrayDyn<'_, f64>,
        shape_: Option<Vec<usize>>,
        chunks: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyArrayHandle> {
        let (l, m, r) = (left.as_array().to_owned(), mode.as_array().to_owned(), right.as_array().to_owned());
        self.inner.triangular(&l, &m, &r, shape_.as_deref(), &chunk_spec(chunks)?).py().map(wrap)
    }

    /// `multivariate_normal` samples of `shape_` and whether the covariance passed NumPy's
    /// positive-semidefinite test (`method`: "svd", "eigh" or "cholesky").
    #[pyo3(signature = (mean, cov, shape_, method, tol, chunks=None))]
    fn multivariate_normal(
        &self,
        mean: PyRef<'_, PyArrayHandle>,
        cov: PyRef<'_, PyArrayHandle>,
        shape_: Vec<usize>,
        method: &str,
        tol: f64,
        chunks: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<(PyArrayHandle, bool)> {
        let method = tegula::random::CovarianceFactor::from_name(method).py()?;
        let drawn = self.inner.multivariate_normal(&mean.inner, &cov.inner, &shape_, method, tol, &chunk_spec(chunks)?).py()?;
        Ok((wrap(drawn.samples), drawn.valid))
    }

    /// The positions of `choice`'s sample of `shape` from `0..n` (`p`: checked probabilities).
    #[pyo3(signature = (n, shape_, replace, p, chunks=None))]
    fn choice(&self, n: usize, shape_: Vec<usize>, replace: bool, p: Option<Vec<f64>>, chunks: Option<&Bound<'_, PyAny>>) -> PyResult<PyArrayHandle> {
        self.inner.choice(n, &shape_, replace, p.as_deref(), &chunk_spec(chunks)?).py().map(wrap)
    }

    /// `dist` ("gamma", "beta", "chisquare", "standard_t", "poisson" or "binomial") with
    /// parameters given per element, arrays `a` and `b` as `draw` names them, broadcast to
    /// `shape_` (b is ignored where there is one parameter).
    #[pyo3(signature = (dist, a, b, shape_, chunks=None))]
    fn draw_with(
        &self,
        dist: &str,
        a: PyRef<'_, PyArrayHandle>,
        b: PyRef<'_, PyArrayHandle>,
        shape_: &Bound<'_, PyAny>,
        chunks: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyArrayHandle> {
        let dist = match dist {
            "gamma" => Rejection::Gamma,
            "beta" => Rejection::Beta,
            "chisquare" => Rejection::ChiSquare,
            "standard_t" => Rejection::StudentT,
            "poisson" => Rejection::Poisson,
            "binomial" => Rejection::Binomial,
            other => return Err(PyValueError::new_err(format!("no per-element parameters for {other:?}"))),
        };
        self.inner.draw_with(dist, &a.inner, &b.inner, &shape(shape_)?, &chunk_spec(chunks)?).py().map(wrap)
    }
}

/// Computes several arrays in one pass, without holding the GIL; returns the NumPy arrays and
/// what the executor measured.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (arrays, scheduler="threads", num_workers=None, fuse=true, memory=None, spill_dir=None, progress=None, interval=0.1, trace=false, live=None))]
pub fn compute<'py>(
    py: Python<'py>,
    arrays: Vec<PyRef<'py, PyArrayHandle>>,
    scheduler: &str,
    num_workers: Option<usize>,
    fuse: bool,
    memory: Option<usize>,
    spill_dir: Option<PathBuf>,
    progress: Option<Py<PyAny>>,
    interval: f64,
    trace: bool,
    live: Option<Py<PyAny>>,
) -> PyResult<(Bound<'py, PyList>, Bound<'py, PyDict>)> {
    let options = compute_options(scheduler, num_workers, fuse, memory, spill_dir)?;
    let handles: Vec<Array> = arrays.iter().map(|a| a.inner.clone()).collect();
    let (chunks, report, traced) = compute_watched(py, &handles, options, Watch { progress, live, interval, trace })?;
    let arrays = chunks.into_iter().zip(&handles).map(|(c, a)| block_to_numpy(py, c, a.dtype()));
    let out = PyList::new(py, arrays.collect::<PyResult<Vec<_>>>()?)?;
    Ok((out, traced_report(py, &report, traced)?))
}

/// What the executor measured, as a dict, with the trace of every task when there is one.
fn traced_report<'py>(py: Python<'py>, report: &tegula::execute::Report, traced: Option<(Vec<tegula::execute::TaskEvent>, std::sync::Arc<tegula::execute::PlanDescription>)>) -> PyResult<Bound<'py, PyDict>> {
    let info = report_dict(py, report)?;
    if let Some((events, plan)) = traced {
        info.set_item("trace", trace_dict(py, &events, &plan)?)?;
    }
    Ok(info)
}

/// Persists several arrays in one pass (see `tegula::execute::persist`), without holding the GIL;
/// returns arrays reading the kept blocks and what the executor measured.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (arrays, scheduler="threads", num_workers=None, fuse=true, memory=None, spill_dir=None, progress=None, interval=0.1, trace=false, live=None))]
pub fn persist<'py>(
    py: Python<'py>,
    arrays: Vec<PyRef<'py, PyArrayHandle>>,
    scheduler: &str,
    num_workers: Option<usize>,
    fuse: bool,
    memory: Option<usize>,
    spill_dir: Option<PathBuf>,
    progress: Option<Py<PyAny>>,
    interval: f64,
    trace: bool,
    live: Option<Py<PyAny>>,
) -> PyResult<(Vec<PyArrayHandle>, Bound<'py, PyDict>)> {
    let options = compute_options(scheduler, num_workers, fuse, memory, spill_dir)?;
    let handles: Vec<Array> = arrays.iter().map(|a| a.inner.clone()).collect();
    let (kept, report, traced) = persist_watched(py, &handles, options, Watch { progress, live, interval, trace })?;
    Ok((kept.into_iter().map(wrap).collect(), traced_report(py, &report, traced)?))
}

/// The dtype a Python scalar takes next to an array of dtype `array_dtype` (NumPy 2's weak
/// scalar rule); `OverflowError` when an int does not fit.
#[pyfunction]
pub fn weak_scalar_dtype(value: &Bound<'_, PyAny>, array_dtype: &str) -> PyResult<&'static str> {
    Ok(scalar(value)?.weak_dtype(dtype(array_dtype)?).py()?.name())
}
