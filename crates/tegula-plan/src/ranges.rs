//! A reduction too big for one node, its partials run in contiguous ranges. A combine folds
//! its partials in order, so the partials of one node's range fold there and only the running
//! total moves on (`chain::chain_combines`) — if each node holds a contiguous range of them.
//! Placing them one by one deals them round the nodes, and then every partial moves.
//!
//! The units of a reduction are the largest subtrees under it of no more than a share of the
//! work (those `placement` runs whole anyway), or a partial's whole fragment where that alone
//! is beyond a share, in the order their partials are combined; they
//! are cut into ranges of at most a share each, or one per node where that takes more than
//! every node (a plan that is one reduction uses all the nodes, each of four side by side
//! half of them), the heaviest range as light as can be, as few
//! ranges as reach that (so four equal units on three nodes make two ranges of two: the same
//! time as three ranges, one move less).

use crate::fragments::FragmentCut;
use crate::graph::{TaskGraph, TaskId};
use rustc_hash::FxHashMap;
use std::collections::HashMap;
use std::ops::Range;

/// Joins the groups of `group` (each fragment's subtree placed whole, see
/// `placement::subtrees`) that head the units of each reduction into one group per range.
/// `parent`: each fragment's only reader; `work`: each fragment's subtree's work; `share`:
/// the most work a unit has.
pub(crate) fn join_ranges(graph: &TaskGraph, cuts: &[FragmentCut], parent: &[Option<usize>], work: &[usize], share: usize, nodes: usize, group: &mut [Option<usize>]) {
    let folded = folded_into_parent(graph, cuts, parent);
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); cuts.len()];
    for k in 0..cuts.len() {
        if let (true, Some(p)) = (folded[k], parent[k]) {
            children[p].push(k);
        }
    }
    let oversized = |k: usize| group[k].is_none() && work[k] > share;
    let heads: Vec<usize> = (0..cuts.len()).filter(|&k| oversized(k) && !(folded[k] && parent[k].is_some_and(oversized))).collect();
    // Every fragment's work is in the work of exactly one fragment without a parent.
    let total: usize = (0..cuts.len()).filter(|&k| parent[k].is_none()).map(|k| work[k]).sum();
    // The range each unit's group joins, applied to every fragment's group once at the end.
    let mut joined: FxHashMap<usize, Option<usize>> = FxHashMap::default();
    for head in heads {
        let mut units = Vec::new();
        collect_units(head, &children, work, share, &mut units);
        // Ranges of at most a share, as the subtrees placed whole, unless that takes more
        // than every node: a reduction beside others gets the nodes its work calls for.
        let parts = (2 * nodes * work[head]).div_ceil(total.max(1)).clamp(1, nodes);
        for range in balanced_ranges(&units.iter().map(|&u| work[u]).collect::<Vec<_>>(), parts) {
            for part in runnable(&units[range], parent) {
                let id = Some(*part.iter().max().expect("a range has units"));
                joined.extend(part.iter().map(|&u| (u, id)));
                // A unit beyond a share heads no group of its own yet.
                part.iter().for_each(|&u| group[u] = id);
            }
        }
    }
    for g in group.iter_mut() {
        if let Some(&id) = g.and_then(|head| joined.get(&head)) {
            *g = id;
        }
    }
}

/// The units of `k`'s reduction, in order: its folded children within a share or folding
/// nothing themselves, and the units of the others.
fn collect_units(k: usize, children: &[Vec<usize>], work: &[usize], share: usize, units: &mut Vec<usize>) {
    for &c in &children[k] {
        if work[c] <= share || children[c].is_empty() {
            units.push(c);
        } else {
            collect_units(c, children, work, share, units);
        }
    }
}

/// `units` as one fragment where they are all made before any of them is read (the merged
/// fragment takes its last unit's place), else one part per reader.
fn runnable(units: &[usize], parent: &[Option<usize>]) -> Vec<Vec<usize>> {
    let last = units.iter().max().copied().unwrap_or(0);
    if units.iter().all(|&u| parent[u].is_some_and(|p| p > last)) {
        return vec![units.to_vec()];
    }
    let mut parts: Vec<Vec<usize>> = Vec::new();
    for &u in units {
        match parts.last_mut() {
            Some(part) if parent[part[0]] == parent[u] => part.push(u),
            _ => parts.push(vec![u]),
        }
    }
    parts
}

/// For each fragment, whether every block it makes is a partial a combine of its parent folds.
fn folded_into_parent(graph: &TaskGraph, cuts: &[FragmentCut], parent: &[Option<usize>]) -> Vec<bool> {
    let mut folded_by: HashMap<TaskId, usize> = HashMap::new();
    for (k, cut) in cuts.iter().enumerate() {
        for &t in cut.tasks.iter().filter(|&&t| graph.tasks[t].is_combine()) {
            folded_by.extend(graph.tasks[t].inputs.iter().map(|&i| (i, k)));
        }
    }
    (0..cuts.len())
        .map(|k| parent[k].is_some_and(|p| !cuts[k].outputs.is_empty() && cuts[k].outputs.iter().all(|o| folded_by.get(o) == Some(&p))))
        .collect()
}

/// `weights` cut into at most `parts` contiguous ranges, the heaviest as light as can be, as
/// few ranges as reach that.
pub fn balanced_ranges(weights: &[usize], parts: usize) -> Vec<Range<usize>> {
    let (mut lo, mut hi) = (weights.iter().copied().max().unwrap_or(0), weights.iter().sum::<usize>());
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if filled(weights, mid).len() <= parts.max(1) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    filled(weights, lo)
}

/// `weights` cut into ranges filled in turn up to `cap` each.
fn filled(weights: &[usize], cap: usize) -> Vec<Range<usize>> {
    let mut ranges: Vec<Range<usize>> = Vec::new();
    let mut sum = 0;
    for (k, &w) in weights.iter().enumerate() {
        match ranges.last_mut() {
            Some(r) if sum + w <= cap => {
                r.end = k + 1;
                sum += w;
            }
            _ => {
                ranges.push(k..k + 1);
                sum = w;
            }
        }
    }
    ranges
}

#[cfg(test)]
mod tests {
    use super::balanced_ranges;

    #[test]
    fn equal_units_fill_as_few_ranges_as_reach_the_lightest_heaviest() {
        assert_eq!(balanced_ranges(&[1; 16], 3), vec![0..6, 6..12, 12..16]);
        assert_eq!(balanced_ranges(&[1; 4], 3), vec![0..2, 2..4]);
        assert_eq!(balanced_ranges(&[1; 2], 3), vec![0..1, 1..2]);
        assert_eq!(balanced_ranges(&[], 3), Vec::<std::ops::Range<usize>>::new());
    }

    #[test]
    fn unequal_units_balance_the_heaviest_range() {
        assert_eq!(balanced_ranges(&[5, 1, 1, 1, 1, 1], 2), vec![0..1, 1..6]);
        assert_eq!(balanced_ranges(&[1, 1, 1, 1, 1, 5], 2), vec![0..5, 5..6]);
        assert_eq!(balanced_ranges(&[3, 3, 3], 1), vec![0..3]);
    }
}
