//! Moments on the GPU (count, mean and M2, stacked on a leading axis of three: what `var` and
//! `std` reduce to): each segment of an output's reduced elements in two passes — its mean,
//! then the squared deviations from it, as the CPU does a run of elements —, the segments
//! merged in order by Chan et al.'s update, as the CPU merges partials; the partials of blocks
//! merged the same way, and the variance finished from them. All in float64, so only where the
//! adapter computes in it.

use crate::device::Gpu;
use crate::elementwise::{cast, stored, HELPERS_64};
use crate::lanes::Lane;
use crate::reduce::{kept_shape, Segments};
use std::fmt::Write;
use tegula_core::program::Program;
use tegula_core::{DType, Finish, Result};
use tegula_kernels::Chunk;

/// Merges the (count, mean, M2) `b` into `a`, as the CPU's `merge_moment`.
const MERGED: &str = "
fn merged(a: vec3<f64>, b: vec3<f64>) -> vec3<f64> {
    if (b.x == 0.0lf) { return a; }
    if (a.x == 0.0lf) { return b; }
    let n = a.x + b.x;
    let delta = b.y - a.y;
    return vec3<f64>(n, a.y + delta * (b.x / n), (a.z + b.z) + delta * delta * a.x * b.x / n);
}
";

/// The WGSL of a value `v` of `dtype` as a float64, where the GPU computes in float64.
pub(crate) fn as_double(dtype: DType, f64: bool) -> Option<String> {
    f64.then(|| cast("v", dtype, DType::Float64, true)).flatten()
}

impl Gpu {
    /// The moments partial over `axes` of `program`'s values over a block of `shape`.
    pub(crate) fn moments(&self, axes: &[usize], program: &Program, inputs: &[Chunk], shape: &[usize]) -> Result<Option<Chunk>> {
        let Some(value) = program.dtype().and_then(|d| as_double(d, self.has_float64())) else { return Ok(None) };
        let Some(cut) = Segments::of(axes, shape) else { return Ok(None) };
        let Some(element) = self.element(program, inputs, shape)? else { return Ok(None) };
        let mut body = String::new();
        let _ = writeln!(body, "    var sum: f64;\n    {{\n        let v = element(base + offset(first));\n        sum = {value};\n    }}");
        let _ = writeln!(body, "    for (var j = first + 1u; j < last; j++) {{\n        let v = element(base + offset(j));\n        sum = sum + {value};\n    }}");
        let _ = writeln!(body, "    let count = f64(last - first);\n    let mean = sum / count;\n    var m2 = 0.0lf;");
        let _ = writeln!(body, "    for (var j = first; j < last; j++) {{\n        let v = element(base + offset(j));\n        let d = {value} - mean;\n        m2 = m2 + d * d;\n    }}");
        let _ = writeln!(body, "    out[3u * i] = count;\n    out[3u * i + 1u] = mean;\n    out[3u * i + 2u] = m2;");
        let mut table = element.table.clone();
        let source = cut.shader(&element, &mut table, "f64", axes, shape, &body);
        let partials = self.context.new_buffer(cut.outputs * cut.segments * 3 * 8)?;
        self.launch(&source, &element, inputs, &partials, &table, cut.outputs * cut.segments)?;
        let out = self.context.new_buffer(cut.outputs * 3 * 8)?;
        let mut source = String::new();
        let _ = writeln!(source, "@group(0) @binding(0) var<storage, read_write> out: array<f64>;");
        let _ = writeln!(source, "@group(0) @binding(1) var<storage, read> table: array<u32>;");
        let _ = writeln!(source, "@group(0) @binding(2) var<storage, read> partials: array<f64>;");
        source.push_str(MERGED);
        let _ = writeln!(source, "{} {{\n    {}\n    let outputs = table[0];\n    if (i >= outputs) {{ return; }}", crate::dispatch::ENTRY, crate::dispatch::ELEMENT_INDEX);
        let _ = writeln!(source, "    let first = i * table[1];\n    var m = vec3<f64>(partials[3u * first], partials[3u * first + 1u], partials[3u * first + 2u]);");
        let _ = writeln!(source, "    for (var s = first + 1u; s < first + table[1]; s++) {{\n        m = merged(m, vec3<f64>(partials[3u * s], partials[3u * s + 1u], partials[3u * s + 2u]));\n    }}");
        let _ = writeln!(source, "    out[i] = m.x;\n    out[outputs + i] = m.y;\n    out[2u * outputs + i] = m.z;\n}}");
        let table = self.context.words(&[cut.outputs as u32, cut.segments as u32])?;
        self.dispatch(&source, &[&out, &table, &partials], cut.outputs)?;
        let stacked: Vec<usize> = [3].into_iter().chain(kept_shape(axes, shape)).collect();
        Ok(Some(self.context.block(DType::Float64, &stacked, out, Some(Lane::F64))))
    }

    /// `KernelOp::ReduceCombine` of moments partials: merged in order, position by position.
    pub(crate) fn merge_moments(&self, inputs: &[Chunk]) -> Result<Option<Chunk>> {
        let Some(first) = inputs.first() else { return Ok(None) };
        if !self.merges_moments(&inputs.iter().map(Chunk::dtype).collect::<Vec<_>>()) || inputs.iter().any(|c| c.shape() != first.shape()) {
            return Ok(None);
        }
        let positions = first.len() / 3;
        let mut source = String::new();
        let _ = writeln!(source, "@group(0) @binding(0) var<storage, read_write> out: array<f64>;");
        let _ = writeln!(source, "@group(0) @binding(1) var<storage, read> table: array<u32>;");
        for k in 0..inputs.len() {
            let _ = writeln!(source, "@group(0) @binding({}) var<storage, read> in{k}: array<f64>;", k + 2);
        }
        source.push_str(MERGED);
        let _ = writeln!(source, "{} {{\n    {}\n    let p = table[0];\n    if (i >= p) {{ return; }}", crate::dispatch::ENTRY, crate::dispatch::ELEMENT_INDEX);
        let _ = writeln!(source, "    var m = vec3<f64>(in0[i], in0[p + i], in0[2u * p + i]);");
        for k in 1..inputs.len() {
            let _ = writeln!(source, "    m = merged(m, vec3<f64>(in{k}[i], in{k}[p + i], in{k}[2u * p + i]));");
        }
        let _ = writeln!(source, "    out[i] = m.x;\n    out[p + i] = m.y;\n    out[2u * p + i] = m.z;\n}}");
        let out = self.context.new_buffer(first.len() * 8)?;
        let table = self.context.words(&[positions as u32])?;
        let blocks = inputs.iter().map(|c| crate::memory::buffer_of(c).map(|(_, b)| &b.buffer)).collect::<Result<Vec<_>>>()?;
        let mut bound = vec![&out, &table];
        bound.extend(blocks);
        self.dispatch(&source, &bound, positions)?;
        Ok(Some(self.context.block(DType::Float64, first.shape(), out, Some(Lane::F64))))
    }

    /// Whether moments partials of these dtypes merge on the GPU.
    pub(crate) fn merges_moments(&self, dtypes: &[DType]) -> bool {
        self.has_float64() && !dtypes.is_empty() && dtypes.iter().all(|&d| d == DType::Float64) && dtypes.len() + 2 <= self.context.max_buffers
    }

    /// `Finish::Variance`: `M2 / max(n - ddof, 0)` of each position of a moments partial (its
    /// square root for `std`), cast to `dtype`, the `squeeze` axes dropped.
    pub(crate) fn variance(&self, finish: Finish, squeeze: &[usize], dtype: DType, input: &Chunk) -> Result<Option<Chunk>> {
        let Finish::Variance { ddof, sqrt } = finish else { return Ok(None) };
        let Some(lane) = self.variance_lane(input.dtype(), dtype) else { return Ok(None) };
        let Some(result) = cast("v", DType::Float64, dtype.storage(), true) else { return Ok(None) };
        let positions = input.len() / 3;
        let mut source = String::new();
        let _ = writeln!(source, "@group(0) @binding(0) var<storage, read_write> out: array<{}>;", lane.stored());
        let _ = writeln!(source, "@group(0) @binding(1) var<storage, read> table: array<u32>;");
        let _ = writeln!(source, "@group(0) @binding(2) var<storage, read> moments: array<f64>;");
        let _ = writeln!(source, "@group(0) @binding(3) var<storage, read> doubles: array<f64>;");
        source.push_str(crate::elementwise::HELPERS);
        source.push_str(HELPERS_64);
        let _ = writeln!(source, "{} {{\n    {}\n    let p = table[0];\n    if (i >= p) {{ return; }}", crate::dispatch::ENTRY, crate::dispatch::ELEMENT_INDEX);
        let _ = writeln!(source, "    var v = moments[2u * p + i] / max(moments[i] - doubles[0], 0.0lf);");
        if sqrt {
            let _ = writeln!(source, "    v = sqrt(v);");
        }
        let _ = writeln!(source, "    out[i] = {};\n}}", stored(lane, &result));
        let out = self.context.new_buffer(positions * lane.size())?;
        let table = self.context.words(&[positions as u32])?;
        let doubles = self.context.doubles(&[ddof])?;
        let (_, moments) = crate::memory::buffer_of(input)?;
        self.dispatch(&source, &[&out, &table, &moments.buffer, &doubles], positions)?;
        let kept: Vec<usize> = input.shape()[1..].iter().enumerate().filter(|(a, _)| !squeeze.contains(a)).map(|(_, &l)| l).collect();
        Ok(Some(self.context.block(dtype, &kept, out, Some(lane))))
    }

    /// The lane of a variance in `dtype` finished from a moments partial of `from` on the GPU.
    pub(crate) fn variance_lane(&self, from: DType, dtype: DType) -> Option<Lane> {
        (self.has_float64() && from == DType::Float64).then(|| Lane::of(dtype, true)).flatten()
    }
}
