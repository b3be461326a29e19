//! The stored arrays `Load` tasks read, and running one task's kernel.

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

pub fn take_result(results: &[Option<Chunk>], id: TaskId) -> Result<Chunk> {
    results[id].clone().ok_or_else(|| internal_err!("output task {id} has no result"))
}
