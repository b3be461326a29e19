//! Watching computations from Python: a progress callback, called every `interval` seconds by
//! the thread waiting for the computation (never per task), the trace of every task for an
//! execution report, and descriptions of plans for `explain` and pictures.

use crate::errors::IntoPy;
use crate::interrupt::{run_interruptible, Poll};
use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tegula::{Array, Chunk, ComputeOptions, execute::{Detail, Observer, Operation, PlanDescription, Progress, Report, TaskEvent, Trace, TraceCursor}};

/// What a watched computation returns: its arrays, its report, and when traced its events
/// with the description of the plan that ran.
pub type Watched<T = Vec<Chunk>> = (T, Report, Option<(Vec<TaskEvent>, Arc<PlanDescription>)>);

/// What a watched run returns before its events are collected.
type Observed<T> = tegula::Result<(T, Report, Option<Arc<PlanDescription>>)>;

/// How a computation is watched from Python: `progress(done, total, bytes, seconds)` called
/// every `interval` seconds while it runs and once at the end; `live(delta)` as often, with the
/// tasks and spills that ended since its last call (`live_dict`); `trace`: the events of every
/// task returned with the result. An exception either callback raises stops the computation
/// and is raised.
pub struct Watch {
    pub progress: Option<Py<PyAny>>,
    pub live: Option<Py<PyAny>>,
    pub interval: f64,
    pub trace: bool,
}

/// Computes `arrays` watched as `watch` says; Ctrl-C stops it too.
pub fn compute_watched(py: Python<'_>, arrays: &[Array], options: ComputeOptions, watch: Watch) -> PyResult<Watched> {
    let arrays = arrays.to_vec();
    run_watched(py, options, watch, move |options, observer, describe| {
        tegula::execute::compute_observed(&arrays.iter().collect::<Vec<_>>(), options, observer, describe)
    })
}

/// Persists `arrays` (see `tegula::execute::persist`), watched as `compute_watched` watches.
pub fn persist_watched(py: Python<'_>, arrays: &[Array], options: ComputeOptions, watch: Watch) -> PyResult<Watched<Vec<Array>>> {
    let arrays = arrays.to_vec();
    run_watched(py, options, watch, move |options, observer, describe| {
        tegula::execute::persist_observed(&arrays.iter().collect::<Vec<_>>(), options, observer, describe)
    })
}

/// Runs `run` under `options` (its spec resolved once, so the run holds the token this thread
/// sets on Ctrl-C) with the observers `watch` asks for.
fn run_watched<T: Send + 'static>(
    py: Python<'_>,
    options: ComputeOptions,
    watch: Watch,
    run: impl FnOnce(ComputeOptions, Option<&dyn Observer>, Detail) -> Observed<T> + Send + 'static,
) -> PyResult<Watched<T>> {
    let Watch { progress, live, interval, trace } = watch;
    // Shared with the computation's thread, which may outlive this call (see `interrupt.rs`).
    let counters = Arc::new(Progress::new());
    let tracer = Arc::new(Trace::new());
    let (counting, tracing) = (progress.is_some(), trace || live.is_some());
    let (counted, traced) = (counters.clone(), tracer.clone());
    let observed = move |options| {
        let both = tegula::execute::Both(&*counted, &*traced);
        let observer: Option<&dyn Observer> = match (counting, tracing) {
            (true, true) => Some(&both),
            (true, false) => Some(&*counted),
            (false, true) => Some(&*traced),
            (false, false) => None,
        };
        // A live view alone does without the static order and the projected peaks.
        let detail = match (trace, tracing) {
            (true, _) => Detail::Full,
            (false, true) => Detail::Operations,
            (false, false) => Detail::None,
        };
        run(options, observer, detail)
    };
    let started = Instant::now();
    let spec = options.spec().py()?;
    let cancel = spec.cancel.clone();
    let options = ComputeOptions { spec: Some(spec), ..options };
    let mut callback_error = None;
    let mut fed = LiveCursor::default();
    let mut call_watchers = || {
        if callback_error.is_some() {
            return;
        }
        let (done, total, bytes) = counters.snapshot();
        let seconds = started.elapsed().as_secs_f64();
        let called = Python::attach(|py| {
            if let Some(callback) = &progress {
                callback.call1(py, (done, total, bytes, seconds))?;
            }
            if let Some(callback) = &live {
                if let Some(delta) = fed.next(py, &tracer, seconds)? {
                    callback.call1(py, (delta,))?;
                }
            }
            PyResult::Ok(())
        });
        if let Err(e) = called {
            // Its exception is what the caller gets (Ctrl-C may arrive inside it), so the
            // computation's result is not needed.
            cancel.set();
            callback_error = Some(e);
        }
    };
    let watched = progress.is_some() || live.is_some();
    let poll = watched.then(|| Poll { every: Duration::from_secs_f64(interval.max(0.01)), call: &mut call_watchers });
    let result = run_interruptible(py, &cancel, poll, move || observed(options))?;
    let (out, report, description) = result.py()?;
    if let Some(e) = callback_error {
        return Err(e);
    }
    let traced = trace.then_some(description).flatten().map(|d| (tracer.events(), d));
    Ok((out, report, traced))
}

/// How much of a running computation's trace a live view was given.
#[derive(Default)]
struct LiveCursor {
    seen: TraceCursor,
    planned: bool,
}

/// The latest tasks a hand-over to a live view names one by one (the others are counted).
const LIVE_LATEST: usize = 2000;

impl LiveCursor {
    /// The tasks and spills that ended since the last call, summed up (`Trace::delta`; `None`
    /// before the plan is known): `ended` (how many tasks), `operation_done` and
    /// `operation_bytes` (tasks and bytes made per operation), the latest tasks' `thread`,
    /// `operation`, `start` and `end` (at most `LIVE_LATEST`), `held_at`, `held` and `on_disk`
    /// after the one that left the most memory held, the spills' `spill_thread`,
    /// `spill_start`, `spill_end` and `spill_bytes`, the transfers between nodes'
    /// `transfer_from`, `transfer_to`, `transfer_at` and `transfer_bytes`, `seconds` since the
    /// computation started;
    /// in the first only, `operations`, `tasks` (the plan's count), `ordered` (whether the
    /// operations have their projected peaks) and `trace`, the computation's `_Trace`.
    fn next<'py>(&mut self, py: Python<'py>, trace: &Arc<Trace>, seconds: f64) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(plan) = trace.plan() else { return Ok(None) };
        let Some(delta) = trace.delta(&mut self.seen, LIVE_LATEST) else { return Ok(None) };
        let out = PyDict::new(py);
        if !std::mem::replace(&mut self.planned, true) {
            out.set_item("operations", operations_list(py, &plan.operations)?)?;
            out.set_item("tasks", plan.task_operation.len())?;
            out.set_item("ordered", !plan.rank.is_empty() || plan.task_operation.is_empty())?;
            out.set_item("trace", PyTrace { trace: trace.clone() })?;
        }
        out.set_item("ended", delta.ended)?;
        out.set_item("operation_done", PyArray1::from_vec(py, delta.per_operation.iter().map(|p| p.0 as u64).collect()))?;
        out.set_item("operation_bytes", PyArray1::from_vec(py, delta.per_operation.iter().map(|p| p.1 as u64).collect()))?;
        let latest = &delta.latest;
        out.set_item("thread", PyArray1::from_vec(py, latest.iter().map(|e| e.thread as u64).collect()))?;
        out.set_item("operation", PyArray1::from_vec(py, latest.iter().map(|e| plan.task_operation.get(e.task).map_or(0, |&o| o as u64)).collect()))?;
        out.set_item("start", PyArray1::from_vec(py, latest.iter().map(|e| e.start.as_secs_f64()).collect()))?;
        out.set_item("end", PyArray1::from_vec(py, latest.iter().map(|e| e.end.as_secs_f64()).collect()))?;
        if let Some(e) = delta.most_held {
            out.set_item("held_at", e.end.as_secs_f64())?;
            out.set_item("held", e.held)?;
            out.set_item("on_disk", e.on_disk)?;
        }
        let spills = &delta.spills;
        out.set_item("spill_thread", spills.iter().map(|e| e.thread).collect::<Vec<_>>())?;
        out.set_item("spill_start", spills.iter().map(|e| e.start.as_secs_f64()).collect::<Vec<_>>())?;
        out.set_item("spill_end", spills.iter().map(|e| e.end.as_secs_f64()).collect::<Vec<_>>())?;
        out.set_item("spill_bytes", spills.iter().map(|e| e.bytes).collect::<Vec<_>>())?;
        let moved = &delta.transfers;
        out.set_item("transfer_from", moved.iter().map(|e| e.from).collect::<Vec<_>>())?;
        out.set_item("transfer_to", moved.iter().map(|e| e.to).collect::<Vec<_>>())?;
        out.set_item("transfer_at", moved.iter().map(|e| e.at.as_secs_f64()).collect::<Vec<_>>())?;
        out.set_item("transfer_bytes", moved.iter().map(|e| e.bytes).collect::<Vec<_>>())?;
        out.set_item("seconds", seconds)?;
        Ok(Some(out))
    }
}

/// A computation's trace, kept for a live view to show afterwards: its events become columns
/// only when asked for.
#[pyclass(name = "_Trace", module = "tegula._tegula", frozen)]
pub struct PyTrace {
    trace: Arc<Trace>,
}

#[pymethods]
impl PyTrace {
    /// The number of task events kept.
    fn __len__(&self) -> usize {
        self.trace.len()
    }

    /// The events as columns, with the plan's operations (`trace_dict`).
    fn columns<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let plan = self.trace.plan().ok_or_else(|| pyo3::exceptions::PyValueError::new_err("the computation was never planned"))?;
        trace_dict(py, &self.trace.events(), &plan)
    }
}

/// The trace of a computation as columns of NumPy arrays (times in seconds), with the plan's
/// operations and each task's operation index.
pub fn trace_dict<'py>(py: Python<'py>, events: &[TaskEvent], plan: &PlanDescription) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    let column = |f: fn(&TaskEvent) -> usize| PyArray1::from_vec(py, events.iter().map(|e| f(e) as u64).collect());
    let seconds = |f: fn(&TaskEvent) -> Duration| PyArray1::from_vec(py, events.iter().map(|e| f(e).as_secs_f64()).collect());
    out.set_item("task", column(|e| e.task))?;
    out.set_item("thread", column(|e| e.thread))?;
    out.set_item("start", seconds(|e| e.start))?;
    out.set_item("end", seconds(|e| e.end))?;
    out.set_item("bytes", column(|e| e.bytes))?;
    out.set_item("held", column(|e| e.held))?;
    out.set_item("on_disk", column(|e| e.on_disk))?;
    out.set_item("operation", PyArray1::from_vec(py, events.iter().map(|e| plan.task_operation.get(e.task).map_or(0, |&o| o as u64)).collect()))?;
    out.set_item("operations", operations_list(py, &plan.operations)?)?;
    Ok(out)
}

/// A plan described for Python: its operations, and per task its operation, static rank,
/// kernel name, inputs and result bytes.
pub fn plan_dict<'py>(py: Python<'py>, plan: &PlanDescription, graph: &tegula::execute::TaskGraph) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    out.set_item("operations", operations_list(py, &plan.operations)?)?;
    out.set_item("task_operation", PyArray1::from_vec(py, plan.task_operation.iter().map(|&i| i as u64).collect()))?;
    out.set_item("rank", PyArray1::from_vec(py, plan.rank.iter().map(|&i| i as u64).collect()))?;
    out.set_item("task_label", PyList::new(py, graph.tasks.iter().map(|t| t.op.label()))?)?;
    out.set_item("task_inputs", PyList::new(py, graph.tasks.iter().map(|t| t.inputs.clone()))?)?;
    out.set_item("task_bytes", PyArray1::from_vec(py, graph.tasks.iter().map(|t| t.nbytes() as u64).collect()))?;
    out.set_item("projected_peak", plan.projected_peak)?;
    Ok(out)
}

fn operations_list<'py>(py: Python<'py>, operations: &[Operation]) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for op in operations {
        let d = PyDict::new(py);
        d.set_item("label", &op.label)?;
        d.set_item("inputs", op.inputs.clone())?;
        d.set_item("shape", op.shape.clone())?;
        d.set_item("dtype", op.dtype.to_string())?;
        d.set_item("chunk_shape", op.chunk_shape.clone())?;
        d.set_item("blocks", op.blocks)?;
        d.set_item("tasks", op.tasks)?;
        d.set_item("fused", op.fused.clone())?;
        d.set_item("bytes_read", op.bytes_read)?;
        d.set_item("bytes_written", op.bytes_written)?;
        d.set_item("peak", op.peak)?;
        d.set_item("kind", op.kind)?;
        list.append(d)?;
    }
    Ok(list)
}
