//! The memory ledger of a computation: bytes of chunks held (`live`, measured from the chunks
//! themselves), bytes promised to running tasks (`reserved`: their results and scratch, as
//! projected), and the peaks of both. A task is admitted only when what it adds fits.

use tegula_kernels::Chunk;
use tegula_plan::memory::{added_bytes, resident_bytes};
use tegula_plan::{Task, TaskGraph, TaskId};

#[derive(Debug, Default)]
pub struct Ledger {
    pub budget: usize,
    pub live: usize,
    pub reserved: usize,
    /// The most bytes of chunks held at once: measured.
    pub peak_live: usize,
    /// The most bytes held or promised at once when a task was admitted: projected.
    pub peak_projected: usize,
    pub spilled_bytes: usize,
    /// Bytes of spilled chunks on disk now.
    pub on_disk: usize,
}

impl Ledger {
    pub fn new(budget: usize) -> Ledger {
        Ledger { budget, ..Ledger::default() }
    }

    pub fn fits(&self, bytes: usize) -> bool {
        self.live + self.reserved + bytes <= self.budget
    }

    /// Bytes `need` beyond the budget if they were admitted now.
    pub fn shortfall(&self, need: usize) -> usize {
        (self.live + self.reserved + need).saturating_sub(self.budget)
    }

    /// A task starts: its result and scratch are promised, and `reloaded` bytes of its inputs
    /// come back from disk.
    pub fn admit(&mut self, task: &Task, reloaded: usize) {
        self.reserved += added_bytes(task);
        self.hold(reloaded);
        self.peak_projected = self.peak_projected.max(self.live + self.reserved);
    }

    /// A task ended: its promise is released (its result, if any, is then `hold`).
    pub fn end(&mut self, task: &Task) {
        self.reserved -= added_bytes(task);
    }

    pub fn hold(&mut self, bytes: usize) {
        self.live += bytes;
        self.peak_live = self.peak_live.max(self.live);
    }

    pub fn release(&mut self, bytes: usize) {
        self.live -= bytes;
    }
}

/// Bytes a task's result holds, measured on the chunk, for the results the projection counts
/// (`resident_bytes`: not loads of arrays the caller holds, which are views of its memory).
pub fn held_bytes(graph: &TaskGraph, id: TaskId, chunk: &Chunk) -> usize {
    match resident_bytes(graph, id) {
        0 => 0,
        _ => chunk.nbytes(),
    }
}
