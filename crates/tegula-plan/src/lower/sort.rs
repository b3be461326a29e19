//! Sorting and searching. `sort`/`argsort`: one task per block, sorting it on its own (the
//! whole sort when the sorted axis is one block; see `sample_sort.rs` for longer axes).
//! `sorted_take`: one selection task per block of lanes.
//! `searchsorted`: a contraction over the sorted array's blocks: for each pair (block `i` of the
//! sorted array, block `j` of the values) the count of block `i`'s elements before each value,
//! summed over `i` by a tree, so no task holds more than one block of either input.

use super::reduce::tree;
use super::Lowering;
use crate::construct::DEFAULT_SPLIT_EVERY;
use crate::graph::TaskId;
use crate::node::Node;
use tegula_core::grid::{block_indices, for_each_block, offsets, ravel};
use tegula_core::{DType, KernelOp, PartialReduce};

pub(super) fn sort(l: &mut Lowering, node: &Node, input: &[TaskId], axis: usize, descending: bool, arg: bool) -> Vec<TaskId> {
    // Positions count from the block's start along the axis.
    let starts = offsets(node.chunks.axis(axis));
    block_indices(&node.chunks.numblocks())
        .zip(input)
        .map(|(idx, &t)| {
            let offset = starts[idx[axis]];
            let op = if arg { KernelOp::ArgSort { axis, descending, offset } } else { KernelOp::Sort { axis, descending } };
            l.push(node, op, vec![t], node.chunks.block_size(&idx), node.dtype)
        })
        .collect()
}

/// One task per block of the lanes, with the block of positions for its lanes (block 0 along
/// the axes where the positions are the same for every lane).
pub(super) fn sorted_take(l: &mut Lowering, node: &Node, inputs: &[Vec<TaskId>], axis: usize) -> Vec<TaskId> {
    let i_nb = node.inputs[1].chunks.numblocks();
    let n = node.inputs[0].shape()[axis];
    let mut blocks = Vec::with_capacity(inputs[0].len());
    for_each_block(&node.chunks.numblocks(), |out| {
        let at: Vec<usize> = out.iter().zip(&i_nb).map(|(&b, &nb)| if nb == 1 { 0 } else { b }).collect();
        let reads = vec![inputs[0][blocks.len()], inputs[1][ravel(&at, &i_nb)]];
        blocks.push(l.push(node, KernelOp::SortedTake { axis, n }, reads, node.chunks.block_size(out), node.dtype));
    });
    blocks
}

pub(super) fn searchsorted(l: &mut Lowering, node: &Node, inputs: &[Vec<TaskId>], right: bool, presorted: bool) -> Vec<TaskId> {
    let (sorted, values) = (&node.inputs[0], &node.inputs[1]);
    let lens = sorted.chunks.axis(0);
    // Empty blocks count nothing; an empty array still needs one block to give zeros.
    let mut blocks: Vec<usize> = (0..lens.len()).filter(|&i| lens[i] > 0).collect();
    if blocks.is_empty() {
        blocks.push(0);
    }
    // Without `presorted`, the count does not depend on the order, so each block is sorted on
    // its own.
    let sorted_blocks: Vec<TaskId> = blocks
        .iter()
        .map(|&i| match presorted {
            true => inputs[0][i],
            false => l.push(node, KernelOp::Sort { axis: 0, descending: false }, vec![inputs[0][i]], lens[i], sorted.dtype),
        })
        .collect();
    block_indices(&values.chunks.numblocks())
        .zip(&inputs[1])
        .map(|(idx, &v)| {
            let size = values.chunks.block_size(&idx);
            let counts = sorted_blocks
                .iter()
                .map(|&s| l.push(node, KernelOp::SearchCount { right }, vec![s, v], size, DType::Int64))
                .collect();
            tree(l, node, counts, PartialReduce::Sum { acc: DType::Int64 }, DEFAULT_SPLIT_EVERY)
        })
        .collect()
}
