//! Running a compute shader: pipelines compiled once per source and kept, buffers bound in
//! order (the result, a table of numbers, the inputs), one invocation per element in groups
//! of `GROUP`, laid out in two dimensions past wgpu's 65,535 groups per dimension.

use crate::context::Context;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tegula_core::{internal_err, Result};

/// Invocations per workgroup; shaders declare `@workgroup_size(GROUP)`.
pub const GROUP: u32 = 256;

/// The most workgroups along one dimension of a dispatch.
const MOST_GROUPS: u32 = 65_535;

/// The line every element-wise shader begins its body with: the invocation's element `i`.
pub const ELEMENT_INDEX: &str = "let i = gid.x + gid.y * nwg.x * 256u;";

/// The entry point's parameters matching `ELEMENT_INDEX`.
pub const ENTRY: &str = "@compute @workgroup_size(256)\nfn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>)";

/// Compiled pipelines by their shader's source.
#[derive(Default)]
pub struct Pipelines(Mutex<HashMap<String, Arc<wgpu::ComputePipeline>>>);

impl Context {
    /// Runs `source` (entry point `main`) once per element of `n`, with `buffers` bound as
    /// bindings 0, 1, … of group 0; waits for nothing (the queue keeps the order).
    pub fn dispatch(&self, pipelines: &Pipelines, source: &str, buffers: &[&wgpu::Buffer], n: usize) -> Result<()> {
        let groups = u32::try_from(n.div_ceil(GROUP as usize)).map_err(|_| internal_err!("a GPU kernel over {n} elements"))?;
        self.dispatch_groups(pipelines, source, buffers, (groups.clamp(1, MOST_GROUPS), groups.div_ceil(MOST_GROUPS).max(1)))
    }

    /// Runs `source` (entry point `main`) in `x` × `y` workgroups of its own size, with
    /// `buffers` bound as bindings 0, 1, … of group 0.
    pub fn dispatch_groups(&self, pipelines: &Pipelines, source: &str, buffers: &[&wgpu::Buffer], (x, y): (u32, u32)) -> Result<()> {
        let pipeline = self.pipeline(pipelines, source)?;
        let layout = pipeline.get_bind_group_layout(0);
        let entries: Vec<wgpu::BindGroupEntry> =
            buffers.iter().enumerate().map(|(i, b)| wgpu::BindGroupEntry { binding: i as u32, resource: b.as_entire_binding() }).collect();
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let group = self.device.create_bind_group(&wgpu::BindGroupDescriptor { label: None, layout: &layout, entries: &entries });
        let mut encoder = self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &group, &[]);
            pass.dispatch_workgroups(x, y, 1);
        }
        self.queue.submit([encoder.finish()]);
        match pollster::block_on(scope.pop()) {
            Some(e) => Err(internal_err!("a GPU kernel was refused: {e}")),
            None => Ok(()),
        }
    }

    fn pipeline(&self, pipelines: &Pipelines, source: &str) -> Result<Arc<wgpu::ComputePipeline>> {
        let mut cache = pipelines.0.lock().map_err(|_| internal_err!("GPU pipelines poisoned"))?;
        if let Some(p) = cache.get(source) {
            return Ok(p.clone());
        }
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let module = self.device.create_shader_module(wgpu::ShaderModuleDescriptor { label: None, source: wgpu::ShaderSource::Wgsl(source.into()) });
        let pipeline = self.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: None,
            layout: None,
            module: &module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        });
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(internal_err!("a shader tegula made did not compile ({e}):\n{source}"));
        }
        let pipeline = Arc::new(pipeline);
        cache.insert(source.to_string(), pipeline.clone());
        Ok(pipeline)
    }
}
