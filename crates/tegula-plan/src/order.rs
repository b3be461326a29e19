//! Static task order, consumer first: a task is ranked as soon as its inputs are (so a block's
//! consumers run while it is still in memory, and its inputs are freed early), and the next
//! goal is a consumer still waiting on the most recently ranked result, before any new output
//! block is started. Sharing is where a plain depth-first walk fails: with `u.mean()` and
//! `(u * v).mean()` computed together, walking one output's blocks to the end keeps every
//! block of `u` for the other; here each block of `u` feeds both means before the next one is
//! made ("finish what you started", as in Dask's ordering).

use crate::graph::{TaskGraph, TaskId};

/// The rank of every task in execution order (lower runs first among ready tasks), given
/// each task's consumers (`TaskGraph::consumers`, which executors need too).
pub fn static_order(graph: &TaskGraph, consumers: &[Vec<TaskId>]) -> Vec<usize> {
    Ordering::new(graph, consumers).run(graph)
}

struct Ordering<'a> {
    rank: Vec<usize>,
    next: usize,
    consumers: &'a [Vec<TaskId>],
    /// Inputs (edges) of each task not yet ranked.
    waiting: Vec<usize>,
    /// Ranked tasks that may still have unranked consumers, the latest on top, with the
    /// position in their consumer list reached so far.
    held: Vec<TaskId>,
    cursor: Vec<u32>,
}

const UNRANKED: usize = usize::MAX;

impl<'a> Ordering<'a> {
    fn new(graph: &TaskGraph, consumers: &'a [Vec<TaskId>]) -> Ordering<'a> {
        let n = graph.tasks.len();
        Ordering {
            rank: vec![UNRANKED; n],
            next: 0,
            consumers,
            waiting: graph.tasks.iter().map(|t| t.inputs.len()).collect(),
            held: Vec::new(),
            cursor: vec![0; n],
        }
    }

    fn run(mut self, graph: &TaskGraph) -> Vec<usize> {
        let mut roots = graph.outputs.iter().flat_map(|o| o.blocks.iter().copied());
        loop {
            let goal = match self.pending() {
                Some(c) => c,
                None => match roots.by_ref().find(|&r| self.rank[r] == UNRANKED) {
                    Some(r) => r,
                    None => break,
                },
            };
            self.reach(graph, goal);
        }
        // Tasks no output needs (none after culling) still get a rank, after the rest.
        for r in self.rank.iter_mut().filter(|r| **r == UNRANKED) {
            *r = self.next;
            self.next += 1;
        }
        self.rank
    }

    /// An unranked consumer of the most recently ranked result that has one.
    fn pending(&mut self) -> Option<TaskId> {
        while let Some(&t) = self.held.last() {
            let list = &self.consumers[t];
            let mut at = self.cursor[t] as usize;
            while at < list.len() && self.rank[list[at]] != UNRANKED {
                at += 1;
            }
            self.cursor[t] = at as u32;
            if at < list.len() {
                return Some(list[at]);
            }
            self.held.pop();
        }
        None
    }

    /// Ranks `goal` after its unranked inputs, depth-first (first input first).
    fn reach(&mut self, graph: &TaskGraph, goal: TaskId) {
        let mut stack = vec![goal];
        while let Some(&t) = stack.last() {
            if self.rank[t] != UNRANKED {
                stack.pop();
                continue;
            }
            match graph.tasks[t].inputs.iter().find(|&&i| self.rank[i] == UNRANKED) {
                Some(&i) => stack.push(i),
                // Only sources get here: any other task is ranked when its last input is.
                None => self.rank_ready(t),
            }
        }
    }

    /// Ranks a task whose inputs are all ranked, then every consumer that becomes ready.
    fn rank_ready(&mut self, t: TaskId) {
        let mut ready = vec![t];
        while let Some(x) = ready.pop() {
            self.rank[x] = self.next;
            self.next += 1;
            if !self.consumers[x].is_empty() {
                self.held.push(x);
            }
            // Consumers are ranked in reverse list order off the stack; walk the list
            // backwards so that the first consumer is ranked first.
            for k in (0..self.consumers[x].len()).rev() {
                let c = self.consumers[x][k];
                self.waiting[c] -= 1;
                if self.waiting[c] == 0 && self.rank[c] == UNRANKED {
                    ready.push(c);
                }
            }
        }
    }
}
