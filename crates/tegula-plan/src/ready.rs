//! Fragments released in priority order once the fragments making their inputs have ended
//! (Kahn's algorithm with a heap): the order panels are planned in and the order a cluster's
//! dispatch starts fragments in.

use rustc_hash::FxHashMap as HashMap;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::hash::Hash;

/// Fragments waiting for the fragments that make their inputs, and those ready, least
/// priority first (ties by index).
#[derive(Debug, Clone)]
pub struct ReadyList<P: Ord + Copy> {
    priority: Vec<P>,
    /// How many fragments each one still waits for.
    waiting: Vec<usize>,
    /// The fragments reading each fragment's outputs.
    readers: Vec<Vec<usize>>,
    ready: BinaryHeap<Reverse<(P, usize)>>,
}

impl<P: Ord + Copy> ReadyList<P> {
    /// The ready list of fragments given as (blocks read, blocks made), one priority each:
    /// a block no fragment makes is given. `None` when the counts differ.
    pub fn new<'a, B: Hash + Eq + Copy + 'a>(fragments: impl IntoIterator<Item = (&'a [B], &'a [B])>, priority: Vec<P>) -> Option<ReadyList<P>> {
        let fragments: Vec<(&[B], &[B])> = fragments.into_iter().collect();
        if fragments.len() != priority.len() {
            return None;
        }
        let made_by: HashMap<B, usize> = fragments.iter().enumerate().flat_map(|(k, (_, made))| made.iter().map(move |&b| (b, k))).collect();
        let mut waiting = vec![0; fragments.len()];
        let mut readers = vec![Vec::new(); fragments.len()];
        for (k, (read, _)) in fragments.iter().enumerate() {
            let mut makers: Vec<usize> = read.iter().filter_map(|b| made_by.get(b).copied()).collect();
            makers.sort_unstable();
            makers.dedup();
            waiting[k] = makers.len();
            makers.into_iter().for_each(|m| readers[m].push(k));
        }
        let ready = (0..fragments.len()).filter(|&k| waiting[k] == 0).map(|k| Reverse((priority[k], k))).collect();
        Some(ReadyList { priority, waiting, readers, ready })
    }

    /// The ready fragment of least priority, left in the list.
    pub fn peek(&self) -> Option<usize> {
        self.ready.peek().map(|Reverse((_, k))| *k)
    }

    /// The ready fragment of least priority, taken out of the list.
    pub fn pop(&mut self) -> Option<usize> {
        self.ready.pop().map(|Reverse((_, k))| k)
    }

    /// Fragment `k` ended: the fragments waiting only for it become ready.
    pub fn ended(&mut self, k: usize) {
        for &r in &self.readers[k] {
            self.waiting[r] -= 1;
            if self.waiting[r] == 0 {
                self.ready.push(Reverse((self.priority[r], r)));
            }
        }
    }

    /// Every fragment, each taken as soon as it is ready and ended at once: a topological
    /// order, least priority first among those ready (fragments on a cycle are left out).
    pub fn into_order(mut self) -> Vec<usize> {
        let mut order = Vec::with_capacity(self.waiting.len());
        while let Some(k) = self.pop() {
            order.push(k);
            self.ended(k);
        }
        order
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fragment_waits_for_every_maker_and_ready_ones_go_least_priority_first() {
        // 0 makes block 10, 1 makes 11, 2 reads 10 and 11 (and the given block 99), 3 reads nothing.
        let fragments: Vec<(Vec<u32>, Vec<u32>)> = vec![(vec![], vec![10]), (vec![99], vec![11]), (vec![10, 11, 99], vec![12]), (vec![], vec![13])];
        let list = ReadyList::new(fragments.iter().map(|(r, m)| (r.as_slice(), m.as_slice())), vec![5, 1, 0, 3]).unwrap();
        assert_eq!(list.clone().into_order(), vec![1, 3, 0, 2]);
        let mut list = list;
        assert_eq!(list.pop(), Some(1));
        assert_eq!(list.pop(), Some(3));
        assert_eq!(list.pop(), Some(0));
        list.ended(1);
        assert_eq!(list.peek(), None, "2 still waits for 0");
        list.ended(0);
        assert_eq!(list.pop(), Some(2));
    }

    #[test]
    fn priorities_must_match_the_fragments() {
        let fragments: Vec<(Vec<u32>, Vec<u32>)> = vec![(vec![], vec![1])];
        assert!(ReadyList::new(fragments.iter().map(|(r, m)| (r.as_slice(), m.as_slice())), vec![0, 1]).is_none());
    }
}
