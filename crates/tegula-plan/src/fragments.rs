//! Cutting a plan into fragments: pieces an executor ships elsewhere (another process, another
//! machine) and runs there whole, so that what it pays per shipment is paid per fragment, not
//! per task. A fragment is a chain of tasks each read only by the next (a read, then the
//! element-wise operations on its block), with the free tasks it reads — views of arrays the
//! caller holds, constant blocks — copied into every fragment that reads them; a task read by
//! several others, or one of several substantial inputs of a task, ends a fragment, so
//! independent work stays in separate fragments that run in parallel.

use crate::graph::{Output, Task, TaskGraph, TaskId};
use std::collections::HashSet;
use std::sync::Arc;
use tegula_core::{Chunks, IoOp, Result, SourceOp, TaskOp};

/// One fragment of a graph, in the graph's task numbers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FragmentCut {
    /// Its tasks, in topological order.
    pub tasks: Vec<TaskId>,
    /// The tasks outside it whose results it reads, in the order it is given them.
    pub inputs: Vec<TaskId>,
    /// Its tasks whose results are read outside it or are the plan's outputs, in the order it
    /// returns them.
    pub outputs: Vec<TaskId>,
}

/// The fragments of `graph`, in topological order of their last tasks: every fragment's
/// inputs are outputs of earlier fragments.
pub fn cut(graph: &TaskGraph) -> Vec<FragmentCut> {
    let consumers = graph.consumers();
    let returned: HashSet<TaskId> = graph.outputs.iter().flat_map(|o| o.blocks.iter().copied()).collect();
    let n = graph.tasks.len();
    // Consumers come after their inputs: walking backwards, a task's consumer has its fragment.
    let mut owner = vec![usize::MAX; n];
    let mut roots = Vec::new();
    for t in (0..n).rev() {
        if is_free(&graph.tasks[t]) && !returned.contains(&t) && !consumers[t].is_empty() {
            continue;
        }
        owner[t] = match joins(graph, &consumers, &returned, t) {
            Some(c) => owner[c],
            None => {
                roots.push(t);
                t
            }
        };
    }
    roots.reverse();
    roots
        .into_iter()
        .map(|root| {
            let mut tasks: Vec<TaskId> = (0..=root).filter(|&t| owner[t] == root).collect();
            let mut free: Vec<TaskId> =
                tasks.iter().flat_map(|&t| graph.tasks[t].inputs.iter().copied()).filter(|&i| owner[i] == usize::MAX).collect();
            tasks.append(&mut free);
            tasks.sort_unstable();
            tasks.dedup();
            fragment_of(graph, &consumers, &returned, &owner, root, tasks)
        })
        .collect()
}

/// The consumer whose fragment task `t` joins: its only consumer, when `t` is its only input
/// that is not free.
fn joins(graph: &TaskGraph, consumers: &[Vec<TaskId>], returned: &HashSet<TaskId>, t: TaskId) -> Option<TaskId> {
    let mut readers = consumers[t].clone();
    readers.dedup();
    let [c] = readers[..] else { return None };
    if returned.contains(&t) {
        return None;
    }
    let substantial = graph.tasks[c].inputs.iter().filter(|&&i| i != t && !is_free(&graph.tasks[i])).count();
    (substantial == 0).then_some(c)
}

/// Whether a task costs nothing worth shipping a block for: a view of an array the caller
/// holds, or a constant block (made again wherever it is read).
fn is_free(task: &Task) -> bool {
    matches!(task.op, TaskOp::Io(IoOp::Load { .. }) | TaskOp::Source(SourceOp::Full { .. }))
}

fn fragment_of(
    graph: &TaskGraph,
    consumers: &[Vec<TaskId>],
    returned: &HashSet<TaskId>,
    owner: &[usize],
    root: TaskId,
    tasks: Vec<TaskId>,
) -> FragmentCut {
    let inside: HashSet<TaskId> = tasks.iter().copied().collect();
    let mut inputs = Vec::new();
    for &t in &tasks {
        for &i in &graph.tasks[t].inputs {
            if !inside.contains(&i) && !inputs.contains(&i) {
                inputs.push(i);
            }
        }
    }
    let outputs = tasks
        .iter()
        .copied()
        .filter(|&t| owner[t] == root && (returned.contains(&t) || consumers[t].iter().any(|&c| owner[c] != root)))
        .collect();
    FragmentCut { tasks, inputs, outputs }
}

/// The fragment as a graph of its own: its inputs become `IoOp::Input` tasks (numbered first,
/// in order), its outputs the graph's outputs (one block each, in order), and it carries the
/// resources its tasks reach.
pub fn sub_graph(graph: &TaskGraph, fragment: &FragmentCut) -> Result<TaskGraph> {
    let mut new_id = std::collections::HashMap::new();
    let mut tasks = Vec::with_capacity(fragment.inputs.len() + fragment.tasks.len());
    for (index, &i) in fragment.inputs.iter().enumerate() {
        let t = &graph.tasks[i];
        new_id.insert(i, tasks.len());
        tasks.push(Task { op: IoOp::Input { index }.into(), inputs: vec![], size: t.size, dtype: t.dtype, node: t.node });
    }
    for &id in &fragment.tasks {
        let t = &graph.tasks[id];
        let inputs = t.inputs.iter().map(|i| new_id.get(i).copied().ok_or_else(|| missing(*i, id))).collect::<Result<_>>()?;
        new_id.insert(id, tasks.len());
        tasks.push(Task { inputs, ..t.clone() });
    }
    let outputs = fragment
        .outputs
        .iter()
        .map(|&o| {
            let t = &graph.tasks[o];
            Ok(Output { node: t.node, dtype: t.dtype, chunks: Chunks::new(vec![vec![t.size]], &[t.size])?, blocks: vec![new_id[&o]] })
        })
        .collect::<Result<_>>()?;
    let reached: HashSet<u64> = tasks.iter().filter_map(|t| t.op.as_io().and_then(IoOp::resource)).collect();
    let resources = graph.resources.iter().filter(|r| reached.contains(&r.id)).map(Arc::clone).collect();
    Ok(TaskGraph { tasks, outputs, resources })
}

fn missing(input: TaskId, task: TaskId) -> tegula_core::TegulaError {
    tegula_core::internal_err!("task {task} of a fragment reads task {input}, neither in the fragment nor given to it")
}
