//! A node lost while a placed plan runs, simulated: what must be made again.
//!
//! Fragments run in plan order, as `placement::simulate` replays them, and node `lost` leaves
//! once the first `at` have run. What it held is gone: the blocks it made and the copies it
//! received. Blocks another node holds stay, and so do the caller's (given again); a block
//! every node has let go of after its last reader is gone as well (a result is kept only
//! where it was made, until the caller fetches it: with a fetch batch, as the executors'
//! `Dispatch` hands results over once that many bytes of them are made, a result fetched
//! before the loss is safe with the caller). Every fragment from `at`
//! on still runs — those placed on the lost node elsewhere — and each block they or the caller
//! need that is gone is made again by the fragment that made it, which may need blocks that
//! are gone in turn (the lineage Ray and Dask rebuild).

use crate::fragments::FragmentCut;
use crate::graph::TaskGraph;
use crate::placement::{returned_blocks, Placement};
use serde::Serialize;

/// What losing one node costs.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct NodeLoss {
    /// The fragments that had run and run again.
    pub redone_fragments: usize,
    /// Their work: the bytes their tasks make.
    pub redone_work: usize,
    /// The work of every fragment placed on the lost node: its share.
    pub node_work: usize,
    /// The fragments placed on the lost node that had not run, which run elsewhere.
    pub moved_fragments: usize,
}

/// What losing node `lost` after `at` fragments of `cuts` (placed by `placement`) costs, the
/// caller fetching results in batches of `fetch_batch` bytes (`None`: at the end).
pub fn lose_node(graph: &TaskGraph, cuts: &[FragmentCut], placement: &Placement, lost: usize, at: usize, fetch_batch: Option<usize>) -> NodeLoss {
    let at = at.min(cuts.len());
    let n = graph.tasks.len();
    let work = |k: usize| cuts[k].tasks.iter().map(|&t| graph.tasks[t].nbytes()).sum::<usize>();
    let mut maker = vec![usize::MAX; n];
    let mut last_reader = vec![usize::MAX; n];
    for (k, cut) in cuts.iter().enumerate() {
        cut.outputs.iter().for_each(|&t| maker[t] = k);
        cut.inputs.iter().for_each(|&i| last_reader[i] = k);
    }
    let returned = returned_blocks(graph);
    // Whether a node that stays holds each block when `lost` leaves.
    let mut kept = vec![false; n];
    for (k, cut) in cuts[..at].iter().enumerate() {
        if placement.fragment_node[k] != lost {
            cut.outputs.iter().chain(&cut.inputs).for_each(|&t| kept[t] = true);
        }
    }
    // Past its last reader a block is let go of everywhere, but for a result where it was made.
    for t in 0..n {
        if last_reader[t] != usize::MAX && last_reader[t] < at {
            kept[t] = returned[t] && maker[t] != usize::MAX && placement.fragment_node[maker[t]] != lost;
        }
    }
    let fetched = fetched_before(graph, &cuts[..at], &returned, fetch_batch);
    let available = |t: usize| placement.given_node.contains_key(&t) || kept[t] || fetched[t] || maker[t] == usize::MAX || maker[t] >= at;
    let mut needed: Vec<usize> = cuts[at..].iter().flat_map(|c| c.inputs.iter().copied()).collect();
    needed.extend((0..n).filter(|&t| returned[t]));
    let mut redone = vec![false; cuts.len()];
    let mut loss = NodeLoss::default();
    while let Some(t) = needed.pop() {
        if available(t) || redone[maker[t]] {
            continue;
        }
        let k = maker[t];
        redone[k] = true;
        loss.redone_fragments += 1;
        loss.redone_work += work(k);
        needed.extend(cuts[k].inputs.iter().copied());
    }
    for (k, _) in placement.fragment_node.iter().enumerate().filter(|(_, &node)| node == lost) {
        loss.node_work += work(k);
        loss.moved_fragments += usize::from(k >= at);
    }
    loss
}

/// Which results the caller holds once the fragments of `ran` have run, fetching them in
/// batches of `fetch_batch` bytes as `Dispatch::ended` hands them over (a batch is fetched
/// once its bytes reach the batch's size).
fn fetched_before(graph: &TaskGraph, ran: &[FragmentCut], returned: &[bool], fetch_batch: Option<usize>) -> Vec<bool> {
    let mut fetched = vec![false; graph.tasks.len()];
    let Some(batch) = fetch_batch else { return fetched };
    let (mut unfetched, mut bytes) = (Vec::new(), 0);
    for t in ran.iter().flat_map(|c| c.outputs.iter().copied()).filter(|&t| returned[t]) {
        unfetched.push(t);
        bytes += graph.tasks[t].nbytes();
        if bytes >= batch {
            unfetched.drain(..).for_each(|t: usize| fetched[t] = true);
            bytes = 0;
        }
    }
    fetched
}
