//! The GPU's own limits, measured: the rate it streams float32 through memory (a read and a
//! write of a buffer as large as it binds, up to 256 MiB) and the rate it multiplies and adds
//! float32 in registers, each the best of a few timed dispatches. Benchmarks judge the
//! device's kernels against these, measured in the same run.

use crate::device::Gpu;
use std::time::Instant;
use tegula_core::Result;

/// What the GPU reaches at best.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Peaks {
    /// Bytes read and written per second by a streaming copy.
    pub bytes_per_second: f64,
    /// Float32 operations (a multiply-add counts two) per second.
    pub flops: f64,
}

/// Timed dispatches of each kernel (after one untimed).
const TRIES: usize = 5;

/// Multiply-adds of four lanes per invocation in the arithmetic kernel.
const FMA_STEPS: usize = 512;

const COPY: &str = "
@group(0) @binding(0) var<storage, read_write> out: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> table: array<u32>;
@group(0) @binding(2) var<storage, read> source: array<vec4<f32>>;
";

const FMA: &str = "
@group(0) @binding(0) var<storage, read_write> out: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> table: array<u32>;
";

impl Gpu {
    /// Measures the GPU's streaming and arithmetic rates.
    pub fn peaks(&self) -> Result<Peaks> {
        let ctx = &self.context;
        let bytes = (ctx.max_binding as usize).min(256 << 20) / 16 * 16;
        let vectors = bytes / 16;
        let source = ctx.new_buffer(bytes)?;
        let out = ctx.new_buffer(bytes)?;
        let table = ctx.words(&[vectors as u32])?;
        let copy = format!(
            "{COPY}{} {{\n    {}\n    if (i >= table[0]) {{ return; }}\n    out[i] = source[i] * 2.0;\n}}\n",
            crate::dispatch::ENTRY,
            crate::dispatch::ELEMENT_INDEX
        );
        let streamed = self.best_time(|| self.dispatch(&copy, &[&out, &table, &source], vectors))?;
        let lanes = 1usize << 20;
        let sums = ctx.new_buffer(lanes / 4 * 16)?;
        let table = ctx.words(&[(lanes / 4) as u32])?;
        let fma = format!(
            "{FMA}{} {{
    {}
    if (i >= table[0]) {{ return; }}
    var a = vec4<f32>(f32(i & 7u)) * 1e-3;
    let b = vec4<f32>(0.999, 0.998, 0.997, 0.996);
    let c = vec4<f32>(1e-4, 2e-4, 3e-4, 4e-4);
    for (var k = 0u; k < {FMA_STEPS}u; k++) {{ a = fma(a, b, c); }}
    out[i] = a;
}}
",
            crate::dispatch::ENTRY,
            crate::dispatch::ELEMENT_INDEX
        );
        let computed = self.best_time(|| self.dispatch(&fma, &[&sums, &table], lanes / 4))?;
        Ok(Peaks { bytes_per_second: 2.0 * bytes as f64 / streamed, flops: (2 * FMA_STEPS * lanes) as f64 / computed })
    }

    /// The shortest of `TRIES` timed runs of `launch` (after one untimed), each waited for.
    fn best_time(&self, launch: impl Fn() -> Result<()>) -> Result<f64> {
        launch()?;
        self.context.wait()?;
        let mut best = f64::INFINITY;
        for _ in 0..TRIES {
            let start = Instant::now();
            launch()?;
            self.context.wait()?;
            best = best.min(start.elapsed().as_secs_f64());
        }
        Ok(best)
    }
}
