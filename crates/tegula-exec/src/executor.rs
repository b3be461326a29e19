//! What every executor is: something that runs a plan (a whole one, or a fragment) within a
//! memory budget and returns its outputs, telling an observer about each task. The threaded
//! executor (`threaded/`) is the reference; another one is a file implementing this trait
//! plus a row in `registry.rs`.

use crate::caller_memory::CallerRegion;
use crate::{Observer, Report};
use tegula_core::{internal_err, Result, Spec};
use tegula_kernels::Chunk;
use tegula_plan::TaskGraph;

/// Something that runs a task graph within a memory budget and returns its outputs' blocks.
pub trait Executor: Send + Sync + std::fmt::Debug {
    /// Runs `graph` under `spec` and returns the blocks of every output (row-major per
    /// output) and what it measured. Results must equal the threaded executor's, bit for bit.
    fn execute(&self, graph: &TaskGraph, spec: &Spec, observer: Option<&dyn Observer>) -> Result<(Vec<Vec<Chunk>>, Report)>;

    /// `execute`, leaving each output block where the task that made it ran (a device's
    /// block in its memory), for arrays kept for later computations (`persist`). An executor
    /// that can only return blocks in the host's memory returns them there.
    fn execute_in_place(&self, graph: &TaskGraph, spec: &Spec, observer: Option<&dyn Observer>) -> Result<(Vec<Vec<Chunk>>, Report)> {
        self.execute(graph, spec, observer)
    }

    /// `execute`, handing every output block to `sink` instead of returning it. An executor
    /// that can hands each over as soon as no task reads it, so that its memory serves the
    /// blocks still to come; this one hands them over at the end.
    fn execute_into(&self, graph: &TaskGraph, spec: &Spec, observer: Option<&dyn Observer>, sink: &dyn OutputSink) -> Result<Report> {
        let (outputs, report) = self.execute(graph, spec, observer)?;
        for (o, blocks) in outputs.into_iter().enumerate() {
            for (b, chunk) in blocks.into_iter().enumerate() {
                sink.put(o, b, chunk)?;
            }
        }
        Ok(report)
    }
}

/// Where an executor puts the blocks of a plan's outputs, each once, from any thread.
pub trait OutputSink: Sync {
    /// Block `block` (row-major over its grid) of output `output`, on the host.
    fn put(&self, output: usize, block: usize, chunk: Chunk) -> Result<()>;

    /// Block `block` of output `output` holds only zeros: true when the sink has taken it so,
    /// and no block need be made (the default: false, it comes by `put`).
    fn put_zeros(&self, _output: usize, _block: usize) -> Result<bool> {
        Ok(false)
    }

    /// Where block `block` of output `output` lies in this process's memory, for a worker
    /// process to write it there itself; `None` (the default): it comes by `put`.
    fn place_of(&self, _output: usize, _block: usize) -> Result<Option<CallerRegion>> {
        Ok(None)
    }

    /// Block `block` of output `output` was written at the place `place_of` gave.
    fn written_in_place(&self, output: usize, block: usize) -> Result<()> {
        Err(internal_err!("block {block} of output {output} written in a place this sink never gave"))
    }
}

/// What a user may say about the executor beside its name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExecutorConfig {
    /// Threads or processes; `None`: one per core.
    pub workers: Option<usize>,
    /// The command that starts a worker process (its program, then its arguments), for
    /// executors with worker processes.
    pub worker_command: Option<Vec<String>>,
}
