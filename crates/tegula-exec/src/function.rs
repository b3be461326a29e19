//! Functions users give `map_blocks`: called with a block's number along each axis and the
//! same block of every input, from any of the executor's threads.

use tegula_core::{value_err, Result};
use tegula_kernels::Chunk;

/// A user's function of a block's number and the same block of every input, returning the
/// result block (what `map_blocks` calls).
pub trait BlockFunction: Send + Sync {
    /// The result block for block `block` of the inputs `args`. Its dtype and shape are
    /// checked by the executor against the plan's.
    fn call(&self, block: &[usize], args: &[Chunk]) -> Result<Chunk>;
    /// The function as bytes another process decodes (`fragment::set_function_decoder`).
    fn encode(&self) -> Result<Vec<u8>> {
        Err(value_err!("this block function cannot leave its process"))
    }
}

/// A Rust closure of a block's number and the same block of every input is a block function
/// (one that stays in its process).
impl<F> BlockFunction for F
where
    F: Fn(&[usize], &[Chunk]) -> Result<Chunk> + Send + Sync,
{
    fn call(&self, block: &[usize], args: &[Chunk]) -> Result<Chunk> {
        self(block, args)
    }
}
