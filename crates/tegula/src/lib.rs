//! tegula: chunked n-dimensional arrays with NumPy's semantics, computed lazily as a graph of
//! chunk tasks on all cores, within a memory budget.
//!
//! An [`Array`] is an expression: operations return new arrays and nothing runs until
//! [`Array::compute`] (or [`compute`] for several arrays at once, sharing their work). What a
//! user does lives in one module each:
//!
//! | module | what it holds |
//! |---|---|
//! | [`Array`] and [`ops`] | element-wise arithmetic, reductions, indexing, reshaping, sorting |
//! | [`creation`] | arrays from data, constants and ranges |
//! | [`linalg`] | products and factorisations |
//! | [`fft`] | discrete Fourier transforms |
//! | [`random`] | counter-based random arrays (NumPy's `Generator`) |
//! | [`io`] | Zarr (local and object storage) and `.npy`, read and written lazily |
//! | [`execute`] | executors, memory budgets, persisting, progress and reports |
//! | [`cluster`] | plans cut into fragments and placed on nodes |
//!
//! ```
//! use tegula::{AxisChunks, ChunkSpec};
//! let x = tegula::random::Generator::new(42)
//!     .random(&[1000, 1000], &ChunkSpec::All(AxisChunks::Size(250)))
//!     .unwrap();
//! let y = x.add_scalar(1.0).unwrap().mean(None, false).unwrap();
//! let value: f64 = y.compute().unwrap().typed::<f64>().unwrap().iter().copied().sum();
//! assert!((value - 1.5).abs() < 0.01);
//! ```
#![deny(missing_docs)]

mod arithmetic;
mod array;
mod blockwise;
mod budget;
mod checks;
pub mod cluster;
mod constant;
mod constructors;
mod einsum;
pub mod fft;
mod fragments;
mod gather;
mod gemm;
mod gpu;
mod histogram_bins;
mod histogram_edges;
mod histograms;
pub mod io;
pub mod linalg;
mod manipulation;
mod map_blocks;
mod ordering;
mod overlap;
mod pad;
mod persist;
mod quantile_positions;
pub mod random;
mod sample_sort;
mod scalar_arithmetic;
mod searching;
mod sets;
mod statistics;

pub use array::{Array, ComputeOptions};
pub use array::compute;
pub use tegula_core::{AxisChunks, ChunkSpec, Chunks, DType, Result, Scalar, TegulaError, TimeUnit, NAT};
pub use tegula_kernels::{Block, Chunk, Elem};
/// An element type an [`Array`] can be made of and a computed [`Chunk`] read as: `bool`, the
/// integers, `f32`/`f64`, `half::f16` and the complex numbers.
pub use tegula_kernels::Wrap as Element;

/// The operations' parameters: which element-wise, reduction, scan or moving-window operation,
/// and how to index.
pub mod ops {
    pub use crate::blockwise::BlockwiseLayout;
    pub use crate::histogram_bins::{BinCount, BinEstimator};
    pub use crate::histograms::{Bins, Histogram};
    pub use crate::ordering::{sort_block_bytes, SortSpec};
    pub use crate::overlap::Boundary;
    pub use crate::pad::{PadMode, PadStatistic};
    pub use crate::sets::{Unique, UniqueSpec};
    pub use crate::statistics::{QuantileMethod, QuantileSpec, Quantiles};
    pub use tegula_core::{BinaryOp, MovingOp, ReduceOp, ScanOp, UnaryOp};
    pub use tegula_plan::construct::layout::IndexItem;
    pub use tegula_plan::construct::reduce::ReduceSpec;
    pub use tegula_plan::construct::scan::ScanSpec;
}

/// Making arrays: from in-memory data ([`Array::from_ndarray`], [`Array::from_chunk`]),
/// constants ([`Array::full`], [`Array::zeros`]) and ranges ([`Array::arange`],
/// [`Array::linspace`]); the default chunk size when none is given.
///
/// ```
/// use tegula::{Array, AxisChunks, ChunkSpec, DType, Scalar};
/// let chunks = ChunkSpec::All(AxisChunks::Size(4));
/// let x = Array::arange(Scalar::Int(0), Scalar::Int(10), Scalar::Int(1), None, &chunks).unwrap();
/// assert_eq!((x.shape(), x.dtype()), (vec![10], DType::Int64));
/// ```
pub mod creation {
    pub use tegula_core::chunks::{parse_bytes, AUTO_CHUNK_BYTES};
}


/// Running computations: executors (threads, processes, or one registered by name), the memory
/// budget and spill directory ([`Spec`](crate::execute::Spec)), persisting arrays, devices, and what a computation
/// reports as it runs and when it ends.
pub mod execute {
    pub use crate::array::{compute_observed, plan_of};
    pub use crate::budget::budget_left;
    pub use crate::gemm::{use_blas, use_loaded_blas, GemmChoice};
    pub use crate::persist::{persist, persist_observed};
    pub use tegula_core::kept::kept_bytes;
    pub use tegula_core::spec::memory_budget;
    pub use tegula_core::{Cancel, DeviceId, Spec};
    #[cfg(target_os = "linux")]
    pub use tegula_core::reuse::Reusing;
    pub use tegula_exec::device::{add_device, device, device_id, device_names, transfer, Cpu, Device, HostDevice};
    pub use crate::gpu::{find_device, gpu, GPU};
    #[cfg(feature = "gpu")]
    pub use tegula_gpu::{Gpu, GpuCounts, Peaks};
    pub use tegula_exec::leftovers::remove_dead_owners;
    pub use tegula_exec::{
        default_threads, executor, executor_names, let_go_of_pools, register_executor, BlockFunction, Both, Executor, ExecutorConfig,
        MakeExecutor, Observer, ProcessPool, Progress, Report, SharedArrays, SpillEvent, TaskEvent, Threaded, Trace, TraceCursor, TraceDelta, TransferEvent,
    };
    pub use tegula_plan::describe::{Detail, Operation, PlanDescription};
    pub use tegula_plan::TaskGraph;
}
