//! A block read by several fragments that all run on its own node, made one fragment with
//! them. Cutting ends a fragment at a block several tasks read, so that independent work may
//! run in parallel; once placement has put the block's maker and every reader on one node,
//! the block only costs a trip through the engine's object store (a copy of it, and fresh
//! memory to hold it) and a task each. A row block of logistic regression's data, read by
//! the step's product, its gradient and its Hessian, then stays inside one fragment per row
//! block instead of five, and never enters the store.
//!
//! Only blocks no other node reads, and worth the trip, are kept in: a merge saves shipping
//! at least a small fragment's work (`SMALL_FRAGMENT_BYTES`); smaller blocks cost less to
//! ship than the work side by side is worth. A merge must not make work wait: a reader joins
//! only when every other block it reads is already needed by the maker (read by it), made by
//! another reader joining, or made by a lone small fragment that reads nothing (a
//! coefficient vector the caller gave, reshaped), so the merged fragment can start when the
//! maker could; a reader held back may join later, once what it waits for has merged. That
//! also keeps the fragments' graph acyclic: nothing outside the merged fragment both reads
//! from it and is read by it.

use crate::fragments::{inputs_of, work_bytes, FragmentCut, SMALL_FRAGMENT_BYTES};
use crate::graph::{TaskGraph, TaskId};
use crate::placement::Placement;
use std::cmp::Reverse;
use rustc_hash::FxHashSet as HashSet;
use std::collections::{BTreeSet, BinaryHeap};

/// A fragment whose blocks more readers than this read stays apart from them: merging many
/// readers would run as one what a node with several CPUs runs side by side.
pub const MOST_READERS_MERGED: usize = 8;

/// `cuts` (placed by `placement`, no trees left to merge) with each fragment merged with the
/// fragments reading its blocks, where all of them run on its node and none would wait for
/// more than the fragment itself does; in an order where each fragment's inputs come from
/// earlier ones.
pub fn merge_fan_outs(graph: &TaskGraph, cuts: Vec<FragmentCut>, placement: Placement) -> (Vec<FragmentCut>, Placement) {
    let mut groups = Groups::new(graph, &cuts, &placement);
    // Until nothing more merges: a group that took its readers in may now take in theirs, and
    // one that could not take its readers in may once they have merged with what held them
    // back (a row block's readers wait for weights its own readers make from it).
    let mut merged = true;
    while merged {
        merged = false;
        for k in 0..cuts.len() {
            while groups.root(k) == k && groups.take_readers(k) {
                merged = true;
            }
        }
    }
    groups.into_cuts(graph, cuts, placement)
}

/// Fragments joined into groups (a union-find over the fragments' numbers).
struct Groups {
    parent: Vec<usize>,
    members: Vec<Vec<usize>>,
    /// The fragments that make each fragment's inputs.
    makers: Vec<Vec<usize>>,
    node: Vec<usize>,
    /// The fragments reading each block, by task.
    read_by: Vec<Vec<usize>>,
    /// Each fragment's outputs, with their bytes.
    outputs: Vec<Vec<(TaskId, usize)>>,
    /// Whether a fragment reads no other fragment's block and does little work: waiting for
    /// it costs nothing worth keeping work apart for.
    ready_at_once: Vec<bool>,
}

impl Groups {
    fn new(graph: &TaskGraph, cuts: &[FragmentCut], placement: &Placement) -> Groups {
        let mut maker = vec![usize::MAX; graph.tasks.len()];
        for (k, cut) in cuts.iter().enumerate() {
            cut.outputs.iter().for_each(|&t| maker[t] = k);
        }
        let n = cuts.len();
        let makers: Vec<Vec<usize>> = cuts
            .iter()
            .map(|cut| {
                let mut made_by: Vec<usize> = cut.inputs.iter().map(|&t| maker[t]).filter(|&k| k != usize::MAX).collect();
                made_by.sort_unstable();
                made_by.dedup();
                made_by
            })
            .collect();
        let ready_at_once = cuts
            .iter()
            .zip(&makers)
            .map(|(cut, made_by)| made_by.is_empty() && cut.tasks.iter().map(|&t| work_bytes(graph, t)).sum::<usize>() <= SMALL_FRAGMENT_BYTES)
            .collect();
        Groups {
            parent: (0..n).collect(),
            members: (0..n).map(|k| vec![k]).collect(),
            makers,
            node: placement.fragment_node.clone(),
            read_by: readers_of_tasks(graph, cuts),
            outputs: cuts.iter().map(|c| c.outputs.iter().map(|&t| (t, graph.tasks[t].nbytes())).collect()).collect(),
            ready_at_once,
        }
    }

    fn root(&self, k: usize) -> usize {
        let mut r = k;
        while self.parent[r] != r {
            r = self.parent[r];
        }
        r
    }

    /// Merges into group `g` the groups reading its blocks, where that is allowed (see the
    /// module's text); whether it did.
    fn take_readers(&mut self, g: usize) -> bool {
        let mut readers = self.local_readers(g);
        if readers.is_empty() || readers.len() > MOST_READERS_MERGED {
            return false;
        }
        let waited: HashSet<usize> = self.members[g].iter().flat_map(|&m| &self.makers[m]).map(|&q| self.root(q)).collect();
        // A reader that would wait for a group left out stays out, and so may one reading it.
        loop {
            let held_back: Vec<usize> = readers.iter().copied().filter(|&r| !self.may_join(g, r, &readers, &waited)).collect();
            if held_back.is_empty() {
                break;
            }
            for r in held_back {
                readers.remove(&r);
            }
        }
        if readers.is_empty() || self.bytes_read_by(g, &readers) < SMALL_FRAGMENT_BYTES {
            return false;
        }
        for r in readers {
            // Every member points at its group's root: a root is found in one step.
            let taken = std::mem::take(&mut self.members[r]);
            taken.iter().for_each(|&m| self.parent[m] = g);
            self.members[g].extend(taken);
        }
        true
    }

    /// The groups reading blocks of `g` that no group on another node reads: such a block
    /// need not leave the node.
    fn local_readers(&self, g: usize) -> BTreeSet<usize> {
        let mut local = BTreeSet::new();
        for (t, _) in self.members[g].iter().flat_map(|&m| &self.outputs[m]) {
            let readers = &self.read_by[*t];
            if readers.iter().all(|&r| self.node[self.root(r)] == self.node[g]) {
                local.extend(readers.iter().map(|&r| self.root(r)).filter(|&r| r != g));
            }
        }
        local
    }

    /// Whether group `r`, merged with `g` and `readers`, would wait only for what `g` waits
    /// for, or for a lone fragment that reads nothing and does little.
    fn may_join(&self, g: usize, r: usize, readers: &BTreeSet<usize>, waited: &HashSet<usize>) -> bool {
        self.members[r].iter().flat_map(|&m| &self.makers[m]).all(|&q| {
            let q_root = self.root(q);
            q_root == g || readers.contains(&q_root) || waited.contains(&q_root) || (self.ready_at_once[q] && self.members[q_root].len() == 1)
        })
    }

    /// The bytes of blocks that group `g` makes and the groups `readers` read: what merging
    /// them saves shipping.
    fn bytes_read_by(&self, g: usize, readers: &BTreeSet<usize>) -> usize {
        let read_by_readers = |t: &TaskId| self.read_by[*t].iter().any(|&r| readers.contains(&self.root(r)));
        self.members[g].iter().flat_map(|&m| &self.outputs[m]).filter(|(t, _)| read_by_readers(t)).map(|(_, bytes)| bytes).sum()
    }

    /// The groups as fragments, in topological order (ties: the order of their last
    /// member), with their nodes.
    fn into_cuts(self, graph: &TaskGraph, cuts: Vec<FragmentCut>, placement: Placement) -> (Vec<FragmentCut>, Placement) {
        let n = cuts.len();
        let roots: Vec<usize> = (0..n).filter(|&k| self.parent[k] == k).collect();
        let root_of: Vec<usize> = (0..n).map(|k| self.root(k)).collect();
        // By group root: its last member, how many groups it waits for, the groups after it.
        let last_member: Vec<usize> = (0..n).map(|g| self.members[g].iter().copied().max().unwrap_or(g)).collect();
        let mut edges: Vec<(usize, usize)> =
            (0..n).flat_map(|k| self.makers[k].iter().map(move |&q| (q, k))).map(|(q, k)| (root_of[q], root_of[k])).filter(|(from, to)| from != to).collect();
        edges.sort_unstable();
        edges.dedup();
        let mut waiting = vec![0usize; n];
        let mut after: Vec<Vec<usize>> = vec![Vec::new(); n];
        for &(from, to) in &edges {
            after[from].push(to);
            waiting[to] += 1;
        }
        // Topological order of the groups: Kahn's, the smallest last member first.
        let returned: HashSet<TaskId> = graph.outputs.iter().flat_map(|o| o.blocks.iter().copied()).collect();
        let mut ready: BinaryHeap<Reverse<(usize, usize)>> = roots.iter().filter(|&&g| waiting[g] == 0).map(|&g| Reverse((last_member[g], g))).collect();
        let mut slots: Vec<Option<FragmentCut>> = cuts.into_iter().map(Some).collect();
        let mut merged = Vec::with_capacity(roots.len());
        let mut nodes = Vec::with_capacity(roots.len());
        while let Some(Reverse((_, g))) = ready.pop() {
            let mut members = self.members[g].clone();
            members.sort_unstable();
            let members: Vec<FragmentCut> = members.iter().filter_map(|&m| slots[m].take()).collect();
            let leaves = |t: &TaskId| returned.contains(t) || self.read_by[*t].iter().any(|&r| root_of[r] != g);
            merged.push(if members.len() == 1 { members.into_iter().next().expect("one member") } else { one_fragment(graph, members, leaves) });
            nodes.push(self.node[g]);
            for &to in &after[g] {
                waiting[to] -= 1;
                if waiting[to] == 0 {
                    ready.push(Reverse((last_member[to], to)));
                }
            }
        }
        (merged, Placement { fragment_node: nodes, trees: vec![], tiled: vec![], ..placement })
    }
}

/// The fragments reading each block, by task.
fn readers_of_tasks(graph: &TaskGraph, cuts: &[FragmentCut]) -> Vec<Vec<usize>> {
    let mut read_by: Vec<Vec<usize>> = vec![Vec::new(); graph.tasks.len()];
    for (k, cut) in cuts.iter().enumerate() {
        for &t in &cut.inputs {
            read_by[t].push(k);
        }
    }
    read_by
}

/// Fragments (in topological order) as one: their tasks in their order, each once (a task
/// copied into several of them comes with the first); the blocks they read from outside; the
/// blocks they made that `leaves` says leave it.
fn one_fragment(graph: &TaskGraph, members: Vec<FragmentCut>, leaves: impl Fn(&TaskId) -> bool) -> FragmentCut {
    let mut seen = HashSet::default();
    let tasks: Vec<TaskId> = members.iter().flat_map(|c| c.tasks.iter().copied()).filter(|&t| seen.insert(t)).collect();
    let inputs = inputs_of(graph, &tasks);
    let outputs = members.iter().flat_map(|c| c.outputs.iter().copied()).filter(|o| leaves(o)).collect();
    FragmentCut { tasks, inputs, outputs }
}
