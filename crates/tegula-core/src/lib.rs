//! tegula-core: the vocabulary every other tegula crate speaks — errors, dtypes and their
//! promotion, Python scalars, shapes and broadcasting, chunkings and grid math, and the closed
//! set of chunk operations a task graph names (`TaskOp`: a `SourceOp`, a `KernelOp` or an `IoOp`); big buffers (`memory`), the bytes persisted arrays keep (`kept`), and what a computation may use (`spec`).

#![deny(missing_docs)]

pub mod cancel;
pub mod chunks;
pub mod device;
pub mod dtype;
pub mod error;
pub mod grid;
pub mod io_op;
pub mod kept;
pub mod kernel_op;
pub mod limits;
pub mod linalg;
pub mod memory;
pub mod ops;
pub mod program;
#[cfg(target_os = "linux")]
pub mod reuse;
pub mod scalar;
pub mod shape;
pub mod source_op;
pub mod spec;
pub mod task_op;
pub mod time;
pub mod time_unit;

pub use cancel::Cancel;
pub use chunks::{normalize_chunks, AxisChunks, ChunkSpec, Chunks};
pub use device::DeviceId;
pub use dtype::{promote, promote_checked, result_type, DType, Kind};
pub use error::{Result, TegulaError};
pub use linalg::{LinalgOp, TileAt};
pub use io_op::{IoOp, ResourceId};
pub use kernel_op::KernelOp;
pub use ops::{BinaryOp, Distribution, Finish, MovingOp, PartialReduce, Piece, ReduceOp, Rejection, ScanOp, Select, UnaryOp};
pub use source_op::SourceOp;
pub use task_op::TaskOp;
pub use time_unit::{TimeUnit, NAT};
pub use scalar::Scalar;
pub use shape::Shape;
pub use spec::Spec;
