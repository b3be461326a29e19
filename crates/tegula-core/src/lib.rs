//! tegula-core: the vocabulary every other tegula crate speaks — errors, dtypes and their
//! promotion, Python scalars, shapes and broadcasting, chunkings and grid math, and the closed
//! set of chunk operations (`OpKind`) that a task graph names; big buffers (`memory`), and what a computation may use (`spec`).

pub mod cancel;
pub mod chunks;
pub mod dtype;
pub mod error;
pub mod grid;
pub mod limits;
pub mod linalg;
pub mod memory;
pub mod ops;
pub mod program;
pub mod scalar;
pub mod shape;
pub mod spec;

pub use cancel::Cancel;
pub use chunks::{normalize_chunks, AxisChunks, ChunkSpec, Chunks};
pub use dtype::{promote, result_type, DType, Kind};
pub use error::{Result, TegulaError};
pub use linalg::LinalgOp;
pub use ops::{BinaryOp, Distribution, Finish, OpKind, PartialReduce, Piece, ReduceOp, ScanOp, Select, UnaryOp};
pub use scalar::Scalar;
pub use shape::Shape;
pub use spec::Spec;
