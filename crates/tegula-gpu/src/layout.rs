//! Re-layouts of blocks on the GPU: transposes, basic selections and blocks assembled from
//! pieces of others (rechunks), all by one shader that copies a box of elements from strided
//! positions of one buffer to strided positions of another, a whole element's words at a time.
//! Any block whose elements are whole 32-bit words moves so: every lane, and the dtypes kept
//! as the host's bytes (64-bit integers, complex numbers) alike.

use crate::device::Gpu;
use crate::memory::buffer_of;
use tegula_core::{internal_err, DType, Piece, Result, Select};
use tegula_kernels::Chunk;

/// The copy shader. The table, as signed words: the element count, the rank, the words per
/// element, the source's and the destination's first element, then per axis (outermost
/// first) its length and its strides in the source and in the destination, in elements.
const COPY: &str = "
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@group(0) @binding(1) var<storage, read> table: array<i32>;
@group(0) @binding(2) var<storage, read> src: array<u32>;
ENTRY {
    INDEX
    if (i >= u32(table[0])) { return; }
    let words = table[2];
    var rest = i32(i);
    var s = table[3];
    var d = table[4];
    for (var k = table[1] - 1; k >= 0; k--) {
        let length = table[5 + 3 * k];
        let c = rest % length;
        rest = rest / length;
        s += c * table[6 + 3 * k];
        d += c * table[7 + 3 * k];
    }
    for (var q = 0; q < words; q++) {
        out[u32(d * words + q)] = src[u32(s * words + q)];
    }
}
";

/// A box of elements to copy: its shape, and where its elements lie in the source and the
/// destination (first element and strides, in elements).
struct Strided {
    shape: Vec<usize>,
    from: (i64, Vec<i64>),
    to: (i64, Vec<i64>),
}

impl Gpu {
    /// The words each element of `dtype` takes in this GPU's buffers, when whole.
    pub(crate) fn words_per_element(&self, dtype: DType) -> Option<usize> {
        let bytes = crate::lanes::Lane::of(dtype, self.has_float64()).map_or(dtype.itemsize(), |l| l.size());
        (bytes.is_multiple_of(4) && bytes > 0).then_some(bytes / 4)
    }

    /// `KernelOp::Transpose`: axis `i` of the result is axis `perm[i]` of `input`.
    pub(crate) fn transpose(&self, input: &Chunk, perm: &[usize]) -> Result<Option<Chunk>> {
        let strides = row_major(input.shape());
        let shape: Vec<usize> = perm.iter().map(|&p| input.shape()[p]).collect();
        let from = (0, perm.iter().map(|&p| strides[p]).collect());
        self.copied(input, Strided { to: (0, row_major(&shape)), shape, from })
    }

    /// `KernelOp::Select`: basic indexing of `input`, one selection per axis and new axes.
    pub(crate) fn select(&self, input: &Chunk, axes: &[Select]) -> Result<Option<Chunk>> {
        let strides = row_major(input.shape());
        let (mut shape, mut from, mut first) = (Vec::new(), Vec::new(), 0i64);
        let mut axis = 0;
        for s in axes {
            match *s {
                Select::Range { start, stop, step } => {
                    let stride = strides.get(axis).copied().ok_or_else(|| internal_err!("selection {axes:?} of {:?}", input.shape()))?;
                    let length = stop.saturating_sub(start).div_ceil(step.unsigned_abs().max(1));
                    first += stride * if step < 0 { stop as i64 - 1 } else { start as i64 } * i64::from(length > 0);
                    shape.push(length);
                    from.push(stride * step as i64);
                    axis += 1;
                }
                Select::Index(i) => {
                    first += strides.get(axis).copied().ok_or_else(|| internal_err!("selection {axes:?} of {:?}", input.shape()))? * i as i64;
                    axis += 1;
                }
                Select::NewAxis => {
                    shape.push(1);
                    from.push(0);
                }
            }
        }
        self.copied(input, Strided { to: (0, row_major(&shape)), shape, from: (first, from) })
    }

    /// `KernelOp::Assemble`: a block of `shape` made of `pieces` of `inputs` (elements no
    /// piece covers are zero).
    pub(crate) fn assemble(&self, inputs: &[Chunk], shape: &[usize], pieces: &[Piece]) -> Result<Option<Chunk>> {
        let Some(first) = inputs.first() else { return Ok(None) };
        let mut copies = Vec::with_capacity(pieces.len());
        let to = row_major(shape);
        for p in pieces {
            let input = inputs.get(p.input).ok_or_else(|| internal_err!("an assembled piece of input {}", p.input))?;
            if input.dtype() != first.dtype() || p.src.len() != shape.len() || p.dst.len() != shape.len() {
                return Ok(None);
            }
            let from = row_major(input.shape());
            let offset = |at: &[usize], strides: &[i64]| at.iter().zip(strides).map(|(&a, &s)| a as i64 * s).sum::<i64>();
            let starts: Vec<usize> = p.src.iter().map(|&(lo, _)| lo).collect();
            copies.push((p.input, Strided {
                shape: p.src.iter().map(|&(lo, hi)| hi.saturating_sub(lo)).collect(),
                from: (offset(&starts, &from), from),
                to: (offset(&p.dst, &to), to.clone()),
            }));
        }
        let Some(words) = self.words_per_element(first.dtype()) else { return Ok(None) };
        if !inputs.iter().map(Chunk::len).chain([shape.iter().product()]).all(|n| indexable(n, words)) {
            return Ok(None);
        }
        let (_, buffer) = buffer_of(first)?;
        let out = self.context.new_buffer(shape.iter().product::<usize>() * words * 4)?;
        for (input, copy) in copies {
            self.copy(&inputs[input], &out, words, &copy)?;
        }
        Ok(Some(self.context.block(first.dtype(), shape, out, buffer.lane)))
    }

    /// `input`'s elements at `copy.from` written to a fresh block of `copy.shape` at `copy.to`.
    fn copied(&self, input: &Chunk, copy: Strided) -> Result<Option<Chunk>> {
        let Some(words) = self.words_per_element(input.dtype()) else { return Ok(None) };
        let n: usize = copy.shape.iter().product();
        if !indexable(input.len(), words) || !indexable(n, words) {
            return Ok(None);
        }
        let (_, buffer) = buffer_of(input)?;
        let out = self.context.new_buffer(n * words * 4)?;
        self.copy(input, &out, words, &copy)?;
        Ok(Some(self.context.block(input.dtype(), &copy.shape, out, buffer.lane)))
    }

    /// Runs the copy shader for one box.
    fn copy(&self, input: &Chunk, out: &wgpu::Buffer, words: usize, copy: &Strided) -> Result<()> {
        let n: usize = copy.shape.iter().product();
        if n == 0 {
            return Ok(());
        }
        let mut table: Vec<i64> = vec![n as i64, copy.shape.len() as i64, words as i64, copy.from.0, copy.to.0];
        for k in 0..copy.shape.len() {
            table.extend([copy.shape[k] as i64, copy.from.1[k], copy.to.1[k]]);
        }
        let table = table.iter().map(|&v| i32::try_from(v).map(|v| v as u32)).collect::<std::result::Result<Vec<u32>, _>>();
        let table = table.map_err(|_| internal_err!("a GPU copy of a block of {n} elements"))?;
        let table = self.context.words(&table)?;
        let (_, src) = buffer_of(input)?;
        let source = COPY.replace("ENTRY", crate::dispatch::ENTRY).replace("INDEX", crate::dispatch::ELEMENT_INDEX);
        self.dispatch(&source, &[out, &table, &src.buffer], n)
    }
}

/// Whether the shader's signed 32-bit word positions reach every word of `elements` elements.
fn indexable(elements: usize, words: usize) -> bool {
    elements.checked_mul(words).is_some_and(|w| w <= i32::MAX as usize)
}

/// Each axis's stride, in elements, in a row-major block of `shape`, signed.
fn row_major(shape: &[usize]) -> Vec<i64> {
    crate::reduce::row_major_strides(shape).into_iter().map(|s| s as i64).collect()
}
