//! Arrays on disk and lazily sliced Python objects: opening Zarr and `.npy`, writing arrays to
//! them (without the GIL), and reading any object with NumPy-style slicing chunk by chunk.

use crate::array::{wrap, PyArrayHandle};
use crate::convert::{chunk_spec, dtype, scalar, shape};
use crate::errors::IntoPy;
use crate::options::{compute_options, report_dict};
use crate::interrupt::run_interruptible;
use numpy::PyReadonlyArray1;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PySlice, PyTuple};
use std::path::PathBuf;
use std::sync::Arc;
use tegula::{Array, Result, TegulaError, io::{ChunkSource, Codec, StoredInfo, ZarrOptions}};

/// Opens a Zarr array lazily; returns its handle and its attributes (a JSON object).
#[pyfunction]
#[pyo3(signature = (path, chunks=None, storage_options=Vec::new()))]
pub fn open_zarr(
    py: Python<'_>,
    path: &str,
    chunks: Option<&Bound<'_, PyAny>>,
    storage_options: Vec<(String, String)>,
) -> PyResult<(PyArrayHandle, String)> {
    // Ctrl-C stops the wait for a server that answers slowly, or never.
    let path = path.to_string();
    let source = run_interruptible(py, &tegula::execute::Cancel::default(), None, move || tegula::io::open_zarr_at(&path, &storage_options))?.py()?;
    let attributes = source.info().attributes.clone();
    Ok((opened(source, chunks)?, attributes))
}

/// The metadata document (JSON text) of a Zarr array in object storage.
#[pyfunction]
#[pyo3(signature = (url, storage_options=Vec::new()))]
pub fn zarr_metadata(py: Python<'_>, url: &str, storage_options: Vec<(String, String)>) -> PyResult<String> {
    let url = url.to_string();
    run_interruptible(py, &tegula::execute::Cancel::default(), None, move || tegula::io::remote_zarr_metadata(&url, &storage_options))?.py()
}

/// Opens a `.npy` file lazily.
#[pyfunction]
#[pyo3(signature = (path, chunks=None))]
pub fn open_npy(py: Python<'_>, path: &str, chunks: Option<&Bound<'_, PyAny>>) -> PyResult<PyArrayHandle> {
    let source = py.detach(|| tegula::io::open_npy(path)).py()?;
    opened(source, chunks)
}

/// `chunks=None` keeps the store's chunking (see `Array::from_source`).
fn opened(source: Arc<dyn ChunkSource>, chunks: Option<&Bound<'_, PyAny>>) -> PyResult<PyArrayHandle> {
    let spec = match chunks.filter(|c| !c.is_none()) {
        Some(c) => Some(chunk_spec(Some(c))?),
        None => None,
    };
    Array::from_source(source, spec.as_ref()).py().map(wrap)
}

/// Writes `array` to a new Zarr array at `path`; returns the execution report.
#[pyfunction]
#[pyo3(signature = (array, path, chunks=None, compressor=None, level=None, shards=None, fill_value=None,
                    attributes="{}", overwrite=false, zarr_format=3, scheduler="threads", num_workers=None,
                    fuse=true, memory=None, spill_dir=None, storage_options=Vec::new()))]
#[allow(clippy::too_many_arguments)]
pub fn to_zarr<'py>(
    py: Python<'py>,
    array: PyRef<'py, PyArrayHandle>,
    path: &str,
    chunks: Option<&Bound<'py, PyAny>>,
    compressor: Option<&str>,
    level: Option<i32>,
    shards: Option<&Bound<'py, PyAny>>,
    fill_value: Option<&Bound<'py, PyAny>>,
    attributes: &str,
    overwrite: bool,
    zarr_format: u8,
    scheduler: &str,
    num_workers: Option<usize>,
    fuse: bool,
    memory: Option<usize>,
    spill_dir: Option<PathBuf>,
    storage_options: Vec<(String, String)>,
) -> PyResult<Bound<'py, PyDict>> {
    let a = array.inner.clone();
    let chunk_shape = match chunks.filter(|c| !c.is_none()) {
        Some(c) => per_axis(c, a.ndim(), "chunks")?,
        None => a.default_store_chunks(),
    };
    let zarr = ZarrOptions {
        format: zarr_format,
        chunk_shape,
        codec: Codec::parse(compressor.unwrap_or("none"), level).py()?,
        shard_shape: shards.filter(|s| !s.is_none()).map(|s| per_axis(s, a.ndim(), "shards")).transpose()?,
        fill_value: fill_value.filter(|v| !v.is_none()).map(scalar).transpose()?,
        attributes: attributes.to_string(),
        overwrite,
    };
    let options = compute_options(scheduler, num_workers, fuse, memory, spill_dir)?;
    let cancel = options.spec.as_ref().map(|s| s.cancel.clone()).unwrap_or_default();
    let path = path.to_string();
    let report = run_interruptible(py, &cancel, None, move || a.to_zarr_at(&path, &storage_options, &zarr, options))?.py()?;
    report_dict(py, &report)
}

/// Writes `array` to a `.npy` file at `path`; returns the execution report.
#[pyfunction]
#[pyo3(signature = (array, path, overwrite=false, scheduler="threads", num_workers=None, fuse=true, memory=None,
                    spill_dir=None))]
#[allow(clippy::too_many_arguments)]
pub fn to_npy<'py>(
    py: Python<'py>,
    array: PyRef<'py, PyArrayHandle>,
    path: &str,
    overwrite: bool,
    scheduler: &str,
    num_workers: Option<usize>,
    fuse: bool,
    memory: Option<usize>,
    spill_dir: Option<PathBuf>,
) -> PyResult<Bound<'py, PyDict>> {
    let a = array.inner.clone();
    let options = compute_options(scheduler, num_workers, fuse, memory, spill_dir)?;
    let cancel = options.spec.as_ref().map(|s| s.cancel.clone()).unwrap_or_default();
    let path = path.to_string();
    let report = run_interruptible(py, &cancel, None, move || a.to_npy(&path, overwrite, options))?.py()?;
    report_dict(py, &report)
}

/// A shape per axis: one int for every axis, or a sequence of ints.
fn per_axis(obj: &Bound<'_, PyAny>, ndim: usize, what: &str) -> PyResult<Vec<usize>> {
    let out = match obj.extract::<usize>() {
        Ok(n) => vec![n; ndim],
        Err(_) => shape(obj)?,
    };
    if out.len() != ndim || out.contains(&0) {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "{what}={out:?} must give a positive length for each of the {ndim} axes"
        )));
    }
    Ok(out)
}

/// An object with NumPy-style slicing (an h5py dataset, a zarr-python array, a memory map),
/// read one region at a time, holding the GIL only while Python runs.
struct PySource {
    object: Py<PyAny>,
    info: StoredInfo,
    /// What it reads whole (`ChunkSource::read_unit`), when known.
    unit: Option<Vec<usize>>,
}

impl ChunkSource for PySource {
    fn info(&self) -> &StoredInfo {
        &self.info
    }

    fn read_unit(&self) -> Option<&[usize]> {
        self.unit.as_deref()
    }

    fn read_into(&self, region: &[(usize, usize)], out: &mut [u8]) -> Result<()> {
        Python::attach(|py| self.read_py(py, region, out)).map_err(|e| {
            TegulaError::Io(format!("reading region {region:?} of {}: {e}", self.info.path))
        })
    }
}

impl PySource {
    fn read_py(&self, py: Python<'_>, region: &[(usize, usize)], out: &mut [u8]) -> PyResult<()> {
        let slices = region.iter().map(|&(a, b)| PySlice::new(py, a as isize, b as isize, 1)).collect::<Vec<_>>();
        let values = self.object.bind(py).get_item(PyTuple::new(py, slices)?)?;
        let numpy = py.import("numpy")?;
        let values = numpy.call_method1("ascontiguousarray", (values, self.info.dtype.name()))?;
        let expected: Vec<usize> = region.iter().map(|(a, b)| b - a).collect();
        let got: Vec<usize> = values.getattr("shape")?.extract()?;
        if got != expected {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "slicing gave shape {got:?}, expected {expected:?}"
            )));
        }
        let bytes = values.call_method1("view", ("uint8",))?.call_method1("reshape", (-1,))?;
        let bytes: PyReadonlyArray1<u8> = bytes.extract()?;
        out.copy_from_slice(bytes.as_slice()?);
        Ok(())
    }
}

/// A lazy array over `object`, which `shape`, `dtype` describe: each block is read with one
/// `object[slices]` when the plan needs it. `read_unit`: the box the object reads whole (its
/// compressed chunks), so that parts of one are read once, together.
#[pyfunction]
#[pyo3(signature = (object, shape_, dtype_, chunks=None, name=None, read_unit=None))]
pub fn from_object(
    object: Bound<'_, PyAny>,
    shape_: &Bound<'_, PyAny>,
    dtype_: &str,
    chunks: Option<&Bound<'_, PyAny>>,
    name: Option<String>,
    read_unit: Option<Vec<usize>>,
) -> PyResult<PyArrayHandle> {
    let shape = shape(shape_)?;
    let dtype = dtype(dtype_)?;
    let path = name.unwrap_or_else(|| object.get_type().name().map(|n| n.to_string()).unwrap_or_default());
    let info = StoredInfo { path, chunk_shape: shape.iter().map(|&n| n.max(1)).collect(), shape, dtype, attributes: "{}".into() };
    if read_unit.as_ref().is_some_and(|u| u.len() != info.shape.len()) {
        return Err(pyo3::exceptions::PyValueError::new_err(format!("read_unit {read_unit:?} must give one length per axis")));
    }
    let source: Arc<dyn ChunkSource> = Arc::new(PySource { object: object.unbind(), info, unit: read_unit });
    Array::from_source(source, Some(&chunk_spec(chunks)?)).py().map(wrap)
}
