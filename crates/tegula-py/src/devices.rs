//! The devices of this process, for Python: their names, and host devices (a budget of their
//! own, transfers counted) added by name, which stand in for an accelerator in tests.

use crate::errors::IntoPy;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tegula::execute::HostDevice;

/// The host devices added from Python, by name.
static HOST_DEVICES: Mutex<Option<HashMap<String, Arc<HostDevice>>>> = Mutex::new(None);

/// The names of the devices, the CPU (`"cpu"`) first.
#[pyfunction]
pub fn device_names() -> Vec<String> {
    tegula::execute::device_names()
}

/// Checks that the device `name` exists, opening the GPU when that is its name; a
/// `ValueError` naming what is missing otherwise.
#[pyfunction]
pub fn find_device(name: &str) -> PyResult<()> {
    tegula::execute::find_device(name).py().map(drop)
}

/// The GPU: its adapter, whether it computes in float64, and what it has done so far (kernels
/// run as shaders and on the CPU, blocks and bytes copied each way); a `ValueError` naming
/// what is missing when there is none.
#[pyfunction]
pub fn gpu_info(py: Python<'_>) -> PyResult<Bound<'_, pyo3::types::PyDict>> {
    let info = pyo3::types::PyDict::new(py);
    #[cfg(feature = "gpu")]
    {
        let gpu = tegula::execute::gpu().py()?;
        let c = gpu.counts();
        info.set_item("adapter", gpu.description())?;
        info.set_item("float64", gpu.has_float64())?;
        info.set_item("memory", tegula::execute::Device::memory(gpu.as_ref()))?;
        for (k, v) in [
            ("kernels", c.kernels),
            ("on_cpu", c.on_cpu),
            ("uploads", c.uploads),
            ("uploaded_bytes", c.uploaded_bytes),
            ("downloads", c.downloads),
            ("downloaded_bytes", c.downloaded_bytes),
        ] {
            info.set_item(k, v)?;
        }
    }
    #[cfg(not(feature = "gpu"))]
    tegula::execute::gpu().py()?;
    Ok(info)
}

/// The GPU's own limits, measured now: `bytes_per_second` streamed through its memory (read
/// and written) and float32 `flops`; a `ValueError` naming what is missing when there is none.
#[pyfunction]
pub fn gpu_peaks(py: Python<'_>) -> PyResult<Bound<'_, pyo3::types::PyDict>> {
    let peaks = pyo3::types::PyDict::new(py);
    #[cfg(feature = "gpu")]
    {
        let gpu = tegula::execute::gpu().py()?;
        let measured = py.detach(|| gpu.peaks()).py()?;
        peaks.set_item("bytes_per_second", measured.bytes_per_second)?;
        peaks.set_item("flops", measured.flops)?;
    }
    #[cfg(not(feature = "gpu"))]
    tegula::execute::gpu().py()?;
    Ok(peaks)
}

/// Sets the bytes of blocks the GPU may hold at once (`None`: each computation's budget).
#[pyfunction]
#[pyo3(signature = (memory=None))]
pub fn set_gpu_memory(memory: Option<usize>) -> PyResult<()> {
    #[cfg(feature = "gpu")]
    tegula::execute::gpu().py()?.set_memory(memory);
    #[cfg(not(feature = "gpu"))]
    {
        let _ = memory;
        tegula::execute::gpu().py()?;
    }
    Ok(())
}

/// Adds a device called `name` made of the host's cores and memory, with a budget of `memory`
/// bytes of its own (`None`: each computation's), whose transfers are counted.
#[pyfunction]
#[pyo3(signature = (name, memory=None))]
pub fn add_host_device(name: &str, memory: Option<usize>) -> PyResult<()> {
    let device = Arc::new(HostDevice::new(name, memory));
    tegula::execute::add_device(device.clone()).py()?;
    let mut hosts = HOST_DEVICES.lock().map_err(|_| PyValueError::new_err("host devices poisoned"))?;
    hosts.get_or_insert_with(HashMap::new).insert(name.to_string(), device);
    Ok(())
}

/// Blocks moved to or from the host device `name` so far, and their bytes.
#[pyfunction]
pub fn device_transfers(name: &str) -> PyResult<(usize, usize)> {
    let hosts = HOST_DEVICES.lock().map_err(|_| PyValueError::new_err("host devices poisoned"))?;
    match hosts.as_ref().and_then(|h| h.get(name)) {
        Some(device) => Ok(device.transfers()),
        None => Err(PyValueError::new_err(format!("no host device named {name:?}"))),
    }
}
