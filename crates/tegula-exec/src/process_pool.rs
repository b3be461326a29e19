//! The process-pool executor (Dask's "processes" scheduler): the plan is cut into fragments
//! (`tegula_plan::fragments`), each encoded once (`fragment.rs`) and run by one of `workers`
//! worker processes (`worker.rs`), which are started by a command and kept for the life of
//! this process. Blocks pass between processes as files in a directory on a memory file system
//! (`/dev/shm` where there is one); in-memory arrays are read out of this process's memory,
//! and output blocks written straight into the caller's result arrays, where the workers may
//! (`caller_memory.rs`; `TEGULA_SHARE_ARRAYS=files` says not to), else shared as `.npy` files
//! they map and returned as files.
//! Half the memory budget holds blocks between fragments, the other half is the workers'
//! (shared equally); a fragment whose outputs would not fit writes them to the spill
//! directory instead.
//! A fragment whose resources cannot leave the process (a store being written, a Python object
//! as a source) runs here. A worker that dies is replaced and its fragment run again (three
//! times at most); an error inside a fragment stops the computation and is returned as is.

use crate::caller_memory::{CallerRegion, Probe, PROBE_VARIABLE};
use crate::device::to_host;
use crate::executor::{Executor, ExecutorConfig, OutputSink};
use crate::fragment::{run_fragment, Fragment, FunctionBytes};
use crate::shared::SharedArrays;
use crate::spill::{SpillDir, Spilled};
use crate::inline::{InlineBlock, INLINE_BYTES};
use crate::worker::{read_frame, write_frames, Done, Request, Response, Sent};
use crate::{Observer, Report, TaskEvent};
use crate::dispatch::{Admission, Dispatch, DispatchJob, Order};
use std::collections::HashMap;
use std::io::{BufReader, BufWriter};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Condvar, Mutex, OnceLock};
use std::time::Instant;
use tegula_core::{internal_err, value_err, Cancel, DeviceId, Result, Spec, TegulaError};
use tegula_kernels::Chunk;
use tegula_plan::fragments::{cut_for_workers, sub_graph, work_bytes, FragmentCut, SMALL_FRAGMENT_BYTES};
use tegula_plan::order::static_order;
use tegula_plan::{TaskGraph, TaskId};

/// The most worker processes one pool may have.
pub const MAX_WORKERS: usize = 256;
/// Runs of one fragment (a worker dying each time) before the computation fails.
const ATTEMPTS: usize = 3;

/// The process-pool executor: fragments of the plan run by worker processes it starts.
#[derive(Debug, Clone)]
pub struct ProcessPool {
    workers: usize,
    command: Vec<String>,
}

impl ProcessPool {
    /// `config.workers` processes (default: one per core) started by `config.worker_command`,
    /// else by the command in `TEGULA_WORKER_COMMAND` (words separated by spaces).
    pub fn new(config: &ExecutorConfig) -> Result<ProcessPool> {
        let workers = config.workers.unwrap_or_else(crate::default_threads);
        if !(1..=MAX_WORKERS).contains(&workers) {
            return Err(value_err!("num_workers must be between 1 and {MAX_WORKERS}, got {workers}"));
        }
        let command = match &config.worker_command {
            Some(command) => command.clone(),
            None => std::env::var("TEGULA_WORKER_COMMAND").unwrap_or_default().split_whitespace().map(String::from).collect(),
        };
        if command.is_empty() {
            return Err(value_err!("the process pool needs the command that starts a worker (TEGULA_WORKER_COMMAND)"));
        }
        Ok(ProcessPool { workers, command })
    }
}

/// A block held by the driver: a worker's file (in memory, or on disk when spilled), or a
/// chunk computed here.
#[derive(Debug, Clone)]
enum Held {
    File(Spilled, Place),
    Memory(Chunk),
    /// An output block a worker wrote straight into the caller's result.
    InPlace,
}

/// Where a fragment's outputs go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    Memory,
    Disk,
}

/// A fragment taken to run: its number, its inputs and how it runs.
struct Prepared {
    f: usize,
    inputs: Vec<Held>,
    job: Result<Job>,
}

/// How one fragment runs.
enum Job {
    Remote(Vec<u8>),
    Local(TaskGraph),
}

struct State {
    /// Which fragment starts next (the ready one of the least static rank of its last task:
    /// the threaded executor's order, so a block feeds its consumers before the next one is
    /// made) and which blocks no fragment reads any more (outputs are read at the end).
    dispatch: Dispatch,
    held: HashMap<TaskId, Held>,
    running: usize,
    /// Dispatchers waiting for a fragment to become ready.
    idle: usize,
    finished: usize,
    error: Option<TegulaError>,
    /// Bytes of blocks held in memory between fragments (and promised to running ones).
    held_bytes: usize,
    peak_held: usize,
    worker_peak: usize,
    spilled_bytes: usize,
    tasks_done: usize,
    /// Tasks already reported to the observer (free tasks run in several fragments).
    observed: Vec<bool>,
}

struct Run<'a> {
    pool: &'a ProcessPool,
    graph: &'a TaskGraph,
    cuts: Vec<FragmentCut>,
    /// Which fragments are short (`SMALL_FRAGMENT_BYTES` of work or less): while one runs,
    /// its dispatcher takes the next ahead, which then waits for it only briefly.
    short: Vec<bool>,
    /// Where the caller's arrays are shared with the workers, and the functions' bytes: what
    /// encoding a fragment, as its dispatcher takes it, needs.
    shared: SharedArrays,
    functions: FunctionBytes,
    blocks: SpillDir,
    disk: SpillDir,
    spec: &'a Spec,
    observer: Option<&'a dyn Observer>,
    /// Where the outputs go when they go straight to their arrays (`execute_into`), and
    /// which blocks workers write there themselves: output `o`'s block `b`, read by no
    /// fragment and in no other place of the outputs.
    sink: Option<&'a dyn OutputSink>,
    in_place: HashMap<TaskId, (usize, usize)>,
    start: Instant,
    state: Mutex<State>,
    changed: Condvar,
}

impl Executor for ProcessPool {
    fn execute(&self, graph: &TaskGraph, spec: &Spec, observer: Option<&dyn Observer>) -> Result<(Vec<Vec<Chunk>>, Report)> {
        self.run(graph, spec, observer, None, Run::finish)
    }

    /// Output blocks are written by the workers straight into the sink's arrays where it
    /// says where they lie (`OutputSink::place_of`), never into a file.
    fn execute_into(&self, graph: &TaskGraph, spec: &Spec, observer: Option<&dyn Observer>, sink: &dyn OutputSink) -> Result<Report> {
        self.run(graph, spec, observer, Some(sink), |run| run.finish_into(sink))
    }
}

impl ProcessPool {
    fn run<'a, R>(
        &'a self,
        graph: &'a TaskGraph,
        spec: &'a Spec,
        observer: Option<&'a dyn Observer>,
        sink: Option<&'a dyn OutputSink>,
        finish: impl FnOnce(Run<'a>) -> Result<R>,
    ) -> Result<R> {
        let parent = shared_parent(spec);
        let blocks = SpillDir::named(&parent, POOL_DIR);
        // The fragments and the tasks' order side by side: both only read the graph.
        let consumers = graph.consumers();
        let (cuts, rank) = std::thread::scope(|scope| {
            let rank = scope.spawn(|| static_order(graph, &consumers));
            (cut_for_workers(graph, &consumers, self.workers), rank.join())
        });
        let rank = rank.map_err(|_| internal_err!("ordering the plan's tasks panicked"))?;
        // A worker taken (started, the first time) says whether workers read this process's
        // memory; arrays are shared as files where they cannot.
        let probe = Worker::take(&self.command, &spec.cancel)?;
        let reads_caller = probe.reads_caller;
        probe.release(&self.command);
        let shared = SharedArrays::new(blocks.dir()?).read_in_place(reads_caller);
        let in_place = if sink.is_some() && reads_caller { written_in_place(graph, &cuts) } else { HashMap::new() };
        let run = Run { sink, in_place, ..Run::new(self, graph, (cuts, &rank), shared, [blocks, SpillDir::new(&spec.spill_dir)], spec, observer)? };
        std::thread::scope(|scope| {
            for index in 0..self.workers.min(run.cuts.len()) {
                let run = &run;
                scope.spawn(move || run.dispatch(index));
            }
        });
        finish(run)
    }
}

/// How often a caller waiting for a worker checks whether the computation was cancelled.
const CANCEL_CHECK_MS: i32 = 20;

/// The start of the names of the pool's directories (`tegula-pool-PID-N`).
const POOL_DIR: &str = "tegula-pool";

/// Where the blocks and arrays shared with workers live: memory (`/dev/shm`) where the
/// machine has it, else the spill directory.
fn shared_parent(spec: &Spec) -> PathBuf {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() { shm.to_path_buf() } else { spec.spill_dir.clone() }
}

fn job(graph: &TaskGraph, fragment: &FragmentCut, shared: &SharedArrays, functions: &FunctionBytes) -> Result<Job> {
    let sub = sub_graph(graph, fragment)?;
    match Fragment::resources_of(&sub, Some(shared), functions) {
        Ok(resources) => Ok(Job::Remote(Fragment::with_resources(sub, resources).to_bytes()?)),
        // What cannot leave the process runs in it (a store being written, a Python source).
        Err(TegulaError::Value(_)) => Ok(Job::Local(sub)),
        Err(e) => Err(e),
    }
}

impl<'a> Run<'a> {
    fn new(
        pool: &'a ProcessPool,
        graph: &'a TaskGraph,
        (cuts, rank): (Vec<FragmentCut>, &[usize]),
        shared: SharedArrays,
        [blocks, disk]: [SpillDir; 2],
        spec: &'a Spec,
        observer: Option<&'a dyn Observer>,
    ) -> Result<Run<'a>> {
        let priority: Vec<usize> = cuts.iter().map(|c| c.tasks.iter().map(|&t| rank[t]).max().unwrap_or(0)).collect();
        // Every worker takes a fragment as it is free: dispatch admits whatever is ready.
        let dispatched = cuts.iter().map(|c| DispatchJob { inputs: c.inputs.clone(), outputs: c.outputs.clone(), node: 0, need: 0 }).collect();
        let outputs = graph.outputs.iter().flat_map(|o| o.blocks.iter().copied());
        let dispatch = Dispatch::new(dispatched, outputs, Admission::Whole, None)?.with_order(Order::Ready(priority))?;
        let state = State {
            dispatch,
            held: HashMap::new(),
            running: 0,
            idle: 0,
            finished: 0,
            error: None,
            held_bytes: 0,
            peak_held: 0,
            worker_peak: 0,
            spilled_bytes: 0,
            tasks_done: 0,
            observed: vec![false; graph.tasks.len()],
        };
        let (sink, in_place) = (None, HashMap::new());
        let functions = FunctionBytes::default();
        let short = cuts.iter().map(|c| c.tasks.iter().map(|&t| work_bytes(graph, t)).sum::<usize>() <= SMALL_FRAGMENT_BYTES).collect();
        Ok(Run { pool, graph, cuts, short, shared, functions, blocks, disk, spec, observer, sink, in_place, start: Instant::now(), state: Mutex::new(state), changed: Condvar::new() })
    }

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, State>> {
        self.state.lock().map_err(|_| internal_err!("process pool state poisoned"))
    }

    /// One dispatcher per worker: takes ready fragments until all are done or one failed,
    /// encoding each as it takes it (the first starts while the others are still plain cuts,
    /// and two dispatchers encode side by side). While its worker runs a short one, it takes
    /// and encodes the next where no other dispatcher waits for one, so the worker starts it
    /// as soon as it answers.
    fn dispatch(&self, index: usize) {
        let mut worker: Option<Worker> = None;
        let mut ahead: Option<Prepared> = None;
        loop {
            let prepared = match ahead.take() {
                Some(prepared) => prepared,
                None => match self.next() {
                    Some(taken) => self.prepare(taken),
                    None => break,
                },
            };
            let Prepared { f, inputs, job } = prepared;
            let started = self.start.elapsed();
            let (result, place) = match job {
                Ok(job) => {
                    let place = self.place(f, &job);
                    let result = match &job {
                        Job::Remote(bytes) => {
                            let short = self.short[f];
                            self.remote(&mut worker, f, bytes, inputs, place, &mut || {
                                if short {
                                    ahead = self.take_ahead();
                                }
                            })
                        }
                        Job::Local(graph) => self.local(graph, inputs),
                    };
                    (result, place)
                }
                // Nothing was placed for it.
                Err(e) => (Err(e), Place::Disk),
            };
            self.record(f, index, started, place, result);
            // A fragment taken ahead of a failure ends unrun, as failed.
            if let Some(taken) = ahead.take_if(|_| self.failed()) {
                self.record(taken.f, index, self.start.elapsed(), Place::Disk, Err(TegulaError::Interrupted));
            }
        }
        if let Some(w) = worker {
            w.release(&self.pool.command);
        }
    }

    fn prepare(&self, (f, inputs): (usize, Vec<Held>)) -> Prepared {
        Prepared { f, inputs, job: job(self.graph, &self.cuts[f], &self.shared, &self.functions) }
    }

    /// The next ready fragment and its inputs, waiting while others run; `None` when done.
    fn next(&self) -> Option<(usize, Vec<Held>)> {
        let mut s = self.lock().ok()?;
        loop {
            if s.error.is_none() && self.spec.cancel.is_set() {
                s.error = Some(TegulaError::Interrupted);
            }
            if s.error.is_some() || s.finished == self.cuts.len() {
                self.changed.notify_all();
                return None;
            }
            if let Some(taken) = self.take(&mut s) {
                return Some(taken);
            }
            if s.error.is_some() {
                continue;
            }
            s.idle += 1;
            s = self.changed.wait(s).ok()?;
            s.idle -= 1;
        }
    }

    /// A ready fragment, prepared, where no dispatcher waits for one and nothing failed.
    fn take_ahead(&self) -> Option<Prepared> {
        let taken = {
            let mut s = self.lock().ok()?;
            if s.error.is_some() || s.idle > 0 || self.spec.cancel.is_set() {
                return None;
            }
            self.take(&mut s)?
        };
        Some(self.prepare(taken))
    }

    /// The ready fragment to start next and its inputs, counted as running (`None`, and the
    /// computation failed, where an input is missing).
    fn take(&self, s: &mut State) -> Option<(usize, Vec<Held>)> {
        let f = s.dispatch.start()?;
        let Some(inputs) = self.cuts[f].inputs.iter().map(|t| s.held.get(t).cloned()).collect::<Option<Vec<_>>>() else {
            s.error.get_or_insert(internal_err!("fragment {f} is ready but an input is missing"));
            return None;
        };
        s.running += 1;
        Some((f, inputs))
    }

    fn failed(&self) -> bool {
        self.lock().map_or(true, |s| s.error.is_some())
    }

    /// Where fragment `f`'s outputs go: memory while the blocks held stay under half the
    /// budget (always, for a fragment run here), else the spill directory.
    fn place(&self, f: usize, job: &Job) -> Place {
        let Ok(mut s) = self.lock() else { return Place::Disk };
        let bytes = self.output_bytes(f);
        if matches!(job, Job::Local(_)) || s.held_bytes + bytes <= self.spec.memory / 2 {
            s.held_bytes += bytes;
            s.peak_held = s.peak_held.max(s.held_bytes);
            Place::Memory
        } else {
            Place::Disk
        }
    }

    fn output_bytes(&self, f: usize) -> usize {
        self.cuts[f].outputs.iter().map(|&t| self.graph.tasks[t].nbytes()).sum()
    }

    /// Runs fragment `f` on the dispatcher's worker; `meanwhile` is called once, while the
    /// worker runs it.
    fn remote(&self, worker: &mut Option<Worker>, f: usize, fragment: &[u8], inputs: Vec<Held>, place: Place, meanwhile: &mut dyn FnMut()) -> Result<(Vec<Held>, Done)> {
        // Blocks computed here go to the worker in the request where small, else to files
        // deleted once it answered.
        let mut written = Vec::new();
        let mut given = Vec::with_capacity(inputs.len());
        for (k, held) in inputs.into_iter().enumerate() {
            match held {
                Held::File(file, _) => given.push(Sent::File(file)),
                Held::Memory(chunk) => match InlineBlock::of(&chunk, INLINE_BYTES) {
                    Some(inline) => given.push(Sent::Inline(inline)),
                    None => {
                        let file = Spilled::write(self.blocks.dir()?.join(format!("in-{f}-{k}.raw")), &chunk)?;
                        written.push(file.clone());
                        given.push(Sent::File(file));
                    }
                },
                Held::InPlace => return Err(internal_err!("a fragment reads a block written into the result")),
            }
        }
        let answer = self.call(worker, f, fragment, given, place, meanwhile);
        written.into_iter().for_each(|file| self.blocks.remove(file));
        answer
    }

    fn call(&self, worker: &mut Option<Worker>, f: usize, fragment: &[u8], inputs: Vec<Sent>, place: Place, meanwhile: &mut dyn FnMut()) -> Result<(Vec<Held>, Done)> {
        let mut meanwhile = Some(meanwhile);
        let memory = (self.spec.memory / 2 / self.pool.workers).max(1);
        let out_dir = if place == Place::Memory { &self.blocks } else { &self.disk };
        for attempt in 0..ATTEMPTS {
            let out_prefix = out_dir.dir()?.join(format!("out-{f}-{attempt}")).to_string_lossy().into_owned();
            let places = self.places(f)?;
            // Outputs placed on disk go there, whatever their size.
            let inline_bytes = if place == Place::Memory { INLINE_BYTES } else { 0 };
            let request = Request { inputs: inputs.clone(), out_prefix, places, inline_bytes, memory, spill_dir: self.spec.spill_dir.clone() };
            let bytes = postcard::to_stdvec(&request).map_err(|e| internal_err!("encoding a request: {e}"))?;
            let w = match worker {
                Some(w) => w,
                None => worker.insert(Worker::take(&self.pool.command, &self.spec.cancel)?),
            };
            match w.call(&bytes, fragment, &self.spec.cancel, meanwhile.take()) {
                Err(TegulaError::Interrupted) => {
                    worker.take();
                    return Err(TegulaError::Interrupted);
                }
                Ok(answer) => {
                    let response: Response = postcard::from_bytes(&answer).map_err(|e| internal_err!("a worker's answer: {e}"))?;
                    let mut done = response?;
                    let sent = std::mem::take(&mut done.outputs);
                    let held = self.cuts[f].outputs.iter().zip(sent).map(|(&t, sent)| self.held(t, sent, place)).collect::<Result<_>>()?;
                    return Ok((held, done));
                }
                // The worker died (killed, out of memory): start another, run the fragment again.
                Err(_) => {
                    if let Some(dead) = worker.take() {
                        dead.kill();
                    }
                }
            }
        }
        Err(TegulaError::Io(format!("worker processes died {ATTEMPTS} times running one fragment of the plan")))
    }

    /// Where in the caller's memory each output of fragment `f` goes, where it goes there.
    fn places(&self, f: usize) -> Result<Vec<Option<CallerRegion>>> {
        let Some(sink) = self.sink else { return Ok(vec![]) };
        let place = |t: &TaskId| self.in_place.get(t).map_or(Ok(None), |&(o, b)| sink.place_of(o, b));
        self.cuts[f].outputs.iter().map(place).collect()
    }

    /// What the driver holds of output `t` of a fragment a worker ran: its file, the block
    /// itself where it came in the answer, or nothing once the worker wrote it into its array
    /// (which then counts it as written).
    fn held(&self, t: TaskId, sent: Sent, place: Place) -> Result<Held> {
        match (sent, self.sink, self.in_place.get(&t)) {
            (Sent::File(file), _, _) => Ok(Held::File(file, place)),
            (Sent::Inline(block), _, _) => block.to_chunk().map(Held::Memory),
            (Sent::InPlace, Some(sink), Some(&(o, b))) => sink.written_in_place(o, b).map(|()| Held::InPlace),
            (Sent::InPlace, ..) => Err(internal_err!("a worker wrote block {t} into a place it was not given")),
        }
    }

    fn local(&self, graph: &TaskGraph, inputs: Vec<Held>) -> Result<(Vec<Held>, Done)> {
        let given = inputs
            .into_iter()
            .map(|held| match held {
                Held::File(file, _) => file.read(),
                Held::Memory(chunk) => Ok(chunk),
                Held::InPlace => Err(internal_err!("a fragment reads a block written into the result")),
            })
            .collect::<Result<Vec<_>>>()?;
        let spec = Spec { memory: (self.spec.memory / 2).max(1), ..self.spec.clone() };
        let (blocks, report) = run_fragment(graph, &given, 1, &spec, None)?;
        let done = Done { outputs: vec![], peak_bytes: report.peak_bytes, spilled_bytes: report.spilled_bytes };
        Ok((blocks.into_iter().map(Held::Memory).collect(), done))
    }

    fn record(&self, f: usize, worker: usize, started: std::time::Duration, place: Place, result: Result<(Vec<Held>, Done)>) {
        let Ok(mut s) = self.lock() else { return };
        s.running -= 1;
        s.finished += 1;
        if place == Place::Memory && result.is_err() {
            s.held_bytes -= self.output_bytes(f);
        }
        match result {
            Err(e) => {
                s.error.get_or_insert(e);
            }
            Ok((outputs, done)) => {
                let cut = &self.cuts[f];
                // Blocks written into the result take none of the driver's memory or disk.
                let in_place: usize = cut.outputs.iter().zip(&outputs).filter(|(_, h)| matches!(h, Held::InPlace)).map(|(&t, _)| self.graph.tasks[t].nbytes()).sum();
                s.worker_peak = s.worker_peak.max(done.peak_bytes);
                s.spilled_bytes += done.spilled_bytes + if place == Place::Disk { self.output_bytes(f) - in_place } else { 0 };
                if place == Place::Memory {
                    s.held_bytes -= in_place;
                }
                for (&t, held) in cut.outputs.iter().zip(outputs) {
                    s.held.insert(t, held);
                }
                match s.dispatch.ended(f, &[]) {
                    Ok(ended) => ended.let_go.into_iter().for_each(|t| self.release(&mut s, t)),
                    Err(e) => {
                        s.error.get_or_insert(e);
                    }
                }
                self.observe(&mut s, cut, worker, started);
            }
        }
        self.changed.notify_all();
    }

    /// Block `t`, which no fragment reads any more, goes (its file, its bytes).
    fn release(&self, s: &mut State, t: TaskId) {
        let bytes = self.graph.tasks[t].nbytes();
        match s.held.remove(&t) {
            Some(Held::File(file, Place::Disk)) => self.disk.remove(file),
            Some(Held::File(file, Place::Memory)) => {
                self.blocks.remove(file);
                s.held_bytes -= bytes;
            }
            Some(Held::Memory(_)) => s.held_bytes -= bytes,
            Some(Held::InPlace) | None => {}
        }
    }

    fn observe(&self, s: &mut State, cut: &FragmentCut, worker: usize, start: std::time::Duration) {
        let Some(observer) = self.observer else { return };
        let end = self.start.elapsed();
        for &t in &cut.tasks {
            if std::mem::replace(&mut s.observed[t], true) {
                continue;
            }
            s.tasks_done += 1;
            let bytes = self.graph.tasks[t].nbytes();
            let event = TaskEvent { task: t, thread: worker, start, end, bytes, held: 0, on_disk: 0, done: s.tasks_done, total: self.graph.tasks.len() };
            observer.task_done(&event);
        }
    }

    /// The state once every fragment ended, or the error that stopped the computation.
    fn settled(&self) -> Result<std::sync::MutexGuard<'_, State>> {
        let mut s = self.lock()?;
        match s.error.take() {
            Some(e) => Err(e),
            None => Ok(s),
        }
    }

    fn finish(self) -> Result<(Vec<Vec<Chunk>>, Report)> {
        let s = self.settled()?;
        let outputs = self
            .graph
            .outputs
            .iter()
            .map(|o| {
                o.blocks
                    .iter()
                    .map(|t| self.output_block(&s, *t))
                    .collect::<Result<Vec<_>>>()
            })
            .collect::<Result<Vec<_>>>()?;
        Ok((outputs, self.report(&s)))
    }

    /// `finish`, putting every output block not yet in its array into `sink`.
    fn finish_into(self, sink: &dyn OutputSink) -> Result<Report> {
        let s = self.settled()?;
        for (o, output) in self.graph.outputs.iter().enumerate() {
            for (b, &t) in output.blocks.iter().enumerate() {
                if !matches!(s.held.get(&t), Some(Held::InPlace)) {
                    sink.put(o, b, self.output_block(&s, t)?)?;
                }
            }
        }
        Ok(self.report(&s))
    }

    /// Output block `t`, read from where it is held.
    fn output_block(&self, s: &State, t: TaskId) -> Result<Chunk> {
        match s.held.get(&t) {
            Some(Held::File(file, _)) => file.read(),
            Some(Held::Memory(chunk)) => to_host(self.graph.tasks[t].device, chunk.clone()),
            Some(Held::InPlace) => Err(internal_err!("output task {t} was written into an array already")),
            None => Err(internal_err!("output task {t} has no result")),
        }
    }

    /// Blocks held between fragments, and the largest worker's own peak.
    fn report(&self, s: &State) -> Report {
        Report {
            tasks: self.graph.tasks.len(),
            peak_bytes: s.peak_held + s.worker_peak,
            projected_peak_bytes: s.peak_held + s.worker_peak,
            spilled_bytes: s.spilled_bytes,
            budget: self.spec.memory,
            device_peaks: vec![s.peak_held + s.worker_peak],
            cluster: None,
        }
    }
}

/// The output blocks workers write straight into their arrays, as `(output, block)`: those
/// no fragment reads and that stand in one place of the outputs only.
fn written_in_place(graph: &TaskGraph, cuts: &[FragmentCut]) -> HashMap<TaskId, (usize, usize)> {
    let read: std::collections::HashSet<TaskId> = cuts.iter().flat_map(|c| c.inputs.iter().copied()).collect();
    let mut places: HashMap<TaskId, Option<(usize, usize)>> = HashMap::new();
    for (o, output) in graph.outputs.iter().enumerate() {
        for (b, &t) in output.blocks.iter().enumerate() {
            // A block in two places of the outputs is put into each by `put`.
            places.entry(t).and_modify(|p| *p = None).or_insert(Some((o, b)));
        }
    }
    places.into_iter().filter_map(|(t, p)| Some((t, p?))).filter(|(t, _)| !read.contains(t) && graph.tasks[*t].device == DeviceId::CPU).collect()
}

/// What a new worker finds in `PROBE_VARIABLE`: this process's probe, or nothing where
/// `TEGULA_SHARE_ARRAYS=files` asks for arrays and results to pass through files.
fn probe_variable() -> String {
    match std::env::var("TEGULA_SHARE_ARRAYS") {
        Ok(how) if how == "files" => String::new(),
        _ => Probe::here().to_variable(),
    }
}

/// A worker process and the pipes to it.
struct Worker {
    child: Child,
    input: BufWriter<ChildStdin>,
    output: BufReader<ChildStdout>,
    /// Whether it reads this process's memory (it said so when it started).
    reads_caller: bool,
}

/// A worker not in use and the command that started it.
type Idle = (Vec<String>, Worker);

/// Workers not in use: kept for the next computation.
static IDLE: OnceLock<Mutex<Vec<Idle>>> = OnceLock::new();

impl Worker {
    /// An idle worker started by `command`, or a new one.
    fn take(command: &[String], cancel: &Cancel) -> Result<Worker> {
        let idle = IDLE.get_or_init(Default::default);
        if let Ok(mut idle) = idle.lock() {
            while let Some(i) = idle.iter().position(|(c, _)| c == command) {
                let (_, mut w) = idle.swap_remove(i);
                if matches!(w.child.try_wait(), Ok(None)) {
                    return Ok(w);
                }
                let _ = w.child.wait();
            }
        }
        Worker::start(command, cancel)
    }

    /// A new worker, once it said whether it reads this process's memory.
    fn start(command: &[String], cancel: &Cancel) -> Result<Worker> {
        let (program, args) = command.split_first().ok_or_else(|| value_err!("an empty worker command"))?;
        let mut child = Command::new(program)
            .args(args)
            .env(PROBE_VARIABLE, probe_variable())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| TegulaError::Io(format!("cannot start a worker process ({program}): {e}")))?;
        let (Some(input), Some(output)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(internal_err!("a worker process without pipes"));
        };
        let mut worker = Worker { child, input: BufWriter::new(input), output: BufReader::new(output), reads_caller: false };
        worker.wait_for_answer(cancel)?;
        let hello = read_frame(&mut worker.output)?.ok_or_else(|| TegulaError::Io(format!("a worker process ({program}) ended as it started")))?;
        worker.reads_caller = postcard::from_bytes(&hello).map_err(|e| internal_err!("a worker's greeting: {e}"))?;
        Ok(worker)
    }

    /// Sends a request and its fragment, calls `meanwhile` (where given), and waits for the
    /// answer; an error means the worker is gone (or, as `Interrupted`, was killed because
    /// `cancel` was set).
    fn call(&mut self, request: &[u8], fragment: &[u8], cancel: &Cancel, meanwhile: Option<&mut dyn FnMut()>) -> Result<Vec<u8>> {
        write_frames(&mut self.input, &[request, fragment])?;
        if let Some(meanwhile) = meanwhile {
            meanwhile();
        }
        self.wait_for_answer(cancel)?;
        read_frame(&mut self.output)?.ok_or_else(|| TegulaError::Io("a worker process ended".into()))
    }

    /// Waits until the worker's answer (or its end) can be read; kills the worker once
    /// `cancel` is set, since the fragment it runs may never end (user code that never returns).
    fn wait_for_answer(&mut self, cancel: &Cancel) -> Result<()> {
        use std::os::fd::AsRawFd;
        if !self.output.buffer().is_empty() {
            return Ok(());
        }
        let mut pipe = libc::pollfd { fd: self.output.get_ref().as_raw_fd(), events: libc::POLLIN, revents: 0 };
        loop {
            if cancel.is_set() {
                let _ = self.child.kill();
                let _ = self.child.wait();
                return Err(TegulaError::Interrupted);
            }
            // SAFETY: one valid pollfd, for the duration of the call.
            match unsafe { libc::poll(&mut pipe, 1, CANCEL_CHECK_MS) } {
                0 => {}
                n if n > 0 => return Ok(()),
                _ if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted => {}
                _ => return Err(TegulaError::Io(format!("waiting for a worker process: {}", std::io::Error::last_os_error()))),
            }
        }
    }

    fn release(self, command: &[String]) {
        if let Ok(mut idle) = IDLE.get_or_init(Default::default).lock() {
            idle.push((command.to_vec(), self));
        }
    }

    fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
