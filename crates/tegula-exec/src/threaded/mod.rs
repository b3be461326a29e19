//! The executor, on a rayon pool of the requested size (of one thread: the serial reference),
//! or of twice that for a plan that must spill (`jobs_for`). At most one job per thread of it
//! takes ready tasks, lowest static rank first, and runs each
//! without holding the lock; a task is admitted only when the bytes it adds (its result, its
//! scratch, inputs read back from disk) fit in the memory budget beside the chunks held and
//! those promised to running tasks, so sources are never produced ahead of what memory allows.
//! Each device has a ledger and a budget of its own (`Device::memory`, else the spec's); a task
//! counts against its device's, with the copies of inputs moved to it from other devices.
//! When the next task does not fit, the chunks needed furthest in the future are spilled to
//! disk — while other tasks compute, if that makes enough room, else once nothing runs. A
//! result is freed after its last consumer has run; given a sink, an output block goes there
//! then (or once made, where no task reads it), while the memory the run frees is kept for
//! the output's pages. Kernels split big blocks over the same
//! pool, so the process keeps one thread budget. Once the spec's cancel token is set, no task
//! starts and the run ends with `TegulaError::Interrupted`.


mod admission;
mod ready;
use ready::ReadyTasks;
use crate::clock::Clock;
use crate::ledger::{held_bytes, Ledger};
use crate::observe::{Observer, TaskEvent};
use crate::device::to_host;
use crate::executor::{Executor, OutputSink};
use crate::pool::{check_threads, pool};
use crate::spill::{SpillDir, Spilled};
use crate::state::{take_result, Inputs};
use crate::Report;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;
use tegula_core::{internal_err, Cancel, Result, SourceOp, Spec, TaskOp, TegulaError};
use tegula_kernels::parallel::with_spare_threads;
use tegula_kernels::raw::with_bytes;
use tegula_kernels::Chunk;
use tegula_plan::fragments::work_bytes;
use tegula_plan::memory::projected_peak;
use tegula_plan::order::static_order;
use tegula_plan::{TaskGraph, TaskId};

struct State {
    ready: ReadyTasks,
    /// Inputs each task still waits for.
    waiting: Vec<usize>,
    /// Reads of each result still to come.
    left: Vec<usize>,
    done: Vec<bool>,
    results: Vec<Option<Chunk>>,
    /// Results on disk (a result read back and kept is in both places: dropping it again is free).
    spilled: HashMap<TaskId, Spilled>,
    /// Results being written to disk: out of `results`, still in memory.
    spilling: HashMap<TaskId, Chunk>,
    /// Running tasks reading each result (such a result is not spilled).
    in_use: Vec<u32>,
    jobs: usize,
    running: usize,
    finished: usize,
    error: Option<TegulaError>,
    /// One per device, by its number.
    ledgers: Vec<Ledger>,
}

/// What every job reads.
struct Run<'a> {
    graph: &'a TaskGraph,
    inputs: &'a Inputs<'a>,
    threads: usize,
    rank: Vec<usize>,
    consumers: Vec<Vec<TaskId>>,
    disk: SpillDir,
    state: Mutex<State>,
    observer: Option<&'a dyn Observer>,
    clock: Clock,
    cancel: &'a Cancel,
    /// Where output blocks go as soon as they are made, if anywhere.
    sink: Option<&'a dyn OutputSink>,
    /// The places (output, block) of each task's result in the outputs, given a sink: a block
    /// no task reads goes there once made, one other tasks read once the last of them has
    /// run (while the computation's freed memory is kept for the output's pages to take).
    places: Vec<Vec<(usize, usize)>>,
}

/// What running a task made: its result (none once handed to the sink), the bytes it holds,
/// and the inputs read back from disk.
struct Made {
    result: Option<Chunk>,
    bytes: usize,
    reloaded: Vec<(TaskId, Chunk)>,
}

/// A task's inputs: in memory, or to be read back from disk.
enum Arg {
    Held(Chunk),
    OnDisk(TaskId, Spilled),
}

/// The threaded executor: `threads` jobs on a rayon pool of that size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Threaded {
    /// The number of threads in its pool (1: serial).
    pub threads: usize,
}

impl Threaded {
    /// `threads` threads (`None`: one per core), from 1 to `MAX_THREADS`.
    pub fn new(threads: Option<usize>) -> Result<Threaded> {
        let threads = threads.unwrap_or_else(crate::default_threads);
        check_threads(threads)?;
        Ok(Threaded { threads })
    }

    /// One task at a time, in static order: the reference.
    pub fn serial() -> Threaded {
        Threaded { threads: 1 }
    }
}

impl Default for Threaded {
    fn default() -> Self {
        Threaded { threads: crate::default_threads() }
    }
}

impl Executor for Threaded {
    fn execute(&self, graph: &TaskGraph, spec: &Spec, observer: Option<&dyn Observer>) -> Result<(Vec<Vec<Chunk>>, Report)> {
        let (outputs, report) = self.execute_in_place(graph, spec, observer)?;
        let host = |o: &tegula_plan::Output, blocks: Vec<Chunk>| o.blocks.iter().zip(blocks).map(|(&t, c)| to_host(graph.tasks[t].device, c)).collect();
        let outputs = graph.outputs.iter().zip(outputs).map(|(o, blocks)| host(o, blocks)).collect::<Result<Vec<_>>>()?;
        Ok((outputs, report))
    }

    fn execute_in_place(&self, graph: &TaskGraph, spec: &Spec, observer: Option<&dyn Observer>) -> Result<(Vec<Vec<Chunk>>, Report)> {
        let inputs = Inputs::new(graph, &[])?;
        let (results, report) = run(graph, &inputs, self.threads, spec, observer, None)?;
        let outputs = graph.outputs.iter().map(|o| o.blocks.iter().map(|&t| take_result(&results, t)).collect::<Result<Vec<_>>>()).collect::<Result<Vec<_>>>()?;
        Ok((outputs, report))
    }

    fn execute_into(&self, graph: &TaskGraph, spec: &Spec, observer: Option<&dyn Observer>, sink: &dyn OutputSink) -> Result<Report> {
        let inputs = Inputs::new(graph, &[])?;
        let (results, report) = run(graph, &inputs, self.threads, spec, observer, Some(sink))?;
        // The blocks some task read that were on disk when the last of them ran.
        for (o, output) in graph.outputs.iter().enumerate() {
            for (b, &t) in output.blocks.iter().enumerate() {
                if let Some(chunk) = &results[t] {
                    sink.put(o, b, to_host(graph.tasks[t].device, chunk.clone())?)?;
                }
            }
        }
        Ok(report)
    }
}

/// Where each task's result goes, given a sink: the places (output, block) of the output
/// blocks (none for every task without a sink).
fn output_places(graph: &TaskGraph, sink: Option<&dyn OutputSink>) -> Vec<Vec<(usize, usize)>> {
    let mut places = vec![Vec::new(); graph.tasks.len()];
    if sink.is_some() {
        for (o, output) in graph.outputs.iter().enumerate() {
            for (b, &t) in output.blocks.iter().enumerate() {
                places[t].push((o, b));
            }
        }
    }
    places
}

pub fn run(
    graph: &TaskGraph,
    inputs: &Inputs,
    threads: usize,
    spec: &Spec,
    observer: Option<&dyn Observer>,
    sink: Option<&dyn OutputSink>,
) -> Result<(Vec<Option<Chunk>>, Report)> {
    let n = graph.tasks.len();
    let consumers = graph.consumers();
    let places = output_places(graph, sink);
    let rank = static_order(graph, &consumers);
    let threads = jobs_for(graph, &rank, threads, spec.memory);
    let waiting: Vec<usize> = graph.tasks.iter().map(|t| t.inputs.len()).collect();
    let ready = ReadyTasks::new((0..n).filter(|&t| waiting[t] == 0).map(|t| (rank[t], t)).collect());
    let first_jobs = ready.len().min(threads);
    let state = State {
        ready,
        waiting,
        left: graph.uses(),
        done: vec![false; n],
        results: vec![None; n],
        spilled: HashMap::new(),
        spilling: HashMap::new(),
        in_use: vec![0; n],
        jobs: first_jobs,
        running: 0,
        finished: 0,
        error: None,
        ledgers: inputs.budgets(spec.memory).into_iter().map(Ledger::new).collect(),
    };
    let disk = SpillDir::new(&spec.spill_dir);
    #[cfg(target_os = "linux")]
    let _reuse = tegula_core::reuse::reuse_within(spec.memory);
    let clock = Clock::start();
    let cancel = &spec.cancel;
    let run = Run { graph, inputs, threads, rank, consumers, disk, state: Mutex::new(state), observer, clock, cancel, sink, places };
    pool(threads)?.scope(|scope| {
        for _ in 0..first_jobs {
            scope.spawn(|scope| job(scope, &run));
        }
    });
    let mut state = run.state.into_inner().map_err(|_| internal_err!("executor state poisoned"))?;
    if let Some(e) = state.error.take() {
        return Err(e);
    }
    for o in &graph.outputs {
        for &b in &o.blocks {
            if state.results[b].is_none() && !handed(&run.places[b], &run.consumers[b], state.left[b]) {
                let spilled = state.spilled.get(&b).ok_or_else(|| internal_err!("output task {b} has no result"))?;
                state.results[b] = Some(run.disk.read(spilled)?);
            }
        }
    }
    Ok((state.results, report(n, &state.ledgers)))
}

/// Whether an output block (in `places`, read by `consumers`, with `left` reads to come) has
/// gone to the sink: once made where no task reads it, else once the last task reading it has
/// run (its reads left then count nothing).
fn handed(places: &[(usize, usize)], consumers: &[TaskId], left: usize) -> bool {
    !places.is_empty() && (consumers.is_empty() || left == 0)
}

/// Whether `op` makes a block of zeros (every byte zero: not -0.0).
fn makes_zeros(op: &TaskOp) -> bool {
    let TaskOp::Source(SourceOp::Full { value, dtype, .. }) = op else { return false };
    with_bytes(&Chunk::full(*dtype, &[1], *value), |bytes| bytes.iter().all(|&b| b == 0))
}

/// How many jobs run on `threads` threads: one per thread, or two where the plan cannot run
/// within `budget` one task at a time (its projected peak is beyond it), so results will go to
/// disk and come back: a job waiting on the disk then leaves its core to another. (The 10⁹ sort
/// under 2 GB took 17.0-18.0 s with four jobs on two cores, 19.4-20.0 s with two.) The serial
/// reference stays one task at a time.
fn jobs_for(graph: &TaskGraph, rank: &[usize], threads: usize, budget: usize) -> usize {
    if threads > 1 && projected_peak(graph, rank) > budget {
        (2 * threads).min(crate::pool::MAX_THREADS)
    } else {
        threads
    }
}

/// The report of a run: the CPU's ledger, and each device's peak.
fn report(tasks: usize, ledgers: &[Ledger]) -> Report {
    let cpu = &ledgers[0];
    Report {
        tasks,
        peak_bytes: cpu.peak_live,
        projected_peak_bytes: cpu.peak_projected,
        spilled_bytes: ledgers.iter().map(|l| l.spilled_bytes).sum(),
        budget: cpu.budget,
        device_peaks: ledgers.iter().map(|l| l.peak_live).collect(),
        cluster: None,
    }
}

/// Tasks whose work (bytes read, made and written) stays under this take a few microseconds
/// each: a job takes several such at once (`Run::take_small`), so that two threads running
/// them do not queue on the state's lock for every one. Twenty thousand sums of 100 values
/// took 0.03 s on two threads, or 0.07 s when the threads fell into step on the lock.
const SMALL_TASK_BYTES: usize = 64 << 10;

/// The most small tasks a job takes at once, and their most work in bytes together.
const SMALL_BATCH_TASKS: usize = 64;
const SMALL_BATCH_BYTES: usize = 256 << 10;

/// Takes tasks while the next one fits (spilling to make room when that helps), then leaves
/// the rest to the jobs that tasks ending start.
fn job<'a>(scope: &rayon::Scope<'a>, run: &'a Run<'a>) {
    // Results no task reads any more, dropped once the lock is let go (freeing memory under
    // it would hold the other threads up).
    let mut unread: Vec<Chunk> = Vec::new();
    // Output blocks no task reads any more, put in the sink once the lock is let go.
    let mut read: Vec<(TaskId, Chunk)> = Vec::new();
    // Events of tasks that ended, told to the observer once the lock is let go.
    let mut ended: Vec<TaskEvent> = Vec::new();
    let Ok(mut s) = run.state.lock() else { return };
    while s.error.is_none() {
        if run.cancel.is_set() {
            s.error = Some(TegulaError::Interrupted);
            break;
        }
        let Some(id) = s.ready.peek() else { break };
        let need = run.need(&s, id);
        if !s.ledgers[run.device(id)].fits(need) {
            if let Some(victims) = run.evict(&mut s, id, need) {
                // The results freed before are let go of now, not after the writes: the ledger
                // no longer counts them.
                s = run.spill(s, victims, &mut unread);
                continue;
            }
            if s.running > 0 || !s.spilling.is_empty() {
                break;
            }
            // Nothing runs, no spill is under way and nothing else can leave memory: the task
            // alone fits the budget (plans are checked before running), so it runs.
        }
        s.ready.pop();
        let args = run.admit(&mut s, id, need);
        let taken = run.take_small(&mut s, (id, args));
        // Threads that neither run a task nor have one waiting for them: the kernel may split
        // its block over them. (Not the jobs: a job about to find nothing ready still counts.)
        let spare = run.threads.saturating_sub(s.running + s.ready.len());
        drop(s);
        unread.clear();
        run.tell(&mut ended);
        let put = run.put_read(&mut read);
        // Clock reads only for an observer that wants times: one per task, since each task
        // of a batch starts when the one before it ends.
        let mut clock = run.observer.filter(|o| o.timed()).map(|_| run.clock.elapsed());
        let ran: Vec<_> = taken
            .into_iter()
            .map(|(id, args)| {
                let started = clock;
                let outcome = with_spare_threads(spare, || run.execute(id, args)).and_then(|done| run.hand_over(id, done));
                clock = clock.map(|_| run.clock.elapsed());
                (id, started.zip(clock), outcome)
            })
            .collect();
        s = match run.state.lock() {
            Ok(s) => s,
            Err(_) => return,
        };
        if let Err(e) = put {
            s.error.get_or_insert(e);
        }
        for (id, times, outcome) in ran {
            run.finish(&mut s, id, outcome, &mut unread, &mut read);
            s.finished += 1;
            if run.observer.is_some() {
                ended.push(run.event(&s, id, times));
            }
        }
        let more = s.ready.len().min(run.threads.saturating_sub(s.jobs));
        s.jobs += more;
        for _ in 0..more {
            scope.spawn(|scope| job(scope, run));
        }
    }
    if read.is_empty() {
        s.jobs -= 1;
        drop(s);
        run.tell(&mut ended);
        return;
    }
    // The job ends once the blocks it took from memory are in the sink: the run returns only
    // after every job has ended.
    drop(s);
    run.tell(&mut ended);
    let put = run.put_read(&mut read);
    let Ok(mut s) = run.state.lock() else { return };
    if let Err(e) = put {
        s.error.get_or_insert(e);
    }
    s.jobs -= 1;
}

impl Run<'_> {
    /// The number of the device task `id` runs on: its ledger's.
    fn device(&self, id: TaskId) -> usize {
        self.graph.tasks[id].device.index()
    }

    /// Bytes of the copies of task `id`'s inputs moved to its device from others, held while
    /// it runs.
    fn moved_bytes(&self, id: TaskId) -> usize {
        let task = &self.graph.tasks[id];
        if task.inputs.iter().all(|&i| self.graph.tasks[i].device == task.device) {
            return 0;
        }
        let mut from_others: Vec<TaskId> = task.inputs.iter().copied().filter(|&i| self.graph.tasks[i].device != task.device).collect();
        from_others.sort_unstable();
        from_others.dedup();
        from_others.iter().map(|&i| self.graph.tasks[i].nbytes()).sum()
    }

    /// `first`, admitted, and while it and the tasks after it are small, more of them that fit
    /// in memory: at most the job's share of the ready tasks, so that no thread waits while
    /// another holds tasks it has not started.
    fn take_small(&self, s: &mut State, first: (TaskId, Vec<Arg>)) -> Vec<(TaskId, Vec<Arg>)> {
        let mut work = work_bytes(self.graph, first.0);
        let mut taken = vec![first];
        let share = (s.ready.len() + 1) / self.threads;
        while work <= SMALL_TASK_BYTES && taken.len() < share.min(SMALL_BATCH_TASKS) {
            let Some(id) = s.ready.peek() else { break };
            let (bytes, need) = (work_bytes(self.graph, id), self.need(s, id));
            if bytes > SMALL_TASK_BYTES || work + bytes > SMALL_BATCH_BYTES || !s.ledgers[self.device(id)].fits(need) {
                break;
            }
            s.ready.pop();
            work += bytes;
            taken.push((id, self.admit(s, id, need)));
        }
        taken
    }

    /// Reads spilled inputs back and runs the kernel; returns the result and the inputs read.
    fn execute(&self, id: TaskId, args: Vec<Arg>) -> Result<Made> {
        if self.zeros_taken(id)? {
            return Ok(Made { result: None, bytes: 0, reloaded: Vec::new() });
        }
        let task = &self.graph.tasks[id];
        let mut chunks = Vec::with_capacity(args.len());
        let mut reloaded: Vec<(TaskId, Chunk)> = Vec::new();
        for arg in args {
            let chunk = match arg {
                Arg::Held(c) => c,
                // An input read twice (`x * x`) is read back once.
                Arg::OnDisk(i, file) => match reloaded.iter().find(|(r, _)| *r == i) {
                    Some((_, c)) => c.clone(),
                    None => {
                        // Back on the device that made it (spill files are the host's).
                        let c = self.inputs.device(self.graph, i).to_device(&self.disk.read(&file)?)?;
                        reloaded.push((i, c.clone()));
                        c
                    }
                },
            };
            chunks.push(chunk);
        }
        if chunks.len() != task.inputs.len() {
            return Err(internal_err!("task {id} is missing inputs"));
        }
        let out = self.inputs.run(self.graph, id, &chunks)?;
        let bytes = held_bytes(self.graph, id, &out);
        Ok(Made { result: Some(out), bytes, reloaded })
    }

    /// Whether task `id`'s block went to the sink without being made: a block of zeros of one
    /// output, which no task reads, where the sink takes zeros so (an array's fresh pages hold
    /// them already: the upper half of a Cholesky factor is never touched).
    fn zeros_taken(&self, id: TaskId) -> Result<bool> {
        let (Some(sink), [(o, b)]) = (self.sink, self.places[id].as_slice()) else { return Ok(false) };
        if !self.consumers[id].is_empty() || !makes_zeros(&self.graph.tasks[id].op) {
            return Ok(false);
        }
        sink.put_zeros(*o, *b)
    }

    /// Hands the result of task `id` to the sink where it goes there as soon as it is made:
    /// an output block no task reads.
    fn hand_over(&self, id: TaskId, made: Made) -> Result<Made> {
        let (Some(_), Some(chunk)) = (self.sink, &made.result) else { return Ok(made) };
        if self.places[id].is_empty() || !self.consumers[id].is_empty() {
            return Ok(made);
        }
        self.put(id, chunk.clone())?;
        // Its memory is the caller's array now, as a block written to a store is the store's.
        Ok(Made { result: None, bytes: 0, ..made })
    }

    /// Puts the output blocks in `read` in the sink, emptying it.
    fn put_read(&self, read: &mut Vec<(TaskId, Chunk)>) -> Result<()> {
        read.drain(..).try_for_each(|(id, chunk)| self.put(id, chunk))
    }

    /// Puts task `id`'s result, on the host, in its every place in the sink (if any).
    fn put(&self, id: TaskId, chunk: Chunk) -> Result<()> {
        let Some(sink) = self.sink else { return Ok(()) };
        let chunk = to_host(self.graph.tasks[id].device, chunk)?;
        self.places[id].iter().try_for_each(|&(o, b)| sink.put(o, b, chunk.clone()))
    }

    /// Ends task `id`: keeps its result (unless it went to the sink), keeps inputs read back
    /// that are still needed, frees inputs whose last reader this was (output blocks in memory
    /// go to `read`, for the sink), and readies consumers.
    fn finish(&self, s: &mut State, id: TaskId, outcome: Result<Made>, unread: &mut Vec<Chunk>, read: &mut Vec<(TaskId, Chunk)>) {
        let task = &self.graph.tasks[id];
        s.running -= 1;
        s.ledgers[self.device(id)].end(task);
        for &i in &task.inputs {
            s.in_use[i] -= 1;
        }
        let ledger = self.device(id);
        s.ledgers[ledger].release(self.moved_bytes(id));
        let Made { result, bytes, reloaded } = match outcome {
            Ok(made) => made,
            Err(e) => {
                s.error.get_or_insert(e);
                return;
            }
        };
        // An input read back from disk stays, on its own device (one from another device was
        // only read to be moved, and is counted as moved).
        for (i, c) in reloaded.into_iter().filter(|&(i, _)| self.device(i) == ledger) {
            if s.results[i].is_none() {
                s.results[i] = Some(c);
            } else {
                s.ledgers[ledger].release(held_bytes(self.graph, i, &c));
            }
        }
        s.ledgers[ledger].hold(bytes);
        s.results[id] = result;
        s.done[id] = true;
        for &i in &task.inputs {
            s.left[i] -= 1;
            if s.left[i] == 0 {
                unread.extend(self.free(s, i));
            } else if s.left[i] == self.places[i].len() && s.results[i].is_some() {
                // Only the outputs read it now: it goes to the sink (one on disk is read back
                // at the end).
                s.left[i] = 0;
                read.extend(self.free(s, i).map(|c| (i, c)));
            }
        }
        for &c in &self.consumers[id] {
            s.waiting[c] -= 1;
            if s.waiting[c] == 0 {
                s.ready.push(self.rank[c], c);
            }
        }
    }

    /// Lets go of a result no task reads any more, on disk, and in memory: the block is
    /// returned for the caller to drop.
    fn free(&self, s: &mut State, i: TaskId) -> Option<Chunk> {
        let ledger = &mut s.ledgers[self.device(i)];
        let block = s.results[i].take();
        if let Some(c) = &block {
            ledger.release(held_bytes(self.graph, i, c));
        }
        if let Some(file) = s.spilled.remove(&i) {
            ledger.on_disk -= file.nbytes();
            self.disk.remove(file);
        }
        block
    }

    /// Tells the observer, if any, of the tasks in `ended` (outside the state's lock, so
    /// another job's tasks may be told first), emptying it.
    fn tell(&self, ended: &mut Vec<TaskEvent>) {
        if let Some(observer) = self.observer.filter(|_| !ended.is_empty()) {
            observer.tasks_done(ended);
        }
        ended.clear();
    }

    /// What the observer is told of task `id`, which ran `times` (start and end, when it
    /// wants times), the latest to end.
    fn event(&self, s: &State, id: TaskId, times: Option<(Duration, Duration)>) -> TaskEvent {
        let (start, end) = times.unwrap_or_default();
        TaskEvent {
            task: id,
            thread: rayon::current_thread_index().unwrap_or(0),
            start,
            end,
            bytes: s.results[id].as_ref().map_or_else(|| self.graph.tasks[id].nbytes(), Chunk::nbytes),
            held: s.ledgers.iter().map(|l| l.live).sum(),
            on_disk: s.ledgers.iter().map(|l| l.on_disk).sum(),
            done: s.finished,
            total: self.graph.tasks.len(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tegula_core::{Chunks, DType, DeviceId, Scalar, SourceOp, TaskOp};
    use tegula_plan::graph::{Output, Task};

    /// Two blocks of 1000 float64 made and both kept as outputs: 16,000 bytes held at the end.
    fn two_blocks() -> TaskGraph {
        let block = || Task {
            op: TaskOp::Source(SourceOp::Full { value: Scalar::Float(1.0), dtype: DType::Float64, shape: vec![1000] }),
            inputs: vec![],
            size: 1000,
            dtype: DType::Float64,
            node: 0,
            device: DeviceId::CPU,
        };
        let chunks = Chunks::from_axes(vec![vec![1000, 1000]]);
        let outputs = vec![Output { node: 0, dtype: DType::Float64, chunks, blocks: vec![0, 1] }];
        TaskGraph { tasks: vec![block(), block()], outputs, resources: vec![], grids: vec![] }
    }

    #[test]
    fn plans_that_must_spill_run_two_jobs_per_thread() {
        let graph = two_blocks();
        let rank = static_order(&graph, &graph.consumers());
        let peak = projected_peak(&graph, &rank);
        assert!(peak > 16_000);
        assert_eq!(jobs_for(&graph, &rank, 4, peak), 4, "within the budget: one job per thread");
        assert_eq!(jobs_for(&graph, &rank, 4, peak - 1), 8, "beyond it: two");
        assert_eq!(jobs_for(&graph, &rank, 1, peak - 1), 1, "the serial reference stays serial");
    }
}
