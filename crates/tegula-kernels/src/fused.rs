//! Evaluating a fused program over one block, tile by tile (float64 programs on the faster
//! `tape`, which computes the same values): every step runs the ordinary
//! element-wise kernel on tile-sized 1-D chunks, so intermediate values stay in cache and only
//! the result (or, for a fused reduction, the partial) is ever written. The same kernels
//! compute each element as in unfused plans, and reductions visit the same tiles and bands,
//! so fused and unfused plans agree bit for bit.

use crate::binary::{binary, where_};
use crate::chunk::{Chunk, Wrap};
use crate::with_chunk;
use crate::source::source_tile;
use crate::parallel::{build_1d, build_f64};
use crate::reduce_f64::{reduce_flat_f64, reduce_rows_f64};
use crate::tape::{Registers, Tape};
use ndarray::Array;
use crate::reduce::{reduce_bands, reduce_flat};
use crate::tiles::{concat, flatten, ranges, reshape, tile};
use crate::unary::unary;
use tegula_core::program::{FusedBlock, Instr};
use tegula_core::{internal_err, DType, PartialReduce, Result};

/// The program's result for its block.
pub fn fused(block: &FusedBlock, inputs: &[Chunk]) -> Result<Chunk> {
    let shape = &block.shape[..];
    let size = shape.iter().product();
    if let Some(tape) = Tape::compile(block, inputs, false)? {
        return reshape(&build_f64(size, |start, out, regs: &mut Registers| tape.fill(start, out, regs))?, shape);
    }
    let bound = Bound::new(block, inputs)?;
    let dtype = block.program.dtype().ok_or_else(|| internal_err!("empty program"))?;
    reshape(&build_1d(dtype, size, |start, len| bound.eval(start, len))?, shape)
}

/// The partial reduction over `axes` of the program's result; the result block is never built.
pub fn fused_reduce(block: &FusedBlock, op: PartialReduce, axes: &[usize], inputs: &[Chunk]) -> Result<Chunk> {
    let shape = &block.shape[..];
    let size = shape.iter().product();
    let bools = block.program.dtype() == Some(DType::Bool);
    let (tape_op, count) = if bools { numbers_of_bools(op) } else { (Some(op), false) };
    if let Some(tape_op) = tape_op {
        if let Some(tape) = Tape::compile(block, inputs, bools)? {
            if let Some(partial) = tape_reduce(&tape, tape_op, axes, shape, size) {
                // A count summed in float64 is exact: a block has fewer than 2⁵³ elements.
                return if count { partial.map(|p| p.cast(DType::Int64)) } else { partial };
            }
        }
    }
    let bound = Bound::new(block, inputs)?;
    if axes.len() == shape.len() {
        return reduce_flat(op, shape.len(), size, |start, len| bound.eval(start, len));
    }
    reduce_bands(op, axes, shape, |start, len| {
        let tiles = ranges(len).map(|(s, n)| bound.eval(start + s, n)).collect::<Result<Vec<_>>>()?;
        concat(&tiles, &[len])
    })
}

/// A reduction of bools that reads them as the numbers 0 and 1 (sums, products, moments), as
/// the float64 reduction the tape runs on those numbers, and whether its partial is an int64
/// count; `(None, false)` for the others (extremes, `any`, `all` keep bools).
fn numbers_of_bools(op: PartialReduce) -> (Option<PartialReduce>, bool) {
    let f64_sum = PartialReduce::Sum { acc: DType::Float64 };
    match op {
        PartialReduce::Sum { acc: DType::Int64 } => (Some(f64_sum), true),
        PartialReduce::Sum { acc: DType::Float64 } | PartialReduce::Prod { acc: DType::Float64 } | PartialReduce::Moments | PartialReduce::NanMoments => (Some(op), false),
        _ => (None, false),
    }
}

/// The partial reduction of the tape's values over `axes`, or `None` when the float64 folds
/// do not do `op` and the general evaluator must.
fn tape_reduce(tape: &Tape, op: PartialReduce, axes: &[usize], shape: &[usize], size: usize) -> Option<Result<Chunk>> {
    let fill = |start, out: &mut [f64], regs: &mut Registers| tape.fill(start, out, regs);
    if axes == [0] {
        if let Some(partial) = reduce_rows_f64(op, shape, fill) {
            return Some(partial);
        }
    }
    if axes.len() < shape.len() {
        return Some(reduce_bands(op, axes, shape, |start, len| {
            let mut values = vec![0.0; len];
            tape.fill(start, &mut values, &mut Registers::default())?;
            Ok(Chunk::Float64(Array::from_vec(values).into_dyn().into()))
        }));
    }
    let spans = |start, len, regs: &mut Registers, sink: &mut dyn FnMut(&[f64])| tape.spans(start, len, regs, sink);
    reduce_flat_f64(op, shape.len(), size, spans)
}

/// A program bound to one block: its inputs flattened to row-major 1-D chunks.
struct Bound<'a> {
    block: &'a FusedBlock,
    flat: Vec<Option<Chunk>>,
}

impl<'a> Bound<'a> {
    fn new(block: &'a FusedBlock, inputs: &[Chunk]) -> Result<Bound<'a>> {
        let shape = &block.shape[..];
        let flat = block
            .program
            .steps
            .iter()
            .map(|s| match s.instr {
                Instr::Input(i) => {
                    let input = inputs.get(i).ok_or_else(|| internal_err!("fused input {i} missing"))?;
                    flatten(input, shape).map(Some)
                }
                _ => Ok(None),
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Bound { block, flat })
    }

    /// The program's values at flat positions `start .. start + len` of the block.
    fn eval(&self, start: usize, len: usize) -> Result<Chunk> {
        let steps = &self.block.program.steps;
        let mut values: Vec<Chunk> = Vec::with_capacity(steps.len());
        for (k, step) in steps.iter().enumerate() {
            let arg = |i: usize| values.get(i).ok_or_else(|| internal_err!("step {k} reads later step {i}"));
            let v = match &step.instr {
                Instr::Input(_) => tile(self.flat[k].as_ref().ok_or_else(|| internal_err!("input step {k}"))?, start, len),
                Instr::Scalar(v) => Chunk::full(step.dtype, &[1], *v),
                Instr::Source(i) => source_tile(self.block.source(*i)?, &self.block.shape, start, len)?,
                Instr::Unary { op, compute, arg: a } => unary(*op, *compute, arg(*a)?)?,
                Instr::Binary { op, compute, args } => binary(*op, *compute, arg(args[0])?, arg(args[1])?)?,
                Instr::Where { compute, args } => where_(*compute, arg(args[0])?, arg(args[1])?, arg(args[2])?)?,
                Instr::Cast { arg: a } => arg(*a)?.cast(step.dtype),
            };
            values.push(v);
        }
        let out = values.pop().ok_or_else(|| internal_err!("empty program"))?;
        if out.len() == len {
            return Ok(out);
        }
        // A program of constants only (a broadcast scalar) computes one value for the tile.
        with_chunk!(&out, a => Ok(Wrap::wrap(a.broadcast(vec![len]).ok_or_else(|| internal_err!("tile of {}", a.len()))?.to_owned().into())))
    }
}

