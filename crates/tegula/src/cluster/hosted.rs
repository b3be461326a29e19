//! An executor over a distributed engine (Ray, dask.distributed, or one of a Rust user's): the
//! engine is a [`ClusterRunner`] that only ships fragments and moves bytes; planning the
//! computation for the nodes there are, running it again when nodes it was placed on leave,
//! joining the output blocks and reporting happen here, once for every engine.

use super::plan::{ClusterPlan, Nodes};
use tegula_exec::ClusterReport;
use tegula_plan::placement::Simulation;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tegula_core::{Result, Spec, TegulaError};
use tegula_exec::{register_executor, Executor, ExecutorConfig, MakeExecutor, Observer, Report, TaskEvent, TransferEvent};
use tegula_kernels::Chunk;
use tegula_plan::{TaskGraph, TaskId};

/// A distributed engine that runs a [`ClusterPlan`]'s fragments on the nodes it places them on,
/// each with [`tegula_exec::run_fragment`], moving the blocks between them.
pub trait ClusterRunner: Send + Sync {
    /// The cluster's nodes now: how many (at most `workers` when the caller said), and the
    /// bytes each may hold (`None`: the computation's memory budget).
    fn nodes(&self, workers: Option<usize>) -> Result<(usize, Option<usize>)>;

    /// Runs `plan`, telling `progress` as each fragment ends. `None` when nodes it placed work
    /// on left before it ended: the computation is then planned again for the nodes there are.
    fn run(&self, plan: ClusterPlan, progress: &FragmentProgress) -> Result<Option<RunnerOutput>>;
}

/// What a [`ClusterRunner`] gives back from a plan it ran.
#[derive(Debug, Default)]
pub struct RunnerOutput {
    /// The block of each task of `ClusterPlan::outputs`.
    pub blocks: HashMap<TaskId, Chunk>,
    /// What the engine measured of each node (`None`: nothing; the simulation is reported).
    pub measured: Option<Simulation>,
}

/// How many times a computation is planned for the cluster's nodes, when its runner reports
/// that nodes it was placed on left before it ended.
const PLANS: usize = 4;

/// The executor over `runner`: what [`register_hosted_executor`] registers, or what a
/// `ComputeOptions::executor` may be.
pub struct HostedExecutor {
    runner: Arc<dyn ClusterRunner>,
    workers: Option<usize>,
}

impl std::fmt::Debug for HostedExecutor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "HostedExecutor {{ workers: {:?} }}", self.workers)
    }
}

/// Registers `runner` as the executor named `name` (`ComputeOptions::scheduler`), so every
/// computation, stored ones included, reaches the engine as it reaches the native executors.
pub fn register_hosted_executor(name: &str, runner: Arc<dyn ClusterRunner>) -> Result<()> {
    let make: MakeExecutor = Arc::new(move |config: &ExecutorConfig| {
        let executor: Arc<dyn Executor> = Arc::new(HostedExecutor::new(Arc::clone(&runner), config.workers));
        Ok(executor)
    });
    register_executor(name, make)
}

impl Executor for HostedExecutor {
    fn execute(&self, graph: &TaskGraph, spec: &Spec, observer: Option<&dyn Observer>) -> Result<(Vec<Vec<Chunk>>, Report)> {
        for _ in 0..PLANS {
            if let Some(done) = self.attempt(graph, spec, observer)? {
                return Ok(done);
            }
        }
        Err(TegulaError::Io(format!("nodes of the cluster left during each of {PLANS} attempts at the computation")))
    }
}

impl HostedExecutor {
    /// The executor over `runner`, using at most `workers` of its nodes (`None`: all).
    pub fn new(runner: Arc<dyn ClusterRunner>, workers: Option<usize>) -> HostedExecutor {
        HostedExecutor { runner, workers }
    }

    /// Plans `graph` for the cluster's nodes and runs it; `None` when the runner reports that
    /// nodes the plan placed work on have left (the plan no longer fits the cluster).
    fn attempt(&self, graph: &TaskGraph, spec: &Spec, observer: Option<&dyn Observer>) -> Result<Option<(Vec<Vec<Chunk>>, Report)>> {
        let (count, memory) = self.runner.nodes(self.workers)?;
        let nodes = Nodes { count, memory: memory.unwrap_or(spec.memory) };
        let plan = ClusterPlan::new(graph.clone(), nodes)?;
        let simulated = plan.simulation.clone();
        let progress = FragmentProgress::new(observer, &plan, graph);
        let Some(RunnerOutput { mut blocks, measured }) = self.runner.run(plan, &progress)? else {
            return Ok(None);
        };
        let mut chunks = Vec::with_capacity(graph.outputs.len());
        for output in &graph.outputs {
            let of = |t: &TaskId| blocks.remove(t).ok_or_else(|| TegulaError::Io(format!("the cluster gave no block for task {t}")));
            chunks.push(output.blocks.iter().map(of).collect::<Result<Vec<_>>>()?);
        }
        let largest_peak = |sim: &Simulation| sim.nodes.iter().map(|n| n.peak_bytes).max().unwrap_or(0);
        let projected = largest_peak(&simulated);
        let peak = measured.as_ref().map_or(projected, largest_peak);
        let report = Report {
            tasks: graph.tasks.len(),
            peak_bytes: peak,
            projected_peak_bytes: projected,
            spilled_bytes: 0,
            budget: nodes.memory,
            device_peaks: vec![peak],
            cluster: Some(ClusterReport { simulated, measured }),
        };
        Ok(Some((chunks, report)))
    }
}

/// What a [`ClusterRunner`] tells as fragments end: each task of the caller's plan a fragment
/// ran becomes a task event for the computation's observer (its progress bar, its trace, its
/// live view), the node in place of the thread, once (a free task copied into several
/// fragments counts where it first ended). The blocks the caller gives count as done on their
/// nodes when the run starts. The blocks a fragment was given from other nodes (where their
/// makers ran, or where the caller's blocks were placed) are told as transfers.
pub struct FragmentProgress<'a> {
    observer: Option<&'a dyn Observer>,
    /// The caller's tasks each fragment runs (not those the cluster plan adds).
    tasks: Vec<Vec<TaskId>>,
    bytes: Vec<usize>,
    /// Which tasks were reported, and how many.
    reported: Mutex<(Vec<bool>, usize)>,
    /// Where each block a fragment is given comes from: its maker, by fragment, or the
    /// caller's node.
    sources: Sources,
    /// Seconds since the epoch when the computation started.
    start: f64,
}

/// Where the blocks fragments are given are made, and how big they are.
struct Sources {
    inputs: Vec<Vec<TaskId>>,
    made_by: HashMap<TaskId, usize>,
    given: HashMap<TaskId, usize>,
    bytes: Vec<usize>,
    /// The node each fragment ran on (where it was placed, until it has run), and the blocks
    /// each node was given already (a node keeps a block its fragments read again).
    ran_on: Mutex<Delivered>,
}

/// The node each fragment ran on, and the (block, node) pairs delivered.
type Delivered = (Vec<usize>, HashSet<(TaskId, usize)>);

impl Sources {
    fn new(plan: &ClusterPlan) -> Sources {
        let made_by = plan.fragments.iter().enumerate().flat_map(|(f, frag)| frag.outputs.iter().map(move |&t| (t, f))).collect();
        Sources {
            inputs: plan.fragments.iter().map(|f| f.inputs.clone()).collect(),
            made_by,
            given: plan.given().into_iter().collect(),
            bytes: plan.task_bytes(),
            ran_on: Mutex::new((plan.placement.fragment_node.clone(), HashSet::new())),
        }
    }

    /// Fragment `fragment` ran on `node`: the bytes it was given from each other node.
    fn received(&self, fragment: usize, node: usize) -> Vec<(usize, usize)> {
        let Ok(mut state) = self.ran_on.lock() else { return Vec::new() };
        let (ran_on, delivered) = &mut *state;
        if let Some(n) = ran_on.get_mut(fragment) {
            *n = node;
        }
        let mut from: Vec<(usize, usize)> = Vec::new();
        for &t in self.inputs.get(fragment).map_or(&[][..], |i| i.as_slice()) {
            let source = self.made_by.get(&t).and_then(|&f| ran_on.get(f).copied()).or_else(|| self.given.get(&t).copied());
            match source {
                Some(n) if n != node && delivered.insert((t, node)) => match from.iter_mut().find(|(m, _)| *m == n) {
                    Some((_, bytes)) => *bytes += self.bytes.get(t).copied().unwrap_or(0),
                    None => from.push((n, self.bytes.get(t).copied().unwrap_or(0))),
                },
                _ => {}
            }
        }
        from
    }
}

impl<'a> FragmentProgress<'a> {
    fn new(observer: Option<&'a dyn Observer>, plan: &ClusterPlan, graph: &TaskGraph) -> FragmentProgress<'a> {
        let tasks = plan.fragments.iter().map(|f| f.tasks.iter().copied().filter(|&t| t < graph.tasks.len()).collect()).collect();
        let bytes = graph.tasks.iter().map(|t| t.nbytes()).collect();
        let reported = Mutex::new((vec![false; graph.tasks.len()], 0));
        let progress = FragmentProgress { observer, tasks, bytes, reported, sources: Sources::new(plan), start: seconds_since_epoch() };
        for (task, node) in plan.given() {
            progress.report(&[task], node, progress.start, progress.start);
        }
        progress
    }

    /// Fragment `fragment` ran on `node` from `start` to `end` (seconds since the epoch).
    pub fn done(&self, fragment: usize, node: usize, start: f64, end: f64) {
        if let Some(tasks) = self.tasks.get(fragment) {
            self.report(tasks, node, start, end);
        }
        let Some(observer) = self.observer else { return };
        let at = Duration::from_secs_f64((start - self.start).max(0.0));
        for (from, bytes) in self.sources.received(fragment, node) {
            observer.transferred(&TransferEvent { from, to: node, at, bytes });
        }
    }

    fn report(&self, tasks: &[TaskId], node: usize, start: f64, end: f64) {
        let Some(observer) = self.observer else { return };
        let Ok(mut reported) = self.reported.lock() else { return };
        let (seen, done) = &mut *reported;
        let total = seen.len();
        let since = |t: f64| Duration::from_secs_f64((t - self.start).max(0.0));
        for &task in tasks {
            if task >= total || std::mem::replace(&mut seen[task], true) {
                continue;
            }
            *done += 1;
            let bytes = self.bytes[task];
            observer.task_done(&TaskEvent { task, thread: node, start: since(start), end: since(end), bytes, held: 0, on_disk: 0, done: *done, total });
        }
    }
}

fn seconds_since_epoch() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64())
}
