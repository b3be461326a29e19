//! One Python exception class per `TegulaError` variant.

use pyo3::exceptions::{PyFileExistsError, PyFileNotFoundError, PyIndexError, PyMemoryError, PyOSError, PyOverflowError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use std::sync::Mutex;
use tegula::TegulaError;

/// The exception a Python function called by the executor (`map_blocks`) raised, kept until
/// the computation's error reaches Python, so the caller gets that exception itself.
static CALLBACK_ERROR: Mutex<Option<PyErr>> = Mutex::new(None);
const CALLBACK_FAILED: &str = "the function given to map_blocks raised ";

/// Keeps `err` for `to_py` and returns the error the executor reports (the first one wins).
pub fn stash_callback_error(err: PyErr) -> TegulaError {
    let msg = format!("{CALLBACK_FAILED}{err}");
    if let Ok(mut slot) = CALLBACK_ERROR.lock() {
        slot.get_or_insert(err);
    }
    TegulaError::Value(msg)
}

pub fn to_py(err: TegulaError) -> PyErr {
    let msg = err.to_string();
    if msg.starts_with(CALLBACK_FAILED) {
        if let Some(original) = CALLBACK_ERROR.lock().ok().and_then(|mut slot| slot.take()) {
            return original;
        }
    }
    match err {
        TegulaError::Shape(_) | TegulaError::Value(_) => PyValueError::new_err(msg),
        TegulaError::Axis { axis, ndim } => axis_error(axis, ndim).unwrap_or_else(|e| e),
        TegulaError::Index(_) => PyIndexError::new_err(msg),
        TegulaError::DType(_) => PyTypeError::new_err(msg),
        TegulaError::LinAlg(_) => linalg_error(&msg).unwrap_or_else(|e| e),
        TegulaError::Overflow(_) => PyOverflowError::new_err(msg),
        TegulaError::Memory(_) => PyMemoryError::new_err(msg),
        TegulaError::NotFound(_) => PyFileNotFoundError::new_err(msg),
        TegulaError::Exists(_) => PyFileExistsError::new_err(msg),
        TegulaError::Io(_) => PyOSError::new_err(msg),
        TegulaError::Internal(_) => PyRuntimeError::new_err(msg),
    }
}

/// `numpy.exceptions.AxisError(axis, ndim)` (a subclass of both ValueError and IndexError).
fn axis_error(axis: i64, ndim: usize) -> Result<PyErr, PyErr> {
    Python::attach(|py| {
        let cls = py.import("numpy.exceptions")?.getattr("AxisError")?;
        Ok(PyErr::from_value(cls.call1((axis, ndim))?))
    })
}

/// `numpy.linalg.LinAlgError(msg)` (a subclass of ValueError), so code written for NumPy catches it.
fn linalg_error(msg: &str) -> Result<PyErr, PyErr> {
    Python::attach(|py| {
        let cls = py.import("numpy.linalg")?.getattr("LinAlgError")?;
        Ok(PyErr::from_value(cls.call1((msg,))?))
    })
}

/// `?`-friendly conversion of tegula results.
pub trait IntoPy<T> {
    fn py(self) -> PyResult<T>;
}

impl<T> IntoPy<T> for Result<T, TegulaError> {
    fn py(self) -> PyResult<T> {
        self.map_err(to_py)
    }
}
