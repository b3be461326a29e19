//! `map_blocks` with a Python function: called (with the GIL) from the executor's threads with
//! a block's number along each axis and NumPy copies of the same block of every input.

use crate::array::{wrap, PyArrayHandle};
use crate::convert::{chunk_from_numpy, chunk_to_numpy, dtype};
use crate::errors::{stash_callback_error, IntoPy};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};
use std::sync::Arc;
use tegula::{Array, Chunk, Chunks, execute::BlockFunction};

struct PyBlockFunction {
    function: Py<PyAny>,
}

impl BlockFunction for PyBlockFunction {
    fn call(&self, block: &[usize], args: &[Chunk]) -> tegula::Result<Chunk> {
        Python::attach(|py| {
            let arrays = args.iter().map(|c| chunk_to_numpy(py, c.clone())).collect::<PyResult<Vec<_>>>()?;
            let arrays = PyList::new(py, arrays)?;
            let result = self.function.call1(py, (PyTuple::new(py, block)?, arrays))?;
            chunk_from_numpy(result.bind(py))
        })
        .map_err(stash_callback_error)
    }

    /// The function pickled by cloudpickle, so lambdas and closures travel too.
    fn encode(&self) -> tegula::Result<Vec<u8>> {
        Python::attach(|py| {
            let pickled = py.import("cloudpickle")?.call_method1("dumps", (self.function.bind(py),))?;
            pickled.extract::<Vec<u8>>()
        })
        .map_err(|e| tegula::TegulaError::Value(format!("the function given to map_blocks cannot be pickled: {e}")))
    }
}

/// A function pickled by `encode`, in another process.
pub fn decode_function(bytes: &[u8]) -> tegula::Result<Arc<dyn BlockFunction>> {
    Python::attach(|py| {
        let function = py.import("pickle")?.call_method1("loads", (PyBytes::new(py, bytes),))?;
        Ok(Arc::new(PyBlockFunction { function: function.unbind() }) as Arc<dyn BlockFunction>)
    })
    .map_err(|e: PyErr| tegula::TegulaError::Value(format!("cannot unpickle a map_blocks function: {e}")))
}

/// `function(block, [blocks])` of the same block of every array; `chunks`: the result's block
/// lengths per axis (the arrays' block grid).
#[pyfunction]
pub fn map_blocks(
    function: Py<PyAny>,
    arrays: Vec<PyRef<'_, PyArrayHandle>>,
    chunks: Vec<Vec<usize>>,
    dtype_: &str,
    name: &str,
) -> PyResult<PyArrayHandle> {
    let shape: Vec<usize> = chunks.iter().map(|c| c.iter().sum()).collect();
    let chunks = Chunks::new(chunks, &shape).py()?;
    let inputs: Vec<&Array> = arrays.iter().map(|a| &a.inner).collect();
    let function = Arc::new(PyBlockFunction { function });
    Array::map_blocks(&inputs, function, name, chunks, dtype(dtype_)?).py().map(wrap)
}

/// Dask's `blockwise` layout of arrays (`tegula::ops::BlockwiseLayout`): `axes[k]` is the
/// internal axis of each of array `k`'s own axes; `apply` runs a Python function of the
/// laid-out blocks, which undoes the layout with `axes`.
#[pyclass(name = "BlockwiseLayout", frozen)]
pub struct PyBlockwiseLayout {
    layout: tegula::ops::BlockwiseLayout,
}

#[pymethods]
impl PyBlockwiseLayout {
    /// The layout of `arrays`, array `k` indexed by the letters `indices[k]`, for a result
    /// indexed `out_index`; `new_axes`: (letter, length) of result indices no input has;
    /// the axes of the letters of `whole` are one block each.
    #[new]
    #[pyo3(signature = (out_index, arrays, indices, new_axes, whole=""))]
    fn new(out_index: &str, arrays: Vec<PyRef<'_, PyArrayHandle>>, indices: Vec<String>, new_axes: Vec<(char, usize)>, whole: &str) -> PyResult<Self> {
        let inputs: Vec<(&Array, &str)> = arrays.iter().map(|a| &a.inner).zip(indices.iter().map(String::as_str)).collect();
        let layout = tegula::ops::BlockwiseLayout::new(out_index, &inputs, &new_axes, whole).py()?;
        Ok(PyBlockwiseLayout { layout })
    }

    #[getter]
    fn axes(&self) -> Vec<Vec<usize>> {
        self.layout.axes.clone()
    }

    /// `function(block, [blocks])` of the laid-out blocks, returning a block on the internal
    /// axes (contracted ones of length one), over every block; the contracted axes dropped.
    fn apply(&self, function: Py<PyAny>, dtype_: &str, name: &str) -> PyResult<PyArrayHandle> {
        self.layout.apply(Arc::new(PyBlockFunction { function }), name, dtype(dtype_)?).py().map(wrap)
    }
}
