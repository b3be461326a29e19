//! Joining an output's blocks into one array.

use crate::caller_memory::CallerRegion;
use crate::executor::OutputSink;
use crate::fresh_pages::FreshPages;
use ndarray::{ArrayD, Axis, Dimension, IxDyn, Slice};
use std::mem::MaybeUninit;
use std::ops::Range;
use std::sync::Mutex;
use tegula_core::grid::{block_indices, offsets, unravel};
use tegula_core::{internal_err, Chunks, DType, Piece, Result, Scalar};
use tegula_kernels::chunk::Block;
use tegula_kernels::element::Elem;
use tegula_kernels::{with_chunk, Chunk, Wrap};
use tegula_plan::graph::Output;

/// One chunk holding the whole output (the block itself when there is only one).
pub fn assemble_output(chunks: &Chunks, dtype: DType, blocks: Vec<Chunk>) -> Result<Chunk> {
    if let [only] = blocks.as_slice() {
        return Ok(only.cast(dtype));
    }
    let starts: Vec<Vec<usize>> = chunks.sizes().iter().map(|s| offsets(s)).collect();
    let pieces = block_indices(&chunks.numblocks())
        .enumerate()
        .map(|(i, idx)| Piece {
            input: i,
            src: chunks.block_shape(&idx).into_iter().map(|n| (0, n)).collect(),
            dst: idx.iter().enumerate().map(|(a, &b)| starts[a][b]).collect(),
        })
        .collect::<Vec<_>>();
    tegula_kernels::assemble::assemble(&blocks, &chunks.shape(), &pieces)
}

/// The outputs of a plan, each joined into one array as its blocks arrive (an `OutputSink`):
/// the array is made once, at its first block, without being filled, and each block is
/// copied into place as it comes and let go of, so its memory serves the blocks still to be
/// made instead of fresh memory for each one and a copy of all of them at the end.
pub struct OutputArrays<'a> {
    outputs: &'a [Output],
    arrays: Vec<Mutex<Joining>>,
}

/// An output's array while its blocks arrive.
enum Joining {
    Nothing,
    /// The only block of its output.
    Whole(Chunk),
    Filling(Box<dyn Filling>),
}

impl<'a> OutputArrays<'a> {
    /// Nothing received yet for `outputs`.
    pub fn new(outputs: &'a [Output]) -> OutputArrays<'a> {
        OutputArrays { outputs, arrays: outputs.iter().map(|_| Mutex::new(Joining::Nothing)).collect() }
    }

    /// Every output as one chunk, once all their blocks have come.
    pub fn finish(self) -> Result<Vec<Chunk>> {
        self.arrays
            .into_iter()
            .zip(self.outputs)
            .map(|(joining, output)| match joining.into_inner().map_err(|_| internal_err!("an output's array poisoned"))? {
                Joining::Whole(chunk) => Ok(chunk),
                Joining::Filling(filling) => filling.finish(),
                Joining::Nothing if output.blocks.is_empty() => Ok(Chunk::full(output.dtype, &output.chunks.shape(), Scalar::Bool(false))),
                Joining::Nothing => Err(internal_err!("output of {:?} received no block", output.chunks.shape())),
            })
            .collect()
    }
}

impl OutputArrays<'_> {
    /// Output `output` and its array, made (not filled) unless it is one block that comes by
    /// `put` (`fill` false), which is kept as it comes.
    fn joining(&self, output: usize, fill: bool) -> Result<(&Output, std::sync::MutexGuard<'_, Joining>)> {
        let o = self.outputs.get(output).ok_or_else(|| internal_err!("the plan has no output {output}"))?;
        let mut joining = self.arrays[output].lock().map_err(|_| internal_err!("an output's array poisoned"))?;
        if matches!(*joining, Joining::Nothing) && (fill || o.blocks.len() > 1) {
            // A prototype of the dtype, for its element type.
            let like = Chunk::full(o.dtype, &[0], Scalar::Bool(false));
            *joining = Joining::Filling(with_chunk!(&like, c => filling(c, &o.chunks)));
        }
        Ok((o, joining))
    }
}

impl OutputSink for OutputArrays<'_> {
    fn put(&self, output: usize, block: usize, chunk: Chunk) -> Result<()> {
        let (o, mut joining) = self.joining(output, false)?;
        let chunk = if chunk.dtype() == o.dtype { chunk } else { chunk.cast(o.dtype) };
        match &mut *joining {
            Joining::Nothing => {
                *joining = Joining::Whole(chunk);
                Ok(())
            }
            Joining::Filling(filling) => filling.write(block, &chunk),
            Joining::Whole(_) => Err(internal_err!("output {output} of one block given several")),
        }
    }

    fn put_zeros(&self, output: usize, block: usize) -> Result<bool> {
        let (_, mut joining) = self.joining(output, true)?;
        match &mut *joining {
            Joining::Filling(filling) => filling.zeros(block).map(|()| true),
            _ => Err(internal_err!("output {output} was given before its zeros")),
        }
    }

    fn place_of(&self, output: usize, block: usize) -> Result<Option<CallerRegion>> {
        let (o, mut joining) = self.joining(output, true)?;
        match &mut *joining {
            Joining::Filling(filling) => filling.place(block, o.dtype).map(Some),
            _ => Err(internal_err!("output {output} was given before its place was asked")),
        }
    }

    fn written_in_place(&self, output: usize, block: usize) -> Result<()> {
        let (_, mut joining) = self.joining(output, true)?;
        match &mut *joining {
            Joining::Filling(filling) => filling.mark_written(block),
            _ => Err(internal_err!("output {output} was given before its place was asked")),
        }
    }
}

/// An array written block by block, each element once.
trait Filling: Send {
    /// Copies `chunk` into the place of block `block` (row-major over the grid).
    fn write(&mut self, block: usize, chunk: &Chunk) -> Result<()>;
    /// Where block `block` lies in the array's memory, for another process to write it.
    fn place(&mut self, block: usize, dtype: DType) -> Result<CallerRegion>;
    /// Block `block` was written at its `place`.
    fn mark_written(&mut self, block: usize) -> Result<()>;
    /// Block `block` holds zeros: written by `finish` where the array's pages do not hold
    /// zeros already.
    fn zeros(&mut self, block: usize) -> Result<()>;
    /// The array, once every block has been written.
    fn finish(self: Box<Self>) -> Result<Chunk>;
}

/// An array of `chunks`'s shape for blocks like `_like`, not yet written.
fn filling<T: Elem + Wrap>(_like: &Block<T>, chunks: &Chunks) -> Box<dyn Filling> {
    let array = ArrayD::uninit(IxDyn(&chunks.shape()));
    let fresh = FreshPages::of(array.as_ptr() as *const u8, array.len() * std::mem::size_of::<T>());
    Box::new(Filled::<T> {
        array,
        starts: chunks.sizes().iter().map(|s| offsets(s)).collect(),
        chunks: chunks.clone(),
        written: vec![false; chunks.nblocks()],
        zeros: Vec::new(),
        fresh,
    })
}

struct Filled<T> {
    array: ArrayD<MaybeUninit<T>>,
    chunks: Chunks,
    /// The first element of every block, per axis.
    starts: Vec<Vec<usize>>,
    written: Vec<bool>,
    /// The blocks of zeros, written last.
    zeros: Vec<usize>,
    /// The array's pages no block has been written to.
    fresh: FreshPages,
}

impl<T> Filled<T> {
    /// Block `block`'s index in the grid and its shape; an error for a block already written
    /// or out of the grid.
    fn unwritten(&self, block: usize) -> Result<(Vec<usize>, Vec<usize>)> {
        if self.written.get(block) != Some(&false) {
            return Err(internal_err!("block {block} of an output given twice or out of its grid"));
        }
        let idx = unravel(block, &self.chunks.numblocks());
        let shape = self.chunks.block_shape(&idx);
        Ok((idx, shape))
    }

    /// Readies the pages block `idx` (of `shape`) lies on to be written: those still fresh
    /// take memory the computation freed (`FreshPages`).
    fn before_writing(&mut self, idx: &[usize], shape: &[usize]) {
        if shape.contains(&0) {
            return;
        }
        // The offsets of the block's first and last elements (the array is row-major).
        let first = self.first_element(idx);
        let last = first + shape.iter().zip(self.array.strides()).map(|(&n, &stride)| (n - 1) * stride as usize).sum::<usize>();
        let size = std::mem::size_of::<T>();
        self.fresh.before_writing(self.array.as_ptr() as *const u8, first * size..(last + 1) * size);
    }

    /// The offset in the array of the first element of block `idx`.
    fn first_element(&self, idx: &[usize]) -> usize {
        idx.iter().zip(self.array.strides()).enumerate().map(|(axis, (&b, &stride))| self.starts[axis][b] * stride as usize).sum()
    }

    /// The byte ranges of the array block `block` covers, in order, adjacent ones joined.
    fn byte_runs(&self, block: usize) -> Vec<Range<usize>> {
        let idx = unravel(block, &self.chunks.numblocks());
        let shape = self.chunks.block_shape(&idx);
        let size = std::mem::size_of::<T>();
        let Some((&row, outer)) = shape.split_last() else {
            // A 0-d array: its one element.
            let element: Range<usize> = 0..size;
            return vec![element];
        };
        if row == 0 || outer.contains(&0) {
            return Vec::new();
        }
        let (first, strides) = (self.first_element(&idx), self.array.strides());
        let mut runs: Vec<Range<usize>> = Vec::new();
        for at in ndarray::indices(outer) {
            let offset = first + at.slice().iter().zip(strides.iter()).map(|(&i, &s)| i * s as usize).sum::<usize>();
            let run = offset * size..(offset + row) * size;
            match runs.last_mut() {
                Some(last) if last.end == run.start => last.end = run.end,
                _ => runs.push(run),
            }
        }
        runs
    }
}

impl<T: Elem + Wrap> Filling for Filled<T> {
    fn place(&mut self, block: usize, dtype: DType) -> Result<CallerRegion> {
        let (idx, shape) = self.unwritten(block)?;
        self.before_writing(&idx, &shape);
        let region = idx.iter().zip(&shape).enumerate().map(|(axis, (&b, &n))| (self.starts[axis][b], self.starts[axis][b] + n)).collect();
        Ok(CallerRegion::here(self.array.as_mut_ptr() as u64, dtype, &self.chunks.shape(), region))
    }

    fn mark_written(&mut self, block: usize) -> Result<()> {
        self.unwritten(block)?;
        self.written[block] = true;
        Ok(())
    }

    fn write(&mut self, block: usize, chunk: &Chunk) -> Result<()> {
        let (idx, shape) = self.unwritten(block)?;
        let source = chunk.typed::<T>()?.view();
        if source.shape() != shape.as_slice() {
            return Err(internal_err!("block {block} of shape {:?} where the grid has {shape:?}", source.shape()));
        }
        self.before_writing(&idx, &shape);
        let mut place = self.array.view_mut();
        for (axis, (&b, &n)) in idx.iter().zip(&shape).enumerate() {
            let start = self.starts[axis][b];
            place.slice_axis_inplace(Axis(axis), Slice::from(start..start + n));
        }
        source.assign_to(place);
        self.written[block] = true;
        Ok(())
    }

    fn zeros(&mut self, block: usize) -> Result<()> {
        self.unwritten(block)?;
        self.written[block] = true;
        self.zeros.push(block);
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> Result<Chunk> {
        if self.written.iter().any(|&w| !w) {
            return Err(internal_err!("an output assembled with blocks missing"));
        }
        let runs: Vec<Range<usize>> = self.zeros.iter().flat_map(|&b| self.byte_runs(b)).collect();
        let elements = self.array.as_slice_memory_order_mut().ok_or_else(|| internal_err!("an output array not contiguous"))?;
        // SAFETY: the bytes of the array's elements, written as bytes.
        let bytes = unsafe { std::slice::from_raw_parts_mut(elements.as_mut_ptr().cast::<MaybeUninit<u8>>(), std::mem::size_of_val(elements)) };
        for run in runs {
            self.fresh.zero_unless_fresh(bytes, run);
        }
        // SAFETY: the blocks tile the array (a chunk grid), and every one has been written.
        let array = unsafe { self.array.assume_init() };
        Ok(T::wrap(Block::from(array)))
    }
}
