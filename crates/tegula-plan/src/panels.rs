//! A product's output block contracted panel by panel, as SUMMA contracts: a fragment making a
//! block of a matrix product holds its whole sum tree, so it reads a whole row and a whole
//! column of operand blocks at once, and a node making several blocks held the rows and columns
//! of all of them until its last block was made (3.5× a node's memory for `x @ x.T` on 1,024
//! nodes). Cut into one fragment per group of partial products (a panel of the contracted
//! axis) — each group's sum folded onto the running total of the groups before it, which gives
//! the same bits, as `ReduceCombine` folds its partials in order — and run panel after panel
//! across all of a product's blocks, a node holds its blocks' running totals and one panel of
//! operands at a time.

use crate::fragments::{inputs_of, work_bytes, FragmentCut, SMALL_FRAGMENT_BYTES};
use crate::graph::{Task, TaskGraph, TaskId};
use crate::levels::reorder;
use crate::placement::Placement;
use crate::ready::ReadyList;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use tegula_core::{KernelOp, PartialReduce, TaskOp};

/// A product block's sum tree: a unit (partial products summed by one combine, or one partial
/// product: the tasks of one panel) or a combine of subtrees.
enum Sum {
    Unit(Vec<TaskId>),
    Combine(TaskId, Vec<Sum>),
}

impl Sum {
    /// The task whose block is this subtree's sum.
    fn top(&self) -> TaskId {
        match self {
            Sum::Unit(tasks) => *tasks.last().expect("a unit has tasks"),
            Sum::Combine(t, _) => *t,
        }
    }
}

/// Where a fragment comes in the order among those ready (least first): its place in the
/// plan, or its product's anchor, its panel and its place in the plan.
type Key = (usize, usize, usize);

/// A fragment cut into panels: each panel's tasks, in order.
struct Split {
    fragment: usize,
    grid: usize,
    panels: Vec<Vec<TaskId>>,
}

/// `graph`, `cuts` and `placement` with every fragment that makes one block of a matrix product
/// from its operands (`TaskGraph::grids`) cut into panels, each worth shipping on its own
/// (`SMALL_FRAGMENT_BYTES` of work or more), on the fragment's node, and the fragments ordered
/// so that each product's panels run panel after panel across its blocks.
pub fn contract_by_panels(mut graph: TaskGraph, cuts: Vec<FragmentCut>, placement: Placement) -> (TaskGraph, Vec<FragmentCut>, Placement) {
    let grid_of: HashMap<TaskId, usize> = graph.grids.iter().enumerate().flat_map(|(g, grid)| grid.blocks.iter().map(move |&(t, _)| (t, g))).collect();
    let uses = graph.uses();
    let mut splits = Vec::new();
    for (k, cut) in cuts.iter().enumerate() {
        if let Some((grid, tree)) = product_tree(&graph, cut, &grid_of, &uses) {
            let panels = chain_panels(&mut graph, &tree, cut);
            splits.push(Split { fragment: k, grid, panels });
        }
    }
    if splits.is_empty() {
        return (graph, cuts, placement);
    }
    let (cuts, keys, nodes) = split_cuts(&graph, cuts, &placement, &splits);
    let order = ordered(&cuts, &keys);
    let placement = Placement { nodes: placement.nodes, fragment_node: nodes, given_node: placement.given_node, trees: vec![], tiled: vec![] };
    let (cuts, placement) = reorder(cuts, placement, &order);
    (graph, cuts, placement)
}

/// The grid and sum tree of the one product block `cut` makes from blocks made elsewhere, when
/// it has at least two panels each worth a fragment.
fn product_tree(graph: &TaskGraph, cut: &FragmentCut, grid_of: &HashMap<TaskId, usize>, uses: &[usize]) -> Option<(usize, Sum)> {
    let mut roots = cut.tasks.iter().filter_map(|t| Some((*t, *grid_of.get(t)?))).filter(|&(t, _)| graph.tasks[t].is_combine());
    let (root, grid) = roots.next()?;
    if roots.next().is_some() {
        return None;
    }
    let inside: HashSet<TaskId> = cut.tasks.iter().copied().collect();
    let mut reads: HashMap<TaskId, usize> = HashMap::default();
    for i in cut.tasks.iter().flat_map(|&t| &graph.tasks[t].inputs).filter(|i| inside.contains(i)) {
        *reads.entry(*i).or_default() += 1;
    }
    let tree = sum_tree(graph, root, &Within { inside, reads, uses }, true)?;
    let mut units = Vec::new();
    collect_units(&tree, &mut units);
    let worth = |unit: &&Vec<TaskId>| unit.iter().map(|&t| work_bytes(graph, t)).sum::<usize>() >= SMALL_FRAGMENT_BYTES;
    (units.len() >= 2 && units.iter().all(worth)).then_some((grid, tree))
}

/// A fragment's tasks, how many times each is read inside it, and how many times each task
/// of the plan is read (`TaskGraph::uses`).
struct Within<'u> {
    inside: HashSet<TaskId>,
    reads: HashMap<TaskId, usize>,
    uses: &'u [usize],
}

/// The sum tree under `t` inside a fragment: combines of sums down to partial products whose
/// operands come from outside; None where anything else is met.
fn sum_tree(graph: &TaskGraph, t: TaskId, within: &Within, root: bool) -> Option<Sum> {
    let (task, inside) = (&graph.tasks[t], &within.inside);
    if !inside.contains(&t) || (!root && within.uses[t] != 1) {
        return None;
    }
    match &task.op {
        TaskOp::Kernel(KernelOp::Matmul { .. }) => {
            // Operands made outside, or views of them the fragment makes for itself (a block of
            // `x.T`), which go with the product.
            let own = |i: &TaskId| {
                graph.tasks[*i].inputs.iter().all(|j| !inside.contains(j)) && within.reads.get(i) == Some(&1)
            };
            let views: Vec<TaskId> = task.inputs.iter().copied().filter(|i| inside.contains(i)).collect();
            views.iter().all(own).then(|| Sum::Unit(views.into_iter().chain([t]).collect()))
        }
        TaskOp::Kernel(KernelOp::ReduceCombine { op: PartialReduce::Sum { .. } }) => {
            let children: Vec<Sum> = task.inputs.iter().map(|&i| sum_tree(graph, i, within, false)).collect::<Option<_>>()?;
            let is_product = |c: &Sum| matches!(c, Sum::Unit(_)) && !graph.tasks[c.top()].is_combine();
            if children.iter().all(is_product) {
                let mut unit: Vec<TaskId> = children.into_iter().flat_map(|c| match c {
                    Sum::Unit(tasks) => tasks,
                    Sum::Combine(..) => vec![],
                }).collect();
                unit.push(t);
                return Some(Sum::Unit(unit));
            }
            Some(Sum::Combine(t, children))
        }
        _ => None,
    }
}

fn collect_units<'s>(sum: &'s Sum, units: &mut Vec<&'s Vec<TaskId>>) {
    match sum {
        Sum::Unit(tasks) => units.push(tasks),
        Sum::Combine(_, children) => children.iter().for_each(|c| collect_units(c, units)),
    }
}

/// Each combine of `tree` cut into a chain (the running total of its first subtrees taking in
/// the next one's sum, in order), every step in the panel whose unit completes the subtree it
/// takes in; the tasks of each panel, the last one's with the rest of `cut`.
fn chain_panels(graph: &mut TaskGraph, tree: &Sum, cut: &FragmentCut) -> Vec<Vec<TaskId>> {
    let mut panels: Vec<Vec<TaskId>> = Vec::new();
    chain(graph, tree, &mut panels);
    let taken: HashSet<TaskId> = panels[..panels.len() - 1].iter().flatten().copied().collect();
    let last = panels.last_mut().expect("at least two panels");
    let placed: HashSet<TaskId> = last.iter().copied().collect();
    last.extend(cut.tasks.iter().copied().filter(|t| !taken.contains(t) && !placed.contains(t)));
    panels.iter().map(|p| topological(graph, p)).collect()
}

/// Adds `sum`'s panels to `panels` and returns the task of its sum; each combine's steps are
/// made as its subtrees complete.
fn chain(graph: &mut TaskGraph, sum: &Sum, panels: &mut Vec<Vec<TaskId>>) -> TaskId {
    match sum {
        Sum::Unit(tasks) => {
            panels.push(tasks.clone());
            *tasks.last().expect("a unit has tasks")
        }
        Sum::Combine(t, children) => {
            let mut total = chain(graph, &children[0], panels);
            for (k, child) in children.iter().enumerate().skip(1) {
                let next = chain(graph, child, panels);
                let step = if k + 1 == children.len() {
                    graph.tasks[*t].inputs = vec![total, next];
                    *t
                } else {
                    graph.tasks.push(Task { inputs: vec![total, next], ..graph.tasks[*t].clone() });
                    graph.tasks.len() - 1
                };
                panels.last_mut().expect("a child made a panel").push(step);
                total = step;
            }
            total
        }
    }
}

/// `tasks` in an order where each comes after those of them it reads.
fn topological(graph: &TaskGraph, tasks: &[TaskId]) -> Vec<TaskId> {
    let set: HashSet<TaskId> = tasks.iter().copied().collect();
    let mut done: HashSet<TaskId> = HashSet::default();
    let mut order = Vec::with_capacity(tasks.len());
    for &t in tasks {
        let mut stack = vec![(t, false)];
        while let Some((u, expanded)) = stack.pop() {
            if expanded {
                order.push(u);
                continue;
            }
            if !done.insert(u) {
                continue;
            }
            stack.push((u, true));
            stack.extend(graph.tasks[u].inputs.iter().filter(|i| set.contains(i) && !done.contains(i)).map(|&i| (i, false)));
        }
    }
    order
}

/// The fragments with each split one replaced by its panels, each fragment's key of order
/// (`ordered`) and node.
fn split_cuts(graph: &TaskGraph, cuts: Vec<FragmentCut>, placement: &Placement, splits: &[Split]) -> (Vec<FragmentCut>, Vec<Key>, Vec<usize>) {
    // A product's panels go where its last split fragment was: every block they read is made
    // by then.
    let mut anchor: HashMap<usize, usize> = HashMap::default();
    for s in splits {
        anchor.insert(s.grid, s.fragment);
    }
    let mut split_at: HashMap<usize, &Split> = splits.iter().map(|s| (s.fragment, s)).collect();
    let (mut out, mut keys, mut nodes) = (Vec::new(), Vec::new(), Vec::new());
    for (k, cut) in cuts.into_iter().enumerate() {
        let node = placement.fragment_node[k];
        let Some(split) = split_at.remove(&k) else {
            out.push(cut);
            keys.push((k, 0, k));
            nodes.push(node);
            continue;
        };
        // A panel's blocks leaving it: the fragment's own outputs, and the totals later
        // panels take in (views of given blocks inside it were copied into each reader).
        let panel_of: HashMap<TaskId, usize> = split.panels.iter().enumerate().flat_map(|(p, tasks)| tasks.iter().map(move |&t| (t, p))).collect();
        let mut leaving: HashSet<TaskId> = cut.outputs.iter().copied().collect();
        for (p, tasks) in split.panels.iter().enumerate() {
            let read = tasks.iter().flat_map(|&t| &graph.tasks[t].inputs);
            leaving.extend(read.filter(|i| panel_of.get(i).is_some_and(|&q| q != p)));
        }
        for (p, tasks) in split.panels.iter().enumerate() {
            let outputs = tasks.iter().copied().filter(|t| leaving.contains(t)).collect();
            out.push(FragmentCut { inputs: inputs_of(graph, tasks), tasks: tasks.clone(), outputs });
            keys.push((anchor[&split.grid], p, k));
            nodes.push(node);
        }
    }
    (out, keys, nodes)
}

/// The fragments in an order where each one's inputs come from earlier ones, the one of
/// least key first among those ready.
fn ordered(cuts: &[FragmentCut], keys: &[Key]) -> Vec<usize> {
    let fragments = cuts.iter().map(|c| (c.inputs.as_slice(), c.outputs.as_slice()));
    ReadyList::new(fragments, keys.to_vec()).expect("a key per fragment").into_order()
}
