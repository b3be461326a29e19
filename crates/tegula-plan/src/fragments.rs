//! Cutting a plan into fragments: pieces an executor ships elsewhere (another process, another
//! machine) and runs there whole, so that what it pays per shipment is paid per fragment, not
//! per task. A fragment is a chain of tasks each read only by the next (a read, then the
//! element-wise operations on its block), with the free tasks it reads — views of arrays the
//! caller holds, constant blocks — copied into every fragment that reads them; a task read by
//! several others, or one of several substantial inputs of a task, ends a fragment, so
//! independent work stays in separate fragments that run in parallel — unless that work is
//! small (`SMALL_FRAGMENT_BYTES`): small inputs of a task join its fragment, so a reduction
//! tree over tiny blocks is a few local subtrees, not a fragment per block. For worker
//! processes (`cut_for_workers`) a joined fragment also stays under a share of the plan's work,
//! so each worker takes several, and where not all of a task's small inputs fit, only tiny ones
//! join (the fragment runs after the others, and work it took in would run alone at the end).

use crate::graph::{Output, Task, TaskGraph, TaskId};
use rustc_hash::{FxHashMap, FxHashSet};
use std::sync::Arc;
use tegula_core::{Chunks, IoOp, KernelOp, Result, SourceOp, TaskOp};

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

/// Fragments whose work (bytes read, made and written) stays under this are joined with
/// their consumer's, together with its other inputs of the kind, until the whole stays under
/// it: shipping a fragment costs about a tenth of a millisecond, what a core spends on a
/// megabyte or so.
pub const SMALL_FRAGMENT_BYTES: usize = 4 << 20;

/// The fragments of `graph`, in topological order of their last tasks: every fragment's
/// inputs are outputs of earlier fragments.
pub fn cut(graph: &TaskGraph) -> Vec<FragmentCut> {
    cut_with(graph, &graph.consumers(), false, None)
}

/// Where a task's small inputs do not all fit its fragment, those of more than this share of
/// a fragment's work stay fragments of their own.
const TAIL_SHARE: usize = 8;

/// Small fragments are joined only while the whole stays under this share of the plan's work
/// per worker, so the last ones to run are short and no worker idles while another ends it.
pub const FRAGMENTS_PER_WORKER: usize = 4;

/// `cut`, for `workers` processes running the fragments: small fragments are joined only
/// while the whole stays under the work of `FRAGMENTS_PER_WORKER` fragments per worker too,
/// and where a task's small inputs do not all fit, only tiny ones join it.
/// `consumers` are the graph's (`TaskGraph::consumers`).
pub fn cut_for_workers(graph: &TaskGraph, consumers: &[Vec<TaskId>], workers: usize) -> Vec<FragmentCut> {
    cut_with(graph, consumers, false, Some(FRAGMENTS_PER_WORKER * workers.max(1)))
}

/// The fragments of `graph` for a cluster, where the caller gives each block of an array it
/// holds (a `Load` task) once, as a fragment input, instead of every fragment carrying the
/// whole array: `Load` tasks belong to no fragment, and fragments reading them list them
/// among their inputs. A fragment's inputs are outputs of earlier fragments or such loads.
pub fn cut_given_loads(graph: &TaskGraph) -> Vec<FragmentCut> {
    cut_with(graph, &graph.consumers(), true, None)
}

/// Whether `task` is a block the caller gives a cluster's fragments (`cut_given_loads`).
pub fn is_given_load(task: &Task) -> bool {
    matches!(task.op, TaskOp::Io(IoOp::Load { .. }))
}

/// Fragments whose joined small inputs stay under `SMALL_FRAGMENT_BYTES` of work, and where
/// `parts` are asked for, under the plan's work shared out in them, with only tiny inputs
/// joining a task whose small inputs do not all fit.
fn cut_with(graph: &TaskGraph, consumers: &[Vec<TaskId>], loads_given: bool, parts: Option<usize>) -> Vec<FragmentCut> {
    let n = graph.tasks.len();
    let mut returned = vec![false; n];
    graph.outputs.iter().flat_map(|o| o.blocks.iter()).for_each(|&t| returned[t] = true);
    let given = |t: TaskId| loads_given && is_given_load(&graph.tasks[t]);
    let copied = copied_tasks(graph, consumers, &returned, loads_given);
    // Each task's own work, then, once the inputs it takes in are added, its fragment's.
    let mut weight: Vec<usize> = (0..n).map(|t| if copied[t] { 0 } else { work_bytes(graph, t) }).collect();
    let work: usize = weight.iter().sum();
    let small = parts.map_or(SMALL_FRAGMENT_BYTES, |parts| (work / parts.max(1)).clamp(1, SMALL_FRAGMENT_BYTES));
    // Forwards: each task takes in the inputs that join it (their fragments complete by then).
    let mut joined: Vec<Option<TaskId>> = vec![None; n];
    let mut inputs: Vec<TaskId> = Vec::new();
    for t in 0..n {
        if copied[t] {
            continue;
        }
        inputs.clear();
        inputs.extend(graph.tasks[t].inputs.iter().copied().filter(|&i| !copied[i]));
        inputs.sort_unstable();
        inputs.dedup();
        // Read by `t` alone, directly or through views copied into `t`'s fragment.
        let reads_only_t = |c: TaskId| c == t || (copied[c] && consumers[c].iter().all(|&cc| cc == t));
        let only_reader = |i: TaskId| !returned[i] && consumers[i].iter().all(|&c| reads_only_t(c));
        if let [i] = inputs[..] {
            // A chain: the block goes straight on, whatever its size.
            if only_reader(i) {
                joined[i] = Some(t);
                weight[t] += weight[i];
            }
            continue;
        }
        inputs.retain(|&i| only_reader(i));
        inputs.sort_by_key(|&i| weight[i]);
        // Where not all of them fit, the fragment waits for those left out, and the work
        // it took in runs after them, at the end of the plan: only tiny inputs join then.
        let all = weight[t] + inputs.iter().map(|&i| weight[i]).sum::<usize>();
        let largest = if all <= small || parts.is_none() { small } else { small / TAIL_SHARE };
        for &i in &inputs {
            if weight[i] <= largest && weight[t] + weight[i] <= small {
                joined[i] = Some(t);
                weight[t] += weight[i];
            }
        }
    }
    // Backwards: a joined task belongs to the fragment of the task it joined.
    let mut owner = vec![usize::MAX; n];
    let mut roots = Vec::new();
    for t in (0..n).rev() {
        if copied[t] {
            continue;
        }
        owner[t] = match joined[t] {
            Some(into) => owner[into],
            None => {
                roots.push(t);
                t
            }
        };
    }
    roots.reverse();
    // Each root's place among the roots: what is kept per fragment is kept by place.
    let mut place = vec![usize::MAX; n];
    roots.iter().enumerate().for_each(|(k, &r)| place[r] = k);
    let merged = merge_shared_intermediates(graph, &returned, &owner, &place, roots.len());
    for o in owner.iter_mut().filter(|o| **o != usize::MAX) {
        *o = roots[merged[place[*o]]];
    }
    let mut members: Vec<Vec<TaskId>> = vec![Vec::new(); roots.len()];
    for t in 0..n {
        if owner[t] != usize::MAX {
            members[place[owner[t]]].push(t);
        }
    }
    roots.retain(|&r| merged[place[r]] == place[r]);
    // The root whose fragment last took each copied task in.
    let mut taken_by = vec![usize::MAX; n];
    roots
        .into_iter()
        .map(|root| {
            let mut tasks = std::mem::take(&mut members[place[root]]);
            // The copied tasks it reads, and theirs in turn (a view of a constant block).
            let mut next: Vec<TaskId> = tasks.clone();
            while let Some(t) = next.pop() {
                for &i in &graph.tasks[t].inputs {
                    if owner[i] == usize::MAX && !given(i) && std::mem::replace(&mut taken_by[i], root) != root {
                        tasks.push(i);
                        next.push(i);
                    }
                }
            }
            tasks.sort_unstable();
            tasks.dedup();
            fragment_of(graph, consumers, &returned, &owner, root, tasks)
        })
        .collect()
}

/// The fragment each fragment (by its root's place among the roots) ends up in once those
/// whose blocks one other fragment alone reads are merged into it where that costs no
/// parallelism: where every other input of the reader is computed before the merged one
/// anyway (an ancestor of it).
/// A block's chain of element-wise steps that reads one intermediate in several steps (`a = f(x); b = g(x, a); h(x, a, b)`) is then one fragment, its
/// intermediates never shipped, while independent inputs of a task (two branches, the
/// partial products of a block) stay in fragments that run in parallel.
fn merge_shared_intermediates(graph: &TaskGraph, returned: &[bool], owner: &[usize], place: &[usize], fragments: usize) -> Vec<usize> {
    // Fragments by their root's place among the roots.
    let fragment = |t: TaskId| place[owner[t]];
    let mut group: Vec<usize> = (0..fragments).collect();
    // Lists, sorted and deduplicated once filled: sets per fragment cost an allocation each.
    let mut inputs: Vec<Vec<usize>> = vec![Vec::new(); fragments];
    let mut readers: Vec<Vec<usize>> = vec![Vec::new(); fragments];
    // Fragments returning a block of the outputs stay as they are.
    let mut returns = vec![false; fragments];
    let mut found = Vec::new();
    for (t, &is_returned) in returned.iter().enumerate() {
        if owner[t] == usize::MAX {
            continue;
        }
        let (r, f) = (owner[t], fragment(t));
        returns[f] |= is_returned;
        // Most tasks read only tasks of their own fragment, or copied sources.
        let own = |i: &TaskId| owner[*i] == r || (owner[*i] == usize::MAX && graph.tasks[*i].inputs.is_empty());
        if graph.tasks[t].inputs.iter().all(own) {
            continue;
        }
        owned_inputs(graph, owner, t, &mut found);
        for &producer in found.iter().filter(|&&p| owner[p] != r) {
            inputs[f].push(fragment(producer));
            readers[fragment(producer)].push(f);
        }
    }
    for list in inputs.iter_mut().chain(readers.iter_mut()) {
        list.sort_unstable();
        list.dedup();
    }
    for a in (0..fragments).rev() {
        if returns[a] {
            continue;
        }
        let mut reading = readers[a].iter().map(|&r| merged_into(&group, r));
        let Some(b) = reading.next() else { continue };
        if !reading.all(|r| r == b) {
            continue;
        }
        let others: Vec<usize> = inputs[b].iter().map(|&j| merged_into(&group, j)).filter(|&j| j != a && j != b).collect();
        if others.iter().all(|&j| is_ancestor(j, a, &inputs, &group)) {
            group[a] = b;
            let from_a = inputs[a].clone();
            inputs[b].extend(from_a);
        }
    }
    (0..fragments).map(|r| merged_into(&group, r)).collect()
}

/// The fragment that fragment `r` was merged into, through every merge.
fn merged_into(group: &[usize], mut r: usize) -> usize {
    while group[r] != r {
        r = group[r];
    }
    r
}

/// The owned tasks `t` reads, directly or through copied tasks, into `found`.
fn owned_inputs(graph: &TaskGraph, owner: &[usize], t: TaskId, found: &mut Vec<TaskId>) {
    found.clear();
    let mut next = graph.tasks[t].inputs.clone();
    while let Some(i) = next.pop() {
        if owner[i] == usize::MAX {
            next.extend(graph.tasks[i].inputs.iter().copied());
        } else {
            found.push(i);
        }
    }
}

/// Whether fragment `j` is (through inputs, after merges) an input of fragment `a`; a search
/// that would visit more than a few hundred fragments answers no.
fn is_ancestor(j: usize, a: usize, inputs: &[Vec<usize>], group: &[usize]) -> bool {
    const MOST_VISITED: usize = 256;
    let mut seen = FxHashSet::default();
    let mut next = vec![a];
    while let Some(f) = next.pop() {
        for &i in &inputs[f] {
            let i = merged_into(group, i);
            if i == j {
                return true;
            }
            if seen.insert(i) {
                if seen.len() > MOST_VISITED {
                    return false;
                }
                next.push(i);
            }
        }
    }
    false
}

/// The tasks copied into every fragment reading them instead of shipping their blocks:
/// free tasks (views of arrays the caller holds, constant blocks), the caller's blocks when
/// given (`loads_given`), and re-layouts (transposes, new axes, reshapes) of a block that is
/// shipped anyway — read by several tasks, returned, or itself copied — so `a.T @ a` ships
/// each block of `a` once, not once more transposed.
fn copied_tasks(graph: &TaskGraph, consumers: &[Vec<TaskId>], returned: &[bool], loads_given: bool) -> Vec<bool> {
    let mut copied = vec![false; graph.tasks.len()];
    for (t, task) in graph.tasks.iter().enumerate() {
        let read = !returned[t] && !consumers[t].is_empty();
        copied[t] = (loads_given && is_given_load(task))
            || (read && is_free(task))
            || (read && is_relayout(task) && task.inputs.iter().all(|&i| copied[i] || returned[i] || consumers[i].len() > 1));
    }
    copied
}

/// Whether a task only lays its one input's elements out anew, all of them (a view where it
/// runs, at most a copy of its input).
fn is_relayout(task: &Task) -> bool {
    matches!(task.op, TaskOp::Kernel(KernelOp::Transpose { .. } | KernelOp::ExpandDims { .. } | KernelOp::Reshape { .. }))
}

/// Bytes a task reads, makes (a fused task's generated block too) and writes: what running
/// it costs, in the unit fragments are weighed in.
pub fn work_bytes(graph: &TaskGraph, t: TaskId) -> usize {
    let task = &graph.tasks[t];
    let read: usize = task.inputs.iter().map(|&i| graph.tasks[i].nbytes()).sum();
    let generated = match &task.op {
        TaskOp::Kernel(KernelOp::Fused(block) | KernelOp::FusedReduce { block, .. }) => {
            block.shape.iter().product::<usize>() * task.dtype.itemsize().max(8)
        }
        // A user's function may take any time: never gathered with others.
        TaskOp::Io(IoOp::CallBlock { .. }) => SMALL_FRAGMENT_BYTES,
        _ => 0,
    };
    task.nbytes() + read + generated
}

/// Whether a task costs nothing worth shipping a block for: a view of an array the caller
/// holds, or a constant block (made again wherever it is read).
fn is_free(task: &Task) -> bool {
    matches!(task.op, TaskOp::Io(IoOp::Load { .. }) | TaskOp::Source(SourceOp::Full { .. }))
}

fn fragment_of(
    graph: &TaskGraph,
    consumers: &[Vec<TaskId>],
    returned: &[bool],
    owner: &[usize],
    root: TaskId,
    tasks: Vec<TaskId>,
) -> FragmentCut {
    let inputs = inputs_of(graph, &tasks);
    let outputs = tasks
        .iter()
        .copied()
        .filter(|&t| owner[t] == root && (returned[t] || read_outside(t, root, consumers, owner)))
        .collect();
    FragmentCut { tasks, inputs, outputs }
}

/// The blocks `tasks` read from outside them, in the order they first read them.
pub(crate) fn inputs_of(graph: &TaskGraph, tasks: &[TaskId]) -> Vec<TaskId> {
    let inside = Positions::of(tasks);
    let mut seen = FxHashSet::default();
    tasks.iter().flat_map(|&t| graph.tasks[t].inputs.iter().copied()).filter(|&i| inside.of_task(i).is_none() && seen.insert(i)).collect()
}

/// Where each of a list of tasks stands in it: where the list is sorted (as `cut` makes
/// fragments), by its runs of consecutive numbers (a fragment is mostly a few such runs: the
/// blocks of each step it holds), else through a map built once.
struct Positions<'a> {
    tasks: &'a [TaskId],
    lookup: Lookup,
}

enum Lookup {
    /// The first task of each run of consecutive numbers and its place in the list.
    Runs(Vec<(TaskId, usize)>),
    Map(FxHashMap<TaskId, usize>),
}

impl<'a> Positions<'a> {
    fn of(tasks: &'a [TaskId]) -> Positions<'a> {
        let lookup = if tasks.is_sorted() {
            let starts = (0..tasks.len()).filter(|&k| k == 0 || tasks[k] != tasks[k - 1] + 1);
            Lookup::Runs(starts.map(|k| (tasks[k], k)).collect())
        } else {
            Lookup::Map(tasks.iter().enumerate().map(|(k, &t)| (t, k)).collect())
        };
        Positions { tasks, lookup }
    }

    fn of_task(&self, t: TaskId) -> Option<usize> {
        match &self.lookup {
            Lookup::Map(map) => map.get(&t).copied(),
            Lookup::Runs(runs) => {
                // The run that would hold `t`; past its end lie larger numbers than `t`.
                let (first, at) = runs[runs.partition_point(|&(first, _)| first <= t).checked_sub(1)?];
                let k = at + (t - first);
                (self.tasks.get(k) == Some(&t)).then_some(k)
            }
        }
    }
}

/// Whether a task of fragment `root` is read by another fragment's task, directly or through
/// copied tasks (which run in every fragment reading them: a transpose read only inside the
/// fragment of its input does not make the input leave it).
fn read_outside(t: TaskId, root: TaskId, consumers: &[Vec<TaskId>], owner: &[usize]) -> bool {
    consumers[t].iter().any(|&c| match owner[c] {
        usize::MAX => read_outside(c, root, consumers, owner),
        o => o != root,
    })
}

/// The fragment as a graph of its own: its inputs become `IoOp::Input` tasks (numbered first,
/// in order), its outputs the graph's outputs (one block each, in order), and it carries the
/// resources its tasks reach.
pub fn sub_graph(graph: &TaskGraph, fragment: &FragmentCut) -> Result<TaskGraph> {
    let given: FxHashMap<TaskId, usize> = fragment.inputs.iter().enumerate().map(|(index, &i)| (i, index)).collect();
    // A task's number in the fragment: its input's, else the inputs' count and its place
    // among the fragment's tasks.
    let own = Positions::of(&fragment.tasks);
    let new_id = |t: TaskId| given.get(&t).copied().or_else(|| own.of_task(t).map(|k| fragment.inputs.len() + k));
    let mut tasks = Vec::with_capacity(fragment.inputs.len() + fragment.tasks.len());
    for (index, &i) in fragment.inputs.iter().enumerate() {
        let t = &graph.tasks[i];
        tasks.push(Task { op: IoOp::Input { index }.into(), inputs: vec![], size: t.size, dtype: t.dtype, node: t.node, device: t.device });
    }
    for &id in &fragment.tasks {
        let t = &graph.tasks[id];
        let inputs = t.inputs.iter().map(|&i| new_id(i).ok_or_else(|| missing(i, id))).collect::<Result<_>>()?;
        tasks.push(Task { op: t.op.clone(), inputs, size: t.size, dtype: t.dtype, node: t.node, device: t.device });
    }
    let outputs = fragment
        .outputs
        .iter()
        .map(|&o| {
            let t = &graph.tasks[o];
            let block = new_id(o).ok_or_else(|| missing(o, o))?;
            Ok(Output { node: t.node, dtype: t.dtype, chunks: Chunks::new(vec![vec![t.size]], &[t.size])?, blocks: vec![block] })
        })
        .collect::<Result<_>>()?;
    let reached: FxHashSet<u64> = tasks.iter().filter_map(|t| t.op.as_io().and_then(IoOp::resource)).collect();
    let resources = graph.resources.iter().filter(|r| reached.contains(&r.id)).map(Arc::clone).collect();
    Ok(TaskGraph { tasks, outputs, resources, grids: vec![] })
}

fn missing(input: TaskId, task: TaskId) -> tegula_core::TegulaError {
    tegula_core::internal_err!("task {task} of a fragment reads task {input}, neither in the fragment nor given to it")
}

#[cfg(test)]
mod tests {
    use super::Positions;

    #[test]
    fn positions_agree_with_a_search_of_the_list() {
        let sorted = vec![3, 4, 5, 9, 10, 20, 21, 22, 23, 40];
        let unsorted = vec![9, 3, 40, 5, 21];
        for tasks in [sorted, unsorted, vec![], vec![0]] {
            let positions = Positions::of(&tasks);
            for t in 0..45 {
                assert_eq!(positions.of_task(t), tasks.iter().position(|&x| x == t), "task {t} in {tasks:?}");
            }
        }
    }
}
