//! What every executor is: something that runs a plan (a whole one, or a fragment) within a
//! memory budget and returns its outputs, telling an observer about each task. The threaded
//! executor (`threaded/`) is the reference; another one is a file implementing this trait
//! plus a row in `registry.rs`.

use crate::{Observer, Report};
use tegula_core::{Result, Spec};
use tegula_kernels::Chunk;
use tegula_plan::TaskGraph;

/// Something that runs a task graph within a memory budget and returns its outputs' blocks.
pub trait Executor: Send + Sync + std::fmt::Debug {
    /// Runs `graph` under `spec` and returns the blocks of every output (row-major per
    /// output) and what it measured. Results must equal the threaded executor's, bit for bit.
    fn execute(&self, graph: &TaskGraph, spec: &Spec, observer: Option<&dyn Observer>) -> Result<(Vec<Vec<Chunk>>, Report)>;
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
