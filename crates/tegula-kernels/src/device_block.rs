//! `DeviceBlock`: a block whose elements live in a device's memory (a GPU's), not the host's.
//! Host kernels never read one: the executor moves a block to the host (`Device::to_host`)
//! before a task on the CPU reads it, so only the device that made it looks inside.

use std::any::Any;
use std::fmt;
use std::sync::Arc;
use tegula_core::DType;

/// A block in a device's memory: its dtype and shape as the array sees them, the bytes it
/// takes there (which may differ from the host's: narrow integers widened to 32-bit lanes),
/// and the device's own handle to the memory, freed when the last clone is dropped.
#[derive(Clone)]
pub struct DeviceBlock {
    dtype: DType,
    shape: Vec<usize>,
    bytes: usize,
    memory: Arc<dyn Any + Send + Sync>,
}

impl DeviceBlock {
    /// A block of `dtype` and `shape` held by `memory`, which takes `bytes` on the device.
    pub fn new(dtype: DType, shape: &[usize], bytes: usize, memory: Arc<dyn Any + Send + Sync>) -> DeviceBlock {
        DeviceBlock { dtype, shape: shape.to_vec(), bytes, memory }
    }
    /// The dtype of its elements.
    pub fn dtype(&self) -> DType {
        self.dtype
    }
    /// Its length along each axis.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }
    /// The bytes it takes in the device's memory.
    pub fn device_bytes(&self) -> usize {
        self.bytes
    }
    /// The device's handle to its memory, when it is a `T` (the device that made it asks).
    pub fn memory<T: Any>(&self) -> Option<&T> {
        self.memory.downcast_ref::<T>()
    }
    /// The same memory read as another shape of as many elements (a reshape, no copy).
    pub fn reshaped(&self, shape: &[usize]) -> DeviceBlock {
        DeviceBlock { shape: shape.to_vec(), ..self.clone() }
    }
}

impl fmt::Debug for DeviceBlock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DeviceBlock({}, {:?}, {} bytes)", self.dtype, self.shape, self.bytes)
    }
}

/// What a host kernel does with a block that is still on a device: it never gets one (the
/// executor moves blocks to the host first), so this is a broken invariant, reported as a
/// panic that the task runner turns into an internal error.
#[cold]
pub fn off_host<D: std::borrow::Borrow<DeviceBlock>>(block: D) -> ! {
    panic!("a host kernel was given a block still on a device: {:?}", block.borrow())
}
