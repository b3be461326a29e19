//! Watching a computation: the executor tells an `Observer` about each task as it ends, with
//! the time it ran, the thread that ran it and the memory held and spilled just after, about
//! each spill, and on clusters about the bytes moved between nodes. Two observers are provided: `Progress` (counters a progress bar reads
//! from another thread) and `Trace` (every event kept, for an execution report, and readable
//! while the computation runs, for a live view).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tegula_plan::describe::PlanDescription;
use tegula_plan::TaskId;

/// One finished task. Times are from the start of the computation; both are zero for
/// observers that do not want times (`Observer::timed`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskEvent {
    /// The task that ended.
    pub task: TaskId,
    /// The pool thread that ran it (0 for the serial executor).
    pub thread: usize,
    /// When it started.
    pub start: Duration,
    /// When it ended.
    pub end: Duration,
    /// Bytes of the result it produced.
    pub bytes: usize,
    /// Bytes of chunks held in memory after it ended (measured, as the report's peak).
    pub held: usize,
    /// Bytes of spilled chunks on disk after it ended.
    pub on_disk: usize,
    /// Tasks finished so far, this one included, and the plan's total.
    pub done: usize,
    /// The number of tasks in the plan.
    pub total: usize,
}

/// Blocks one thread wrote to disk to make room, from `start` to `end` (from the start of the
/// computation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpillEvent {
    /// The pool thread that wrote them.
    pub thread: usize,
    /// When the writes began.
    pub start: Duration,
    /// When they ended.
    pub end: Duration,
    /// Bytes of the blocks written.
    pub bytes: usize,
}

/// Bytes a node received from another for a fragment that ran there, as the cluster plan
/// says they moved (a cluster runner moves each block its fragments need from where it was
/// made), at `at` (from the start of the computation: when that fragment started).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TransferEvent {
    /// The node that sent them.
    pub from: usize,
    /// The node that received them.
    pub to: usize,
    /// When the fragment that read them started.
    pub at: Duration,
    /// Bytes of the blocks moved.
    pub bytes: usize,
}

/// Told about every task as it ends. An executor may call it while holding its lock, so it
/// must be quick (count, or push to a list); never compute in it. Tasks are told in the order
/// they ended, except that the threaded executor tells each thread's batch of small tasks
/// after letting go of its lock, so two threads' batches may come in either order (`done`
/// still counts tasks in the order they ended).
pub trait Observer: Sync {
    /// Called once for each task, as it ends.
    fn task_done(&self, event: &TaskEvent);
    /// Called instead of `task_done` for tasks that ended together (a batch of small ones),
    /// in the order they ended.
    fn tasks_done(&self, events: &[TaskEvent]) {
        events.iter().for_each(|e| self.task_done(e));
    }
    /// Called once before the first task runs, with the plan about to run, when the caller
    /// described it.
    fn planned(&self, _plan: &Arc<PlanDescription>) {}
    /// Called after each spill (executors that spill blocks of their own).
    fn spilled(&self, _event: &SpillEvent) {}
    /// Called for the blocks a node received from another (executors over clusters).
    fn transferred(&self, _event: &TransferEvent) {}
    /// Whether events carry their end time (a clock read per task, under the lock).
    fn timed(&self) -> bool {
        true
    }
}

/// Counters for a progress bar: tasks done and bytes produced, read from any thread.
#[derive(Debug, Default)]
pub struct Progress {
    done: AtomicUsize,
    total: AtomicUsize,
    bytes: AtomicUsize,
}

impl Progress {
    /// Counters at zero.
    pub fn new() -> Progress {
        Progress::default()
    }
    /// (tasks done, tasks in the plan, bytes produced); the total is 0 until a task ends.
    pub fn snapshot(&self) -> (usize, usize, usize) {
        (self.done.load(Ordering::Relaxed), self.total.load(Ordering::Relaxed), self.bytes.load(Ordering::Relaxed))
    }
}

impl Observer for Progress {
    fn task_done(&self, event: &TaskEvent) {
        self.tasks_done(std::slice::from_ref(event));
    }
    /// Threads may tell their tasks at once, and in either order: the count only rises.
    fn tasks_done(&self, events: &[TaskEvent]) {
        let (Some(latest), bytes) = (events.iter().map(|e| e.done).max(), events.iter().map(|e| e.bytes).sum::<usize>()) else { return };
        if let Some(total) = events.first().map(|e| e.total) {
            self.total.store(total, Ordering::Relaxed);
        }
        self.bytes.fetch_add(bytes, Ordering::Relaxed);
        self.done.fetch_max(latest, Ordering::Relaxed);
    }
    fn timed(&self) -> bool {
        false
    }
}

/// Every event of a computation, in the order the executor told them (see `Observer`), its
/// spills, and the plan it runs.
#[derive(Debug, Default)]
pub struct Trace {
    events: Mutex<Events>,
    spills: Mutex<Vec<SpillEvent>>,
    transfers: Mutex<Vec<TransferEvent>>,
    plan: Mutex<Option<Arc<PlanDescription>>>,
}

impl Trace {
    /// A trace with no events yet.
    pub fn new() -> Trace {
        Trace::default()
    }
    /// A copy of the events kept so far, in the order the executor told them; each one's
    /// `done` is its place in that order (1 for the first).
    pub fn events(&self) -> Vec<TaskEvent> {
        self.events_from(0)
    }
    /// A copy of the events after the first `from` (those that ended since a reader last
    /// looked, when it read `from` of them then).
    pub fn events_from(&self, from: usize) -> Vec<TaskEvent> {
        self.events.lock().map(|e| e.from(from).collect()).unwrap_or_default()
    }
    /// A copy of the spills after the first `from`.
    pub fn spills_from(&self, from: usize) -> Vec<SpillEvent> {
        self.spills.lock().map(|e| e.get(from..).unwrap_or_default().to_vec()).unwrap_or_default()
    }
    /// A copy of the transfers between nodes after the first `from`.
    pub fn transfers_from(&self, from: usize) -> Vec<TransferEvent> {
        self.transfers.lock().map(|e| e.get(from..).unwrap_or_default().to_vec()).unwrap_or_default()
    }
    /// The plan running, once the executor was given it.
    pub fn plan(&self) -> Option<Arc<PlanDescription>> {
        self.plan.lock().ok().and_then(|p| p.clone())
    }
    /// The number of events kept.
    pub fn len(&self) -> usize {
        self.events.lock().map_or(0, |e| e.kept.len)
    }
    /// Whether no task has ended yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// What happened since `cursor` (which it moves past), summed up for a live view (`None`
    /// until the plan is known): a pass over the new events, no copy of them but the latest
    /// `keep`.
    pub fn delta(&self, cursor: &mut TraceCursor, keep: usize) -> Option<TraceDelta> {
        let plan = self.plan()?;
        let mut delta = TraceDelta { per_operation: vec![(0, 0); plan.operations.len()], ..TraceDelta::default() };
        if let Ok(events) = self.events.lock() {
            let len = events.kept.len;
            let from = cursor.events.min(len);
            let mut most_held: Option<(usize, &Kept)> = None;
            for (i, e) in events.kept.from(from).enumerate() {
                if let Some(op) = plan.task_operation.get(e.task).and_then(|&o| delta.per_operation.get_mut(o)) {
                    op.0 += 1;
                    op.1 += e.bytes;
                }
                if most_held.is_none_or(|(_, m)| (e.held, e.on_disk) > (m.held, m.on_disk)) {
                    most_held = Some((from + i, e));
                }
            }
            delta.most_held = most_held.map(|(i, e)| events.event(i, e));
            delta.ended = len - from;
            delta.latest = events.from(len.saturating_sub(keep).max(from)).collect();
            cursor.events = len;
        }
        delta.spills = self.spills_from(cursor.spills);
        cursor.spills += delta.spills.len();
        delta.transfers = self.transfers_from(cursor.transfers);
        cursor.transfers += delta.transfers.len();
        Some(delta)
    }
}

/// How much of a trace a reader has seen: events, spills and transfers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TraceCursor {
    /// Task events seen.
    pub events: usize,
    /// Spills seen.
    pub spills: usize,
    /// Transfers seen.
    pub transfers: usize,
}

impl Observer for Trace {
    fn task_done(&self, event: &TaskEvent) {
        self.tasks_done(std::slice::from_ref(event));
    }
    fn tasks_done(&self, ended: &[TaskEvent]) {
        if let Ok(mut events) = self.events.lock() {
            ended.iter().for_each(|e| events.push(e));
        }
    }
    fn planned(&self, plan: &Arc<PlanDescription>) {
        if let Ok(mut kept) = self.plan.lock() {
            *kept = Some(plan.clone());
        }
    }
    fn spilled(&self, event: &SpillEvent) {
        if let Ok(mut spills) = self.spills.lock() {
            spills.push(*event);
        }
    }
    fn transferred(&self, event: &TransferEvent) {
        if let Ok(mut transfers) = self.transfers.lock() {
            transfers.push(*event);
        }
    }
}

/// The task events of a trace, as it keeps them: 56 bytes each instead of a `TaskEvent`'s 88
/// (a trace of millions of tasks is kept for its report), the plan's count of tasks once.
#[derive(Debug, Default)]
struct Events {
    kept: Paged<Kept>,
    total: usize,
}

/// A task event kept: times in nanoseconds from the start; `done` is its place in the trace.
#[derive(Debug, Clone, Copy)]
struct Kept {
    task: usize,
    start: u64,
    end: u64,
    bytes: usize,
    held: usize,
    on_disk: usize,
    thread: u32,
}

impl Events {
    fn push(&mut self, e: &TaskEvent) {
        self.total = e.total;
        let nanos = |d: Duration| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
        let thread = u32::try_from(e.thread).unwrap_or(u32::MAX);
        self.kept.push(Kept { task: e.task, start: nanos(e.start), end: nanos(e.end), bytes: e.bytes, held: e.held, on_disk: e.on_disk, thread });
    }

    /// The event kept `k`, the `index`th of the trace.
    fn event(&self, index: usize, k: &Kept) -> TaskEvent {
        TaskEvent {
            task: k.task,
            thread: k.thread as usize,
            start: Duration::from_nanos(k.start),
            end: Duration::from_nanos(k.end),
            bytes: k.bytes,
            held: k.held,
            on_disk: k.on_disk,
            done: index + 1,
            total: self.total,
        }
    }

    fn from(&self, from: usize) -> impl Iterator<Item = TaskEvent> + '_ {
        self.kept.from(from).enumerate().map(move |(i, k)| self.event(from + i, k))
    }
}

/// Items kept in pages of `PAGE` (under 64 KB of events each), which the allocator recycles
/// from one computation to the next, where one buffer growing to megabytes would take fresh
/// pages from the kernel, cleared, for every computation (on a virtual machine, at a fraction
/// of the memory's speed): a tenth of the time of 20,000 tiny tasks.
#[derive(Debug)]
struct Paged<T> {
    pages: Vec<Vec<T>>,
    len: usize,
}

const PAGE: usize = 1024;

impl<T> Default for Paged<T> {
    fn default() -> Paged<T> {
        Paged { pages: Vec::new(), len: 0 }
    }
}

impl<T> Paged<T> {
    fn push(&mut self, item: T) {
        match self.pages.last_mut() {
            Some(page) if page.len() < PAGE => page.push(item),
            _ => {
                let mut page = Vec::with_capacity(PAGE);
                page.push(item);
                self.pages.push(page);
            }
        }
        self.len += 1;
    }

    /// The items after the first `from`, in order (every page but the last is full).
    fn from(&self, from: usize) -> impl Iterator<Item = &T> {
        self.pages.iter().skip(from / PAGE).flatten().skip(from % PAGE)
    }
}

/// The events of a trace since a reader last looked, summed up (`Trace::delta`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TraceDelta {
    /// How many tasks ended since.
    pub ended: usize,
    /// Per operation of the plan (by index): tasks that ended since, and bytes they made.
    pub per_operation: Vec<(usize, usize)>,
    /// The latest of them, in the order they ended.
    pub latest: Vec<TaskEvent>,
    /// The one after which the most memory was held (`None` when none ended).
    pub most_held: Option<TaskEvent>,
    /// The spills since.
    pub spills: Vec<SpillEvent>,
    /// The transfers between nodes since.
    pub transfers: Vec<TransferEvent>,
}

/// Tells several observers.
pub struct Both<'a>(pub &'a dyn Observer, pub &'a dyn Observer);

impl Observer for Both<'_> {
    fn task_done(&self, event: &TaskEvent) {
        self.0.task_done(event);
        self.1.task_done(event);
    }
    fn tasks_done(&self, events: &[TaskEvent]) {
        self.0.tasks_done(events);
        self.1.tasks_done(events);
    }
    fn planned(&self, plan: &Arc<PlanDescription>) {
        self.0.planned(plan);
        self.1.planned(plan);
    }
    fn spilled(&self, event: &SpillEvent) {
        self.0.spilled(event);
        self.1.spilled(event);
    }
    fn transferred(&self, event: &TransferEvent) {
        self.0.transferred(event);
        self.1.transferred(event);
    }
    fn timed(&self) -> bool {
        self.0.timed() || self.1.timed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paged_items_read_back_in_order_from_any_position() {
        let items: Vec<u32> = (0..3 * PAGE as u32 + 17).collect();
        let mut paged = Paged::default();
        items.iter().for_each(|&i| paged.push(i));
        assert_eq!(paged.len, items.len());
        assert!(paged.pages.iter().rev().skip(1).all(|p| p.len() == PAGE));
        for from in [0, 1, PAGE - 1, PAGE, PAGE + 1, 2 * PAGE + 3, items.len() - 1, items.len(), items.len() + 4] {
            let read: Vec<u32> = paged.from(from).copied().collect();
            assert_eq!(read, items.get(from..).unwrap_or_default());
        }
    }

    #[test]
    fn a_delta_sums_up_what_ended_since_the_cursor() {
        let trace = Trace::new();
        let plan = PlanDescription { operations: vec![operation(), operation()], task_operation: vec![0, 1, 0, 1, 1], rank: Vec::new(), projected_peak: 0, largest_block: 0 };
        assert!(trace.delta(&mut TraceCursor::default(), 2).is_none(), "no plan yet");
        let event = |task, held| TaskEvent { task, thread: 0, start: Duration::ZERO, end: Duration::from_millis(task as u64), bytes: 10 * (task + 1), held, on_disk: 0, done: task + 1, total: 5 };
        trace.planned(&Arc::new(plan));
        trace.tasks_done(&[event(0, 5), event(1, 9), event(2, 3)]);
        let mut cursor = TraceCursor::default();
        let first = trace.delta(&mut cursor, 2).unwrap();
        assert_eq!((first.ended, first.per_operation.clone()), (3, vec![(2, 10 + 30), (1, 20)]));
        assert_eq!(first.latest.iter().map(|e| e.task).collect::<Vec<_>>(), vec![1, 2]);
        assert_eq!(first.most_held.map(|e| e.task), Some(1));
        trace.tasks_done(&[event(3, 1), event(4, 2)]);
        trace.spilled(&SpillEvent { thread: 1, start: Duration::ZERO, end: Duration::from_millis(1), bytes: 7 });
        let second = trace.delta(&mut cursor, 10).unwrap();
        assert_eq!((second.ended, second.per_operation), (2, vec![(0, 0), (2, 40 + 50)]));
        assert_eq!(second.latest.iter().map(|e| e.task).collect::<Vec<_>>(), vec![3, 4]);
        assert_eq!(second.spills.len(), 1);
        assert_eq!(cursor, TraceCursor { events: 5, spills: 1, transfers: 0 });
        let none = trace.delta(&mut cursor, 10).unwrap();
        assert_eq!((none.ended, none.most_held, none.latest.len()), (0, None, 0));
        // Kept compact, read back whole.
        assert_eq!(trace.events(), [(0, 5), (1, 9), (2, 3), (3, 1), (4, 2)].map(|(task, held)| event(task, held)));
    }

    fn operation() -> tegula_plan::describe::Operation {
        tegula_plan::describe::Operation { blocks: 1, ..tegula_plan::describe::Operation::new("op".into(), tegula_core::DType::Float64) }
    }
}
