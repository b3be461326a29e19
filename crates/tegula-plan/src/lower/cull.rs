//! Culling: drop the tasks no output needs (a source lowers all its blocks, but `x[0]` needs
//! only the blocks of the first row) and renumber the rest, keeping topological order.

use crate::graph::TaskGraph;

pub(crate) fn cull(mut graph: TaskGraph) -> TaskGraph {
    let n = graph.tasks.len();
    let mut needed = vec![false; n];
    graph.outputs.iter().flat_map(|o| &o.blocks).for_each(|&b| needed[b] = true);
    // Tasks are in topological order, so one backward sweep marks every input of a needed
    // task before reaching it (sequential, unlike a search, for plans of millions of tasks).
    for t in (0..n).rev() {
        if needed[t] {
            graph.tasks[t].inputs.iter().for_each(|&i| needed[i] = true);
        }
    }
    if needed.iter().all(|&k| k) {
        return graph;
    }
    let mut new_id = vec![usize::MAX; n];
    let mut kept = Vec::with_capacity(n);
    for (old, task) in graph.tasks.into_iter().enumerate() {
        if needed[old] {
            new_id[old] = kept.len();
            kept.push(task);
        }
    }
    for task in &mut kept {
        task.inputs.iter_mut().for_each(|i| *i = new_id[*i]);
    }
    for output in &mut graph.outputs {
        output.blocks.iter_mut().for_each(|b| *b = new_id[*b]);
    }
    for grid in &mut graph.grids {
        grid.blocks.retain_mut(|(t, _)| {
            *t = new_id[*t];
            *t != usize::MAX
        });
    }
    graph.grids.retain(|g| !g.blocks.is_empty());
    let used: std::collections::HashSet<u64> = kept
        .iter()
        .filter_map(|t| t.op.as_io().and_then(tegula_core::IoOp::resource))
        .collect();
    graph.resources.retain(|s| used.contains(&s.id));
    graph.tasks = kept;
    graph
}
