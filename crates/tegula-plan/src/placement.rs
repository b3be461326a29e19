//! Where each fragment of a plan runs on a cluster of nodes, and what that placement costs.
//!
//! The whole plan is known before anything runs, so placement is planned, not guessed per
//! task. The blocks of matrices big enough go where ScaLAPACK's 2D block-cyclic layout puts
//! them (`tiles`), with the fragments making them; other blocks the caller gives
//! (`cut_given_loads`) are dealt block-cyclically over the nodes. The other fragments are
//! placed in order, each on the node that keeps the cluster's loads lowest — the sum of the
//! largest per-node bytes held, received and sent (NumS's LSHS objective), a read on the
//! node that holds a block costing nothing — ties going to the node that moves fewest bytes;
//! `refine` then moves or trades those between nodes while that copies fewer bytes, no node
//! taking more work than the busiest had. `simulate` replays a placement: the bytes moved between
//! nodes (a block is copied to a node once, however many of its fragments read it) and each
//! node's peak of blocks held, the figures an executor's measurements are checked against.
//! `place_block_cyclic` is the baseline: NumS's default block-cyclic layout, blind to where
//! inputs are, which the simulator compares `place` with (`bench/scaleout.py`).

use crate::fragments::{is_given_load, FragmentCut};
use crate::graph::{BlockGrid, TaskGraph, TaskId};
use crate::memory::added_bytes;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use serde::Serialize;
use tegula_core::{KernelOp, Result, TaskOp, TegulaError};

/// Where things run: a node for each fragment, and for each given block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    /// The number of nodes.
    pub nodes: usize,
    /// The node of each fragment, by the fragment's index.
    pub fragment_node: Vec<usize>,
    /// The node that holds each block the caller gives, by its load task.
    pub given_node: HashMap<TaskId, usize>,
    /// The subtrees of fragments placed whole on one node, and the ranges of a reduction's
    /// units (their fragments, in plan order, a tree's head last), which
    /// `merge::merge_trees` makes one fragment each.
    pub trees: Vec<Vec<usize>>,
    /// Whether each fragment was put on the tile of a matrix block it makes (`tiles`), where
    /// refining leaves it: the tiles keep every node's share of the bytes even (empty once
    /// fragments are merged).
    pub tiled: Vec<bool>,
}

/// What one node does under a placement.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct NodeLoad {
    /// The number of fragments it runs.
    pub fragments: usize,
    /// Bytes of the blocks made on it (and given to it).
    pub bytes_made: usize,
    /// Bytes copied to it from other nodes.
    pub bytes_in: usize,
    /// Bytes copied from it to other nodes.
    pub bytes_out: usize,
    /// The most bytes of blocks it holds at once, running fragments in plan order.
    pub peak_bytes: usize,
}

/// A placement replayed: the bytes moved between nodes, and each node's load.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Simulation {
    /// Bytes copied from one node to another.
    pub bytes_between_nodes: usize,
    /// Bytes the caller gives the nodes (its arrays' blocks).
    pub bytes_given: usize,
    /// Bytes of the results, returned to the caller.
    pub bytes_returned: usize,
    /// The load of each node.
    pub nodes: Vec<NodeLoad>,
}

/// The bytes fragment `cut` needs at once where it runs: the largest projected need of one
/// of its tasks (its inputs, result and scratch) — a fragment runs within its budget as a
/// whole plan does, spilling what it holds beyond.
pub fn fragment_need(graph: &TaskGraph, cut: &FragmentCut) -> usize {
    cut.tasks
        .iter()
        .map(|&t| {
            let task = &graph.tasks[t];
            let mut inputs = task.inputs.clone();
            inputs.sort_unstable();
            inputs.dedup();
            inputs.iter().map(|&i| graph.tasks[i].nbytes()).sum::<usize>() + added_bytes(task)
        })
        .max()
        .unwrap_or(0)
}

/// Refuses a plan one of whose fragments cannot run within a node's `memory` (`needs`: each
/// fragment's `fragment_need`), before anything runs.
pub fn check_nodes_fit(graph: &TaskGraph, cuts: &[FragmentCut], needs: &[usize], memory: usize) -> Result<()> {
    let worst = needs.iter().copied().zip(cuts).max_by_key(|(need, _)| *need);
    match worst {
        Some((need, cut)) if need > memory => {
            let root = cut.tasks.last().map_or(0, |&t| graph.tasks[t].node);
            Err(TegulaError::Memory(format!(
                "one fragment (of the operation of node {root}) needs {} at once but a node has {}; \
                 use smaller chunks or nodes with more memory",
                crate::memory::human_bytes(need),
                crate::memory::human_bytes(memory)
            )))
        }
        _ => Ok(()),
    }
}

/// Refuses a placement under which a node would hold more than `memory` at once (its
/// simulated peak: the blocks it keeps for later readers or returns, and the fragment it
/// runs), before anything runs.
pub fn check_peaks_fit(simulation: &Simulation, memory: usize) -> Result<()> {
    let worst = simulation.nodes.iter().enumerate().max_by_key(|(_, load)| load.peak_bytes);
    match worst {
        Some((node, load)) if load.peak_bytes > memory => Err(TegulaError::Memory(format!(
            "placed on {} nodes, node {node} would hold {} at once but a node has {}; \
             use more nodes, nodes with more memory or smaller chunks",
            simulation.nodes.len(),
            crate::memory::human_bytes(load.peak_bytes),
            crate::memory::human_bytes(memory)
        ))),
        _ => Ok(()),
    }
}

/// Places `cuts` (in plan order) on `nodes` nodes.
pub fn place(graph: &TaskGraph, cuts: &[FragmentCut], nodes: usize) -> Placement {
    let nodes = nodes.max(1);
    let tile = tiles(graph, nodes);
    let mut given_node = block_cyclic(graph, cuts, nodes);
    given_node.iter_mut().filter(|(&t, _)| tile[t] != usize::MAX).for_each(|(&t, n)| *n = tile[t]);
    let parent = parents(graph, cuts);
    let fragment_tile = fed_tiles(graph, cuts, &parent, fragment_tiles(cuts, &tile));
    let mut state = Cluster::new(nodes);
    for (&t, &n) in &given_node {
        state.hold(t, n, graph.tasks[t].nbytes());
    }
    let group = subtrees(graph, cuts, &parent, nodes);
    let members = tree_members(&group);
    let mut group_node: HashMap<usize, Option<usize>> = HashMap::default();
    let fragment_node: Vec<usize> = (0..cuts.len())
        .map(|k| {
            // A fragment alone in its group runs on its tile (a step of a factorisation by
            // tiles: where ScaLAPACK's layout puts the tile it makes); else a step of a
            // factorisation runs where the block it updates is.
            let alone = group[k].is_none_or(|g| members[&g].len() == 1);
            let owner = alone.then(|| fragment_tile[k].or_else(|| state.owner(graph, &cuts[k]))).flatten();
            // A tree runs on its head's tile, a fragment alone on its own.
            let whole = || {
                let Some(g) = group[k] else { return fragment_tile[k] };
                let head = members[&g].last().copied().unwrap_or(k);
                *group_node.entry(g).or_insert_with(|| fragment_tile[head].or_else(|| state.whole_node(graph, cuts, &members[&g])))
            };
            let node = owner.or_else(whole).unwrap_or_else(|| state.best_node(graph, &cuts[k]));
            state.run(graph, &cuts[k], node);
            node
        })
        .collect();
    let mut trees: Vec<Vec<usize>> = members.into_iter().filter(|(g, m)| m.len() > 1 && group_node[g].is_some()).map(|(_, m)| m).collect();
    trees.sort_unstable_by_key(|m| m.last().copied());
    let given_node = given_where_first_read(cuts, &fragment_node, given_node);
    let tiled = fragment_node.iter().zip(&fragment_tile).map(|(&n, &t)| t == Some(n)).collect();
    Placement { nodes, fragment_node, given_node, trees, tiled }
}

/// `given_node` with each given block moved to the node of the first fragment reading it:
/// the caller sends a block to any node at the same cost, and fragments were placed knowing
/// where blocks were dealt, so a block moves only where its first reader did not follow it
/// (a column of tiles dealt over a grid of nodes, gathered on one of them).
fn given_where_first_read(cuts: &[FragmentCut], fragment_node: &[usize], mut given_node: HashMap<TaskId, usize>) -> HashMap<TaskId, usize> {
    // From the last reader back, so the first one's node is written last.
    for (cut, &node) in cuts.iter().zip(fragment_node).rev() {
        for i in &cut.inputs {
            if let Some(at) = given_node.get_mut(i) {
                *at = node;
            }
        }
    }
    given_node
}

/// How fragments are placed: tegula's own placement (`place`), or the block-cyclic baseline
/// it is judged against (`place_block_cyclic`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Placer {
    /// tegula's own placement, which keeps the cluster's loads lowest (`place`).
    #[default]
    Tegula,
    /// NumS's block-cyclic layout, blind to where inputs are (`place_block_cyclic`).
    BlockCyclic,
}

impl Placer {
    /// Every placer.
    pub const ALL: [Placer; 2] = [Placer::Tegula, Placer::BlockCyclic];

    /// The placer's name (`"tegula"`, `"block-cyclic"`).
    pub fn name(self) -> &'static str {
        match self {
            Placer::Tegula => "tegula",
            Placer::BlockCyclic => "block-cyclic",
        }
    }

    /// The placer called `name`, if there is one.
    pub fn from_name(name: &str) -> Option<Placer> {
        Placer::ALL.into_iter().find(|p| p.name() == name)
    }

    /// Places the fragments `cuts` of `graph` on `nodes` nodes.
    pub fn place(self, graph: &TaskGraph, cuts: &[FragmentCut], nodes: usize) -> Placement {
        match self {
            Placer::Tegula => place(graph, cuts, nodes),
            Placer::BlockCyclic => place_block_cyclic(graph, cuts, nodes),
        }
    }
}

/// The baseline `place` is judged against: NumS's default layout, a 1×N grid of nodes over
/// each array's row-major blocks, blind to where a fragment's inputs are. Given blocks are
/// dealt as `place` deals them; the fragments ending in the same expression node (their last
/// task's) are dealt round the nodes in plan order, each expression starting on node 0.
/// Fragments are dealt, not tasks: a fragment holding a whole sum tree would otherwise skip
/// as many ranks as its tree has tasks, and a period sharing a factor with N piles them up.
pub fn place_block_cyclic(graph: &TaskGraph, cuts: &[FragmentCut], nodes: usize) -> Placement {
    let nodes = nodes.max(1);
    let mut dealt: HashMap<Option<u64>, usize> = HashMap::default();
    let fragment_node = cuts
        .iter()
        .map(|cut| {
            let rank = dealt.entry(cut.tasks.last().map(|&t| graph.tasks[t].node)).or_default();
            *rank += 1;
            (*rank - 1) % nodes
        })
        .collect();
    Placement { nodes, fragment_node, given_node: block_cyclic(graph, cuts, nodes), trees: vec![], tiled: vec![] }
}

/// Which fragments run together, on one node: a fragment whose blocks all go to one other
/// fragment (and none to the caller) is that one's child, and the largest subtrees of no more
/// than a fair share of the work (a `2 × nodes`th of all of it) each run whole where they
/// are placed — a contraction's partial products and a reduction's local partials never leave
/// their node — unless placing them one by one moves far fewer bytes (`Cluster::whole_node`),
/// while the fragments above them are placed one by one. A reduction beyond a share runs its
/// units in contiguous ranges instead, one per node (`ranges`).
fn subtrees(graph: &TaskGraph, cuts: &[FragmentCut], parent: &[Option<usize>], nodes: usize) -> Vec<Option<usize>> {
    let own: Vec<usize> = cuts.iter().map(|c| c.tasks.iter().map(|&t| graph.tasks[t].nbytes()).sum::<usize>().max(1)).collect();
    let mut work = own.clone();
    for k in 0..cuts.len() {
        if let Some(p) = parent[k] {
            work[p] += work[k];
        }
    }
    let share = own.iter().sum::<usize>() / (2 * nodes);
    let ready = ready_depths(cuts, parent);
    let mut group: Vec<Option<usize>> = vec![None; cuts.len()];
    // The latest of its members' `ready` depths, for each group's head.
    let mut latest: HashMap<usize, usize> = HashMap::default();
    for k in (0..cuts.len()).rev() {
        // A parent outside every group holds more than a share: `k` may head a group. A
        // fragment that could start before a member of its parent's group joins no group
        // with it: run as one, its work would wait for that member's inputs (the chain of
        // updates of a factorisation's column, each waiting for another panel).
        let joined = parent[k].and_then(|p| group[p]).filter(|g| ready[k] >= latest[g]);
        group[k] = joined.or_else(|| (work[k] <= share).then_some(k));
        if let Some(g) = group[k] {
            let l = latest.entry(g).or_default();
            *l = (*l).max(ready[k]);
        }
    }
    crate::ranges::join_ranges(graph, cuts, parent, &work, share, nodes, &mut group);
    group
}

/// For each fragment, how deep in the plan the blocks it reads from outside its own children
/// are made: the longest chain of fragments behind any of them (0: blocks the caller gives,
/// or none). Fragments of equal depth can run side by side.
fn ready_depths(cuts: &[FragmentCut], parent: &[Option<usize>]) -> Vec<usize> {
    let mut made_by: HashMap<TaskId, usize> = HashMap::default();
    let mut depth = vec![0; cuts.len()];
    let mut ready = vec![0; cuts.len()];
    for (k, cut) in cuts.iter().enumerate() {
        for i in &cut.inputs {
            let Some(&from) = made_by.get(i) else { continue };
            depth[k] = depth[k].max(depth[from] + 1);
            if parent[from] != Some(k) {
                ready[k] = ready[k].max(depth[from] + 1);
            }
        }
        made_by.extend(cut.outputs.iter().map(|&t| (t, k)));
    }
    ready
}

/// The fragment reading all of each fragment's blocks, when there is exactly one and the
/// caller takes none of them.
fn parents(graph: &TaskGraph, cuts: &[FragmentCut]) -> Vec<Option<usize>> {
    let mut made_by: HashMap<TaskId, usize> = HashMap::default();
    for (k, cut) in cuts.iter().enumerate() {
        made_by.extend(cut.outputs.iter().map(|&t| (t, k)));
    }
    let mut readers: Vec<Vec<usize>> = vec![Vec::new(); cuts.len()];
    for (k, cut) in cuts.iter().enumerate() {
        for i in &cut.inputs {
            if let Some(&from) = made_by.get(i) {
                if !readers[from].contains(&k) {
                    readers[from].push(k);
                }
            }
        }
    }
    let returned: HashSet<TaskId> = graph.outputs.iter().flat_map(|o| o.blocks.iter().copied()).collect();
    (0..cuts.len())
        .map(|k| match readers[k][..] {
            [only] if !cuts[k].outputs.iter().any(|t| returned.contains(t)) => Some(only),
            _ => None,
        })
        .collect()
}

fn tree_members(group: &[Option<usize>]) -> HashMap<usize, Vec<usize>> {
    let mut members: HashMap<usize, Vec<usize>> = HashMap::default();
    for (k, g) in group.iter().enumerate() {
        if let Some(g) = g {
            members.entry(*g).or_default().push(k);
        }
    }
    members
}

/// A tree's fragments as one: the blocks it reads from outside, and every block it makes.
fn tree_cut(cuts: &[FragmentCut], members: &[usize]) -> FragmentCut {
    let made: HashSet<TaskId> = members.iter().flat_map(|&k| cuts[k].outputs.iter().copied()).collect();
    let mut inputs: Vec<TaskId> = members.iter().flat_map(|&k| cuts[k].inputs.iter().copied()).filter(|i| !made.contains(i)).collect();
    inputs.sort_unstable();
    inputs.dedup();
    FragmentCut { tasks: vec![], inputs, outputs: made.into_iter().collect() }
}

/// The given blocks (those fragments read, and those returned as they are) dealt round the
/// nodes in plan order — row-major within an array, each array starting where the last
/// one ended, so small arrays do not all start on node 0.
fn block_cyclic(graph: &TaskGraph, cuts: &[FragmentCut], nodes: usize) -> HashMap<TaskId, usize> {
    let read = cuts.iter().flat_map(|c| c.inputs.iter().copied());
    let returned = graph.outputs.iter().flat_map(|o| o.blocks.iter().copied());
    let mut given: Vec<TaskId> = read.chain(returned).filter(|&t| is_given_load(&graph.tasks[t])).collect();
    given.sort_unstable();
    given.dedup();
    given.into_iter().enumerate().map(|(k, t)| (t, k % nodes)).collect()
}

/// The node of each block of the plan's matrices laid out as ScaLAPACK lays a matrix out, over
/// the squarest grid of `pr` × `pc` nodes: block `(i, j)` on grid row `i mod pr` and column
/// `j mod pc` (`usize::MAX`: no such node). Every matrix is laid out alike, so a product's
/// output block and the operand blocks it reads along its row and its column lie on one row
/// and one column of nodes (SUMMA), and a step of a factorisation or a product reads along a
/// row or a column of blocks from `pc` or `pr` nodes, not from all of them. Nodes that make a
/// grid of one row, and matrices with fewer rows or columns of blocks than the grid, are left
/// out: placement weighs their blocks one by one.
fn tiles(graph: &TaskGraph, nodes: usize) -> Vec<usize> {
    let mut node = vec![usize::MAX; graph.tasks.len()];
    let pr = (1..=nodes.isqrt()).rev().find(|&d| nodes.is_multiple_of(d)).unwrap_or(1);
    let pc = nodes / pr;
    if pr == 1 {
        return node;
    }
    for grid in graph.grids.iter().filter(|g| g.shape[0] >= pr && g.shape[1] >= pc) {
        let mut cells: HashMap<TaskId, usize> = grid.blocks.iter().map(|&(t, [i, j])| (t, (i % pr) * pc + j % pc)).collect();
        share_mirrored_tiles(graph, grid, &mut cells);
        for (t, n) in cells {
            if node[t] == usize::MAX {
                node[t] = n;
            }
        }
    }
    node
}

/// A symmetric result's blocks below the diagonal are transposes of those above it
/// (`a @ a.T`): each such pair goes on one node, where the transpose copies nothing, the
/// pairs whose blocks' tiles are the same two nodes taking each of them in turn, so that the
/// half of the blocks computed is spread over the whole grid of nodes, not over the nodes
/// above its diagonal. Either node reads the rows of `a` a block needs along its own row and
/// column of nodes.
fn share_mirrored_tiles(graph: &TaskGraph, grid: &BlockGrid, cells: &mut HashMap<TaskId, usize>) {
    let at: HashMap<[usize; 2], TaskId> = grid.blocks.iter().map(|&(t, cell)| (cell, t)).collect();
    let mut taken: HashMap<(usize, usize), usize> = HashMap::default();
    for &(lower, [i, j]) in grid.blocks.iter().filter(|b| b.1[0] > b.1[1]) {
        let task = &graph.tasks[lower];
        let Some(&upper) = at.get(&[j, i]) else { continue };
        if !matches!(task.op, TaskOp::Kernel(KernelOp::Transpose { .. })) || task.inputs[..] != [upper] {
            continue;
        }
        let pair = (cells[&upper].min(cells[&lower]), cells[&upper].max(cells[&lower]));
        let turn = taken.entry(pair).or_default();
        *turn += 1;
        let node = if *turn % 2 == 1 { pair.0 } else { pair.1 };
        cells.insert(upper, node);
        cells.insert(lower, node);
    }
}

/// For each fragment, the tile (`tiles`) of the first block it makes that has one.
fn fragment_tiles(cuts: &[FragmentCut], tile: &[usize]) -> Vec<Option<usize>> {
    cuts.iter().map(|c| c.outputs.iter().map(|&t| tile[t]).find(|&n| n != usize::MAX)).collect()
}

/// `tiles` (`fragment_tiles`), with each fragment that has none and whose blocks all go to a
/// step of a factorisation by tiles, or to a fragment that feeds one (`parent`: the one
/// fragment reading a fragment's blocks), given that step's tile: the operations making the
/// matrix a factorisation reads (its draws, `(x + x^T) / 2`) run where its tiles are, so only
/// the factors move, as in ScaLAPACK.
fn fed_tiles(graph: &TaskGraph, cuts: &[FragmentCut], parent: &[Option<usize>], mut tiles: Vec<Option<usize>>) -> Vec<Option<usize>> {
    let step = |cut: &FragmentCut| {
        cut.tasks.iter().any(|&t| matches!(graph.tasks[t].op, TaskOp::Kernel(KernelOp::Linalg { op }) if op.tile_at().is_some()))
    };
    let mut feeds_step: Vec<bool> = cuts.iter().zip(&tiles).map(|(c, t)| t.is_some() && step(c)).collect();
    // Readers come after the fragments they read, so a chain takes its step's tile.
    for k in (0..cuts.len()).rev() {
        if let Some(p) = parent[k].filter(|&p| tiles[k].is_none() && feeds_step[p]) {
            tiles[k] = tiles[p];
            feeds_step[k] = true;
        }
    }
    tiles
}

/// The loads a placement puts on each node, kept while fragments are placed.
struct Cluster {
    held: Vec<usize>,
    bytes_in: Vec<usize>,
    bytes_out: Vec<usize>,
    /// The largest of `held`, `bytes_in` and `bytes_out`, kept as they grow.
    most: (usize, usize, usize),
    /// Where each block has a copy (its first entry: where it was made).
    copies: HashMap<TaskId, Vec<usize>>,
}

impl Cluster {
    fn new(nodes: usize) -> Cluster {
        Cluster { held: vec![0; nodes], bytes_in: vec![0; nodes], bytes_out: vec![0; nodes], most: (0, 0, 0), copies: HashMap::default() }
    }

    fn hold(&mut self, task: TaskId, node: usize, bytes: usize) {
        self.held[node] += bytes;
        self.most.0 = self.most.0.max(self.held[node]);
        self.copies.insert(task, vec![node]);
    }

    /// The inputs of `cut` that `node` lacks, with their sizes and where they come from.
    fn missing(&self, graph: &TaskGraph, cut: &FragmentCut, node: usize) -> Vec<(TaskId, usize, usize)> {
        cut.inputs
            .iter()
            .filter_map(|&i| {
                let copies = self.copies.get(&i)?;
                (!copies.contains(&node)).then(|| (i, graph.tasks[i].nbytes(), copies[0]))
            })
            .collect()
    }

    /// Where the block a step of a factorisation in `cut` updates lies (`LinalgOp::updated_input`,
    /// through the views of it the fragment takes): the step runs there.
    fn owner(&self, graph: &TaskGraph, cut: &FragmentCut) -> Option<usize> {
        cut.tasks.iter().find_map(|&t| {
            let TaskOp::Kernel(KernelOp::Linalg { op }) = graph.tasks[t].op else { return None };
            let mut block = *graph.tasks[t].inputs.get(op.updated_input()?)?;
            while cut.tasks.contains(&block) {
                let [view] = graph.tasks[block].inputs[..] else { return None };
                block = view;
            }
            Some(*self.copies.get(&block)?.first()?)
        })
    }

    /// The node minimising the sum of the largest held, received and sent bytes once `cut`
    /// runs there; then the fewest bytes moved; then the least held. Every node that holds
    /// none of `cut`'s inputs would receive all of them from the same senders, so those are
    /// told apart by their own loads alone: only the holders are costed, each by the inputs it
    /// has, which keeps a choice among a thousand nodes linear in the nodes plus the inputs'
    /// copies.
    fn best_node(&self, graph: &TaskGraph, cut: &FragmentCut) -> usize {
        let made: usize = cut.outputs.iter().map(|&t| graph.tasks[t].nbytes()).sum();
        let (max_held, max_in, max_out) = self.most;
        let cost = |node: usize, moved: usize, sent: usize| {
            let held = max_held.max(self.held[node] + made + moved);
            let received = max_in.max(self.bytes_in[node] + moved);
            (held + received + sent + moved, moved, self.held[node], node)
        };
        let all = self.missing(graph, cut, usize::MAX); // as a node holding none of them
        let moved_all: usize = all.iter().map(|m| m.1).sum();
        // By sender, what a node holding none of the inputs takes from it; then each sender's
        // bytes sent once it has, the most first.
        let mut from_all: HashMap<usize, usize> = HashMap::default();
        for &(_, bytes, from) in &all {
            *from_all.entry(from).or_default() += bytes;
        }
        let mut sending: Vec<(usize, usize)> = from_all.iter().map(|(&from, &bytes)| (self.bytes_out[from] + bytes, from)).collect();
        sending.sort_unstable_by(|a, b| b.cmp(a));
        let sent_all = sending.first().map_or(max_out, |s| s.0.max(max_out));
        // Each holder with the inputs it has, as (node, sender, bytes): found by walking each
        // input's copies once, as a block every node reads has a thousand of them.
        let mut holders: Vec<(usize, usize, usize)> =
            all.iter().flat_map(|&(i, bytes, from)| self.copies[&i].iter().map(move |&n| (n, from, bytes))).collect();
        holders.sort_unstable();
        let held_some = holders.chunk_by(|a, b| a.0 == b.0).map(|has| {
            // What this holder takes off each sender, by sender; the busiest sender it takes
            // nothing off sends as much as to any node.
            let mut sent = max_out;
            let mut spared: Vec<usize> = Vec::new();
            for same in has.chunk_by(|a, b| a.1 == b.1) {
                let from = same[0].1;
                sent = sent.max(self.bytes_out[from] + from_all[&from] - same.iter().map(|h| h.2).sum::<usize>());
                spared.push(from);
            }
            if let Some(&(after, _)) = sending.iter().find(|(_, from)| spared.binary_search(from).is_err()) {
                sent = sent.max(after);
            }
            cost(has[0].0, moved_all - has.iter().map(|h| h.2).sum::<usize>(), sent)
        });
        let nodes_holding: Vec<usize> = holders.chunk_by(|a, b| a.0 == b.0).map(|h| h[0].0).collect();
        let mut holding = nodes_holding.iter().peekable();
        let others = (0..self.held.len()).filter(|&n| holding.next_if_eq(&&n).is_none()).map(|n| cost(n, moved_all, sent_all));
        others.chain(held_some).min().map_or(0, |c| c.3)
    }

    /// The node to run a subtree's fragments (`members`) on together, or None when placing
    /// them one by one moves less than half the bytes: when what they read lies on several nodes and
    /// outweighs the blocks passing inside the tree (the partial products of a long
    /// contraction over blocks dealt round the nodes).
    fn whole_node(&self, graph: &TaskGraph, cuts: &[FragmentCut], members: &[usize]) -> Option<usize> {
        let tree = tree_cut(cuts, members);
        let node = self.best_node(graph, &tree);
        let moved = |state: &Cluster, cut: &FragmentCut, node: usize| state.missing(graph, cut, node).iter().map(|m| m.1).sum::<usize>();
        let whole = moved(self, &tree, node);
        // A trial of the one-by-one placement, on the loads and the tree's inputs' copies.
        let copies = tree.inputs.iter().filter_map(|i| Some((*i, self.copies.get(i)?.clone()))).collect();
        let mut trial =
            Cluster { held: self.held.clone(), bytes_in: self.bytes_in.clone(), bytes_out: self.bytes_out.clone(), most: self.most, copies };
        let mut one_by_one = 0;
        for &k in members {
            let at = trial.best_node(graph, &cuts[k]);
            one_by_one += moved(&trial, &cuts[k], at);
            trial.run(graph, &cuts[k], at);
        }
        // Only a clear win splits a tree: a whole tree's copies are often read again by the
        // trees placed after it, which this trial does not see.
        (whole <= 2 * one_by_one).then_some(node)
    }

    /// Records `cut` running on `node`: its missing inputs copied there, its outputs made.
    fn run(&mut self, graph: &TaskGraph, cut: &FragmentCut, node: usize) {
        for (i, bytes, from) in self.missing(graph, cut, node) {
            self.bytes_in[node] += bytes;
            self.bytes_out[from] += bytes;
            self.held[node] += bytes;
            self.most = (self.most.0.max(self.held[node]), self.most.1.max(self.bytes_in[node]), self.most.2.max(self.bytes_out[from]));
            if let Some(copies) = self.copies.get_mut(&i) {
                copies.push(node);
            }
        }
        for &t in &cut.outputs {
            self.hold(t, node, graph.tasks[t].nbytes());
        }
    }
}

/// Replays `placement` (`needs`: each fragment's `fragment_need`): fragments run one after
/// another in plan order; a block is copied to
/// a node the first time a fragment there reads it, and every copy is freed once the last
/// fragment reading it has run (a result's first copy stays until the end, when it goes to
/// the caller).
pub fn simulate(graph: &TaskGraph, cuts: &[FragmentCut], needs: &[usize], placement: &Placement) -> Simulation {
    let nodes = placement.nodes;
    let mut loads = vec![NodeLoad::default(); nodes];
    let mut held = vec![0usize; nodes];
    // By task: the last fragment reading it, whether it is returned, where it has copies.
    let mut last_reader = vec![usize::MAX; graph.tasks.len()];
    for (k, cut) in cuts.iter().enumerate() {
        for &i in &cut.inputs {
            last_reader[i] = k;
        }
    }
    let returned = returned_blocks(graph);
    let mut copies: Vec<Vec<usize>> = vec![Vec::new(); graph.tasks.len()];
    let mut sim = Simulation::default();
    let made = |t: TaskId, node: usize, held: &mut Vec<usize>, loads: &mut Vec<NodeLoad>, copies: &mut Vec<Vec<usize>>| {
        let bytes = graph.tasks[t].nbytes();
        held[node] += bytes;
        loads[node].bytes_made += bytes;
        copies[t] = vec![node];
    };
    let mut given: Vec<(&TaskId, &usize)> = placement.given_node.iter().collect();
    given.sort_unstable();
    for (&t, &node) in given {
        made(t, node, &mut held, &mut loads, &mut copies);
        sim.bytes_given += graph.tasks[t].nbytes();
        loads[node].peak_bytes = held[node];
    }
    for (k, cut) in cuts.iter().enumerate() {
        let node = placement.fragment_node[k];
        loads[node].fragments += 1;
        for &i in &cut.inputs {
            let at = &mut copies[i];
            if !at.is_empty() && !at.contains(&node) {
                let bytes = graph.tasks[i].nbytes();
                sim.bytes_between_nodes += bytes;
                loads[node].bytes_in += bytes;
                loads[at[0]].bytes_out += bytes;
                held[node] += bytes;
                at.push(node);
            }
        }
        for &t in &cut.outputs {
            made(t, node, &mut held, &mut loads, &mut copies);
        }
        // Only `node` gains blocks while a fragment runs; frees after it lower what nodes hold.
        loads[node].peak_bytes = loads[node].peak_bytes.max(held[node] + needs[k]);
        for &i in &cut.inputs {
            if last_reader[i] == k {
                // A result stays where it was made until it goes to the caller; copies of it
                // elsewhere are let go of as any other block's.
                let kept = usize::from(returned[i]).min(copies[i].len());
                for &at in &copies[i][kept..] {
                    held[at] -= graph.tasks[i].nbytes();
                }
            }
        }
    }
    sim.bytes_returned = (0..graph.tasks.len()).filter(|&t| returned[t]).map(|t| graph.tasks[t].nbytes()).sum();
    sim.nodes = loads;
    sim
}

/// Whether each task's block is returned to the caller (one of the plan's outputs).
pub fn returned_blocks(graph: &TaskGraph) -> Vec<bool> {
    let mut returned = vec![false; graph.tasks.len()];
    graph.outputs.iter().flat_map(|o| &o.blocks).for_each(|&t| returned[t] = true);
    returned
}

/// Nodes beyond this many are summed up (largest and mean per column), not listed.
const NODES_LISTED: usize = 16;

impl std::fmt::Display for Simulation {
    /// A table: per node its fragments, the bytes made there, received, sent and its peak.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use crate::memory::human_bytes as h;
        writeln!(
            f,
            "on {} nodes: {} moved between nodes; {} given by the caller, {} returned",
            self.nodes.len(),
            h(self.bytes_between_nodes),
            h(self.bytes_given),
            h(self.bytes_returned)
        )?;
        writeln!(f, "{:>6} {:>9} {:>11} {:>11} {:>11} {:>11}", "node", "fragments", "made", "received", "sent", "peak")?;
        let columns = |l: &NodeLoad| [l.fragments, l.bytes_made, l.bytes_in, l.bytes_out, l.peak_bytes];
        let mut row = |name: String, c: [usize; 5]| {
            writeln!(f, "{name:>6} {:>9} {:>11} {:>11} {:>11} {:>11}", c[0], h(c[1]), h(c[2]), h(c[3]), h(c[4]))
        };
        if self.nodes.len() <= NODES_LISTED {
            return self.nodes.iter().enumerate().try_for_each(|(n, l)| row(n.to_string(), columns(l)));
        }
        let all: Vec<[usize; 5]> = self.nodes.iter().map(columns).collect();
        let largest = std::array::from_fn(|k| all.iter().map(|c| c[k]).max().unwrap_or(0));
        let mean = std::array::from_fn(|k| all.iter().map(|c| c[k]).sum::<usize>() / all.len());
        row("max".into(), largest)?;
        row("mean".into(), mean)
    }
}
