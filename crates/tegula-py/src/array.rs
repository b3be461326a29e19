//! The `_Array` Python class: a handle on a lazy `tegula::Array`. The Python `tegula.Array`
//! wraps it and adds operators and NumPy conveniences.

use crate::convert::{chunk_spec, dtype, index_items, opt_dtype, scalar};
use crate::errors::IntoPy;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use tegula::{Array, ops::{BinaryOp, ReduceOp, ReduceSpec, ScanOp, ScanSpec, SortSpec, UnaryOp}, linalg::LinalgOp};

#[pyclass(name = "_Array", module = "tegula._tegula", frozen)]
pub struct PyArrayHandle {
    pub inner: Array,
}

fn op_error(kind: &str, name: &str) -> PyErr {
    pyo3::exceptions::PyValueError::new_err(format!("unknown {kind} operation {name:?}"))
}

pub fn wrap(a: Array) -> PyArrayHandle {
    PyArrayHandle { inner: a }
}

#[pymethods]
impl PyArrayHandle {
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.inner.shape())
    }
    #[getter]
    fn dtype(&self) -> &'static str {
        self.inner.dtype().name()
    }
    #[getter]
    fn chunks<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let axes = self
            .inner
            .chunks()
            .sizes()
            .iter()
            .map(|s| PyTuple::new(py, s))
            .collect::<PyResult<Vec<_>>>()?;
        PyTuple::new(py, axes)
    }
    /// The name of the device the array is on.
    fn device(&self) -> PyResult<String> {
        Ok(tegula::execute::device(self.inner.device()).py()?.name().to_string())
    }
    /// The array on the device named `name`.
    fn to_device(&self, name: &str) -> PyResult<PyArrayHandle> {
        Ok(wrap(self.inner.to_device(tegula::execute::find_device(name).py()?)))
    }
    fn task_count(&self) -> PyResult<usize> {
        self.inner.task_count().py()
    }
    /// The plan's description (`tegula::execute::plan_of`) as a dict.
    fn describe<'py>(&self, py: Python<'py>, fuse: bool) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
        let (plan, graph) = tegula::execute::plan_of(&[&self.inner], fuse).py()?;
        crate::watch::plan_dict(py, &plan, &graph)
    }
    /// The plan; with `nodes`, also how it runs on that many nodes of `node_memory` bytes
    /// (default: the budget) each.
    #[pyo3(signature = (memory=None, nodes=None, node_memory=None))]
    fn explain(&self, memory: Option<usize>, nodes: Option<usize>, node_memory: Option<usize>) -> PyResult<String> {
        let spec = crate::options::spec(memory, None)?;
        match nodes {
            None => self.inner.explain_with(&spec).py(),
            Some(count) => {
                let nodes = tegula::cluster::Nodes { count, memory: node_memory.unwrap_or(spec.memory) };
                self.inner.explain_on(&spec, nodes).py()
            }
        }
    }

    fn unary(&self, op: &str) -> PyResult<PyArrayHandle> {
        let op = UnaryOp::from_name(op).ok_or_else(|| op_error("unary", op))?;
        self.inner.unary(op).py().map(wrap)
    }
    fn binary(&self, op: &str, other: &PyArrayHandle) -> PyResult<PyArrayHandle> {
        let op = BinaryOp::from_name(op).ok_or_else(|| op_error("binary", op))?;
        self.inner.binary(op, &other.inner).py().map(wrap)
    }
    fn binary_scalar(&self, op: &str, value: &Bound<'_, PyAny>, reflected: bool) -> PyResult<PyArrayHandle> {
        let op = BinaryOp::from_name(op).ok_or_else(|| op_error("binary", op))?;
        self.inner.binary_scalar(op, scalar(value)?, reflected).py().map(wrap)
    }
    fn astype(&self, name: &str) -> PyResult<PyArrayHandle> {
        self.inner.astype(dtype(name)?).py().map(wrap)
    }
    fn bitcast(&self, name: &str) -> PyResult<PyArrayHandle> {
        self.inner.bitcast(dtype(name)?).py().map(wrap)
    }
    #[pyo3(signature = (op, axes, keepdims, ddof, dtype, split_every))]
    fn reduce(
        &self,
        op: &str,
        axes: Option<Vec<i64>>,
        keepdims: bool,
        ddof: f64,
        dtype: Option<&str>,
        split_every: Option<usize>,
    ) -> PyResult<PyArrayHandle> {
        let op = ReduceOp::from_name(op).ok_or_else(|| op_error("reduction", op))?;
        let mut spec = ReduceSpec { axes, keepdims, ddof, dtype: opt_dtype(dtype)?, ..ReduceSpec::new(op) };
        if let Some(s) = split_every {
            spec.split_every = s;
        }
        self.inner.reduce(&spec).py().map(wrap)
    }
    fn matmul(&self, other: &PyArrayHandle) -> PyResult<PyArrayHandle> {
        self.inner.matmul(&other.inner).py().map(wrap)
    }
    /// `name` of each matrix: `flag` is cholesky's `upper`, qr's `complete`, svd's `full`;
    /// `output` picks one result of slogdet, qr, svd, eigh; `others` are solve's right sides
    /// (and qr-apply's factor); `row_blocks`: each row block is a matrix of its own (the
    /// steps of a tall-skinny QR).
    #[pyo3(signature = (name, others, flag=false, output=0, rtol=None, row_blocks=false))]
    fn linalg(&self, name: &str, others: Vec<PyRef<PyArrayHandle>>, flag: bool, output: u8, rtol: Option<f64>, row_blocks: bool) -> PyResult<PyArrayHandle> {
        let op = linalg_op(name, flag, output, rtol)?;
        let others: Vec<&Array> = others.iter().map(|h| &h.inner).collect();
        if row_blocks {
            self.inner.linalg_row_blocks(op, &others).py().map(wrap)
        } else {
            self.inner.linalg(op, &others).py().map(wrap)
        }
    }
    /// Every result of the factorisation `name` (slogdet, qr, svd, eigh, eig) of each matrix,
    /// computed once where several are computed together.
    #[pyo3(signature = (name, flag=false))]
    fn linalg_results(&self, name: &str, flag: bool) -> PyResult<Vec<PyArrayHandle>> {
        let op = linalg_op(name, flag, 0, None)?;
        Ok(self.inner.linalg_results(op, &[]).py()?.into_iter().map(wrap).collect())
    }
    #[pyo3(signature = (axes=None))]
    fn transpose(&self, axes: Option<Vec<i64>>) -> PyResult<PyArrayHandle> {
        self.inner.transpose(axes.as_deref()).py().map(wrap)
    }
    fn expand_dims(&self, axes: Vec<i64>) -> PyResult<PyArrayHandle> {
        self.inner.expand_dims(&axes).py().map(wrap)
    }
    fn reshape(&self, shape: Vec<i64>) -> PyResult<PyArrayHandle> {
        self.inner.reshape(&shape).py().map(wrap)
    }
    fn getitem(&self, key: &Bound<'_, PyList>) -> PyResult<PyArrayHandle> {
        self.inner.index(&index_items(key)?).py().map(wrap)
    }
    fn fft(&self, axis: i64, inverse: bool) -> PyResult<PyArrayHandle> {
        self.inner.fft(axis, inverse).py().map(wrap)
    }
    fn setitem(&self, key: &Bound<'_, PyList>, values: &PyArrayHandle) -> PyResult<PyArrayHandle> {
        self.inner.set_item(&index_items(key)?, &values.inner).py().map(wrap)
    }
    #[pyo3(signature = (indices, axis=None))]
    fn take(&self, indices: &PyArrayHandle, axis: Option<i64>) -> PyResult<PyArrayHandle> {
        self.inner.take(&indices.inner, axis).py().map(wrap)
    }
    fn take_positions(&self, positions: numpy::PyReadonlyArray1<'_, i64>, axis: i64) -> PyResult<PyArrayHandle> {
        self.inner.take_positions(positions.as_slice()?, axis).py().map(wrap)
    }
    /// `vindex` by known coordinates (one int64 array per axis), or `None` where a gather
    /// reads less.
    fn take_points(&self, coords: Vec<numpy::PyReadonlyArray1<'_, i64>>, axes: Vec<i64>) -> PyResult<Option<PyArrayHandle>> {
        let slices = coords.iter().map(|c| c.as_slice()).collect::<Result<Vec<_>, _>>()?;
        Ok(self.inner.take_points(&slices, &axes).py()?.map(wrap))
    }
    fn take_along_axis(&self, indices: &PyArrayHandle, axis: i64) -> PyResult<PyArrayHandle> {
        self.inner.take_along_axis(&indices.inner, axis).py().map(wrap)
    }
    fn wrap_index(&self, n: usize, axis: usize) -> PyResult<PyArrayHandle> {
        self.inner.wrap_index(n, axis).py().map(wrap)
    }
    /// Computes the mask's per-block counts (with the GIL released).
    fn masked(&self, py: Python<'_>, mask: &PyArrayHandle) -> PyResult<PyArrayHandle> {
        py.detach(|| self.inner.masked(&mask.inner)).py().map(wrap)
    }
    fn nonzero(&self, py: Python<'_>) -> PyResult<Vec<PyArrayHandle>> {
        py.detach(|| self.inner.nonzero()).py().map(|v| v.into_iter().map(wrap).collect())
    }
    #[pyo3(signature = (chunks=None))]
    fn rechunk(&self, chunks: Option<&Bound<'_, PyAny>>) -> PyResult<PyArrayHandle> {
        self.inner.rechunk(&chunk_spec(chunks)?).py().map(wrap)
    }
    fn where_(&self, a: &PyArrayHandle, b: &PyArrayHandle) -> PyResult<PyArrayHandle> {
        Array::where_(&self.inner, &a.inner, &b.inner).py().map(wrap)
    }
    fn sliding_windows(&self, axis: i64, width: usize) -> PyResult<PyArrayHandle> {
        self.inner.sliding_windows(axis, width).py().map(wrap)
    }
    #[pyo3(signature = (op, axis, dtype, include_initial))]
    fn cumulative(&self, op: &str, axis: Option<i64>, dtype: Option<&str>, include_initial: bool) -> PyResult<PyArrayHandle> {
        let op = ScanOp::from_name(op).ok_or_else(|| op_error("cumulative", op))?;
        self.inner.cumulative(&ScanSpec { op, axis, dtype: opt_dtype(dtype)?, include_initial }).py().map(wrap)
    }
    /// `block_bytes`: the largest block the sort may make (default: the `chunks="auto"` target).
    #[pyo3(signature = (axis, descending, block_bytes=None))]
    /// Without the GIL: sorting a long axis computes samples of it (which may call Python).
    fn sort(&self, py: Python<'_>, axis: i64, descending: bool, block_bytes: Option<usize>) -> PyResult<PyArrayHandle> {
        py.detach(|| self.inner.sorted(&sort_spec(axis, descending, false, block_bytes))).py().map(wrap)
    }
    #[pyo3(signature = (axis, descending, block_bytes=None))]
    fn argsort(&self, py: Python<'_>, axis: i64, descending: bool, block_bytes: Option<usize>) -> PyResult<PyArrayHandle> {
        py.detach(|| self.inner.sorted(&sort_spec(axis, descending, true, block_bytes))).py().map(wrap)
    }
    /// `take_along_axis(sort(x), indices)` by selection (see `Array::sorted_take`).
    #[pyo3(signature = (indices, axis, block_bytes=None))]
    fn sorted_take(&self, py: Python<'_>, indices: &PyArrayHandle, axis: i64, block_bytes: Option<usize>) -> PyResult<PyArrayHandle> {
        let block_bytes = sort_spec(axis, false, false, block_bytes).block_bytes;
        py.detach(|| self.inner.sorted_take(&indices.inner, axis, block_bytes)).py().map(wrap)
    }
    #[pyo3(signature = (v, right, sorter=None))]
    fn searchsorted(&self, v: &PyArrayHandle, right: bool, sorter: Option<&PyArrayHandle>) -> PyResult<PyArrayHandle> {
        self.inner.searchsorted(&v.inner, right, sorter.map(|s| &s.inner)).py().map(wrap)
    }
    fn __repr__(&self) -> String {
        self.inner.to_string()
    }
}

fn sort_spec(axis: i64, descending: bool, arg: bool, block_bytes: Option<usize>) -> SortSpec {
    let spec = SortSpec::new(axis, descending, arg);
    SortSpec { block_bytes: block_bytes.unwrap_or(spec.block_bytes), ..spec }
}

/// The linear algebra op `name` (see `PyArrayHandle::linalg`).
fn linalg_op(name: &str, flag: bool, output: u8, rtol: Option<f64>) -> PyResult<LinalgOp> {
    Ok(match name {
        "cholesky" => LinalgOp::Cholesky { upper: flag },
        "inv" => LinalgOp::Inv,
        "solve" => LinalgOp::Solve,
        "det" => LinalgOp::Det,
        "slogdet" => LinalgOp::Slogdet { output },
        "qr" => LinalgOp::Qr { complete: flag, output },
        "svd" => LinalgOp::Svd { full: flag, output },
        "eigh" => LinalgOp::Eigh { output },
        "eig" => LinalgOp::Eig { output },
        "pinv" => LinalgOp::Pinv { rtol },
        "qr-apply" => LinalgOp::QrApply,
        _ => return Err(op_error("linalg", name)),
    })
}
