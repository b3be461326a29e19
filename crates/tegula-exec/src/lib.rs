//! tegula-exec: the only layer that joins plans and kernels. It runs a `TaskGraph` on a rayon
//! pool of threads (of one thread: the serial reference) within a memory budget, spilling to
//! disk what does not fit; each chunk is kept only until its last consumer has run, and every
//! thread count and budget gives bit-identical results.

#![deny(missing_docs)]

mod assemble;
mod caller_memory;
mod clock;
pub mod device;
mod dispatch;
mod executor;
pub mod fragment;
mod fresh_pages;
mod function;
pub mod leftovers;
pub mod held;
mod inline;
mod ledger;
mod mapped;
mod observe;
mod pool;
mod process_pool;
mod registry;
mod shared;
mod spill;
mod state;
mod threaded;
mod worker;

pub use assemble::{assemble_output, OutputArrays};
pub use caller_memory::{CallerArray, CallerRegion, CallerSource, Probe};
pub use dispatch::{Admission, Dispatch, DispatchJob, Ended, Order};
pub use device::{add_device, device_id, device_names, Cpu, Device, HostDevice};
pub use executor::{Executor, ExecutorConfig, OutputSink};
pub use process_pool::ProcessPool;
pub use registry::{executor, names as executor_names, register_executor, MakeExecutor};
pub use pool::let_go_of_pools;
pub use threaded::Threaded;
pub use worker::{serve, set_callback_encoder, CallbackEncoder};
pub use fragment::{run_fragment, Fragment, FunctionBytes};
pub use function::BlockFunction;
pub use held::HeldBlocks;
pub use shared::SharedArrays;
pub use observe::{Both, Observer, Progress, SpillEvent, TaskEvent, Trace, TraceCursor, TraceDelta, TransferEvent};
use tegula_core::{Result, Spec};
use tegula_kernels::Chunk;
use tegula_plan::TaskGraph;

/// The number of cores this process may use.
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

/// What an execution measured.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// The number of tasks in the plan it ran.
    pub tasks: usize,
    /// The most bytes of chunks held in memory at once (outputs included while the executor
    /// holds them, not once handed to an `OutputSink`; loads of arrays the caller holds are
    /// views and count nothing), measured on the chunks.
    pub peak_bytes: usize,
    /// The most bytes held or promised to running tasks at once, as projected when tasks
    /// were admitted; at most `budget` unless a single task needed more.
    pub projected_peak_bytes: usize,
    /// Bytes written to the spill directory.
    pub spilled_bytes: usize,
    /// The memory budget it ran under.
    pub budget: usize,
    /// The most bytes of chunks held at once on each device, by its number (the CPU first;
    /// executors that keep no ledger per device give the CPU's alone).
    pub device_peaks: Vec<usize>,
    /// On a cluster: what the placement was simulated to move and hold, and what the
    /// cluster measured it moved.
    pub cluster: Option<ClusterReport>,
}

/// What a run on a cluster moved between nodes and held on each: as its placement was
/// simulated, and as the cluster measured it (the same figures, where the runner measures them).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClusterReport {
    /// What the placement was simulated to move and hold.
    pub simulated: tegula_plan::placement::Simulation,
    /// What the cluster measured, where its runner measures it.
    pub measured: Option<tegula_plan::placement::Simulation>,
}

/// Runs `graph` on `executor` and returns the blocks of every output (row-major per output)
/// and a report.
pub fn execute(graph: &TaskGraph, executor: &dyn Executor, spec: &Spec) -> Result<(Vec<Vec<Chunk>>, Report)> {
    executor.execute(graph, spec, None)
}

/// Runs `graph` and returns every output as one chunk.
pub fn compute(graph: &TaskGraph, executor: &dyn Executor, spec: &Spec) -> Result<(Vec<Chunk>, Report)> {
    compute_observed(graph, executor, spec, None)
}

/// `compute`, telling `observer` about each task as it ends.
pub fn compute_observed(
    graph: &TaskGraph,
    executor: &dyn Executor,
    spec: &Spec,
    observer: Option<&dyn Observer>,
) -> Result<(Vec<Chunk>, Report)> {
    let arrays = OutputArrays::new(&graph.outputs);
    let report = executor.execute_into(graph, spec, observer, &arrays)?;
    Ok((arrays.finish()?, report))
}
