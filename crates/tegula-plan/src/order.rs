//! Static task order: depth-first from each output block, inputs before consumers, so a chain
//! of blocks is finished (and its inputs freed) before the next chain starts.

use crate::graph::TaskGraph;

/// The rank of every task in execution order (lower runs first among ready tasks).
pub fn static_order(graph: &TaskGraph) -> Vec<usize> {
    let n = graph.tasks.len();
    let mut rank = vec![usize::MAX; n];
    let mut next = 0;
    let mut stack: Vec<(usize, bool)> = Vec::new();
    let roots = graph.outputs.iter().flat_map(|o| o.blocks.iter().copied());
    for root in roots {
        stack.push((root, false));
        while let Some((t, expanded)) = stack.pop() {
            if rank[t] != usize::MAX {
                continue;
            }
            if expanded {
                rank[t] = next;
                next += 1;
                continue;
            }
            stack.push((t, true));
            for &i in graph.tasks[t].inputs.iter().rev() {
                if rank[i] == usize::MAX {
                    stack.push((i, false));
                }
            }
        }
    }
    // Tasks no output needs (none today) still get a rank, after the rest.
    for r in rank.iter_mut().filter(|r| **r == usize::MAX) {
        *r = next;
        next += 1;
    }
    rank
}
