//! The GPU as a tegula `Device`: blocks in its buffers, element-wise programs and reductions
//! (`reduce.rs`) run as shaders, reshapes as views of the same buffer, and every other kernel
//! on the CPU (its inputs copied out, its result copied back), counted so users and tests see
//! what ran where.

use crate::context::{open, Context};
use crate::dispatch::Pipelines;
use crate::elementwise::{element, shader, Element};
use crate::memory::buffer_of;
use std::sync::atomic::{AtomicUsize, Ordering};
use tegula_core::program::{FusedBlock, Instr, Program};
use tegula_core::{internal_err, DType, Finish, KernelOp, PartialReduce, Result, SourceOp, TaskOp};
use tegula_exec::Device;
use tegula_kernels::{Chunk, DeviceBlock};

/// A GPU found by wgpu: its blocks, kernels and memory budget.
pub struct Gpu {
    name: String,
    pub(crate) context: Context,
    pipelines: Pipelines,
    /// The bytes of blocks it may hold at once; 0: each computation's budget.
    memory: AtomicUsize,
    counts: Counts,
}

/// What the GPU has done so far.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct GpuCounts {
    /// Kernels run as shaders.
    pub kernels: usize,
    /// Kernels of tasks placed on the GPU that ran on the CPU (no shader for them).
    pub on_cpu: usize,
    /// Blocks copied to the GPU, and their bytes.
    pub uploads: usize,
    pub uploaded_bytes: usize,
    /// Blocks copied from the GPU, and their bytes.
    pub downloads: usize,
    pub downloaded_bytes: usize,
}

#[derive(Default)]
struct Counts {
    kernels: AtomicUsize,
    on_cpu: AtomicUsize,
    uploads: AtomicUsize,
    uploaded_bytes: AtomicUsize,
    downloads: AtomicUsize,
    downloaded_bytes: AtomicUsize,
}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Gpu({:?}: {} on {:?})", self.name, self.context.info.name, self.context.info.backend)
    }
}

impl Gpu {
    /// The best GPU wgpu finds, as a device called `name`; a `ValueError` naming what is
    /// missing when there is none.
    pub fn open(name: &str) -> Result<Gpu> {
        Ok(Gpu { name: name.to_string(), context: open()?, pipelines: Pipelines::default(), memory: AtomicUsize::new(0), counts: Counts::default() })
    }

    /// The adapter's name, kind, driver and backend, for people.
    pub fn description(&self) -> String {
        let i = &self.context.info;
        format!("{} ({:?}, {} {}, {:?})", i.name, i.device_type, i.driver, i.driver_info, i.backend)
    }

    /// Whether shaders compute in float64 on it.
    pub fn has_float64(&self) -> bool {
        self.context.f64
    }

    /// Sets the bytes of blocks it may hold at once (`None`: each computation's budget).
    pub fn set_memory(&self, bytes: Option<usize>) {
        self.memory.store(bytes.unwrap_or(0), Ordering::Relaxed);
    }

    /// What it has done so far.
    pub fn counts(&self) -> GpuCounts {
        let c = &self.counts;
        let get = |a: &AtomicUsize| a.load(Ordering::Relaxed);
        GpuCounts {
            kernels: get(&c.kernels),
            on_cpu: get(&c.on_cpu),
            uploads: get(&c.uploads),
            uploaded_bytes: get(&c.uploaded_bytes),
            downloads: get(&c.downloads),
            downloaded_bytes: get(&c.downloaded_bytes),
        }
    }

    /// `op` as a shader over `inputs` (blocks on this GPU), or `None` where it has none.
    fn on_gpu(&self, op: &KernelOp, inputs: &[Chunk]) -> Result<Option<Chunk>> {
        let first = || inputs.first().ok_or_else(|| internal_err!("{} without its input", op.label()));
        match op {
            KernelOp::ToDevice => Ok(Some(first()?.clone())),
            KernelOp::Reshape { shape } => Ok(reshaped(first()?, shape.clone())),
            KernelOp::ExpandDims { axes } => {
                let mut shape = first()?.shape().to_vec();
                axes.iter().for_each(|&a| shape.insert(a.min(shape.len()), 1));
                Ok(reshaped(first()?, shape))
            }
            KernelOp::Fused(block) => {
                let (program, all) = self.with_sources(block, inputs)?;
                self.elementwise(&program, &all, &block.shape)
            }
            KernelOp::FusedReduce { block, op, axes } => {
                let (program, all) = self.with_sources(block, inputs)?;
                self.reduce(*op, axes, &program, &all, &block.shape)
            }
            KernelOp::ReducePartial { op, axes } => {
                let mut program = Program::default();
                program.push(Instr::Input(0), first()?.dtype());
                self.reduce(*op, axes, &program, inputs, first()?.shape())
            }
            KernelOp::ReduceCombine { op: PartialReduce::Moments } => self.merge_moments(inputs),
            KernelOp::ReduceCombine { op } => self.combine(*op, inputs),
            KernelOp::ReduceFinish { finish: finish @ Finish::Variance { .. }, squeeze, dtype } => self.variance(*finish, squeeze, *dtype, first()?),
            KernelOp::ReduceFinish { finish, squeeze, dtype } => self.finish(*finish, squeeze, *dtype, first()?),
            KernelOp::Transpose { perm } => self.transpose(first()?, perm),
            KernelOp::Select { axes } => self.select(first()?, axes),
            KernelOp::Assemble { shape, pieces } => self.assemble(inputs, shape, pieces),
            KernelOp::Matmul { dtype } => match inputs {
                [a, b] => self.matmul(*dtype, a, b),
                _ => Ok(None),
            },
            _ => match one_step(op, inputs) {
                Some((program, shape)) => self.elementwise(&program, inputs, &shape),
                None => Ok(None),
            },
        }
    }

    /// A fused block's program and inputs, its sources made on the host and copied in as
    /// inputs (the same values as the CPU's, bit for bit).
    fn with_sources(&self, block: &FusedBlock, inputs: &[Chunk]) -> Result<(Program, Vec<Chunk>)> {
        let (program, sources) = sources_as_inputs(block, inputs.len());
        let mut all = inputs.to_vec();
        for (j, _) in sources {
            all.push(self.generate(block.source(j)?)?);
        }
        Ok((program, all))
    }

    pub(crate) fn elementwise(&self, program: &Program, inputs: &[Chunk], shape: &[usize]) -> Result<Option<Chunk>> {
        let Some(element) = self.element(program, inputs, shape)? else { return Ok(None) };
        let n: usize = shape.iter().product();
        let out = self.context.new_buffer(n * element.lane.size())?;
        self.launch(&shader(&element), &element, inputs, &out, &element.table, n)?;
        let dtype = program.dtype().ok_or_else(|| internal_err!("an empty fused program"))?;
        Ok(Some(self.context.block(dtype, shape, out, Some(element.lane))))
    }

    /// `program` over `inputs` as a WGSL function, where every input has a lane and every
    /// step a WGSL form.
    pub(crate) fn element(&self, program: &Program, inputs: &[Chunk], shape: &[usize]) -> Result<Option<Element>> {
        let blocks = inputs.iter().map(buffer_of).collect::<Result<Vec<_>>>()?;
        if blocks.iter().any(|(_, b)| b.lane.is_none()) {
            return Ok(None);
        }
        let described: Vec<(DType, Vec<usize>)> = blocks.iter().map(|(d, _)| (d.dtype(), d.shape().to_vec())).collect();
        Ok(element(program, &described, shape, self.context.f64).filter(|e| self.binds(e)))
    }

    /// Whether a shader of `element` binds no more buffers than the GPU allows (its result,
    /// its table, its inputs and its float64 constants).
    pub(crate) fn binds(&self, element: &Element) -> bool {
        2 + element.inputs.len() + usize::from(!element.doubles.is_empty()) <= self.context.max_buffers
    }

    /// Runs `source`, a shader calling `element`, over `n` invocations: `out` bound first
    /// (binding 0), then `table`, then `element`'s inputs and constants.
    pub(crate) fn launch(&self, source: &str, element: &Element, inputs: &[Chunk], out: &wgpu::Buffer, table: &[u32], n: usize) -> Result<()> {
        let table = self.context.words(table)?;
        let doubles = if element.doubles.is_empty() { None } else { Some(self.context.doubles(&element.doubles)?) };
        let blocks = element.inputs.iter().map(|&i| buffer_of(&inputs[i]).map(|(_, b)| &b.buffer)).collect::<Result<Vec<_>>>()?;
        let mut bound: Vec<&wgpu::Buffer> = vec![out, &table];
        bound.extend(blocks);
        bound.extend(doubles.as_ref());
        self.dispatch(source, &bound, n)
    }

    /// Runs `source` in `groups` workgroups with `buffers` bound in order; counted.
    pub(crate) fn dispatch_groups(&self, source: &str, buffers: &[&wgpu::Buffer], groups: (u32, u32)) -> Result<()> {
        self.context.dispatch_groups(&self.pipelines, source, buffers, groups)?;
        self.counts.kernels.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// Runs `source` over `n` invocations with `buffers` bound in order; counted.
    pub(crate) fn dispatch(&self, source: &str, buffers: &[&wgpu::Buffer], n: usize) -> Result<()> {
        self.context.dispatch(&self.pipelines, source, buffers, n)?;
        self.counts.kernels.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// `op` run on the CPU: inputs copied out, the result copied back.
    fn on_cpu(&self, op: &KernelOp, inputs: &[Chunk]) -> Result<Chunk> {
        self.counts.on_cpu.fetch_add(1, Ordering::Relaxed);
        let host = inputs.iter().map(|c| self.to_host(c)).collect::<Result<Vec<_>>>()?;
        self.to_device(&tegula_kernels::run(op, &host)?)
    }
}

/// A device block read as another shape of as many elements.
pub(crate) fn reshaped(chunk: &Chunk, shape: Vec<usize>) -> Option<Chunk> {
    match chunk {
        Chunk::Device(d) if shape.iter().product::<usize>() == d.shape().iter().product::<usize>() => {
            Some(Chunk::Device(DeviceBlock::reshaped(d, &shape)))
        }
        _ => None,
    }
}

/// A fused block's program with its sources read as inputs numbered from `first`, and the
/// sources in that order with their dtypes.
pub(crate) fn sources_as_inputs(block: &FusedBlock, first: usize) -> (Program, Vec<(usize, DType)>) {
    let mut program = Program::clone(&block.program);
    let mut sources = Vec::new();
    for step in &mut program.steps {
        if let Instr::Source(j) = step.instr {
            step.instr = Instr::Input(first + sources.len());
            sources.push((j, step.dtype));
        }
    }
    (program, sources)
}

/// A one-kernel element-wise op as a program of one step over its inputs, and the shape of
/// its result (the inputs broadcast together).
fn one_step(op: &KernelOp, inputs: &[Chunk]) -> Option<(Program, Vec<usize>)> {
    let dtypes: Vec<DType> = inputs.iter().map(Chunk::dtype).collect();
    let shape = tegula_core::shape::broadcast_all(&inputs.iter().map(|c| c.shape()).collect::<Vec<_>>()).ok()?;
    Some((one_step_program(op, &dtypes)?, shape))
}

/// A one-kernel element-wise op as a program of one step over inputs of `dtypes`.
pub(crate) fn one_step_program(op: &KernelOp, dtypes: &[DType]) -> Option<Program> {
    let mut program = Program::default();
    let args: Vec<usize> = dtypes.iter().enumerate().map(|(i, &d)| program.push(Instr::Input(i), d)).collect();
    match (op, args.as_slice()) {
        (KernelOp::Unary { op, compute }, &[a]) => program.push(Instr::Unary { op: *op, compute: *compute, arg: a }, op.signature(*compute).ok()?.output),
        (KernelOp::Binary { op, compute }, &[a, b]) => {
            program.push(Instr::Binary { op: *op, compute: *compute, args: [a, b] }, op.signature(*compute, *compute).ok()?.output)
        }
        (KernelOp::Where { compute }, &[c, a, b]) => program.push(Instr::Where { compute: *compute, args: [c, a, b] }, *compute),
        (KernelOp::Cast { dtype }, &[a]) => program.push(Instr::Cast { arg: a }, dtype.storage()),
        _ => return None,
    };
    Some(program)
}

impl Device for Gpu {
    fn name(&self) -> &str {
        &self.name
    }
    fn memory(&self) -> Option<usize> {
        Some(self.memory.load(Ordering::Relaxed)).filter(|&m| m > 0)
    }
    fn generate(&self, op: &SourceOp) -> Result<Chunk> {
        // Made on the host, so values (random numbers too) are the CPU's bit for bit.
        self.to_device(&tegula_kernels::generate(op)?)
    }
    fn run(&self, op: &KernelOp, inputs: &[Chunk]) -> Result<Chunk> {
        if inputs.iter().any(|c| !c.is_on_device()) {
            // A host block among them (given on the host): copied in first.
            let moved = inputs.iter().map(|c| self.to_device(c)).collect::<Result<Vec<_>>>()?;
            return self.run(op, &moved);
        }
        match self.on_gpu(op, inputs)? {
            Some(chunk) => Ok(chunk),
            None => self.on_cpu(op, inputs),
        }
    }
    fn to_host(&self, chunk: &Chunk) -> Result<Chunk> {
        if !chunk.is_on_device() {
            return Ok(chunk.clone());
        }
        let host = self.context.download(chunk)?;
        self.counts.downloads.fetch_add(1, Ordering::Relaxed);
        self.counts.downloaded_bytes.fetch_add(host.nbytes(), Ordering::Relaxed);
        Ok(host)
    }
    fn computes(&self, op: &TaskOp, inputs: &[DType]) -> bool {
        match op {
            TaskOp::Kernel(kernel) => self.has_shader(kernel, inputs),
            // Sources are made on the host (`generate`); I/O never runs on a GPU.
            TaskOp::Source(_) => false,
            TaskOp::Io(_) => true,
        }
    }
    fn to_device(&self, chunk: &Chunk) -> Result<Chunk> {
        if chunk.is_on_device() {
            return Ok(chunk.clone());
        }
        self.counts.uploads.fetch_add(1, Ordering::Relaxed);
        self.counts.uploaded_bytes.fetch_add(chunk.nbytes(), Ordering::Relaxed);
        self.context.upload(chunk)
    }
}
