//! Watching a computation: the executor tells an `Observer` about each task as it ends, with
//! the time it ran, the thread that ran it and the memory held and spilled just after. Two
//! observers are provided: `Progress` (counters a progress bar reads from another thread) and
//! `Trace` (every event kept, for an execution report).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;
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

/// Told about every task as it ends. It is called while the executor's lock is held, so it
/// must be quick (count, or push to a list); never compute in it.
pub trait Observer: Sync {
    /// Called once for each task, as it ends.
    fn task_done(&self, event: &TaskEvent);
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
    /// Plain stores: the executor calls observers one at a time (under its lock), so there is
    /// one writer and no locked read-modify-write is needed.
    fn task_done(&self, event: &TaskEvent) {
        self.done.store(event.done, Ordering::Relaxed);
        self.total.store(event.total, Ordering::Relaxed);
        self.bytes.store(self.bytes.load(Ordering::Relaxed) + event.bytes, Ordering::Relaxed);
    }
    fn timed(&self) -> bool {
        false
    }
}

/// Every event of a computation, in the order tasks ended.
#[derive(Debug, Default)]
pub struct Trace {
    events: Mutex<Vec<TaskEvent>>,
}

impl Trace {
    /// A trace with no events yet.
    pub fn new() -> Trace {
        Trace::default()
    }
    /// A copy of the events kept so far, in the order tasks ended.
    pub fn events(&self) -> Vec<TaskEvent> {
        self.events.lock().map(|e| e.clone()).unwrap_or_default()
    }
}

impl Observer for Trace {
    fn task_done(&self, event: &TaskEvent) {
        if let Ok(mut events) = self.events.lock() {
            events.push(*event);
        }
    }
}

/// Tells several observers.
pub struct Both<'a>(pub &'a dyn Observer, pub &'a dyn Observer);

impl Observer for Both<'_> {
    fn task_done(&self, event: &TaskEvent) {
        self.0.task_done(event);
        self.1.task_done(event);
    }
    fn timed(&self) -> bool {
        self.0.timed() || self.1.timed()
    }
}
