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
