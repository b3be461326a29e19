//! Fused operations: every block becomes one task that evaluates the operation's program
//! (shared by all its blocks) over the blocks it reads and the source blocks it generates.

use super::elementwise::broadcast_block;
use super::source::SourceBlocks;
use super::Lowering;
use crate::fuse::Template;
use crate::graph::TaskId;
use crate::node::Node;
use tegula_core::grid::try_for_each_block;
use tegula_core::program::FusedBlock;
use tegula_core::{KernelOp, Result};

/// An element-wise operation whose blocks are fused tasks.
pub(super) fn lower(l: &mut Lowering, node: &Node, template: &Template, reads: &[Vec<TaskId>]) -> Result<Vec<TaskId>> {
    let fused = FusedBlocks::new(template, reads)?;
    let mut out = Vec::with_capacity(node.chunks.nblocks());
    try_for_each_block(&node.chunks.numblocks(), |idx| {
        let (block, inputs) = fused.block(idx, node.chunks.block_shape(idx))?;
        out.push(l.push(node, KernelOp::Fused(block), inputs, node.chunks.block_size(idx), node.dtype));
        Ok(())
    })?;
    Ok(out)
}

/// The blocks of a fused program, located by block number in the grid of its result.
pub(super) struct FusedBlocks<'a> {
    template: &'a Template,
    /// The tasks of every node the program reads, and that node's blocks per axis.
    reads: Vec<(&'a [TaskId], Vec<usize>)>,
    sources: Vec<SourceBlocks<'a>>,
}

impl<'a> FusedBlocks<'a> {
    pub(super) fn new(template: &'a Template, reads: &'a [Vec<TaskId>]) -> Result<FusedBlocks<'a>> {
        let reads = reads.iter().zip(&template.reads).map(|(tasks, n)| (&tasks[..], n.chunks.numblocks())).collect();
        let sources = template.generated.iter().map(|n| SourceBlocks::new(n)).collect::<Result<_>>()?;
        Ok(FusedBlocks { template, reads, sources })
    }

    /// Block `idx` of the program's result, of `shape`, and the tasks it reads.
    pub(super) fn block(&self, idx: &[usize], shape: Vec<usize>) -> Result<(FusedBlock, Vec<TaskId>)> {
        let inputs = self.reads.iter().map(|(tasks, nb)| tasks[broadcast_block(nb, idx)]).collect();
        let sources = self.sources.iter().map(|s| s.generated(idx, &shape)).collect::<Result<_>>()?;
        Ok((FusedBlock { program: self.template.program.clone(), sources, shape }, inputs))
    }
}
