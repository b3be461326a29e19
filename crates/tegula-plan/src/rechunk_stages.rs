//! Rechunks in stages, so that no task holds more than a limit (the idea of rechunker and
//! Cubed). A one-stage rechunk's task holds its output block and every input block that block
//! overlaps: for column strips to row strips, the whole array. Through the common refinement
//! of the two chunkings, a first stage only splits and a second only joins (exactly the pieces
//! of one output block), so no task holds more than an input block and a piece, or twice an
//! output block. The pieces are copies, not views, so that once they are made their input
//! block is freed, and each piece spilled frees its own bytes.
//! When the refinement's pieces are tiny (many tasks of little work each), chunkings between
//! the two are passed through, block lengths stepping geometrically, each step again through
//! its refinement: every step that joins copies the data once more, so the number of steps is
//! the one that minimises copies plus tasks (`plan_cost`).

use crate::node::{Node, NodeKind, NodeRef};
use crate::walk::rewrite;
use tegula_core::chunks::split_axis;
use tegula_core::grid::common_refinement;
use tegula_core::Chunks;

/// The most joining steps a rechunk is planned in.
const MAX_STEPS: usize = 6;
/// What one task costs beside its work, in bytes copied in the same time: weighs a plan of
/// many small pieces against one that copies the data again. Staged rechunks mostly spill,
/// a file per piece: a 32768² float64 array cut in 128² pieces took ~0.35 ms more per piece
/// than in 256² pieces, about what copying and spilling 1 MiB takes.
const TASK_COST_BYTES: usize = 1 << 20;

/// The expressions `roots` with every rechunk whose one-stage tasks would hold more than
/// `limit` bytes planned through the chunkings `stages` chooses, each a rechunk node of its
/// own (so `explain` lists them). Nodes keep their ids; nodes not above such a rechunk are
/// the same nodes.
pub fn stage_rechunks(roots: &[NodeRef], limit: usize) -> Vec<NodeRef> {
    rewrite(roots, |node, inputs| {
        let NodeKind::Rechunk { .. } = node.kind else { return None };
        let through = stages(&inputs[0].chunks, &node.chunks, node.dtype.itemsize(), limit);
        if through.is_empty() {
            return None;
        }
        let last = through.len() - 1;
        let chain = through.into_iter().take(last).fold(inputs[0].clone(), |from, chunks| {
            Node::new(NodeKind::Rechunk { copy: true }, vec![from], node.dtype, chunks)
        });
        Some(Node { id: node.id, kind: node.kind.clone(), inputs: vec![chain], dtype: node.dtype, chunks: node.chunks.clone(), device: node.device })
    })
}

/// The chunkings a rechunk from `from` to `to` of `itemsize`-byte elements passes through,
/// `to` last, so that no task holds more than `limit` bytes where blocks allow; empty when
/// one stage stays within it.
pub fn stages(from: &Chunks, to: &Chunks, itemsize: usize, limit: usize) -> Vec<Chunks> {
    if from == to || one_stage_bytes(from, to, itemsize) <= limit {
        return Vec::new();
    }
    (1..=MAX_STEPS)
        .map(|steps| path(from, to, steps, itemsize, limit))
        .min_by_key(|p| plan_cost(from, p, itemsize))
        .unwrap_or_default()
}

/// The most bytes a task of a one-stage rechunk holds: its output block and the input blocks
/// it overlaps. Overlaps are independent per axis, so the largest is the product of each
/// axis's largest.
pub fn one_stage_bytes(from: &Chunks, to: &Chunks, itemsize: usize) -> usize {
    let (mut spans, mut outputs) = (1usize, 1usize);
    for axis in 0..from.ndim() {
        let (old, new) = (from.axis(axis), to.axis(axis));
        spans = spans.saturating_mul(largest_span(old, new));
        outputs = outputs.saturating_mul(new.iter().copied().max().unwrap_or(0));
    }
    spans.saturating_add(outputs).saturating_mul(itemsize)
}

/// The most elements of `old` blocks that one block of `new` overlaps (one pass over both).
fn largest_span(old: &[usize], new: &[usize]) -> usize {
    let (mut first, mut first_start, mut largest) = (0, 0, 0);
    let mut start = 0;
    for &len in new {
        let end = start + len;
        while first + 1 < old.len() && first_start + old[first] <= start {
            first_start += old[first];
            first += 1;
        }
        let (mut block, mut block_start, mut span) = (first, first_start, 0);
        while block < old.len() && (block_start < end || block == first) {
            span += old[block];
            block_start += old[block];
            block += 1;
        }
        largest = largest.max(span);
        start = end;
    }
    largest
}

/// `from` to `to` in `steps` joining steps: chunkings whose block lengths step geometrically
/// from `from`'s longest to `to`'s longest along each axis, and between two of them their
/// common refinement where going straight would hold more than `limit`.
fn path(from: &Chunks, to: &Chunks, steps: usize, itemsize: usize, limit: usize) -> Vec<Chunks> {
    let (a, b) = (from.max_block_shape(), to.max_block_shape());
    let shape = from.shape();
    let waypoints = (1..steps).map(|i| {
        let t = i as f64 / steps as f64;
        let sizes = (0..shape.len())
            .map(|axis| {
                let len = (a[axis].max(1) as f64).powf(1.0 - t) * (b[axis].max(1) as f64).powf(t);
                split_axis(shape[axis], len.round() as usize)
            })
            .collect();
        Chunks::from_axes(sizes)
    });
    let mut out: Vec<Chunks> = Vec::new();
    for next in waypoints.chain([to.clone()]) {
        let prev = out.last().unwrap_or(from);
        if next == *prev {
            continue;
        }
        if one_stage_bytes(prev, &next, itemsize) > limit {
            let pieces = refinement(prev, &next);
            if pieces != *prev && pieces != next {
                out.push(pieces);
            }
        }
        out.push(next);
    }
    out
}

/// The coarsest chunking whose blocks each lie in one block of `a` and of `b`.
fn refinement(a: &Chunks, b: &Chunks) -> Chunks {
    Chunks::from_axes((0..a.ndim()).map(|axis| common_refinement(a.axis(axis), b.axis(axis))).collect())
}

/// What running `path` from `from` costs, in bytes: the array's bytes once per step that joins
/// and `TASK_COST_BYTES` per task. (A split before a join copies too, but only where the join
/// alone would hold too much; it is weighed by its tasks.)
fn plan_cost(from: &Chunks, path: &[Chunks], itemsize: usize) -> usize {
    let bytes = from.shape().iter().product::<usize>().saturating_mul(itemsize);
    let mut prev = from;
    let mut cost = 0usize;
    for next in path {
        let splits = refinement(prev, next) == *next;
        cost = cost.saturating_add(if splits { 0 } else { bytes });
        cost = cost.saturating_add(next.nblocks().saturating_mul(TASK_COST_BYTES));
        prev = next;
    }
    cost
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_count_every_overlapped_block() {
        assert_eq!(largest_span(&[10, 10, 10], &[30]), 30);
        assert_eq!(largest_span(&[10, 10, 10], &[5, 10, 15]), 20);
        assert_eq!(largest_span(&[1000], &[999, 1]), 1000);
        assert_eq!(largest_span(&[999, 999, 2], &[1000, 1000]), 1998);
        assert_eq!(largest_span(&[0], &[0]), 0);
    }

    #[test]
    fn a_rechunk_within_the_limit_is_one_stage() {
        let (from, to) = (Chunks::regular(&[100, 100], &[10, 10]), Chunks::regular(&[100, 100], &[20, 20]));
        assert!(stages(&from, &to, 8, 1 << 20).is_empty());
    }

    #[test]
    fn column_strips_to_row_strips_split_then_join() {
        let (from, to) = (Chunks::regular(&[4096, 4096], &[4096, 64]), Chunks::regular(&[4096, 4096], &[64, 4096]));
        assert_eq!(one_stage_bytes(&from, &to, 8), (4096 * 4096 + 64 * 4096) * 8);
        let limit = 8 * 4096 * 64 * 3;
        let through = stages(&from, &to, 8, limit);
        assert_eq!(through.last(), Some(&to));
        let mut prev = &from;
        for next in &through {
            assert!(one_stage_bytes(prev, next, 8) <= limit, "{prev:?} -> {next:?}");
            prev = next;
        }
    }

    #[test]
    fn tiny_pieces_take_more_steps() {
        let (from, to) = (Chunks::regular(&[1 << 14, 1 << 14], &[1 << 14, 1]), Chunks::regular(&[1 << 14, 1 << 14], &[1, 1 << 14]));
        let through = stages(&from, &to, 8, 1 << 20);
        assert!(through.len() > 2, "{} steps", through.len());
        assert!(through.iter().all(|c| c.nblocks() < 1 << 22));
    }
}
