//! tegula: chunked n-dimensional arrays with NumPy's semantics, computed lazily as a graph of
//! chunk tasks on all cores.
//!
//! ```
//! use tegula::{Array, ChunkSpec, AxisChunks};
//! let x = tegula::random::Generator::new(42)
//!     .random(&[1000, 1000], &ChunkSpec::All(AxisChunks::Size(250)))
//!     .unwrap();
//! let y = x.add_scalar(1.0).unwrap().mean(None, false).unwrap();
//! let value: f64 = y.compute().unwrap().typed::<f64>().unwrap().iter().copied().sum();
//! assert!((value - 1.5).abs() < 0.01);
//! ```

mod array;
mod budget;
mod cluster;
mod creation;
mod fragments;
mod gather;
mod map_blocks;
mod ops;
mod ordering;
mod persist;
pub mod random;
mod sample_sort;
mod store;

pub use array::{compute, compute_observed, plan_of, Array, ComputeOptions};
pub use cluster::{plan_cluster, plan_cluster_with, ClusterPlan, Nodes};
pub use fragments::{plan_fragments, EncodedFragment};
pub use tegula_plan::placement::{NodeLoad, Placer, Simulation};
pub use ordering::{sort_block_bytes, SortSpec};
pub use budget::budget_left;
pub use tegula_core::kept::kept_bytes;
pub use persist::{persist, persist_observed};
pub use tegula_exec::fragment::{run_fragment, set_function_decoder, Fragment};
pub use tegula_exec::{serve, set_callback_encoder};
pub use tegula_exec::leftovers::remove_dead_owners;
pub use tegula_exec::let_go_of_pools;
pub use store::{open_npy, open_zarr, open_zarr_at, remote_zarr_metadata, STORE_BLOCK_BYTES};
pub use tegula_store::{ChunkSink, ChunkSource, Codec, StoredInfo, ZarrOptions};
pub use tegula_core::chunks::{parse_bytes, AUTO_CHUNK_BYTES};
pub use tegula_core::spec::memory_budget;
pub use tegula_core::{
    AxisChunks, Cancel, DeviceId, Spec, BinaryOp, ChunkSpec, Chunks, DType, Distribution, LinalgOp, MovingOp, Rejection, ReduceOp, Result, Scalar, ScanOp,
    TegulaError, TimeUnit, UnaryOp, NAT,
};
pub use tegula_exec::device::{add_device, device, device_id, device_names, transfer, Cpu, Device, HostDevice};
pub use tegula_exec::{
    default_threads, executor, executor_names, register_executor, MakeExecutor, BlockFunction, SharedArrays, Both, Executor, ExecutorConfig, Observer, ProcessPool, Progress, Report, ClusterReport,
    TaskEvent, Threaded, Trace,
};
pub use tegula_plan::describe::{Operation, PlanDescription};
pub use tegula_plan::TaskGraph;
pub use tegula_core::memory::big_vec;
#[cfg(target_os = "linux")]
pub use tegula_core::reuse;
pub use tegula_kernels::{Block, Chunk, Elem, Wrap};
pub use tegula_plan::construct::layout::IndexItem;
pub use tegula_plan::construct::reduce::ReduceSpec;
pub use tegula_plan::construct::scan::ScanSpec;
