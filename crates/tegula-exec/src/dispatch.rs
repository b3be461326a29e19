//! The dispatch of a plan's fragments to nodes, one implementation for every engine that
//! runs them (the process pool, Ray, dask.distributed): which fragment starts next (in plan
//! order, or the first ready by priority; when its node has room: few enough fragments
//! running there, their projected bytes within its memory), which blocks to let go of (once
//! every fragment reading them has ended), and
//! which results to fetch while others still run (in batches of bytes). The engine's adapter
//! only starts fragments, moves bytes and reports what ended; this holds no I/O, so it is
//! the same whatever the engine, and tested without one.

use std::collections::{HashMap, HashSet};
use tegula_core::{internal_err, Result};
use tegula_plan::ready::ReadyList;

/// A fragment as dispatch sees it: the blocks it reads and makes, the node it is placed on
/// and the bytes it needs there at once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DispatchJob {
    /// The blocks (task ids) it reads, given or made by earlier fragments.
    pub inputs: Vec<usize>,
    /// The blocks (task ids) it makes.
    pub outputs: Vec<usize>,
    /// The node it runs on.
    pub node: usize,
    /// Its projected bytes on that node.
    pub need: usize,
}

/// How many fragments may run at once, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Admission {
    /// Per node: at most `slots[node]` fragments, their needs within `memory[node]` bytes
    /// (`None`: unknown); a node running nothing always takes one.
    PerNode {
        /// Fragments a node runs at once.
        slots: Vec<usize>,
        /// A node's memory in bytes, where known.
        memory: Vec<Option<usize>>,
    },
    /// At most this many in the whole cluster, wherever the engine puts them.
    Pooled(usize),
    /// Every fragment at once (the engine holds them until their inputs are ready).
    Whole,
}

/// The order fragments start in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Order {
    /// The plan's: each after the one before, whether its inputs are made or not (the
    /// engine waits for them).
    Plan,
    /// Those whose inputs are all made (by fragments that ended, or given), the smallest
    /// priority first (one per fragment).
    Ready(Vec<usize>),
}

/// What a fragment's end lets the adapter do.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ended {
    /// Blocks no fragment still to end reads, and no result: let go of them.
    pub let_go: Vec<usize>,
    /// Results to bring to the caller now (a batch of at least the fetch batch's bytes).
    pub fetch: Vec<usize>,
}

/// The dispatch of one plan's fragments (see the module's documentation).
#[derive(Debug, Clone)]
pub struct Dispatch {
    jobs: Vec<DispatchJob>,
    admission: Admission,
    fetch_batch: Option<usize>,
    next: usize,
    started: usize,
    readiness: Option<ReadyList<usize>>,
    running: HashMap<usize, usize>,
    readers: HashMap<usize, usize>,
    returned: HashSet<usize>,
    unfetched: Vec<usize>,
    unfetched_bytes: usize,
}

impl Dispatch {
    /// The dispatch of `jobs` (in plan order) whose blocks `returned` go to the caller;
    /// `fetch_batch`: results are handed to fetch once this many bytes of them are ready
    /// (`None`: all at the end).
    pub fn new(jobs: Vec<DispatchJob>, returned: impl IntoIterator<Item = usize>, admission: Admission, fetch_batch: Option<usize>) -> Result<Dispatch> {
        if let Admission::PerNode { slots, memory } = &admission {
            let nodes = slots.len().min(memory.len());
            if let Some(job) = jobs.iter().find(|j| j.node >= nodes) {
                return Err(internal_err!("a fragment is placed on node {} of {nodes}", job.node));
            }
        }
        let mut readers = HashMap::new();
        for job in &jobs {
            for &t in job.inputs.iter().collect::<HashSet<_>>() {
                *readers.entry(t).or_default() += 1;
            }
        }
        let returned = returned.into_iter().collect();
        let (next, started, readiness) = (0, 0, None);
        Ok(Dispatch { jobs, admission, fetch_batch, next, started, readiness, running: HashMap::new(), readers, returned, unfetched: Vec::new(), unfetched_bytes: 0 })
    }

    /// This dispatch, starting fragments in `order` (`Order::Plan` by default).
    pub fn with_order(mut self, order: Order) -> Result<Dispatch> {
        self.readiness = match order {
            Order::Plan => None,
            Order::Ready(priority) => {
                let count = priority.len();
                let fragments = self.jobs.iter().map(|j| (j.inputs.as_slice(), j.outputs.as_slice()));
                Some(ReadyList::new(fragments, priority).ok_or_else(|| internal_err!("{count} priorities for {} fragments", self.jobs.len()))?)
            }
        };
        Ok(self)
    }

    /// The next fragment to start (in plan order, or the first ready), when there is room
    /// for it; `None` while it must wait for a running one to end, or when every fragment
    /// has started.
    pub fn start(&mut self) -> Option<usize> {
        let k = match &self.readiness {
            None => self.next,
            Some(r) => r.peek()?,
        };
        let job = self.jobs.get(k)?;
        if !self.has_room(job) {
            return None;
        }
        match &mut self.readiness {
            None => self.next += 1,
            Some(r) => {
                r.pop();
            }
        }
        self.running.insert(k, job.node);
        self.started += 1;
        Some(k)
    }

    fn has_room(&self, job: &DispatchJob) -> bool {
        match &self.admission {
            Admission::Whole => true,
            Admission::Pooled(slots) => self.running.len() < *slots || self.running.is_empty(),
            Admission::PerNode { slots, memory } => {
                let there: Vec<usize> = self.running.iter().filter(|&(_, &n)| n == job.node).map(|(&k, _)| self.jobs[k].need).collect();
                let fits = memory[job.node].is_none_or(|m| there.iter().sum::<usize>() + job.need <= m);
                there.is_empty() || (there.len() < slots[job.node] && fits)
            }
        }
    }

    /// Fragment `k` ended, its output blocks of `sizes` bytes (empty when the adapter learns
    /// them later: its results are then fetched at the end).
    pub fn ended(&mut self, k: usize, sizes: &[usize]) -> Result<Ended> {
        if self.running.remove(&k).is_none() {
            return Err(internal_err!("fragment {k} ended but was not running"));
        }
        if let Some(r) = &mut self.readiness {
            r.ended(k);
        }
        let job = &self.jobs[k];
        let mut let_go = Vec::new();
        for &t in job.inputs.iter().collect::<HashSet<_>>() {
            let left = self.readers.get_mut(&t).ok_or_else(|| internal_err!("block {t} has no readers"))?;
            *left -= 1;
            if *left == 0 && !self.returned.contains(&t) {
                let_go.push(t);
            }
        }
        let_go.sort_unstable();
        for (&t, &bytes) in job.outputs.iter().zip(sizes) {
            if self.returned.contains(&t) {
                self.unfetched.push(t);
                self.unfetched_bytes += bytes;
            }
        }
        let fetch = match self.fetch_batch {
            Some(batch) if self.unfetched_bytes >= batch => {
                self.unfetched_bytes = 0;
                std::mem::take(&mut self.unfetched)
            }
            _ => Vec::new(),
        };
        Ok(Ended { let_go, fetch })
    }

    /// Results handed to no fetch yet (after the last fragment: fetch them all).
    pub fn unfetched(&mut self) -> Vec<usize> {
        self.unfetched_bytes = 0;
        std::mem::take(&mut self.unfetched)
    }

    /// The fragments running (started, not yet ended).
    pub fn running(&self) -> Vec<usize> {
        let mut running: Vec<usize> = self.running.keys().copied().collect();
        running.sort_unstable();
        running
    }

    /// Whether every fragment has started.
    pub fn started_all(&self) -> bool {
        self.started == self.jobs.len()
    }

    /// Whether every fragment has started and ended.
    pub fn finished(&self) -> bool {
        self.started_all() && self.running.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(inputs: &[usize], outputs: &[usize], node: usize, need: usize) -> DispatchJob {
        DispatchJob { inputs: inputs.to_vec(), outputs: outputs.to_vec(), node, need }
    }

    /// Two sources on node 0, one on node 1, and a combine on node 1 reading all three.
    fn plan() -> Vec<DispatchJob> {
        vec![job(&[], &[0], 0, 10), job(&[], &[1], 0, 10), job(&[], &[2], 1, 10), job(&[0, 1, 2], &[3], 1, 30)]
    }

    #[test]
    fn a_node_takes_fragments_while_it_has_slots_and_memory() {
        let admission = Admission::PerNode { slots: vec![1, 2], memory: vec![None, Some(35)] };
        let mut d = Dispatch::new(plan(), [3], admission, None).unwrap();
        assert_eq!(d.start(), Some(0));
        assert_eq!(d.start(), None, "node 0 has one slot, busy");
        assert_eq!(d.ended(0, &[8]).unwrap(), Ended::default());
        assert_eq!((d.start(), d.start()), (Some(1), Some(2)));
        // Node 1 runs fragment 2 (10 bytes): the combine's 30 would pass its 35.
        assert_eq!(d.start(), None);
        assert_eq!(d.ended(2, &[8]).unwrap().let_go, Vec::<usize>::new());
        assert_eq!(d.start(), Some(3), "alone on its node, a fragment always runs");
        assert!(d.started_all() && !d.finished());
        d.ended(1, &[8]).unwrap();
        let end = d.ended(3, &[8]).unwrap();
        assert_eq!(end.let_go, vec![0, 1, 2]);
        assert!(end.fetch.is_empty());
        assert_eq!(d.unfetched(), vec![3]);
        assert!(d.finished());
    }

    #[test]
    fn results_are_fetched_in_batches_and_kept() {
        let jobs = vec![job(&[], &[0], 0, 1), job(&[], &[1], 0, 1), job(&[0], &[2], 0, 1)];
        let mut d = Dispatch::new(jobs, [0, 1, 2], Admission::Whole, Some(100)).unwrap();
        assert_eq!((d.start(), d.start(), d.start(), d.start()), (Some(0), Some(1), Some(2), None));
        assert!(d.ended(0, &[60]).unwrap().fetch.is_empty());
        assert_eq!(d.ended(1, &[60]).unwrap().fetch, vec![0, 1]);
        // Block 0 is a result: read by fragment 2, but never let go of.
        assert_eq!(d.ended(2, &[5]).unwrap(), Ended { let_go: vec![], fetch: vec![] });
        assert_eq!(d.unfetched(), vec![2]);
    }

    #[test]
    fn ready_fragments_start_by_priority_once_their_inputs_are_made() {
        let ready = Order::Ready(vec![3, 1, 2, 0]);
        let mut d = Dispatch::new(plan(), [3], Admission::Pooled(2), None).unwrap().with_order(ready).unwrap();
        // The combine (priority 0) waits for the three sources; of those, priority order.
        assert_eq!((d.start(), d.start(), d.start()), (Some(1), Some(2), None));
        d.ended(2, &[]).unwrap();
        assert_eq!((d.start(), d.start()), (Some(0), None));
        d.ended(1, &[]).unwrap();
        assert_eq!(d.start(), None, "fragment 0 still runs");
        assert_eq!(d.ended(0, &[]).unwrap().let_go, Vec::<usize>::new());
        assert_eq!(d.start(), Some(3));
        assert_eq!(d.ended(3, &[]).unwrap().let_go, vec![0, 1, 2]);
        assert!(d.finished());
        assert!(Dispatch::new(plan(), [3], Admission::Whole, None).unwrap().with_order(Order::Ready(vec![0])).is_err());
    }

    #[test]
    fn a_pool_counts_fragments_anywhere_and_errors_are_typed() {
        let mut d = Dispatch::new(plan(), [3], Admission::Pooled(2), None).unwrap();
        assert_eq!((d.start(), d.start(), d.start()), (Some(0), Some(1), None));
        assert!(d.ended(2, &[]).is_err(), "fragment 2 never started");
        let bad = Admission::PerNode { slots: vec![1], memory: vec![None] };
        assert!(Dispatch::new(plan(), [3], bad, None).is_err(), "node 1 does not exist");
    }
}
