//! tegula-exec: the only layer that joins plans and kernels. It runs a `TaskGraph` on a rayon
//! pool of threads (of one thread: the serial reference) within a memory budget, spilling to
//! disk what does not fit; each chunk is kept only until its last consumer has run, and every
//! thread count and budget gives bit-identical results.

mod assemble;
mod function;
mod ledger;
mod observe;
mod pool;
mod spill;
mod state;
mod threaded;

pub use assemble::assemble_output;
pub use function::BlockFunction;
pub use observe::{Both, Observer, Progress, TaskEvent, Trace};
use state::Inputs;
use tegula_core::{Result, Spec};
use tegula_kernels::Chunk;
use tegula_plan::TaskGraph;

/// Which executor runs a graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Executor {
    /// One task at a time, in static order (on a pool of one thread): the reference.
    Serial,
    /// `threads` workers taking ready tasks in static order.
    Threaded { threads: usize },
}

impl Default for Executor {
    fn default() -> Self {
        Executor::Threaded { threads: default_threads() }
    }
}

/// The number of cores this process may use.
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

/// What an execution measured.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Report {
    pub tasks: usize,
    /// The most bytes of chunks held in memory at once (outputs included; loads of arrays the
    /// caller holds are views and count nothing), measured on the chunks.
    pub peak_bytes: usize,
    /// The most bytes held or promised to running tasks at once, as projected when tasks
    /// were admitted; at most `budget` unless a single task needed more.
    pub projected_peak_bytes: usize,
    /// Bytes written to the spill directory.
    pub spilled_bytes: usize,
    /// The memory budget it ran under.
    pub budget: usize,
}

/// Runs `graph` and returns the blocks of every output (row-major per output) and a report.
pub fn execute(graph: &TaskGraph, executor: Executor, spec: &Spec) -> Result<(Vec<Vec<Chunk>>, Report)> {
    execute_observed(graph, executor, spec, None)
}

/// `execute`, telling `observer` about each task as it ends.
pub fn execute_observed(
    graph: &TaskGraph,
    executor: Executor,
    spec: &Spec,
    observer: Option<&dyn Observer>,
) -> Result<(Vec<Vec<Chunk>>, Report)> {
    let inputs = Inputs::new(graph)?;
    let threads = match executor {
        Executor::Serial => 1,
        Executor::Threaded { threads } => threads,
    };
    let (results, report) = threaded::run(graph, &inputs, threads, spec, observer)?;
    let outputs = graph
        .outputs
        .iter()
        .map(|o| o.blocks.iter().map(|&t| state::take_result(&results, t)).collect::<Result<Vec<_>>>())
        .collect::<Result<Vec<_>>>()?;
    Ok((outputs, report))
}

/// Runs `graph` and returns every output as one chunk.
pub fn compute(graph: &TaskGraph, executor: Executor, spec: &Spec) -> Result<(Vec<Chunk>, Report)> {
    compute_observed(graph, executor, spec, None)
}

/// `compute`, telling `observer` about each task as it ends.
pub fn compute_observed(
    graph: &TaskGraph,
    executor: Executor,
    spec: &Spec,
    observer: Option<&dyn Observer>,
) -> Result<(Vec<Chunk>, Report)> {
    let (blocks, report) = execute_observed(graph, executor, spec, observer)?;
    let arrays = graph
        .outputs
        .iter()
        .zip(blocks)
        .map(|(o, b)| assemble_output(&o.chunks, o.dtype, b))
        .collect::<Result<Vec<_>>>()?;
    Ok((arrays, report))
}
