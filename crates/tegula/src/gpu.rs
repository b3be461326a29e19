//! The GPU device, found and added to the device table the first time it is asked for by name
//! (opening one takes a fraction of a second, so a process that never asks pays nothing); in a
//! build without the `gpu` feature, asking for it says how to get it.

use tegula_core::{DeviceId, Result};
use tegula_exec::device::device_id;

/// The name users give the GPU (`to_device("gpu")`).
pub const GPU: &str = "gpu";

/// The number of the device named `name`, the GPU opened first when that is its name; a
/// `ValueError` naming what is missing otherwise.
pub fn find_device(name: &str) -> Result<DeviceId> {
    if name == GPU {
        gpu()?;
    }
    device_id(name)
}

#[cfg(feature = "gpu")]
mod found {
    use std::sync::{Arc, OnceLock};
    use tegula_core::{value_err, Result};
    use tegula_exec::device::add_device;
    use tegula_gpu::Gpu;

    /// The GPU, opened and added to the device table once per process; the reason it could
    /// not be, every time it is asked for.
    pub fn gpu() -> Result<Arc<Gpu>> {
        static GPU: OnceLock<std::result::Result<Arc<Gpu>, String>> = OnceLock::new();
        let found = GPU.get_or_init(|| {
            let gpu = Arc::new(Gpu::open(super::GPU).map_err(|e| e.to_string())?);
            add_device(gpu.clone()).map_err(|e| e.to_string())?;
            Ok(gpu)
        });
        found.clone().map_err(|e| value_err!("no device 'gpu': {e}"))
    }
}

#[cfg(feature = "gpu")]
pub use found::gpu;

/// In a build without the `gpu` feature: the error saying so.
#[cfg(not(feature = "gpu"))]
pub fn gpu() -> Result<std::convert::Infallible> {
    Err(tegula_core::value_err!(
        "no device 'gpu': this build of tegula has no GPU device (build it with the `gpu` feature: see the README's \"On a GPU\")"
    ))
}
