//! Devices: where kernels run and blocks live. A task names its device (`Task::device`); the
//! executor makes its source blocks and runs its kernels through that device, moves inputs
//! that live on another device to it (through the host: `to_host`, then `to_device`), and
//! keeps a memory ledger per device, each with the device's own budget. The table of devices
//! is per process: the CPU is device 0; others are added by `add_device`.
//!
//! Adding a device: a file implementing `Device`, and an `add_device` call where the device is
//! found (see ARCHITECTURE.md).

mod cpu;
mod host;

pub use cpu::Cpu;
pub use host::HostDevice;

use std::sync::{Arc, OnceLock, RwLock};
use tegula_core::{internal_err, value_err, DType, DeviceId, KernelOp, Result, SourceOp, TaskOp};
use tegula_kernels::Chunk;

/// A place where kernels run and blocks live.
pub trait Device: Send + Sync + std::fmt::Debug {
    /// The name users give it (`x.to_device(name)`).
    fn name(&self) -> &str;
    /// The bytes of blocks it may hold at once, when it has a budget of its own (else the
    /// computation's).
    fn memory(&self) -> Option<usize>;
    /// The block a source op makes, on this device.
    fn generate(&self, op: &SourceOp) -> Result<Chunk>;
    /// A kernel run on blocks on this device.
    fn run(&self, op: &KernelOp, inputs: &[Chunk]) -> Result<Chunk>;
    /// A block of this device, copied to the host's memory.
    fn to_host(&self, chunk: &Chunk) -> Result<Chunk>;
    /// A block of the host's memory, copied to this device.
    fn to_device(&self, chunk: &Chunk) -> Result<Chunk>;
    /// Whether it computes `op`, over inputs of these dtypes, itself. Where it does not, its
    /// `generate` or `run` still gives the block, made on the host and copied in (inputs
    /// copied out first): `explain` shows those tasks.
    fn computes(&self, _op: &TaskOp, _inputs: &[DType]) -> bool {
        true
    }
}

/// For each task of `tasks` (its device, op and inputs' dtypes), whether its device makes its
/// block on the host and copies it in (`Device::computes`); all false on the CPU.
pub fn made_on_host<'a>(tasks: impl Iterator<Item = (DeviceId, &'a TaskOp, Vec<DType>)>) -> Result<Vec<bool>> {
    tasks.map(|(on, op, inputs)| Ok(on != DeviceId::CPU && !device(on)?.computes(op, &inputs))).collect()
}

type Table = RwLock<Vec<Arc<dyn Device>>>;

fn table() -> &'static Table {
    static DEVICES: OnceLock<Table> = OnceLock::new();
    DEVICES.get_or_init(|| RwLock::new(vec![Arc::new(Cpu)]))
}

/// Adds a device to this process's table and returns its number; a `ValueError` if a device
/// of that name is there already.
pub fn add_device(device: Arc<dyn Device>) -> Result<DeviceId> {
    let mut devices = table().write().map_err(|_| internal_err!("device table poisoned"))?;
    if devices.iter().any(|d| d.name() == device.name()) {
        return Err(value_err!("a device named {:?} exists already", device.name()));
    }
    let id = u16::try_from(devices.len()).map_err(|_| value_err!("too many devices"))?;
    devices.push(device);
    Ok(DeviceId(id))
}

/// Device `id` of this process's table.
pub fn device(id: DeviceId) -> Result<Arc<dyn Device>> {
    let devices = table().read().map_err(|_| internal_err!("device table poisoned"))?;
    devices.get(id.index()).cloned().ok_or_else(|| value_err!("this process has no {id} (devices: {})", names_of(&devices)))
}

/// The number of the device named `name`; a `ValueError` naming the devices there are.
pub fn device_id(name: &str) -> Result<DeviceId> {
    let devices = table().read().map_err(|_| internal_err!("device table poisoned"))?;
    match devices.iter().position(|d| d.name() == name) {
        Some(i) => Ok(DeviceId(i as u16)),
        None => Err(value_err!("no device named {name:?} (devices: {})", names_of(&devices))),
    }
}

/// The names of this process's devices, the CPU first.
pub fn device_names() -> Vec<String> {
    table().read().map(|d| d.iter().map(|d| d.name().to_string()).collect()).unwrap_or_default()
}

fn names_of(devices: &[Arc<dyn Device>]) -> String {
    devices.iter().map(|d| format!("{:?}", d.name())).collect::<Vec<_>>().join(", ")
}

/// `chunk`, which lives on device `on`, in the host's memory (where results are returned).
pub fn to_host(on: DeviceId, chunk: Chunk) -> Result<Chunk> {
    match on {
        DeviceId::CPU => Ok(chunk),
        _ => device(on)?.to_host(&chunk),
    }
}

/// `chunk`, which lives on device `from`, as device `to` holds it.
pub fn transfer(chunk: &Chunk, from: &dyn Device, to: &dyn Device) -> Result<Chunk> {
    to.to_device(&from.to_host(chunk)?)
}
