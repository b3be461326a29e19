//! How a computation runs, from Python's keyword arguments and the environment, and what it
//! reports back.

use crate::errors::IntoPy;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;
use tegula::execute::{ExecutorConfig, Spec};

/// How to run a computation, from `compute`'s keyword arguments.
pub fn compute_options(
    scheduler: &str,
    num_workers: Option<usize>,
    fuse: bool,
    memory: Option<usize>,
    spill_dir: Option<PathBuf>,
) -> PyResult<tegula::ComputeOptions> {
    let config = ExecutorConfig { workers: num_workers, worker_command: Some(worker_command()?) };
    let executor = tegula::execute::executor(scheduler, &config).py()?;
    Ok(tegula::ComputeOptions { executor, fuse, spec: Some(spec(memory, spill_dir)?) })
}

/// How the process pool starts a worker: this Python running `tegula._worker`, given this
/// process's module search path.
fn worker_command() -> PyResult<Vec<String>> {
    Python::attach(|py| {
        let sys = py.import("sys")?;
        let mut command = vec![sys.getattr("executable")?.extract()?, "-m".into(), "tegula._worker".into()];
        command.extend(sys.getattr("path")?.extract::<Vec<String>>()?.into_iter().filter(|p| !p.is_empty()));
        Ok(command)
    })
}

/// What the executor measured, as a dict.
pub fn report_dict<'py>(py: Python<'py>, report: &tegula::execute::Report) -> PyResult<Bound<'py, PyDict>> {
    let info = PyDict::new(py);
    info.set_item("tasks", report.tasks)?;
    info.set_item("peak_bytes", report.peak_bytes)?;
    info.set_item("projected_peak_bytes", report.projected_peak_bytes)?;
    info.set_item("spilled_bytes", report.spilled_bytes)?;
    info.set_item("memory", report.budget)?;
    info.set_item("device_peak_bytes", report.device_peaks.clone())?;
    if let Some(cluster) = &report.cluster {
        info.set_item("simulated", simulation_dict(py, &cluster.simulated)?)?;
        let measured = cluster.measured.as_ref().map(|m| simulation_dict(py, m)).transpose()?;
        info.set_item("measured", measured)?;
    }
    Ok(info)
}

/// The settings of a computation: the environment's (`TEGULA_MEMORY`, `TEGULA_SPILL_DIR`) or
/// the machine's, overridden by the arguments given.
pub fn spec(memory: Option<usize>, spill_dir: Option<PathBuf>) -> PyResult<Spec> {
    let mut spec = Spec::from_env().py()?;
    if let Some(bytes) = memory {
        spec.memory = bytes;
    }
    if let Some(dir) = spill_dir {
        spec.spill_dir = dir;
    }
    Ok(spec)
}

/// Removes the directories that dead tegula processes left in `parent` (a spill directory).
#[pyfunction]
pub fn remove_dead_owners(parent: PathBuf) {
    tegula::execute::remove_dead_owners(&parent);
}

/// The memory budget and spill directory a computation would get without explicit settings.
#[pyfunction]
pub fn default_spec() -> PyResult<(usize, PathBuf)> {
    let spec = Spec::from_env().py()?;
    Ok((spec.memory, spec.spill_dir))
}

/// The largest block a sort makes by default under a budget of `memory` bytes (`arg`: an
/// argsort).
#[pyfunction]
pub fn sort_block_bytes(memory: usize, arg: bool) -> usize {
    tegula::ops::sort_block_bytes(memory, arg)
}

/// Bytes the persisted arrays alive in this process keep in memory (taken out of every
/// computation's budget).
#[pyfunction]
pub fn kept_bytes() -> usize {
    tegula::execute::kept_bytes()
}

/// NumPy's OpenBLAS, loaded with NumPy, installed for tegula's float products where it is faster
/// than faer on this machine (`tegula::execute::use_loaded_blas`; measured once per machine,
/// GIL released meanwhile): the choice as a dict, or None when NumPy links no usable OpenBLAS.
#[pyfunction]
pub fn use_loaded_blas(py: Python<'_>) -> PyResult<Option<Bound<'_, PyDict>>> {
    let Some(choice) = py.detach(tegula::execute::use_loaded_blas).py()? else { return Ok(None) };
    let out = PyDict::new(py);
    out.set_item("uses_blas", choice.uses_blas)?;
    out.set_item("library", choice.library)?;
    out.set_item("core", choice.core)?;
    out.set_item("blas_gflops", choice.blas_gflops)?;
    out.set_item("faer_gflops", choice.faer_gflops)?;
    out.set_item("decided_by", choice.decided_by)?;
    Ok(Some(out))
}

/// A memory budget written as a byte size (`"2GB"`, `"512 MiB"`), in bytes.
#[pyfunction]
pub fn memory_budget(text: &str) -> PyResult<usize> {
    tegula::execute::memory_budget(text).py()
}

/// A simulation (or a cluster's measurements, which have its shape) as a dict: `bytes_between_nodes`, `bytes_given`, `bytes_returned` and `nodes`,
/// a list of per-node dicts.
pub fn simulation_dict<'py>(py: Python<'py>, sim: &tegula::cluster::Simulation) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    out.set_item("bytes_between_nodes", sim.bytes_between_nodes)?;
    out.set_item("bytes_given", sim.bytes_given)?;
    out.set_item("bytes_returned", sim.bytes_returned)?;
    let nodes = sim
        .nodes
        .iter()
        .map(|n| {
            let d = PyDict::new(py);
            d.set_item("fragments", n.fragments)?;
            d.set_item("bytes_made", n.bytes_made)?;
            d.set_item("bytes_in", n.bytes_in)?;
            d.set_item("bytes_out", n.bytes_out)?;
            d.set_item("peak_bytes", n.peak_bytes)?;
            Ok(d)
        })
        .collect::<PyResult<Vec<_>>>()?;
    out.set_item("nodes", nodes)?;
    Ok(out)
}
