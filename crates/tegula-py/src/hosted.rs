//! Ray's and dask.distributed's runners, Python objects, as `tegula::cluster::ClusterRunner`s
//! (`register_hosted_executor`): the Rust side plans, plans again when nodes leave, and
//! reports (`tegula::cluster::HostedExecutor`); the runner only ships the plan:
//! `runner.nodes(workers)` gives the node count and each node's memory (or None), then
//! `runner.run(plan, events)` runs the fragments, calls `events.done(fragment, node, start,
//! end)` as each ends, and returns the output blocks by task id and what it measured (or
//! None), or None alone when nodes it was placed on left.

use crate::cluster::PyClusterPlan;
use crate::convert::chunk_handed_over;
use crate::errors::stash_error;
use pyo3::exceptions::PyKeyError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tegula::cluster::{ClusterPlan, ClusterRunner, FragmentProgress, NodeLoad, RunnerOutput, Simulation};
use tegula::{Chunk, Result};

/// Registers `runner` as the executor `compute(scheduler=name)` uses.
#[pyfunction]
pub fn register_hosted_executor(name: &str, runner: Py<PyAny>) -> PyResult<()> {
    tegula::cluster::register_hosted_executor(name, Arc::new(PyRunner(runner))).map_err(crate::errors::to_py)
}

/// A runner written in Python.
struct PyRunner(Py<PyAny>);

impl ClusterRunner for PyRunner {
    fn nodes(&self, workers: Option<usize>) -> Result<(usize, Option<usize>)> {
        Python::attach(|py| self.0.call_method1(py, "nodes", (workers,))?.extract(py)).map_err(|e| stash_error(e, "the cluster runner"))
    }

    fn run(&self, plan: ClusterPlan, progress: &FragmentProgress) -> Result<Option<RunnerOutput>> {
        Python::attach(|py| {
            let events = Py::new(py, FragmentEvents::new(progress))?;
            let _cleared = Cleared(events.clone_ref(py));
            let plan = Py::new(py, PyClusterPlan::from(plan))?;
            let answer = self.0.call_method1(py, "run", (plan, events.clone_ref(py)))?;
            if answer.is_none(py) {
                return Ok(None);
            }
            let (blocks, measured): (HashMap<usize, Bound<'_, PyAny>>, Option<Bound<'_, PyDict>>) = answer.extract(py)?;
            let blocks = blocks.into_iter().map(|(t, b)| Ok((t, chunk_handed_over(&b)?))).collect::<PyResult<HashMap<usize, Chunk>>>()?;
            Ok(Some(RunnerOutput { blocks, measured: measured.map(|m| measured_loads(&m)).transpose()? }))
        })
        .map_err(|e| stash_error(e, "the cluster runner"))
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

/// The progress of a running `execute`, reachable from Python while it runs.
#[derive(Clone, Copy)]
struct ProgressPtr(*const FragmentProgress<'static>);

// SAFETY: `FragmentProgress` is `Sync`, and the pointer is only dereferenced while the
// runner's `run` (which borrows the progress) runs: `Cleared` takes it away before it returns.
unsafe impl Send for ProgressPtr {}
unsafe impl Sync for ProgressPtr {}

/// What the runner calls as fragments end (`tegula::cluster::FragmentProgress`).
#[pyclass(frozen)]
pub struct FragmentEvents {
    progress: Mutex<Option<ProgressPtr>>,
}

impl FragmentEvents {
    fn new(progress: &FragmentProgress<'_>) -> FragmentEvents {
        // SAFETY: only the lifetime is erased; see `ProgressPtr`.
        let progress = unsafe { std::mem::transmute::<&FragmentProgress<'_>, &FragmentProgress<'static>>(progress) };
        FragmentEvents { progress: Mutex::new(Some(ProgressPtr(progress))) }
    }
}

#[pymethods]
impl FragmentEvents {
    /// Fragment `fragment` ran on `node` from `start` to `end` (seconds since the epoch).
    fn done(&self, fragment: usize, node: usize, start: f64, end: f64) {
        let Ok(progress) = self.progress.lock() else { return };
        if let Some(ProgressPtr(progress)) = *progress {
            // SAFETY: set only while the runner's `run` runs (see `ProgressPtr`).
            unsafe { (*progress).done(fragment, node, start, end) };
        }
    }
}

/// Takes the progress away from the events when dropped, so a runner keeping them cannot
/// reach it after its `run` returns.
struct Cleared(Py<FragmentEvents>);

impl Drop for Cleared {
    fn drop(&mut self) {
        if let Ok(mut progress) = self.0.get().progress.lock() {
            *progress = None;
        }
    }
}
