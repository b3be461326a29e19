//! Blocks in GPU buffers: a host block copied in (in its lane: booleans and narrow integers
//! widened to 32 bits), a device block copied out, fresh buffers for kernels' results, and
//! allocation failures as `MemoryError`s rather than wgpu's panics.

use crate::context::Context;
use crate::lanes::Lane;
use std::sync::{mpsc, Arc};
use tegula_core::{internal_err, DType, Result, TegulaError};
use tegula_kernels::raw::{chunk_from_bytes, with_bytes};
use tegula_kernels::{Chunk, DeviceBlock};

/// A block's buffer on the GPU: its elements row-major in `lane` (none: the host's bytes).
#[derive(Debug)]
pub struct GpuBuffer {
    pub buffer: wgpu::Buffer,
    pub lane: Option<Lane>,
}

/// The buffer of a device block made by this device; an internal error for any other block.
pub fn buffer_of(chunk: &Chunk) -> Result<(&DeviceBlock, &GpuBuffer)> {
    let Chunk::Device(block) = chunk else { return Err(internal_err!("a GPU kernel was given a host block")) };
    let buffer = block.memory::<GpuBuffer>().ok_or_else(|| internal_err!("a GPU kernel was given another device's block"))?;
    Ok((block, buffer))
}

impl Context {
    /// A fresh buffer of `bytes` (at least one word: wgpu binds nothing empty); a `MemoryError`
    /// when the GPU cannot hold it.
    pub fn new_buffer(&self, bytes: usize) -> Result<wgpu::Buffer> {
        let size = (bytes.max(4) as u64).next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT);
        if size > self.max_binding {
            return Err(TegulaError::Memory(format!(
                "a block of {bytes} bytes is larger than the largest buffer the GPU {:?} binds ({} bytes): use smaller chunks",
                self.info.name, self.max_binding
            )));
        }
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
        let buffer = self.device.create_buffer(&wgpu::BufferDescriptor { label: None, size, usage, mapped_at_creation: false });
        match pollster::block_on(scope.pop()) {
            Some(e) => Err(TegulaError::Memory(format!("the GPU {:?} has no room for {bytes} bytes: {e}", self.info.name))),
            None => Ok(buffer),
        }
    }

    /// A buffer holding `words` (a shader's table of numbers).
    pub fn words(&self, words: &[u32]) -> Result<wgpu::Buffer> {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        self.filled(&bytes)
    }

    /// A buffer holding `values` (a shader's float64 constants).
    pub fn doubles(&self, values: &[f64]) -> Result<wgpu::Buffer> {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.filled(&bytes)
    }

    /// A fresh buffer holding `bytes` (written whole words at a time: the last one padded).
    fn filled(&self, bytes: &[u8]) -> Result<wgpu::Buffer> {
        let buffer = self.new_buffer(bytes.len())?;
        let whole = bytes.len() / 4 * 4;
        if whole > 0 {
            self.queue.write_buffer(&buffer, 0, &bytes[..whole]);
        }
        if whole < bytes.len() {
            let mut last = [0u8; 4];
            last[..bytes.len() - whole].copy_from_slice(&bytes[whole..]);
            self.queue.write_buffer(&buffer, whole as u64, &last);
        }
        Ok(buffer)
    }

    /// A device block of `dtype` and `shape` over `buffer`, in `lane`.
    pub fn block(&self, dtype: DType, shape: &[usize], buffer: wgpu::Buffer, lane: Option<Lane>) -> Chunk {
        let bytes = buffer.size() as usize;
        Chunk::Device(DeviceBlock::new(dtype, shape, bytes, Arc::new(GpuBuffer { buffer, lane })))
    }

    /// `chunk`, a host block, copied to the GPU.
    pub fn upload(&self, chunk: &Chunk) -> Result<Chunk> {
        let lane = Lane::of(chunk.dtype(), self.f64);
        let widened = match lane {
            Some(lane) => chunk.cast(lane.host_dtype()),
            None => chunk.clone(),
        };
        let buffer = with_bytes(&widened, |bytes| self.filled(bytes))?;
        Ok(self.block(chunk.dtype(), chunk.shape(), buffer, lane))
    }

    /// `chunk`, a block of this GPU, copied to the host.
    pub fn download(&self, chunk: &Chunk) -> Result<Chunk> {
        let (block, gpu) = buffer_of(chunk)?;
        let dtype = block.dtype();
        let stored = gpu.lane.map_or(dtype, Lane::host_dtype);
        let bytes = block.shape().iter().product::<usize>() * stored.itemsize();
        let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: gpu.buffer.size(),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        encoder.copy_buffer_to_buffer(&gpu.buffer, 0, &staging, 0, gpu.buffer.size());
        self.queue.submit([encoder.finish()]);
        let (sent, mapped) = mpsc::channel();
        staging.slice(..).map_async(wgpu::MapMode::Read, move |r| drop(sent.send(r)));
        self.wait()?;
        mapped.recv().map_err(|_| internal_err!("the GPU dropped a copy to the host"))?.map_err(|e| gpu_err(&self.info, e))?;
        let view = staging.slice(..).get_mapped_range().map_err(|e| gpu_err(&self.info, e))?;
        let host = chunk_from_bytes(stored, block.shape(), |out| {
            out.copy_from_slice(&view[..bytes]);
            Ok(())
        })?;
        // A lane's values are in its dtype's range: the cast narrows them, or makes 0/1 booleans.
        Ok(if stored == dtype { host } else { host.cast(dtype) })
    }

    /// Waits until the GPU has done everything submitted so far.
    pub fn wait(&self) -> Result<()> {
        self.device.poll(wgpu::PollType::wait_indefinitely()).map(drop).map_err(|e| gpu_err(&self.info, e))
    }
}

/// A failure the GPU reported, as an I/O error naming it.
pub fn gpu_err(info: &wgpu::AdapterInfo, e: impl std::fmt::Display) -> TegulaError {
    TegulaError::Io(format!("the GPU {:?} failed: {e}", info.name))
}
