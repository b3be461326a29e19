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
use tegula::{Array, Chunk, ComputeOptions, execute::{Observer, Operation, PlanDescription, Progress, Report, TaskEvent, Trace}};

/// What a watched computation returns: its arrays, its report, and when traced its events
/// with the description of the plan that ran.
pub type Watched<T = Vec<Chunk>> = (T, Report, Option<(Vec<TaskEvent>, PlanDescription)>);

/// What a watched run returns before its events are collected.
type Observed<T> = tegula::Result<(T, Report, Option<PlanDescription>)>;

/// Computes `arrays`; `progress(done, total, bytes, seconds)` is called every `interval`
/// seconds while it runs and once at the end (an exception it raises stops the computation
/// and is raised); Ctrl-C stops it too.
pub fn compute_watched(
    py: Python<'_>,
    arrays: &[Array],
    options: ComputeOptions,
    progress: Option<Py<PyAny>>,
    interval: f64,
    trace: bool,
) -> PyResult<Watched> {
    let arrays = arrays.to_vec();
    run_watched(py, options, progress, interval, trace, move |options, observer| {
        tegula::execute::compute_observed(&arrays.iter().collect::<Vec<_>>(), options, observer, trace)
    })
}

/// Persists `arrays` (see `tegula::execute::persist`), watched as `compute_watched` watches.
pub fn persist_watched(
    py: Python<'_>,
    arrays: &[Array],
    options: ComputeOptions,
    progress: Option<Py<PyAny>>,
    interval: f64,
    trace: bool,
) -> PyResult<Watched<Vec<Array>>> {
    let arrays = arrays.to_vec();
    run_watched(py, options, progress, interval, trace, move |options, observer| {
        tegula::execute::persist_observed(&arrays.iter().collect::<Vec<_>>(), options, observer, trace)
    })
}

/// Runs `run` under `options` (its spec resolved once, so the run holds the token this thread
/// sets on Ctrl-C) with the observers `progress` and `trace` ask for.
fn run_watched<T: Send + 'static>(
    py: Python<'_>,
    options: ComputeOptions,
    progress: Option<Py<PyAny>>,
    interval: f64,
    trace: bool,
    run: impl FnOnce(ComputeOptions, Option<&dyn Observer>) -> Observed<T> + Send + 'static,
) -> PyResult<Watched<T>> {
    // Shared with the computation's thread, which may outlive this call (see `interrupt.rs`).
    let counters = Arc::new(Progress::new());
    let tracer = Arc::new(Trace::new());
    let watching = progress.is_some();
    let (counted, traced) = (counters.clone(), tracer.clone());
    let observed = move |options| {
        let both = tegula::execute::Both(&*counted, &*traced);
        let observer: Option<&dyn Observer> = match (watching, trace) {
            (true, true) => Some(&both),
            (true, false) => Some(&*counted),
            (false, true) => Some(&*traced),
            (false, false) => None,
        };
        run(options, observer)
    };
    let started = Instant::now();
    let spec = options.spec().py()?;
    let cancel = spec.cancel.clone();
    let options = ComputeOptions { spec: Some(spec), ..options };
    let mut callback_error = None;
    let mut call_progress = || {
        if callback_error.is_some() {
            return;
        }
        let (done, total, bytes) = counters.snapshot();
        let seconds = started.elapsed().as_secs_f64();
        if let Some(callback) = &progress {
            if let Err(e) = Python::attach(|py| callback.call1(py, (done, total, bytes, seconds)).map(drop)) {
                // Its exception is what the caller gets (Ctrl-C may arrive inside it), so the
                // computation's result is not needed.
                cancel.set();
                callback_error = Some(e);
            }
        }
    };
    let poll = progress.is_some().then(|| Poll { every: Duration::from_secs_f64(interval.max(0.01)), call: &mut call_progress });
    let result = run_interruptible(py, &cancel, poll, move || observed(options))?;
    let (out, report, description) = result.py()?;
    if let Some(e) = callback_error {
        return Err(e);
    }
    Ok((out, report, description.map(|d| (tracer.events(), d))))
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
    out.set_item("operation", PyArray1::from_vec(py, events.iter().map(|e| plan.task_operation[e.task] as u64).collect()))?;
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
        list.append(d)?;
    }
    Ok(list)
}
