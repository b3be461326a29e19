//! The CPU: kernels on the host's cores, blocks in its memory.

use super::Device;
use tegula_core::{KernelOp, Result, SourceOp};
use tegula_kernels::Chunk;

/// The host's CPU, device 0: kernels on its cores, blocks in its memory, nothing copied.
#[derive(Debug, Clone, Copy, Default)]
pub struct Cpu;

impl Device for Cpu {
    fn name(&self) -> &str {
        "cpu"
    }
    fn memory(&self) -> Option<usize> {
        None
    }
    fn generate(&self, op: &SourceOp) -> Result<Chunk> {
        tegula_kernels::generate(op)
    }
    fn run(&self, op: &KernelOp, inputs: &[Chunk]) -> Result<Chunk> {
        tegula_kernels::run(op, inputs)
    }
    fn to_host(&self, chunk: &Chunk) -> Result<Chunk> {
        Ok(chunk.clone())
    }
    fn to_device(&self, chunk: &Chunk) -> Result<Chunk> {
        Ok(chunk.clone())
    }
}
