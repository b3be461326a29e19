//! tegula's GPU device: blocks that live in a GPU's memory and kernels that run there as
//! compute shaders, through wgpu (Vulkan, Metal, DX12; tested on Mesa's software Vulkan
//! driver, so every build exercises it without a GPU).
//!
//! `Gpu::open` finds the best adapter and opens it; adding it to the device table
//! (`tegula_exec::add_device`) lets plans place tasks on it (`to_device`). Element-wise
//! programs run as shaders generated from the same fused programs the CPU runs; any other
//! kernel of a task placed on the GPU runs on the CPU, its blocks copied out and back, and
//! `Gpu::counts` says how many did.

mod context;
mod device;
mod dispatch;
mod elementwise;
mod lanes;
mod layout;
mod matmul;
mod memory;
mod moments;
mod peaks;
mod reduce;
mod supports;

pub use device::{Gpu, GpuCounts};
pub use peaks::Peaks;
