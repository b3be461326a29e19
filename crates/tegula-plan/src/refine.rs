//! Refining a placement by local search: `place` lays fragments out one at a time, each where
//! it costs least given those before it, and cannot see that the blocks it deals round the
//! nodes would better lie with the fragments that come later. Here whole units — a subtree or
//! range placed as one, a lone fragment, a block the caller gives — move to another node, or
//! two units trade nodes, whenever that copies fewer bytes between nodes and no node is left
//! with more work than the busiest had (work: the bytes a unit's tasks make). Output blocks of
//! a product then gather in tiles of rows × columns, as in SUMMA, each node reading a few rows
//! and columns of the operands instead of all of one of them, and generated operand blocks
//! are made on a node that reads them.

use crate::fragments::FragmentCut;
use crate::graph::{TaskGraph, TaskId};
use crate::placement::Placement;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// How many times over all units a refinement may look for a better node before it stops.
const PASSES: usize = 8;

/// Block reads a refinement may weigh in all before it stops moving or trading units or starts
/// another pass, so that large plans are refined in bounded time.
const EFFORT: usize = 20_000_000;

/// Moves units of `placement` while that lowers the bytes copied between nodes.
pub fn refine(graph: &TaskGraph, cuts: &[FragmentCut], placement: &mut Placement) {
    if placement.nodes < 2 {
        return;
    }
    let mut layout = Layout::new(graph, cuts, placement);
    let mut effort = 0;
    for _ in 0..PASSES {
        let improved = layout.moves(&mut effort) | layout.swaps(&mut effort);
        if !improved || effort > EFFORT {
            break;
        }
    }
    layout.write_back(placement);
}

/// What moves together: a subtree or range's fragments, a lone fragment, or a given block.
struct Unit {
    fragments: Vec<usize>,
    given: Option<TaskId>,
    /// The blocks its fragments read (dense numbers), with how many of its fragments read each.
    reads: Vec<(usize, usize)>,
    /// The blocks it makes that fragments read.
    makes: Vec<usize>,
    work: usize,
    /// Whether it stays where it is (a fragment on its tile, `Placement::tiled`).
    pinned: bool,
}

/// A placement being refined, with what it copies: for each block read by fragments, its home
/// and the nodes reading it.
struct Layout {
    units: Vec<Unit>,
    unit_node: Vec<usize>,
    work: Vec<usize>,
    /// The most work a node may take: the busiest node's before refining.
    most_work: usize,
    bytes: Vec<usize>,
    home: Vec<usize>,
    /// For each block, (node, how many fragments there read it).
    readers: Vec<Vec<(usize, usize)>>,
}

impl Layout {
    fn new(graph: &TaskGraph, cuts: &[FragmentCut], placement: &Placement) -> Layout {
        let mut block_of: HashMap<TaskId, usize> = HashMap::default();
        let mut tasks: Vec<TaskId> = Vec::new();
        for &t in cuts.iter().flat_map(|c| c.inputs.iter()) {
            block_of.entry(t).or_insert_with(|| {
                tasks.push(t);
                tasks.len() - 1
            });
        }
        let mut units = fragment_units(graph, cuts, placement, &block_of);
        let mut unit_node: Vec<usize> = units.iter().map(|u| placement.fragment_node[u.fragments[0]]).collect();
        let mut home = vec![0; tasks.len()];
        for (t, &node) in &placement.given_node {
            if let Some(&b) = block_of.get(t) {
                units.push(Unit { fragments: vec![], given: Some(*t), reads: vec![], makes: vec![b], work: 0, pinned: false });
                unit_node.push(node);
            }
        }
        let mut work = vec![0; placement.nodes];
        let mut readers: Vec<Vec<(usize, usize)>> = vec![Vec::new(); tasks.len()];
        for (unit, &node) in units.iter().zip(&unit_node) {
            work[node] += unit.work;
            unit.makes.iter().for_each(|&b| home[b] = node);
            for &(b, count) in &unit.reads {
                add_readers(&mut readers[b], node, count as isize);
            }
        }
        let bytes = tasks.iter().map(|&t| graph.tasks[t].nbytes()).collect();
        let most_work = work.iter().copied().max().unwrap_or(0);
        Layout { units, unit_node, work, most_work, bytes, home, readers }
    }

    /// The bytes copied between nodes for `blocks` (a block listed twice counts twice).
    fn copied(&self, blocks: impl Iterator<Item = usize>) -> usize {
        blocks
            .map(|b| {
                let away = self.readers[b].iter().filter(|&&(node, _)| node != self.home[b]).count();
                away * self.bytes[b]
            })
            .sum()
    }

    fn touched(&self, u: usize) -> impl Iterator<Item = usize> + '_ {
        self.units[u].reads.iter().map(|r| r.0).chain(self.units[u].makes.iter().copied())
    }

    fn put(&mut self, u: usize, to: usize) {
        let from = std::mem::replace(&mut self.unit_node[u], to);
        let unit = &self.units[u];
        self.work[from] -= unit.work;
        self.work[to] += unit.work;
        for &(b, count) in &unit.reads {
            add_readers(&mut self.readers[b], from, -(count as isize));
            add_readers(&mut self.readers[b], to, count as isize);
        }
        for &b in &unit.makes {
            self.home[b] = to;
        }
    }

    /// The nodes where the blocks unit `u` reads or makes lie or are read, in order. Only a
    /// move there can copy fewer bytes: on any other node each of those blocks would have one
    /// more reader away from its home, or its home away from all its readers.
    fn near(&self, u: usize) -> Vec<usize> {
        let mut nodes: Vec<usize> = self.touched(u).flat_map(|b| self.readers[b].iter().map(|r| r.0).chain([self.home[b]])).collect();
        nodes.sort_unstable();
        nodes.dedup();
        nodes
    }

    /// What a try of unit `u` elsewhere weighs: the readers of each block it touches, and the
    /// block itself.
    fn scanned(&self, u: usize) -> usize {
        self.touched(u).map(|b| self.readers[b].len() + 1).sum()
    }

    fn movable(&self) -> Vec<usize> {
        (0..self.units.len()).filter(|&u| !self.units[u].pinned).collect()
    }

    /// Puts each unit on another node where that copies fewer bytes and work allows.
    fn moves(&mut self, effort: &mut usize) -> bool {
        let mut improved = false;
        for u in self.movable() {
            if *effort > EFFORT {
                return improved;
            }
            // A try scans the nodes reading each block the unit touches (a block every node
            // reads, as a model's coefficients, makes a thousand tries of a thousand each).
            let scanned = self.scanned(u);
            for to in self.near(u) {
                let from = self.unit_node[u];
                if to == from || self.work[to] + self.units[u].work > self.most_work {
                    continue;
                }
                *effort += scanned;
                improved |= self.try_changes(&[(u, to)]);
            }
        }
        improved
    }

    /// Trades the nodes of two units where that copies fewer bytes and work allows.
    fn swaps(&mut self, effort: &mut usize) -> bool {
        let mut improved = false;
        let movable = self.movable();
        // Where each unit's blocks lie or are read as trading starts: a trade copies fewer
        // bytes only where one of the two units goes near its blocks (`near`); the others
        // are passed over at the cost of one look.
        let near: Vec<Vec<usize>> = movable.iter().map(|&u| self.near(u)).collect();
        for (at, &u) in movable.iter().enumerate() {
            for (bt, &v) in movable.iter().enumerate().skip(at + 1) {
                if *effort > EFFORT {
                    return improved;
                }
                *effort += 1;
                let (a, b) = (self.unit_node[u], self.unit_node[v]);
                let (wu, wv) = (self.units[u].work, self.units[v].work);
                if a == b || self.work[a] - wu + wv > self.most_work || self.work[b] - wv + wu > self.most_work {
                    continue;
                }
                if near[at].binary_search(&b).is_err() && near[bt].binary_search(&a).is_err() {
                    continue;
                }
                *effort += self.units[u].reads.len() + self.units[v].reads.len();
                improved |= self.try_changes(&[(u, b), (v, a)]);
            }
        }
        improved
    }

    /// Makes `changes` (unit, node) and keeps them if fewer bytes are copied.
    fn try_changes(&mut self, changes: &[(usize, usize)]) -> bool {
        let touched: Vec<usize> = changes.iter().flat_map(|&(u, _)| self.touched(u)).collect();
        let before = self.copied(touched.iter().copied());
        let undo: Vec<(usize, usize)> = changes.iter().map(|&(u, _)| (u, self.unit_node[u])).collect();
        changes.iter().for_each(|&(u, to)| self.put(u, to));
        if self.copied(touched.iter().copied()) < before {
            return true;
        }
        undo.iter().rev().for_each(|&(u, to)| self.put(u, to));
        false
    }

    fn write_back(&self, placement: &mut Placement) {
        for (unit, &node) in self.units.iter().zip(&self.unit_node) {
            unit.fragments.iter().for_each(|&k| placement.fragment_node[k] = node);
            if let Some(t) = unit.given {
                placement.given_node.insert(t, node);
            }
        }
    }
}

/// The units of fragments: each tree of `placement`, and each fragment in none.
fn fragment_units(graph: &TaskGraph, cuts: &[FragmentCut], placement: &Placement, block_of: &HashMap<TaskId, usize>) -> Vec<Unit> {
    let in_tree: HashSet<usize> = placement.trees.iter().flatten().copied().collect();
    let alone = (0..cuts.len()).filter(|k| !in_tree.contains(k)).map(|k| vec![k]);
    placement
        .trees
        .iter()
        .cloned()
        .chain(alone)
        .map(|fragments| {
            let mut reads: HashMap<usize, usize> = HashMap::default();
            for &i in fragments.iter().flat_map(|&k| cuts[k].inputs.iter()) {
                *reads.entry(block_of[&i]).or_default() += 1;
            }
            let makes = fragments.iter().flat_map(|&k| cuts[k].outputs.iter()).filter_map(|t| block_of.get(t).copied()).collect();
            let work = fragments.iter().flat_map(|&k| cuts[k].tasks.iter()).map(|&t| graph.tasks[t].nbytes()).sum();
            let mut reads: Vec<(usize, usize)> = reads.into_iter().collect();
            reads.sort_unstable();
            let pinned = fragments.iter().any(|&k| placement.tiled.get(k) == Some(&true));
            Unit { fragments, given: None, reads, makes, work, pinned }
        })
        .collect()
}

fn add_readers(readers: &mut Vec<(usize, usize)>, node: usize, count: isize) {
    match readers.iter().position(|r| r.0 == node) {
        Some(k) => {
            let left = readers[k].1 as isize + count;
            if left == 0 {
                readers.swap_remove(k);
            } else {
                readers[k].1 = left as usize;
            }
        }
        None => readers.push((node, count as usize)),
    }
}
