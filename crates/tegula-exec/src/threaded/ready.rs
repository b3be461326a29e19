//! The tasks ready to run, lowest static rank first. Those ready from the start (every task
//! without inputs: the reads and views of a plan, often most of its tasks) are sorted once and
//! taken in turn; only tasks readied while the plan runs go through a heap, which then stays
//! as small as the plan's frontier. A heap of all twenty thousand views of a sum over tiny
//! blocks cost a walk of fifteen levels, mostly cache misses, for every task taken, under the
//! lock every thread waits on.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use tegula_plan::TaskId;

pub(super) struct ReadyTasks {
    /// The tasks ready from the start, as (rank, task), by rank; those before `next` are taken.
    first: Vec<(usize, TaskId)>,
    next: usize,
    /// The tasks readied since.
    readied: BinaryHeap<Reverse<(usize, TaskId)>>,
}

impl ReadyTasks {
    /// `first`, the tasks ready from the start, as (rank, task).
    pub(super) fn new(mut first: Vec<(usize, TaskId)>) -> ReadyTasks {
        first.sort_unstable();
        ReadyTasks { first, next: 0, readied: BinaryHeap::new() }
    }

    /// The ready task of lowest rank, as (rank, task).
    fn lowest(&self) -> Option<(usize, TaskId)> {
        let first = self.first.get(self.next).copied();
        let readied = self.readied.peek().map(|&Reverse(r)| r);
        first.into_iter().chain(readied).min()
    }

    /// The ready task of lowest rank.
    pub(super) fn peek(&self) -> Option<TaskId> {
        self.lowest().map(|(_, t)| t)
    }

    /// Takes the ready task of lowest rank.
    pub(super) fn pop(&mut self) -> Option<TaskId> {
        let lowest = self.lowest()?;
        if self.first.get(self.next) == Some(&lowest) {
            self.next += 1;
        } else {
            self.readied.pop();
        }
        Some(lowest.1)
    }

    /// Task `t`, of rank `rank`, is ready.
    pub(super) fn push(&mut self, rank: usize, t: TaskId) {
        self.readied.push(Reverse((rank, t)));
    }

    pub(super) fn len(&self) -> usize {
        self.first.len() - self.next + self.readied.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tasks_come_out_by_rank_whether_ready_first_or_readied() {
        let mut ready = ReadyTasks::new(vec![(5, 50), (1, 10), (3, 30)]);
        assert_eq!((ready.len(), ready.peek()), (3, Some(10)));
        assert_eq!(ready.pop(), Some(10));
        ready.push(2, 20);
        ready.push(6, 60);
        assert_eq!(ready.peek(), Some(20));
        let order: Vec<_> = std::iter::from_fn(|| ready.pop()).collect();
        assert_eq!(order, [20, 30, 50, 60]);
        assert_eq!((ready.len(), ready.peek()), (0, None));
    }
}
