//! Finding a GPU and opening it: the adapter wgpu finds (a discrete GPU before an integrated
//! one, before a software one), the device with the features and limits tegula asks for, and
//! the reason when there is none.

use tegula_core::{value_err, Result};

/// An opened GPU: wgpu's device and queue and what the adapter can do.
pub struct Context {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub info: wgpu::AdapterInfo,
    /// Whether shaders may compute in float64 (`SHADER_F64`).
    pub f64: bool,
    /// The largest buffer a shader may bind, in bytes.
    pub max_binding: u64,
    /// The most buffers one shader may bind.
    pub max_buffers: usize,
}

/// The first adapter of wgpu's native backends, best kind first, opened; a `ValueError` naming
/// what is missing when there is none.
pub fn open() -> Result<Context> {
    let backends = wgpu::Backends::VULKAN | wgpu::Backends::METAL | wgpu::Backends::DX12;
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor { backends, ..wgpu::InstanceDescriptor::new_without_display_handle() });
    let mut adapters = pollster::block_on(instance.enumerate_adapters(backends));
    if adapters.is_empty() {
        return Err(value_err!(
            "no GPU adapter found: wgpu saw no Vulkan, Metal or DX12 device (on Linux, install a Vulkan driver: the GPU's vendor's, or Mesa's software one, Debian's mesa-vulkan-drivers)"
        ));
    }
    adapters.sort_by_key(|a| rank(a.get_info().device_type));
    let adapter = adapters.swap_remove(0);
    let info = adapter.get_info();
    let f64 = adapter.features().contains(wgpu::Features::SHADER_F64);
    let limits = adapter.limits();
    let descriptor = wgpu::DeviceDescriptor {
        label: Some("tegula"),
        required_features: adapter.features() & wgpu::Features::SHADER_F64,
        required_limits: limits.clone(),
        ..Default::default()
    };
    let (device, queue) = pollster::block_on(adapter.request_device(&descriptor))
        .map_err(|e| value_err!("the GPU adapter {:?} ({:?}) could not be opened: {e}", info.name, info.backend))?;
    let max_binding = limits.max_storage_buffer_binding_size.min(limits.max_buffer_size);
    let max_buffers = limits.max_storage_buffers_per_shader_stage as usize;
    Ok(Context { device, queue, info, f64, max_binding, max_buffers })
}

/// Adapters in the order tegula prefers them: a GPU of its own, then one sharing the host's
/// memory, then anything else, software last.
fn rank(kind: wgpu::DeviceType) -> u8 {
    match kind {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Other => 3,
        wgpu::DeviceType::Cpu => 4,
    }
}
