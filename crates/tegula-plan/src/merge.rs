//! Subtrees placed whole on one node made one fragment each. A contraction's partial products
//! and their sum, or a reduction's local partials, are separate fragments when the plan is cut
//! (each is work that may run in parallel); once placement has put a whole subtree on one
//! node, shipping it as one fragment costs an engine one task instead of one per member, and
//! the blocks passing inside it never enter the engine's object store.

use crate::fragments::FragmentCut;
use crate::graph::TaskId;
use crate::placement::Placement;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// `cuts` with each of `placement.trees` made one fragment, in the place of its last fragment
/// (a tree's head, which reads the others' blocks, or the last of a reduction's range), and
/// the placement of the result: every fragment on the node it was placed on, no trees left
/// to merge.
pub fn merge_trees(cuts: Vec<FragmentCut>, placement: Placement) -> (Vec<FragmentCut>, Placement) {
    let Placement { nodes, fragment_node, given_node, trees, .. } = placement;
    let in_tree: HashSet<usize> = trees.iter().flatten().copied().collect();
    let tree_at: HashMap<usize, &Vec<usize>> = trees.iter().filter_map(|t| Some((*t.last()?, t))).collect();
    let mut slots: Vec<Option<FragmentCut>> = cuts.into_iter().map(Some).collect();
    let mut merged = Vec::with_capacity(slots.len());
    let mut node = Vec::with_capacity(slots.len());
    for k in 0..slots.len() {
        let cut = match tree_at.get(&k) {
            Some(tree) => Some(one_fragment(tree.iter().filter_map(|&m| slots[m].take()).collect())),
            None if in_tree.contains(&k) => None,
            None => slots[k].take(),
        };
        if let Some(cut) = cut {
            merged.push(cut);
            node.push(fragment_node[k]);
        }
    }
    (merged, Placement { nodes, fragment_node: node, given_node, trees: vec![], tiled: vec![] })
}

/// Fragments as one: every task of theirs once, in task order; the blocks they read from
/// outside it; the blocks they make that none of them reads (a tree's head's, a range's
/// partials), in order.
fn one_fragment(members: Vec<FragmentCut>) -> FragmentCut {
    let made: HashSet<TaskId> = members.iter().flat_map(|c| c.outputs.iter().copied()).collect();
    let read: HashSet<TaskId> = members.iter().flat_map(|c| c.inputs.iter().copied()).collect();
    let mut seen = HashSet::default();
    let inputs = members.iter().flat_map(|c| c.inputs.iter().copied()).filter(|i| !made.contains(i) && seen.insert(*i)).collect();
    let mut tasks: Vec<TaskId> = members.iter().flat_map(|c| c.tasks.iter().copied()).collect();
    tasks.sort_unstable();
    tasks.dedup();
    let outputs = members.iter().flat_map(|c| c.outputs.iter().copied()).filter(|o| !read.contains(o)).collect();
    FragmentCut { tasks, inputs, outputs }
}
