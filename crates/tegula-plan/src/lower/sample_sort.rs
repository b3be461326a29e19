//! The sample sort's tasks (its nodes: `construct/sample_sort.rs`): one `SamplePositions`, one
//! `Gather` (values within a block) and one `BucketCounts` per block, and the merge cuts every
//! sorted block into its buckets' runs, then merges each bucket's runs, taken in block order,
//! in one task. The runs are copies, not views: a view would keep its whole block alive while
//! the runs wait (held, or spilled to disk) for their merges.

use super::Lowering;
use crate::construct::sample_sort::sample_every;
use crate::graph::TaskId;
use crate::node::Node;
use tegula_core::grid::offsets;
use tegula_core::{DType, KernelOp, Piece, Scalar, SourceOp};

pub(super) fn take_within_blocks(l: &mut Lowering, node: &Node, inputs: &[Vec<TaskId>]) -> Vec<TaskId> {
    let x = &node.inputs[0];
    let n = x.size();
    let lens = node.chunks.axis(0);
    offsets(x.chunks.axis(0))
        .into_iter()
        .enumerate()
        .map(|(b, start)| l.push(node, KernelOp::Gather { axis: 0, start, n }, vec![inputs[1][b], inputs[0][b]], lens[b], node.dtype))
        .collect()
}

pub(super) fn sample_positions(l: &mut Lowering, node: &Node, input: &[TaskId], buckets: usize, descending: bool) -> Vec<TaskId> {
    let x_lens = node.inputs[0].chunks.axis(0);
    let lens = node.chunks.axis(0);
    offsets(x_lens)
        .into_iter()
        .enumerate()
        .map(|(b, start)| {
            let op = KernelOp::SamplePositions { descending, every: sample_every(x_lens[b], buckets), start };
            l.push(node, op, vec![input[b]], lens[b], DType::Int64)
        })
        .collect()
}

pub(super) fn bucket_counts(l: &mut Lowering, node: &Node, inputs: &[Vec<TaskId>], descending: bool) -> Vec<TaskId> {
    let lens = node.chunks.axis(0);
    offsets(node.inputs[0].chunks.axis(0))
        .into_iter()
        .enumerate()
        .map(|(b, start)| {
            let reads = vec![inputs[0][b], inputs[1][0], inputs[2][0]];
            l.push(node, KernelOp::BucketCounts { descending, start }, reads, lens[b], DType::Int64)
        })
        .collect()
}

pub(super) fn bucket_partition(l: &mut Lowering, node: &Node, inputs: &[Vec<TaskId>], descending: bool, arg: bool) -> Vec<TaskId> {
    let lens = node.chunks.axis(0);
    offsets(lens)
        .into_iter()
        .enumerate()
        .map(|(b, start)| {
            let reads = vec![inputs[0][b], inputs[1][0], inputs[2][0]];
            l.push(node, KernelOp::BucketPartition { descending, start, arg }, reads, lens[b], node.dtype)
        })
        .collect()
}

pub(super) fn merge_buckets(l: &mut Lowering, node: &Node, inputs: &[Vec<TaskId>], counts: &[usize], descending: bool) -> Vec<TaskId> {
    let sorted = &node.inputs[0];
    let blocks = sorted.chunks.nblocks();
    let buckets = counts.len() / blocks.max(1);
    let arg = inputs.len() == 2;
    // The runs of each bucket, in block order: values, then (argsort) positions.
    let mut values: Vec<Vec<TaskId>> = vec![Vec::new(); buckets];
    let mut positions: Vec<Vec<TaskId>> = vec![Vec::new(); buckets];
    for b in 0..blocks {
        let mut start = 0;
        for (j, &len) in counts[b * buckets..(b + 1) * buckets].iter().enumerate() {
            if len > 0 {
                values[j].push(run(l, node, inputs[0][b], start..start + len, sorted.dtype));
                if arg {
                    positions[j].push(run(l, node, inputs[1][b], start..start + len, DType::Int64));
                }
            }
            start += len;
        }
    }
    let mut merged = Vec::with_capacity(buckets);
    for (mut runs, at) in values.into_iter().zip(positions).filter(|(v, _)| !v.is_empty()) {
        let size = runs.iter().map(|&t| l.task(t).size).sum();
        runs.extend(at);
        merged.push(l.push(node, KernelOp::MergeRuns { descending, arg }, runs, size, node.dtype));
    }
    if merged.is_empty() {
        let empty = SourceOp::Full { value: Scalar::Bool(false), dtype: node.dtype, shape: vec![0] };
        merged.push(l.push(node, empty, vec![], 0, node.dtype));
    }
    merged
}

/// A copy of the elements `range` of a 1-D block.
fn run(l: &mut Lowering, node: &Node, block: TaskId, range: std::ops::Range<usize>, dtype: DType) -> TaskId {
    let len = range.len();
    let piece = Piece { input: 0, src: vec![(range.start, range.end)], dst: vec![0] };
    l.push(node, KernelOp::Assemble { shape: vec![len], pieces: vec![piece] }, vec![block], len, dtype)
}
