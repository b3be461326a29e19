//! tegula-exec: the only layer that joins plans and kernels. It runs a `TaskGraph` on a serial
//! reference executor or on a rayon pool of threads; both keep each chunk only until its last
//! consumer has run, and both give bit-identical results.

mod assemble;
mod pool;
mod serial;
mod state;
mod threaded;

pub use assemble::assemble_output;
use state::Inputs;
use tegula_core::Result;
use tegula_kernels::Chunk;
use tegula_plan::TaskGraph;

/// Which executor runs a graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Executor {
    /// One task at a time, in static order: the reference.
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
    /// The most bytes of chunks held at once (outputs included).
    pub peak_bytes: usize,
}

/// Runs `graph` and returns the blocks of every output (row-major per output) and a report.
pub fn execute(graph: &TaskGraph, executor: Executor) -> Result<(Vec<Vec<Chunk>>, Report)> {
    let inputs = Inputs::new(graph)?;
    let (results, report) = match executor {
        Executor::Serial => serial::run(graph, &inputs)?,
        Executor::Threaded { threads } if threads <= 1 => serial::run(graph, &inputs)?,
        Executor::Threaded { threads } => threaded::run(graph, &inputs, threads)?,
    };
    let outputs = graph
        .outputs
        .iter()
        .map(|o| o.blocks.iter().map(|&t| state::take_result(&results, t)).collect::<Result<Vec<_>>>())
        .collect::<Result<Vec<_>>>()?;
    Ok((outputs, report))
}

/// Runs `graph` and returns every output as one chunk.
pub fn compute(graph: &TaskGraph, executor: Executor) -> Result<(Vec<Chunk>, Report)> {
    let (blocks, report) = execute(graph, executor)?;
    let arrays = graph
        .outputs
        .iter()
        .zip(blocks)
        .map(|(o, b)| assemble_output(&o.chunks, o.dtype, b))
        .collect::<Result<Vec<_>>>()?;
    Ok((arrays, report))
}
