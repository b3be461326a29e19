//! One Python exception class per `TegulaError` variant.

use pyo3::exceptions::{
    PyFileExistsError, PyFileNotFoundError, PyIndexError, PyKeyboardInterrupt, PyMemoryError, PyOSError,
    PyPermissionError,
    PyOverflowError, PyRuntimeError, PyTypeError, PyValueError, PyZeroDivisionError,
};
use pyo3::prelude::*;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use tegula::TegulaError;

/// The exceptions Python functions called by the executor (`map_blocks`) raised, by the id
/// their `TegulaError::Callback` carries, until that error reaches Python: each caller gets
/// the exception its own computation raised, whatever other threads compute at the same time.
static CALLBACK_ERRORS: Mutex<BTreeMap<u64, PyErr>> = Mutex::new(BTreeMap::new());
static NEXT_CALLBACK_ERROR: AtomicU64 = AtomicU64::new(1);
/// A computation reports only its first error; the exceptions of its other failed calls are
/// never asked for, so only the latest ones are kept.
const KEPT_CALLBACK_ERRORS: usize = 256;

/// Keeps `err` for `to_py` and returns the error the executor reports.
pub fn stash_callback_error(err: PyErr) -> TegulaError {
    stash_error(err, "the function given to map_blocks")
}

/// Keeps `err`, raised by Python code `what` names, for `to_py`, and returns the error the
/// executor reports; `to_py` raises `err` itself.
pub fn stash_error(err: PyErr, what: &str) -> TegulaError {
    let message = format!("{what} raised {err}");
    let id = NEXT_CALLBACK_ERROR.fetch_add(1, Ordering::Relaxed);
    if let Ok(mut kept) = CALLBACK_ERRORS.lock() {
        kept.insert(id, err);
        while kept.len() > KEPT_CALLBACK_ERRORS {
            kept.pop_first();
        }
    }
    TegulaError::Callback { id, message }
}

pub fn to_py(err: TegulaError) -> PyErr {
    let msg = err.to_string();
    match err {
        TegulaError::Shape(_) | TegulaError::Value(_) => PyValueError::new_err(msg),
        TegulaError::Axis { axis, ndim } => axis_error(axis, ndim).unwrap_or_else(|e| e),
        TegulaError::Index(_) => PyIndexError::new_err(msg),
        TegulaError::DType(_) => PyTypeError::new_err(msg),
        TegulaError::LinAlg(_) => linalg_error(&msg).unwrap_or_else(|e| e),
        TegulaError::ZeroDivision(_) => PyZeroDivisionError::new_err(msg),
        TegulaError::Overflow(_) => PyOverflowError::new_err(msg),
        TegulaError::Memory(_) => PyMemoryError::new_err(msg),
        TegulaError::NotFound(_) => PyFileNotFoundError::new_err(msg),
        TegulaError::Exists(_) => PyFileExistsError::new_err(msg),
        TegulaError::Permission(_) => PyPermissionError::new_err(msg),
        TegulaError::Io(_) => PyOSError::new_err(msg),
        TegulaError::Callback { id, .. } => {
            let original = CALLBACK_ERRORS.lock().ok().and_then(|mut kept| kept.remove(&id));
            original.unwrap_or_else(|| PyRuntimeError::new_err(msg))
        }
        TegulaError::Remote { exception, .. } => unpickled(&exception).unwrap_or_else(|_| PyRuntimeError::new_err(msg)),
        TegulaError::Interrupted => PyKeyboardInterrupt::new_err(msg),
        TegulaError::Internal(_) => PyRuntimeError::new_err(msg),
    }
}

/// In a worker process: the exception kept for a `Callback` error, pickled, so the caller
/// raises it as itself (`None`: kept nowhere, or it does not pickle; the message then goes).
pub fn pickled_callback_error(err: &TegulaError) -> Option<TegulaError> {
    let TegulaError::Callback { id, message } = err else { return None };
    let original = CALLBACK_ERRORS.lock().ok()?.remove(id)?;
    Python::attach(|py| {
        let pickled = py.import("cloudpickle")?.call_method1("dumps", (original.value(py),))?;
        pickled.extract::<Vec<u8>>()
    })
    .ok()
    .map(|exception| TegulaError::Remote { exception, message: message.clone() })
}

fn unpickled(exception: &[u8]) -> PyResult<PyErr> {
    Python::attach(|py| {
        let value = py.import("pickle")?.call_method1("loads", (pyo3::types::PyBytes::new(py, exception),))?;
        Ok(PyErr::from_value(value))
    })
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
