//! What both executors share: the stored arrays `Load` tasks read, reference counts that free
//! a chunk after its last use, and running one task's kernel.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::collections::HashMap;
use tegula_core::{internal_err, OpKind, Result};
use tegula_kernels::Chunk;
use tegula_plan::{TaskGraph, TaskId};

/// The in-memory arrays of a graph, by id.
pub struct Inputs<'g> {
    stored: HashMap<u64, &'g Chunk>,
}

impl<'g> Inputs<'g> {
    pub fn new(graph: &'g TaskGraph) -> Result<Inputs<'g>> {
        let stored = graph
            .sources
            .iter()
            .map(|s| {
                s.data
                    .downcast_ref::<Chunk>()
                    .map(|c| (s.id, c))
                    .ok_or_else(|| internal_err!("stored array #{} does not hold a chunk", s.id))
            })
            .collect::<Result<_>>()?;
        Ok(Inputs { stored })
    }

    /// Runs task `id` given its inputs' chunks; a panic in a kernel becomes an internal error.
    pub fn run(&self, graph: &TaskGraph, id: TaskId, args: &[Chunk]) -> Result<Chunk> {
        let task = &graph.tasks[id];
        let stored;
        let args = match &task.op {
            OpKind::Load { source, .. } => {
                let chunk = self.stored.get(source).ok_or_else(|| internal_err!("stored array #{source} missing"))?;
                stored = [(*chunk).clone()];
                &stored[..]
            }
            _ => args,
        };
        catch_unwind(AssertUnwindSafe(|| tegula_kernels::run(&task.op, args)))
            .unwrap_or_else(|_| Err(internal_err!("kernel {} panicked", task.op.label())))
    }
}

/// How many times each task's result is still needed: once per consuming edge, plus once per
/// appearance as an output block (outputs are kept to the end).
pub fn uses(graph: &TaskGraph) -> Vec<usize> {
    let mut uses = vec![0; graph.tasks.len()];
    for t in &graph.tasks {
        for &i in &t.inputs {
            uses[i] += 1;
        }
    }
    for o in &graph.outputs {
        for &b in &o.blocks {
            uses[b] += 1;
        }
    }
    uses
}

pub fn take_result(results: &[Option<Chunk>], id: TaskId) -> Result<Chunk> {
    results[id].clone().ok_or_else(|| internal_err!("output task {id} has no result"))
}

/// Live chunk bytes and their peak.
#[derive(Default)]
pub struct Memory {
    pub live: usize,
    pub peak: usize,
}

impl Memory {
    pub fn hold(&mut self, bytes: usize) {
        self.live += bytes;
        self.peak = self.peak.max(self.live);
    }
    pub fn release(&mut self, bytes: usize) {
        self.live = self.live.saturating_sub(bytes);
    }
}
