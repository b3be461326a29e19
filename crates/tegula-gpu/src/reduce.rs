//! Reductions on the GPU: the partial sum, product, extremes, `any` or `all` over some axes of
//! a block (of a fused program's values, never stored: `FusedReduce`), in two passes — each
//! output element's reduced elements cut into segments that invocations fold in parallel,
//! then each output element folding its segments' partials in order —, and the combining and
//! finishing of partials as element-wise programs. Each fold starts from its first element, as
//! the CPU's do; sums may round differently from the CPU's, whose segments differ.

use crate::device::Gpu;
use crate::elementwise::{binary, cast, stored, Element};
use crate::lanes::Lane;
use std::fmt::Write;
use tegula_core::program::{Instr, Program};
use tegula_core::{BinaryOp, DType, Finish, PartialReduce, Result, Scalar};
use tegula_kernels::Chunk;

/// Enough invocations to keep a GPU busy: the reduced elements of few outputs are cut into
/// segments until about this many fold at once.
const BUSY: usize = 1 << 16;

/// The fewest elements a segment folds (fewer: the second pass costs more than it saves).
const SEGMENT_LEAST: usize = 256;

/// How `op` folds a value into a running partial, and the partial's dtype for input `dtype`.
pub(crate) fn fold(op: PartialReduce, dtype: DType) -> Option<(BinaryOp, DType)> {
    Some(match op {
        PartialReduce::Sum { acc } => (BinaryOp::Add, acc),
        PartialReduce::Prod { acc } => (BinaryOp::Multiply, acc),
        PartialReduce::Min => (BinaryOp::Minimum, dtype),
        PartialReduce::Max => (BinaryOp::Maximum, dtype),
        PartialReduce::Any => (BinaryOp::LogicalOr, DType::Bool),
        PartialReduce::All => (BinaryOp::LogicalAnd, DType::Bool),
        _ => return None,
    })
}

/// How a partial folds values of one dtype on the GPU: the step, the partial's dtype and
/// lane, and the WGSL of a value `v` in the partial's dtype and of `acc` folded with `w`.
pub(crate) struct Folding {
    step: BinaryOp,
    acc: DType,
    lane: Lane,
    value: String,
    folded: String,
}

/// How `op` folds values of `dtype`, or `None` where the GPU has no shader for it.
pub(crate) fn folding(op: PartialReduce, dtype: DType, f64: bool) -> Option<Folding> {
    let (step, acc) = fold(op, dtype)?;
    let lane = Lane::of(acc, f64)?;
    Some(Folding { step, acc, lane, value: cast("v", dtype, acc, f64)?, folded: binary(step, lane, "acc", "w")? })
}

/// The first pass of a reduction over `axes` of a block of `shape`: each output's reduced
/// elements cut into segments, one invocation per segment of each output.
pub(crate) struct Segments {
    pub outputs: usize,
    pub segments: usize,
    per_segment: usize,
    reduced: usize,
}

impl Segments {
    /// The segments of a reduction over `axes` of a block of `shape`; `None` for no axes, an
    /// axis past the block's, or nothing to reduce.
    pub(crate) fn of(axes: &[usize], shape: &[usize]) -> Option<Segments> {
        let reduced: usize = axes.iter().map(|&a| shape[a]).product();
        if axes.is_empty() || reduced == 0 || axes.iter().any(|&a| a >= shape.len()) {
            return None;
        }
        let outputs = shape.iter().product::<usize>() / reduced;
        let segments = (BUSY / outputs.max(1)).clamp(1, reduced.div_ceil(SEGMENT_LEAST).max(1));
        Some(Segments { outputs, segments, per_segment: reduced.div_ceil(segments), reduced })
    }

    /// The shader of the first pass: `element`'s program, and an entry point that finds its
    /// invocation's output `o` and segment `s`, where the output's reduced elements start in the
    /// block (`base`) and the segment's range of them (`first..last`), then runs `body`, which
    /// reads reduced element `j` as `element(base + offset(j))` and writes `out` (of `out_type`).
    /// Appends what it reads to `table`, which starts as `element`'s.
    pub(crate) fn shader(&self, element: &Element, table: &mut Vec<u32>, out_type: &str, axes: &[usize], shape: &[usize], body: &str) -> String {
        let at = table.len();
        table.extend([self.outputs as u32, self.segments as u32, self.per_segment as u32, self.reduced as u32]);
        let strides = row_major_strides(shape);
        let kept: Vec<usize> = (0..shape.len()).filter(|a| !axes.contains(a)).collect();
        let mut source = String::new();
        let _ = writeln!(source, "@group(0) @binding(0) var<storage, read_write> out: array<{out_type}>;");
        let _ = writeln!(source, "@group(0) @binding(1) var<storage, read> table: array<u32>;");
        source.push_str(&element.source);
        let _ = writeln!(source, "{} {{\n    {}", crate::dispatch::ENTRY, crate::dispatch::ELEMENT_INDEX);
        let _ = writeln!(source, "    if (i >= table[{at}u] * table[{}u]) {{ return; }}", at + 1);
        let _ = writeln!(source, "    let o = i / table[{}u]; let s = i % table[{}u];", at + 1, at + 1);
        // The block element where output `o`'s reduced elements start.
        let _ = writeln!(source, "    var rest = o; var base = 0u;");
        offset_lines(&mut source, table, "base", &kept, shape, &strides);
        let _ = writeln!(source, "    let first = s * table[{}u];", at + 2);
        let _ = writeln!(source, "    let last = min(first + table[{}u], table[{}u]);", at + 2, at + 3);
        source.push_str(body);
        let _ = writeln!(source, "}}");
        // Where the `j`th reduced element lies, past `base`.
        let _ = writeln!(source, "fn offset(j: u32) -> u32 {{\n    var rest = j; var at = 0u;");
        offset_lines(&mut source, table, "at", axes, shape, &strides);
        let _ = writeln!(source, "    return at;\n}}");
        source
    }
}

impl Gpu {
    /// The partial `op` over `axes` of `program`'s values over a block of `shape`, or `None`
    /// where the GPU has no shader for it.
    pub(crate) fn reduce(&self, op: PartialReduce, axes: &[usize], program: &Program, inputs: &[Chunk], shape: &[usize]) -> Result<Option<Chunk>> {
        if op == PartialReduce::Moments {
            return self.moments(axes, program, inputs, shape);
        }
        let dtype = program.dtype().unwrap_or(DType::Bool);
        let Some(Folding { step, acc, lane: acc_lane, value, folded }) = folding(op, dtype, self.has_float64()) else { return Ok(None) };
        let Some(cut) = Segments::of(axes, shape) else { return Ok(None) };
        let Some(element) = self.element(program, inputs, shape)? else { return Ok(None) };
        let mut body = String::new();
        let _ = writeln!(body, "    var acc: {};\n    {{\n        let v = element(base + offset(first));\n        acc = {value};\n    }}", acc_lane.wgsl());
        let _ = writeln!(body, "    for (var j = first + 1u; j < last; j++) {{");
        let _ = writeln!(body, "        let v = element(base + offset(j));\n        let w = {value};\n        acc = {folded};\n    }}");
        let _ = writeln!(body, "    out[i] = {};", stored(acc_lane, "acc"));
        let mut table = element.table.clone();
        let source = cut.shader(&element, &mut table, acc_lane.stored(), axes, shape, &body);
        let (outputs, segments) = (cut.outputs, cut.segments);
        let partials = self.context.new_buffer(outputs * segments * acc_lane.size())?;
        self.launch(&source, &element, inputs, &partials, &table, outputs * segments)?;
        let out_shape = kept_shape(axes, shape);
        if segments == 1 {
            return Ok(Some(self.context.block(acc, &out_shape, partials, Some(acc_lane))));
        }
        let out = self.context.new_buffer(outputs * acc_lane.size())?;
        self.fold_segments(step, acc_lane, &partials, &out, outputs, segments)?;
        Ok(Some(self.context.block(acc, &out_shape, out, Some(acc_lane))))
    }

    /// Each output's `segments` partials folded in order into `out`.
    fn fold_segments(&self, step: BinaryOp, lane: Lane, partials: &wgpu::Buffer, out: &wgpu::Buffer, outputs: usize, segments: usize) -> Result<()> {
        let folded = binary(step, lane, "acc", "w").ok_or_else(|| tegula_core::internal_err!("no fold for {step:?}"))?;
        let load = |at: &str| match lane {
            Lane::Bool => format!("partials[{at}] != 0u"),
            _ => format!("partials[{at}]"),
        };
        let mut source = String::new();
        let _ = writeln!(source, "@group(0) @binding(0) var<storage, read_write> out: array<{}>;", lane.stored());
        let _ = writeln!(source, "@group(0) @binding(1) var<storage, read> table: array<u32>;");
        let _ = writeln!(source, "@group(0) @binding(2) var<storage, read> partials: array<{}>;", lane.stored());
        source.push_str(crate::elementwise::HELPERS);
        if lane == Lane::F64 {
            source.push_str(crate::elementwise::HELPERS_64);
        }
        let _ = writeln!(source, "{} {{\n    {}\n    if (i >= table[0]) {{ return; }}", crate::dispatch::ENTRY, crate::dispatch::ELEMENT_INDEX);
        let _ = writeln!(source, "    let first = i * table[1];\n    var acc: {} = {};", lane.wgsl(), load("first"));
        let _ = writeln!(source, "    for (var s = 1u; s < table[1]; s++) {{\n        let w = {};\n        acc = {folded};\n    }}", load("first + s"));
        let _ = writeln!(source, "    out[i] = {};\n}}", stored(lane, "acc"));
        let table = self.context.words(&[outputs as u32, segments as u32])?;
        self.dispatch(&source, &[out, &table, partials], outputs)
    }

    /// `KernelOp::ReduceCombine`: same-shaped partials folded in order, as a program.
    pub(crate) fn combine(&self, op: PartialReduce, inputs: &[Chunk]) -> Result<Option<Chunk>> {
        let Some(first) = inputs.first() else { return Ok(None) };
        if inputs.iter().any(|c| c.dtype() != first.dtype() || c.shape() != first.shape()) {
            return Ok(None);
        }
        let Some(program) = combine_program(op, first.dtype(), inputs.len()) else { return Ok(None) };
        let shape = first.shape().to_vec();
        self.elementwise(&program, inputs, &shape)
    }

    /// `KernelOp::ReduceFinish` for the partials that finish element by element (the sum
    /// itself, `+ 0.0`, the mean's division), as a program, then `squeeze`d and cast.
    pub(crate) fn finish(&self, finish: Finish, squeeze: &[usize], dtype: DType, input: &Chunk) -> Result<Option<Chunk>> {
        let Some(program) = finish_program(finish, input.dtype(), dtype) else { return Ok(None) };
        let shape = input.shape().to_vec();
        let Some(done) = self.elementwise(&program, std::slice::from_ref(input), &shape)? else { return Ok(None) };
        let kept: Vec<usize> = shape.iter().enumerate().filter(|(a, _)| !squeeze.contains(a)).map(|(_, &l)| l).collect();
        Ok(crate::device::reshaped(&done, kept))
    }
}

/// `count` partials of `op` in `dtype` folded in order, as a program; `None` where `op`'s
/// partials are not folded element by element.
pub(crate) fn combine_program(op: PartialReduce, dtype: DType, count: usize) -> Option<Program> {
    let (step, acc) = fold(op, dtype)?;
    if acc != dtype {
        return None;
    }
    let mut program = Program::default();
    let mut running = program.push(Instr::Input(0), acc);
    for i in 1..count {
        let next = program.push(Instr::Input(i), acc);
        running = program.push(Instr::Binary { op: step, compute: acc, args: [running, next] }, acc);
    }
    Some(program)
}

/// The program finishing a partial of dtype `from` into `dtype`, for the finishes made
/// element by element; `None` for the others.
pub(crate) fn finish_program(finish: Finish, from: DType, dtype: DType) -> Option<Program> {
    if from.is_complex() {
        return None;
    }
    let mut program = Program::default();
    let x = program.push(Instr::Input(0), from);
    let plus_zero = |p: &mut Program, x: usize, d: DType| {
        if d.is_float() {
            let zero = p.push(Instr::Scalar(Scalar::Float(0.0)), d);
            p.push(Instr::Binary { op: BinaryOp::Add, compute: d, args: [x, zero] }, d)
        } else {
            x
        }
    };
    let value = match finish {
        Finish::Identity => x,
        Finish::AddZero => plus_zero(&mut program, x, from),
        Finish::DivideBy(n) => {
            let wide = program.push(Instr::Cast { arg: x }, DType::Float64);
            let summed = plus_zero(&mut program, wide, DType::Float64);
            let count = program.push(Instr::Scalar(Scalar::Float(n)), DType::Float64);
            program.push(Instr::Binary { op: BinaryOp::Divide, compute: DType::Float64, args: [summed, count] }, DType::Float64)
        }
        _ => return None,
    };
    program.push(Instr::Cast { arg: value }, dtype.storage());
    Some(program)
}

/// WGSL lines adding to `target` the offset, in the block, of the index `rest` counts over
/// `axes` (last fastest), their lengths and strides appended to `table`.
fn offset_lines(source: &mut String, table: &mut Vec<u32>, target: &str, axes: &[usize], shape: &[usize], strides: &[usize]) {
    for &a in axes.iter().rev() {
        let k = table.len();
        table.extend([shape[a] as u32, strides[a] as u32]);
        let _ = writeln!(source, "    {target} += (rest % table[{k}u]) * table[{}u]; rest = rest / table[{k}u];", k + 1);
    }
}

/// `shape` with the reduced `axes` of length one.
pub(crate) fn kept_shape(axes: &[usize], shape: &[usize]) -> Vec<usize> {
    (0..shape.len()).map(|a| if axes.contains(&a) { 1 } else { shape[a] }).collect()
}

/// Each axis's stride, in elements, in a row-major block of `shape`.
pub(crate) fn row_major_strides(shape: &[usize]) -> Vec<usize> {
    let mut strides = vec![1; shape.len()];
    for a in (0..shape.len().saturating_sub(1)).rev() {
        strides[a] = strides[a + 1] * shape[a + 1];
    }
    strides
}
