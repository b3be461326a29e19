//! The one error type of tegula. Each variant maps to one Python exception class
//! (see `tegula-py/src/errors.rs`), so variants name the *kind* of mistake.

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Every error tegula returns, by the kind of mistake.
#[derive(Debug, Clone, PartialEq, Error, Serialize, Deserialize)]
pub enum TegulaError {
    /// Shapes that cannot be combined (broadcasting, matmul, reshape). Python: `ValueError`.
    #[error("{0}")]
    Shape(String),
    /// An axis outside `[-ndim, ndim)`. Python: `numpy.exceptions.AxisError`.
    #[error("axis {axis} is out of bounds for array of dimension {ndim}")]
    Axis {
        /// The axis as given (it may be negative).
        axis: i64,
        /// The number of dimensions of the array.
        ndim: usize,
    },
    /// An index outside the array, or an index of a kind tegula does not accept. Python: `IndexError`.
    #[error("{0}")]
    Index(String),
    /// An operation not defined for a dtype. Python: `TypeError`.
    #[error("{0}")]
    DType(String),
    /// A bad argument value (chunks, step, seed, ...). Python: `ValueError`.
    #[error("{0}")]
    Value(String),
    /// A division by zero found in the data (`average`'s weights summing to zero). Python:
    /// `ZeroDivisionError`.
    #[error("{0}")]
    ZeroDivision(String),
    /// A Python scalar that does not fit the array's dtype. Python: `OverflowError`.
    #[error("{0}")]
    Overflow(String),
    /// A matrix a linear algebra function cannot take: singular, not positive definite, not
    /// square, or a factorisation that did not converge. Python: `numpy.linalg.LinAlgError`.
    #[error("{0}")]
    LinAlg(String),
    /// A plan or task that cannot fit in memory. Python: `MemoryError`.
    #[error("{0}")]
    Memory(String),
    /// A file or stored array that does not exist. Python: `FileNotFoundError`.
    #[error("{0}")]
    NotFound(String),
    /// A file or stored array that exists and may not be replaced. Python: `FileExistsError`.
    #[error("{0}")]
    Exists(String),
    /// Storage that refused the caller's credentials (or their absence). Python: `PermissionError`.
    #[error("{0}")]
    Permission(String),
    /// Reading or writing files (spilled chunks, stored arrays) failed. Python: `OSError`.
    #[error("{0}")]
    Io(String),
    /// An exception raised by a caller's function (`map_blocks`), which the front end that
    /// called it keeps under `id` so it can raise that exception itself, whatever thread or
    /// computation ran the function. Python: that exception.
    #[error("{message}")]
    Callback {
        /// The front end's key for the exception it keeps.
        id: u64,
        /// The exception as text.
        message: String,
    },
    /// A caller's function raised in another process (a worker): the exception as the bytes
    /// that process's front end made of it (Python: pickled). Python: that exception.
    #[error("{message}")]
    Remote {
        /// The exception as bytes (Python: pickled).
        exception: Vec<u8>,
        /// The exception as text.
        message: String,
    },
    /// A computation stopped before it finished because its caller asked (Ctrl-C).
    /// Python: `KeyboardInterrupt`.
    #[error("the computation was interrupted")]
    Interrupted,
    /// A broken invariant inside tegula. Python: `RuntimeError`.
    #[error("internal error (this is a bug in tegula, please report it): {0}")]
    Internal(String),
}

/// A result whose error is a `TegulaError`.
pub type Result<T, E = TegulaError> = std::result::Result<T, E>;

/// `shape_err!("...", args)` builds a `TegulaError::Shape` with a formatted message.
#[macro_export]
macro_rules! shape_err {
    ($($arg:tt)*) => { $crate::TegulaError::Shape(format!($($arg)*)) };
}
/// `value_err!("...", args)` builds a `TegulaError::Value` with a formatted message.
#[macro_export]
macro_rules! value_err {
    ($($arg:tt)*) => { $crate::TegulaError::Value(format!($($arg)*)) };
}
/// `dtype_err!("...", args)` builds a `TegulaError::DType` with a formatted message.
#[macro_export]
macro_rules! dtype_err {
    ($($arg:tt)*) => { $crate::TegulaError::DType(format!($($arg)*)) };
}
/// `index_err!("...", args)` builds a `TegulaError::Index` with a formatted message.
#[macro_export]
macro_rules! index_err {
    ($($arg:tt)*) => { $crate::TegulaError::Index(format!($($arg)*)) };
}
/// `linalg_err!("...", args)` builds a `TegulaError::LinAlg` with a formatted message.
#[macro_export]
macro_rules! linalg_err {
    ($($arg:tt)*) => { $crate::TegulaError::LinAlg(format!($($arg)*)) };
}
/// `internal_err!("...", args)` builds a `TegulaError::Internal` with a formatted message.
#[macro_export]
macro_rules! internal_err {
    ($($arg:tt)*) => { $crate::TegulaError::Internal(format!($($arg)*)) };
}
