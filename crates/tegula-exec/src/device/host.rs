//! A device made of the host's own cores and memory, with a memory budget of its own and its
//! transfers counted: what stands in for an accelerator where there is none (its blocks are
//! copied on the way in and out, as an accelerator's would be), so the device seam is tested
//! on any machine.

use super::Device;
use std::sync::atomic::{AtomicUsize, Ordering};
use tegula_core::{KernelOp, Result, SourceOp};
use tegula_kernels::raw::{chunk_from_bytes, with_bytes};
use tegula_kernels::Chunk;

/// A stand-in accelerator on the host: its own name and memory budget, each block copied on
/// the way in and out and the copies counted.
#[derive(Debug, Default)]
pub struct HostDevice {
    name: String,
    memory: Option<usize>,
    transfers: AtomicUsize,
    bytes_moved: AtomicUsize,
}

impl HostDevice {
    /// A device called `name` that may hold `memory` bytes (`None`: the computation's budget).
    pub fn new(name: &str, memory: Option<usize>) -> HostDevice {
        HostDevice { name: name.to_string(), memory, ..HostDevice::default() }
    }

    /// Blocks copied to or from this device so far, and their bytes.
    pub fn transfers(&self) -> (usize, usize) {
        (self.transfers.load(Ordering::Relaxed), self.bytes_moved.load(Ordering::Relaxed))
    }

    fn copied(&self, chunk: &Chunk) -> Result<Chunk> {
        self.transfers.fetch_add(1, Ordering::Relaxed);
        self.bytes_moved.fetch_add(chunk.nbytes(), Ordering::Relaxed);
        chunk_from_bytes(chunk.dtype(), chunk.shape(), |out| {
            with_bytes(chunk, |bytes| out.copy_from_slice(bytes));
            Ok(())
        })
    }
}

impl Device for HostDevice {
    fn name(&self) -> &str {
        &self.name
    }
    fn memory(&self) -> Option<usize> {
        self.memory
    }
    fn generate(&self, op: &SourceOp) -> Result<Chunk> {
        tegula_kernels::generate(op)
    }
    fn run(&self, op: &KernelOp, inputs: &[Chunk]) -> Result<Chunk> {
        tegula_kernels::run(op, inputs)
    }
    fn to_host(&self, chunk: &Chunk) -> Result<Chunk> {
        self.copied(chunk)
    }
    fn to_device(&self, chunk: &Chunk) -> Result<Chunk> {
        self.copied(chunk)
    }
}
