//! Fragments run level by level: each at its depth (one more than the deepest fragment making
//! one of its inputs), plan order within a level. The plan's order comes from a depth-first
//! walk of the expression, which suits one machine; it can keep copies of blocks on other
//! nodes long after they came. A tiled Cholesky walked that way runs row by row (left-looking),
//! so a column's factor tiles are read by every later row and their copies stay until the
//! last; level by level it runs step by step (right-looking), as ScaLAPACK runs it, and a
//! step's copies are let go of before the next step's arrive.

use crate::fragments::FragmentCut;
use crate::graph::{TaskGraph, TaskId};
use crate::placement::Placement;
use rustc_hash::FxHashMap as HashMap;
use tegula_core::{KernelOp, TaskOp};

/// Whether `graph` runs steps of a factorisation by tiles or panels (`LinalgOp::updated_input`),
/// the plans a depth-first walk orders row by row: only those are worth ordering by levels.
pub fn has_factorisation_steps(graph: &TaskGraph) -> bool {
    graph.tasks.iter().any(|t| matches!(t.op, TaskOp::Kernel(KernelOp::Linalg { op }) if op.updated_input().is_some()))
}

/// The order of `cuts` (given in an order where each one's inputs come from earlier ones)
/// level by level: by depth, then by place.
pub fn level_order(cuts: &[FragmentCut]) -> Vec<usize> {
    let mut made_by: HashMap<TaskId, usize> = HashMap::default();
    let mut depth = Vec::with_capacity(cuts.len());
    for (k, cut) in cuts.iter().enumerate() {
        let deepest = cut.inputs.iter().filter_map(|i| made_by.get(i)).map(|&m| depth[m] + 1).max();
        depth.push(deepest.unwrap_or(0));
        made_by.extend(cut.outputs.iter().map(|&o| (o, k)));
    }
    // Depth grows along every input, so this order keeps each fragment after its makers.
    let mut order: Vec<usize> = (0..cuts.len()).collect();
    order.sort_by_key(|&k| (depth[k], k));
    order
}

/// `cuts` and their nodes in `order` (each fragment once).
pub fn reorder(cuts: Vec<FragmentCut>, placement: Placement, order: &[usize]) -> (Vec<FragmentCut>, Placement) {
    let fragment_node = order.iter().map(|&k| placement.fragment_node[k]).collect();
    let mut slots: Vec<Option<FragmentCut>> = cuts.into_iter().map(Some).collect();
    let cuts = order.iter().filter_map(|&k| slots[k].take()).collect();
    (cuts, Placement { nodes: placement.nodes, fragment_node, given_node: placement.given_node, trees: vec![], tiled: vec![] })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cut(inputs: &[TaskId], outputs: &[TaskId]) -> FragmentCut {
        FragmentCut { tasks: outputs.to_vec(), inputs: inputs.to_vec(), outputs: outputs.to_vec() }
    }

    #[test]
    fn fragments_run_level_by_level_in_plan_order_within_a_level() {
        // Two columns walked depth first: a0 (block 0) -> a1 (1), then b0 (2) -> b1 (3), and a
        // given block 9 read by a0.
        let cuts = [cut(&[9], &[0]), cut(&[0], &[1]), cut(&[], &[2]), cut(&[2, 0], &[3])];
        assert_eq!(level_order(&cuts), vec![0, 2, 1, 3]);
    }
}
