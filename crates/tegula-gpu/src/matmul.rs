//! Matrix products on the GPU: `C = A B` of two 2-D blocks in tiles of 16 × 16, each
//! workgroup computing one tile of `C` from tiles of `A` and `B` staged in its shared memory,
//! in the product's dtype (float32, or float64 where the adapter has it).

use crate::device::Gpu;
use crate::elementwise::cast;
use crate::lanes::Lane;
use std::fmt::Write;
use tegula_core::{DType, Result};
use tegula_kernels::Chunk;

/// The side of a tile, and of a workgroup.
const TILE: usize = 16;

/// A product's lane and the WGSL reading an element of each operand (`a[ia]`, `b[ib]`) in it.
pub(crate) struct Loads {
    lane: Lane,
    a: String,
    b: String,
}

/// How a product in `dtype` of operands of dtypes `a` and `b` reads them, or `None` where the
/// GPU has no shader for it (a product in integers, or in a dtype without a lane).
pub(crate) fn loads(dtype: DType, a: DType, b: DType, f64: bool) -> Option<Loads> {
    let lane = Lane::of(dtype, f64).filter(|l| l.is_float())?;
    Lane::of(a, f64)?;
    Lane::of(b, f64)?;
    Some(Loads { lane, a: cast("a[ia]", a, dtype, f64)?, b: cast("b[ib]", b, dtype, f64)? })
}

impl Gpu {
    /// `a @ b` computed in `dtype`, or `None` where the GPU has no shader for it.
    pub(crate) fn matmul(&self, dtype: DType, a: &Chunk, b: &Chunk) -> Result<Option<Chunk>> {
        let (Some(la), Some(lb)) = (self.lane_of(a)?, self.lane_of(b)?) else { return Ok(None) };
        let Some(Loads { lane, a: load_a, b: load_b }) = loads(dtype, a.dtype(), b.dtype(), self.has_float64()) else { return Ok(None) };
        let ([m, k], [k2, n]) = (a.shape(), b.shape()) else { return Ok(None) };
        let (m, k, n) = (*m, *k, *n);
        let groups = (n.div_ceil(TILE), m.div_ceil(TILE));
        if *k2 != k || groups.0 > 65_535 || groups.1 > 65_535 || m * n == 0 {
            return Ok(None);
        }
        let t = lane.wgsl();
        let mut source = String::new();
        let _ = writeln!(source, "@group(0) @binding(0) var<storage, read_write> out: array<{t}>;");
        let _ = writeln!(source, "@group(0) @binding(1) var<storage, read> table: array<u32>;");
        let _ = writeln!(source, "@group(0) @binding(2) var<storage, read> a: array<{}>;", la.stored());
        let _ = writeln!(source, "@group(0) @binding(3) var<storage, read> b: array<{}>;", lb.stored());
        let _ = writeln!(source, "var<workgroup> ta: array<{t}, {}>;\nvar<workgroup> tb: array<{t}, {}>;", TILE * TILE, TILE * TILE);
        let _ = write!(
            source,
            "@compute @workgroup_size({TILE}, {TILE})
fn main(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_id) at: vec3<u32>) {{
    let m = table[0]; let k = table[1]; let n = table[2];
    let row = group.y * {TILE}u + at.y;
    let col = group.x * {TILE}u + at.x;
    var acc = {t}(0);
    for (var start = 0u; start < k; start += {TILE}u) {{
        var va = {t}(0);
        if (row < m && start + at.x < k) {{ let ia = row * k + start + at.x; va = {load_a}; }}
        ta[at.y * {TILE}u + at.x] = va;
        var vb = {t}(0);
        if (start + at.y < k && col < n) {{ let ib = (start + at.y) * n + col; vb = {load_b}; }}
        tb[at.y * {TILE}u + at.x] = vb;
        workgroupBarrier();
        let steps = min({TILE}u, k - start);
        for (var q = 0u; q < steps; q++) {{
            acc = acc + ta[at.y * {TILE}u + q] * tb[q * {TILE}u + at.x];
        }}
        workgroupBarrier();
    }}
    if (row < m && col < n) {{ out[row * n + col] = acc; }}
}}
"
        );
        let out = self.context.new_buffer(m * n * lane.size())?;
        let table = self.context.words(&[m as u32, k as u32, n as u32])?;
        let (ba, bb) = (crate::memory::buffer_of(a)?.1, crate::memory::buffer_of(b)?.1);
        self.dispatch_groups(&source, &[&out, &table, &ba.buffer, &bb.buffer], (groups.0 as u32, groups.1 as u32))?;
        Ok(Some(self.context.block(dtype, &[m, n], out, Some(lane))))
    }

    /// The lane a block of this GPU is in (`None`: kept as the host's bytes).
    fn lane_of(&self, chunk: &Chunk) -> Result<Option<Lane>> {
        Ok(crate::memory::buffer_of(chunk)?.1.lane)
    }
}
