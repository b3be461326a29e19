//! Admission and spilling, the parts of the threaded executor that keep it within its
//! budget: what a task adds to memory if it starts now (`need`), which held results to write
//! to disk to make room (`evict`: those read again furthest in the future), writing them
//! without the lock (`spill`), and starting a task (`admit`). The job loop in `mod.rs`
//! decides when to call them; ordering is the plan's (`tegula_plan::order`).

use super::{Arg, Run, State};
use crate::device::to_host;
use crate::ledger::held_bytes;
use crate::observe::SpillEvent;
use crate::spill::Spilled;
use std::cmp::Reverse;
use std::sync::MutexGuard;
use tegula_core::Result;
use tegula_kernels::Chunk;
use tegula_plan::memory::added_bytes;
use tegula_plan::TaskId;

impl Run<'_> {
    /// Bytes task `id` adds to its device's memory if admitted now: its result and scratch,
    /// its inputs on disk, and the copies of inputs moved from other devices.
    pub(super) fn need(&self, s: &State, id: TaskId) -> usize {
        let task = &self.graph.tasks[id];
        let mut need = added_bytes(task) + self.moved_bytes(id);
        for (k, &i) in task.inputs.iter().enumerate() {
            let here = self.graph.tasks[i].device == task.device;
            if here && !task.inputs[..k].contains(&i) && s.results[i].is_none() && !s.spilling.contains_key(&i) {
                need += s.spilled.get(&i).map_or(0, Spilled::nbytes);
            }
        }
        need
    }

    /// The held results of the task's device to write out (or, when already on disk, drop) so
    /// that `need` fits: those read again furthest in the future first, never the task's own
    /// inputs or inputs of running tasks. `None` when that cannot make room while other tasks run (waiting for
    /// them is cheaper), or when nothing can leave memory.
    pub(super) fn evict(&self, s: &mut State, id: TaskId, need: usize) -> Option<Vec<(TaskId, Chunk)>> {
        let inputs = &self.graph.tasks[id].inputs;
        let ledger = self.device(id);
        let mut candidates: Vec<(usize, TaskId, usize)> = (0..s.results.len())
            .filter(|&v| self.device(v) == ledger)
            .filter_map(|v| {
                let chunk = s.results[v].as_ref()?;
                let bytes = held_bytes(self.graph, v, chunk);
                (bytes > 0 && s.in_use[v] == 0 && !inputs.contains(&v)).then(|| (self.next_use(s, v), v, bytes))
            })
            .collect();
        candidates.sort_unstable_by_key(|&(next, v, _)| Reverse((next, v)));
        let shortfall = s.ledgers[ledger].shortfall(need);
        let (mut freed, mut chosen) = (0, Vec::new());
        for (_, v, bytes) in candidates {
            if freed >= shortfall {
                break;
            }
            freed += bytes;
            chosen.push(v);
        }
        if chosen.is_empty() || (freed < shortfall && (s.running > 0 || !s.spilling.is_empty())) {
            return None;
        }
        let mut to_write = Vec::new();
        for v in chosen {
            let chunk = s.results[v].take()?;
            if s.spilled.contains_key(&v) {
                s.ledgers[ledger].release(held_bytes(self.graph, v, &chunk));
            } else {
                s.spilling.insert(v, chunk.clone());
                to_write.push((v, chunk));
            }
        }
        Some(to_write)
    }

    /// The rank of the first task still to read result `v` (after everything: an output).
    fn next_use(&self, s: &State, v: TaskId) -> usize {
        self.consumers[v].iter().filter(|&&c| !s.done[c]).map(|&c| self.rank[c]).min().unwrap_or(usize::MAX)
    }

    /// Writes `victims` to disk without holding the lock, then records them as spilled; the
    /// results in `unread` (freed, no longer counted) are dropped first.
    pub(super) fn spill<'s>(&'s self, s: MutexGuard<'s, State>, victims: Vec<(TaskId, Chunk)>, unread: &mut Vec<Chunk>) -> MutexGuard<'s, State> {
        drop(s);
        unread.clear();
        let start = self.clock.elapsed();
        let written: Vec<(TaskId, usize, Result<Spilled>)> =
            victims.into_iter().map(|(v, chunk)| (v, held_bytes(self.graph, v, &chunk), self.spill_one(v, chunk))).collect();
        let end = self.clock.elapsed();
        let mut s = match self.state.lock() {
            Ok(s) => s,
            Err(poisoned) => poisoned.into_inner(),
        };
        let mut kept = 0;
        for (v, bytes, outcome) in written {
            s.spilling.remove(&v);
            // The chunk leaves memory whatever happened; if its last reader ran meanwhile, the
            // file is not needed either.
            let needed = s.left[v] > 0;
            let ledger = &mut s.ledgers[self.device(v)];
            ledger.release(bytes);
            match outcome {
                Ok(file) if needed => {
                    kept += bytes;
                    ledger.spilled_bytes += bytes;
                    ledger.on_disk += file.nbytes();
                    s.spilled.insert(v, file);
                }
                Ok(file) => self.disk.remove(file),
                Err(e) => {
                    s.error.get_or_insert(e);
                }
            }
        }
        if let Some(observer) = self.observer.filter(|_| kept > 0) {
            let thread = rayon::current_thread_index().unwrap_or(0);
            observer.spilled(&SpillEvent { thread, start, end, bytes: kept });
        }
        tegula_core::memory::return_free_memory();
        s
    }

    /// Writes task `v`'s result to disk, from the host (a block on a device copied out first).
    fn spill_one(&self, v: TaskId, chunk: Chunk) -> Result<Spilled> {
        self.disk.write(v, &to_host(self.graph.tasks[v].device, chunk)?)
    }

    /// Starts task `id`, which adds `need` bytes (`Run::need`): promises its memory and
    /// gathers its inputs.
    pub(super) fn admit(&self, s: &mut State, id: TaskId, need: usize) -> Vec<Arg> {
        let task = &self.graph.tasks[id];
        let mut args = Vec::with_capacity(task.inputs.len());
        for &i in &task.inputs {
            s.in_use[i] += 1;
            let held = s.results[i].as_ref().or_else(|| s.spilling.get(&i));
            match (held, s.spilled.get(&i)) {
                (Some(c), _) => args.push(Arg::Held(c.clone())),
                (None, Some(file)) => args.push(Arg::OnDisk(i, file.clone())),
                // Reported by `execute`, which finds no chunk.
                (None, None) => {}
            }
        }
        s.running += 1;
        s.ledgers[self.device(id)].admit(task, need - added_bytes(task));
        args
    }
}
