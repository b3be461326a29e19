//! A combine whose partials lie on several nodes, cut into a chain. `ReduceCombine` folds its
//! partials in order (a running total, from the first partial, takes in each next one), so
//! folding a prefix first and then the rest onto that total gives the same bits. Each run of
//! consecutive partials on one node is folded there, onto the total of the runs before it,
//! and only that total moves on: one block per change of node, instead of every partial
//! placed away from the combine. `ranges` lays a reduction's partials out in such runs.

use crate::fragments::{inputs_of, FragmentCut};
use crate::graph::{Task, TaskGraph, TaskId};
use crate::placement::Placement;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// A block a chain reads: a task of the plan, or an earlier step's total.
#[derive(Debug, Clone, Copy)]
enum Link {
    Task(TaskId),
    Step(usize),
}

/// One fold of a chain: a run of partials onto the total before it, on the run's node.
struct Step {
    node: usize,
    inputs: Vec<Link>,
}

/// A combine cut into steps; the combine itself then folds the last total and the partials
/// on its own node.
struct Chain {
    fragment: usize,
    steps: Vec<Step>,
    inputs: Vec<Link>,
}

/// `graph`, its fragments and their placement with every combine cut into a chain where that
/// moves fewer blocks between nodes. Each step runs on its run's node, before the combine's
/// fragment. A fragment that reads nothing but the partials of its one combine moves to the node of
/// the last of them when that makes its chain move fewer blocks.
pub fn chain_combines(graph: TaskGraph, cuts: Vec<FragmentCut>, mut placement: Placement) -> (TaskGraph, Vec<FragmentCut>, Placement) {
    let mut at: HashMap<TaskId, usize> = placement.given_node.clone();
    for (k, cut) in cuts.iter().enumerate() {
        at.extend(cut.outputs.iter().map(|&t| (t, placement.fragment_node[k])));
    }
    // In fragment order, as `insert_steps` takes them.
    let mut chains: Vec<(TaskId, Chain)> = Vec::new();
    for (k, cut) in cuts.iter().enumerate() {
        let combines: Vec<TaskId> = cut.tasks.iter().copied().filter(|&t| graph.tasks[t].is_combine()).collect();
        if combines.is_empty() {
            continue;
        }
        let inside: HashSet<TaskId> = cut.tasks.iter().copied().collect();
        if let [only] = combines[..] {
            let partials = &graph.tasks[only].inputs;
            let last = partials.last().and_then(|p| at.get(p)).copied();
            if let Some(last) = last.filter(|_| cut.inputs.iter().all(|i| partials.contains(i))) {
                let here = placement.fragment_node[k];
                if blocks_moved(partials, last, &inside, &at) < blocks_moved(partials, here, &inside, &at) {
                    placement.fragment_node[k] = last;
                    at.extend(cut.outputs.iter().map(|&t| (t, last)));
                }
            }
        }
        for t in combines {
            if let Some((steps, inputs)) = chain_of(&graph.tasks[t].inputs, placement.fragment_node[k], &inside, &at) {
                chains.push((t, Chain { fragment: k, steps, inputs }));
            }
        }
    }
    if chains.is_empty() {
        return (graph, cuts, placement);
    }
    let (graph, step_ids) = append_steps(graph, &chains);
    let (cuts, placement) = insert_steps(&graph, cuts, placement, &chains, &step_ids);
    (graph, cuts, placement)
}

/// The runs of consecutive `partials` on one node, for a combine in a fragment on `node`
/// (holding `inside`): the runs, those folded by steps (all but a last run on `node`), the
/// blocks moved without a chain, and whether a chain can be made — not where a step would
/// need a block made inside the combine's fragment before the fragment runs.
struct Runs {
    runs: Vec<(usize, Vec<TaskId>)>,
    stepped: usize,
    moved_now: usize,
    chainable: bool,
}

fn runs_of(partials: &[TaskId], node: usize, inside: &HashSet<TaskId>, at: &HashMap<TaskId, usize>) -> Runs {
    let mut runs: Vec<(usize, Vec<TaskId>)> = Vec::new();
    for &p in partials {
        let on = if inside.contains(&p) { node } else { at.get(&p).copied().unwrap_or(node) };
        match runs.last_mut() {
            Some((n, run)) if *n == on => run.push(p),
            _ => runs.push((on, vec![p])),
        }
    }
    let stepped = runs.len() - usize::from(runs.last().is_some_and(|(n, _)| *n == node));
    let moved_now = runs.iter().filter(|(n, _)| *n != node).map(|(_, run)| run.len()).sum();
    let chainable = !runs[..stepped].iter().flat_map(|(_, run)| run).any(|p| inside.contains(p));
    Runs { runs, stepped, moved_now, chainable }
}

/// The blocks the combine of `partials` on `node` moves between nodes, chained where that
/// moves fewer (each step's total moves on once).
fn blocks_moved(partials: &[TaskId], node: usize, inside: &HashSet<TaskId>, at: &HashMap<TaskId, usize>) -> usize {
    let r = runs_of(partials, node, inside, at);
    if r.chainable { r.moved_now.min(r.stepped) } else { r.moved_now }
}

/// The steps of the combine of `partials` in a fragment on `node` (holding `inside`), and
/// the combine's inputs then; None where a chain cannot be made or moves no fewer blocks.
fn chain_of(partials: &[TaskId], node: usize, inside: &HashSet<TaskId>, at: &HashMap<TaskId, usize>) -> Option<(Vec<Step>, Vec<Link>)> {
    let Runs { runs, stepped, moved_now, chainable } = runs_of(partials, node, inside, at);
    if !chainable || stepped >= moved_now {
        return None;
    }
    let local_last = stepped < runs.len();
    let stepped = &runs[..stepped];
    let mut steps = Vec::new();
    let mut total: Option<Link> = None;
    for (on, run) in stepped {
        total = Some(match (total, &run[..]) {
            (None, [only]) => Link::Task(*only),
            _ => {
                steps.push(Step { node: *on, inputs: total.into_iter().chain(run.iter().map(|&p| Link::Task(p))).collect() });
                Link::Step(steps.len() - 1)
            }
        });
    }
    let last = if local_last { runs.last().map(|(_, run)| run.clone()).unwrap_or_default() } else { vec![] };
    Some((steps, total.into_iter().chain(last.into_iter().map(Link::Task)).collect()))
}

/// The graph with each chain's steps appended after the plan's tasks — numbered past them,
/// so every task keeps the number a caller's observer knows it by; fragments, not numbers,
/// give the order things run in — and each combine reading its chain: the steps' numbers.
fn append_steps(mut graph: TaskGraph, chains: &[(TaskId, Chain)]) -> (TaskGraph, Vec<Vec<TaskId>>) {
    let mut step_ids = Vec::with_capacity(chains.len());
    for (t, chain) in chains {
        let mut ids: Vec<TaskId> = Vec::with_capacity(chain.steps.len());
        for step in &chain.steps {
            let inputs = step.inputs.iter().map(|l| link_id(*l, &ids)).collect();
            ids.push(graph.tasks.len());
            graph.tasks.push(Task { inputs, ..graph.tasks[*t].clone() });
        }
        graph.tasks[*t].inputs = chain.inputs.iter().map(|l| link_id(*l, &ids)).collect();
        step_ids.push(ids);
    }
    (graph, step_ids)
}

fn link_id(link: Link, steps: &[TaskId]) -> TaskId {
    match link {
        Link::Task(t) => t,
        Link::Step(s) => steps[s],
    }
}

/// The fragments with each chain's steps just before its combine's fragment — as fragments of
/// their own, or, a first step folding what one fragment on its node made, at that one's end —
/// and their nodes.
fn insert_steps(graph: &TaskGraph, cuts: Vec<FragmentCut>, placement: Placement, chains: &[(TaskId, Chain)], step_ids: &[Vec<TaskId>]) -> (Vec<FragmentCut>, Placement) {
    let consumers = graph.consumers();
    let mut out: Vec<FragmentCut> = Vec::with_capacity(cuts.len() + chains.len());
    let mut nodes = Vec::with_capacity(cuts.len() + chains.len());
    let mut made_by: HashMap<TaskId, usize> = HashMap::default();
    let mut pending = chains.iter().zip(step_ids).peekable();
    for (k, mut cut) in cuts.into_iter().enumerate() {
        let mut changed = false;
        while let Some(((_, chain), ids)) = pending.next_if(|((_, c), _)| c.fragment == k) {
            for (step, &id) in chain.steps.iter().zip(ids) {
                let mut inputs = graph.tasks[id].inputs.clone();
                inputs.dedup();
                match sole_maker(&inputs, &made_by).filter(|&f| nodes[f] == step.node) {
                    Some(f) => {
                        let maker = &mut out[f];
                        maker.tasks.push(id);
                        maker.outputs.retain(|o| consumers[*o] != [id]);
                        maker.outputs.push(id);
                        made_by.insert(id, f);
                    }
                    None => {
                        made_by.insert(id, out.len());
                        out.push(FragmentCut { tasks: vec![id], inputs, outputs: vec![id] });
                        nodes.push(step.node);
                    }
                }
            }
            changed = true;
        }
        if changed {
            cut.inputs = inputs_of(graph, &cut.tasks);
        }
        made_by.extend(cut.outputs.iter().map(|&o| (o, out.len())));
        out.push(cut);
        nodes.push(placement.fragment_node[k]);
    }
    (out, Placement { nodes: placement.nodes, fragment_node: nodes, given_node: placement.given_node, trees: vec![], tiled: vec![] })
}

/// The one fragment making all of `blocks`, if there is one.
fn sole_maker(blocks: &[TaskId], made_by: &HashMap<TaskId, usize>) -> Option<usize> {
    let first = *made_by.get(blocks.first()?)?;
    blocks.iter().all(|b| made_by.get(b) == Some(&first)).then_some(first)
}
