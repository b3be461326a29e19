//! The `tegula._tegula` extension module: thin bindings from Python to the `tegula` crate.

mod algorithms;
mod array;
mod cluster;
mod convert;
mod devices;
mod errors;
mod fft;
mod fragments;
mod functions;
mod histograms;
mod hosted;
mod interrupt;
mod linalg;
mod map_blocks;
mod options;
mod store;
mod watch;

use pyo3::prelude::*;

// Allocations under 64 KiB go to mimalloc: its threads free what others allocated without a lock.
// With glibc's allocator, two threads running 20,000 tiny tasks queued on its arenas' locks in
// some processes (a sum of 2·10⁶ values in 100-value blocks: 20 against 33 ms), and the
// per-task work of a plan cost a fifth more (one thread: 31 against 24 ms).
#[cfg(target_os = "linux")]
#[global_allocator]
static ALLOCATOR: tegula::execute::Reusing<mimalloc::MiMalloc> = tegula::execute::Reusing(mimalloc::MiMalloc);

#[pymodule]
fn _tegula(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // NumPy's C API is looked up on first use, by importing NumPy: done now, at import, and not
    // at the end of a computation, where a pending Ctrl-C would make the look-up fail (a panic).
    numpy::PyArray1::<f64>::zeros(m.py(), 0, false);
    fragments::register_codecs();
    // What killed tegula processes left (spill files, kept arrays, blocks shared in memory)
    // goes now, in the default spill directory and in `/dev/shm` (see `leftovers.rs`).
    if let Ok(spec) = tegula::execute::Spec::from_env() {
        tegula::execute::remove_dead_owners(&spec.spill_dir);
    }
    tegula::execute::remove_dead_owners(std::path::Path::new("/dev/shm"));
    m.add_function(wrap_pyfunction!(options::remove_dead_owners, m)?)?;
    m.add_class::<array::PyArrayHandle>()?;
    m.add_class::<watch::PyTrace>()?;
    algorithms::register(m)?;
    linalg::register(m)?;
    fft::register(m)?;
    histograms::register(m)?;
    m.add_class::<functions::PyGenerator>()?;
    m.add_function(wrap_pyfunction!(functions::from_numpy, m)?)?;
    m.add_function(wrap_pyfunction!(functions::full, m)?)?;
    m.add_function(wrap_pyfunction!(functions::arange, m)?)?;
    m.add_function(wrap_pyfunction!(functions::linspace, m)?)?;
    m.add_function(wrap_pyfunction!(functions::concatenate, m)?)?;
    m.add_function(wrap_pyfunction!(functions::stack, m)?)?;
    m.add_function(wrap_pyfunction!(functions::compute, m)?)?;
    m.add_function(wrap_pyfunction!(functions::persist, m)?)?;
    m.add_function(wrap_pyfunction!(map_blocks::map_blocks, m)?)?;
    m.add_class::<map_blocks::PyBlockwiseLayout>()?;
    m.add_function(wrap_pyfunction!(functions::weak_scalar_dtype, m)?)?;
    m.add_function(wrap_pyfunction!(options::default_spec, m)?)?;
    m.add_function(wrap_pyfunction!(options::kept_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(options::sort_block_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(options::memory_budget, m)?)?;
    m.add_function(wrap_pyfunction!(options::use_loaded_blas, m)?)?;
    m.add_function(wrap_pyfunction!(store::open_zarr, m)?)?;
    m.add_function(wrap_pyfunction!(store::open_npy, m)?)?;
    m.add_function(wrap_pyfunction!(store::zarr_metadata, m)?)?;
    m.add_function(wrap_pyfunction!(store::to_zarr, m)?)?;
    m.add_function(wrap_pyfunction!(store::to_npy, m)?)?;
    m.add_function(wrap_pyfunction!(store::from_object, m)?)?;
    m.add_class::<cluster::PyClusterPlan>()?;
    m.add_class::<cluster::PyDispatch>()?;
    m.add_function(wrap_pyfunction!(cluster::simulate, m)?)?;
    m.add_class::<hosted::FragmentEvents>()?;
    m.add_function(wrap_pyfunction!(hosted::register_hosted_executor, m)?)?;
    m.add_function(wrap_pyfunction!(fragments::plan_fragments, m)?)?;
    m.add_function(wrap_pyfunction!(fragments::run_fragment, m)?)?;
    m.add_function(wrap_pyfunction!(fragments::serve_worker, m)?)?;
    m.add_function(wrap_pyfunction!(devices::device_names, m)?)?;
    m.add_function(wrap_pyfunction!(devices::add_host_device, m)?)?;
    m.add_function(wrap_pyfunction!(devices::device_transfers, m)?)?;
    m.add_function(wrap_pyfunction!(devices::find_device, m)?)?;
    m.add_function(wrap_pyfunction!(devices::gpu_info, m)?)?;
    m.add_function(wrap_pyfunction!(devices::gpu_peaks, m)?)?;
    m.add_function(wrap_pyfunction!(devices::set_gpu_memory, m)?)?;
    Ok(())
}
