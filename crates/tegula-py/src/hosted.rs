//! Executors hosted by a distributed engine's Python API (Ray, dask.distributed): an `Executor` registered by
//! name from Python (`register_hosted_executor`), so every computation — `compute`, stores,
//! the ones operations run while built — reaches it as it reaches the native ones. The plan is
//! cut and placed here (`tegula::cluster::ClusterPlan`); the runner, a Python object, only ships it:
//! `runner.nodes(workers)` gives the node count and each node's memory (or None), then
//! `runner.run(plan, events)` runs the fragments, calls `events.done(fragment, node, start,
//! end)` as each ends, and returns the output blocks by task id and what it measured (or
//! None), or None alone when nodes it was placed on left: the computation is then planned
//! again for the nodes there are.

use crate::cluster::PyClusterPlan;
use crate::convert::chunk_handed_over;
use crate::errors::stash_error;
use pyo3::exceptions::{PyKeyError, PyRuntimeError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tegula::{Chunk, Result, cluster::{ClusterPlan, ClusterReport, NodeLoad, Nodes, Simulation}, execute::{Executor, ExecutorConfig, Observer, Report, Spec, TaskEvent, TaskGraph}};

/// Registers `runner` as the executor `compute(scheduler=name)` uses.
#[pyfunction]
pub fn register_hosted_executor(name: &str, runner: Py<PyAny>) -> PyResult<()> {
    let runner = Arc::new(runner);
    let make: tegula::execute::MakeExecutor = Arc::new(move |config: &ExecutorConfig| {
        let executor: Arc<dyn Executor> = Arc::new(Hosted { runner: Arc::clone(&runner), workers: config.workers });
        Ok(executor)
    });
    tegula::execute::register_executor(name, make).map_err(crate::errors::to_py)
}

struct Hosted {
    runner: Arc<Py<PyAny>>,
    workers: Option<usize>,
}

impl std::fmt::Debug for Hosted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Hosted {{ workers: {:?} }}", self.workers)
    }
}

impl Executor for Hosted {
    fn execute(&self, graph: &TaskGraph, spec: &Spec, observer: Option<&dyn Observer>) -> Result<(Vec<Vec<Chunk>>, Report)> {
        Python::attach(|py| self.run(py, graph, spec, observer).map_err(|e| stash_error(e, "the cluster executor")))
    }
}

/// How many times a computation is planned for the cluster's nodes, when its runner reports
/// that nodes it was placed on left before it ended.
const PLANS: usize = 4;

impl Hosted {
    fn run(&self, py: Python<'_>, graph: &TaskGraph, spec: &Spec, observer: Option<&dyn Observer>) -> PyResult<(Vec<Vec<Chunk>>, Report)> {
        for _ in 0..PLANS {
            if let Some(done) = self.attempt(py, graph, spec, observer)? {
                return Ok(done);
            }
        }
        Err(PyRuntimeError::new_err(format!("nodes of the cluster left during each of {PLANS} attempts at the computation")))
    }

    /// Plans `graph` for the cluster's nodes and runs it; None when the runner reports that
    /// nodes the plan placed work on have left (the plan no longer fits the cluster).
    fn attempt(&self, py: Python<'_>, graph: &TaskGraph, spec: &Spec, observer: Option<&dyn Observer>) -> PyResult<Option<(Vec<Vec<Chunk>>, Report)>> {
        let (count, memory): (usize, Option<usize>) = self.runner.call_method1(py, "nodes", (self.workers,))?.extract(py)?;
        let nodes = Nodes { count, memory: memory.unwrap_or(spec.memory) };
        let plan = py.detach(|| ClusterPlan::new(graph.clone(), nodes)).map_err(crate::errors::to_py)?;
        // The blocks of the caller's plan each fragment makes (not those a cluster plan adds).
        let outputs: Vec<Vec<usize>> = plan.fragments.iter().map(|f| f.outputs.iter().copied().filter(|&t| t < graph.tasks.len()).collect()).collect();
        let simulated = plan.simulation.clone();
        let events = Py::new(py, FragmentEvents::new(observer, outputs, graph))?;
        let _cleared = Cleared(events.clone_ref(py));
        let plan = Py::new(py, PyClusterPlan::from(plan))?;
        let answer = self.runner.call_method1(py, "run", (plan, events.clone_ref(py)))?;
        if answer.is_none(py) {
            return Ok(None);
        }
        let (blocks, measured): (HashMap<usize, Bound<'_, PyAny>>, Option<Bound<'_, PyDict>>) = answer.extract(py)?;
        let measured = measured.map(|m| measured_loads(&m)).transpose()?;
        let mut chunks = Vec::with_capacity(graph.outputs.len());
        for output in &graph.outputs {
            let of = |t: &usize| {
                let block = blocks.get(t).ok_or_else(|| pyo3::exceptions::PyRuntimeError::new_err(format!("no block for task {t}")))?;
                chunk_handed_over(block)
            };
            chunks.push(output.blocks.iter().map(of).collect::<PyResult<Vec<_>>>()?);
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

/// What a runner measured, from the dict it returns (the keys of `simulation_dict`).
fn measured_loads(measured: &Bound<'_, PyDict>) -> PyResult<Simulation> {
    let get = |d: &Bound<'_, PyDict>, key: &str| -> PyResult<usize> {
        d.get_item(key)?.ok_or_else(|| PyKeyError::new_err(format!("the runner's measurements lack {key:?}")))?.extract()
    };
    let node = |d: Bound<'_, PyDict>| -> PyResult<NodeLoad> {
        Ok(NodeLoad {
            fragments: get(&d, "fragments")?,
            bytes_made: get(&d, "bytes_made")?,
            bytes_in: get(&d, "bytes_in")?,
            bytes_out: get(&d, "bytes_out")?,
            peak_bytes: get(&d, "peak_bytes")?,
        })
    };
    let nodes: Vec<Bound<'_, PyDict>> = measured.get_item("nodes")?.map(|n| n.extract()).transpose()?.unwrap_or_default();
    Ok(Simulation {
        bytes_between_nodes: get(measured, "bytes_between_nodes")?,
        bytes_given: get(measured, "bytes_given")?,
        bytes_returned: get(measured, "bytes_returned")?,
        nodes: nodes.into_iter().map(node).collect::<PyResult<_>>()?,
    })
}

/// The observer of a running `execute`, reachable from Python while it runs.
#[derive(Clone, Copy)]
struct ObserverPtr(*const (dyn Observer + 'static));

// SAFETY: `Observer: Sync`, and the pointer is only dereferenced while `execute` (which
// borrows the observer) runs: `Cleared` takes it away before `execute` returns.
unsafe impl Send for ObserverPtr {}
unsafe impl Sync for ObserverPtr {}

/// What the runner calls as fragments end: each of a fragment's outputs becomes a task event
/// for the computation's observer (its progress bar, its trace), the node in place of the thread.
#[pyclass(frozen)]
pub struct FragmentEvents {
    observer: Mutex<Option<ObserverPtr>>,
    outputs: Vec<Vec<usize>>,
    bytes: Vec<usize>,
    done: AtomicUsize,
    total: usize,
    /// Seconds since the epoch when the computation started.
    start: f64,
}

impl FragmentEvents {
    fn new(observer: Option<&dyn Observer>, outputs: Vec<Vec<usize>>, graph: &TaskGraph) -> FragmentEvents {
        // SAFETY: only the lifetime is erased; see `ObserverPtr`.
        let observer = observer.map(|o| ObserverPtr(unsafe { std::mem::transmute::<&dyn Observer, &'static dyn Observer>(o) }));
        let total = outputs.iter().map(Vec::len).sum();
        let bytes = graph.tasks.iter().map(|t| t.nbytes()).collect();
        let start = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64());
        FragmentEvents { observer: Mutex::new(observer), outputs, bytes, done: AtomicUsize::new(0), total, start }
    }
}

#[pymethods]
impl FragmentEvents {
    /// Fragment `fragment` ran on `node` from `start` to `end` (seconds since the epoch).
    fn done(&self, fragment: usize, node: usize, start: f64, end: f64) {
        let Ok(observer) = self.observer.lock() else { return };
        let (Some(ObserverPtr(observer)), Some(outputs)) = (*observer, self.outputs.get(fragment)) else { return };
        let since = |t: f64| Duration::from_secs_f64((t - self.start).max(0.0));
        for &task in outputs {
            let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
            let bytes = self.bytes.get(task).copied().unwrap_or(0);
            let event = TaskEvent { task, thread: node, start: since(start), end: since(end), bytes, held: 0, on_disk: 0, done, total: self.total };
            // SAFETY: set only while `execute` runs (see `ObserverPtr`).
            unsafe { (*observer).task_done(&event) };
        }
    }
}

/// Takes the observer away from the events when dropped, so a runner keeping them cannot
/// reach it after `execute` returns.
struct Cleared(Py<FragmentEvents>);

impl Drop for Cleared {
    fn drop(&mut self) {
        if let Ok(mut observer) = self.0.get().observer.lock() {
            *observer = None;
        }
    }
}
