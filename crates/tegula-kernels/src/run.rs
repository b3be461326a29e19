//! The CPU implementation of every `KernelOp`: one function from an op and its input chunks
//! to the output chunk; and of every `SourceOp`, from the op alone.

use crate::binary::{binary, where_};
use crate::buckets::{bucket_counts, bucket_partition, merge_runs, sample_positions};
use crate::chunk::Chunk;
use crate::fused::{fused, fused_reduce};
use crate::gather::{compress, gather, wrap_index, GatherPlace};
use crate::assemble::assemble;
use crate::layout::{expand_dims, reshape, select, set_select, transpose};
use crate::factorise::factorise;
use crate::linalg::linalg;
use crate::parts::{pack, part};
use crate::matmul::matmul;
use crate::reduce::{reduce_combine, reduce_finish, reduce_partial};
use crate::reduce_f64::{reduce_row_major_f64, reduce_rows_widened, reduce_strided_f64};
use crate::reduce_order::in_memory_order;
use crate::moving::Span;
use crate::scan::{fill_nan, scan};
use crate::select::sorted_take;
use crate::sort::{argsort, search_count, sort};
pub use crate::source::generate;
use crate::unary::unary;
use tegula_core::{KernelOp, PartialReduce, Result, TegulaError};


/// Runs `op` on `inputs`.
pub fn run(op: &KernelOp, inputs: &[Chunk]) -> Result<Chunk> {
    let arg = |i: usize| {
        inputs.get(i).ok_or_else(|| {
            TegulaError::Internal(format!("{} needs input {i}, got {}", op.label(), inputs.len()))
        })
    };
    match op {
        KernelOp::Unary { op, compute } => unary(*op, *compute, arg(0)?),
        KernelOp::Binary { op, compute } => binary(*op, *compute, arg(0)?, arg(1)?),
        KernelOp::Where { compute } => where_(*compute, arg(0)?, arg(1)?, arg(2)?),
        KernelOp::Cast { dtype } => Ok(arg(0)?.cast(*dtype)),
        KernelOp::Bitcast { dtype } => crate::bitcast::bitcast(arg(0)?, *dtype),
        KernelOp::Drawn { dist } => crate::drawn::drawn(*dist, arg(0)?, arg(1)?, arg(2)?),
        KernelOp::ReducePartial { op, axes } => in_memory_order(*op, axes, arg(0)?, reduce_block),
        KernelOp::ReduceCombine { op } => reduce_combine(*op, inputs),
        KernelOp::ReduceFinish { finish, squeeze, dtype } => reduce_finish(*finish, squeeze, *dtype, arg(0)?),
        KernelOp::Matmul { dtype } => matmul(*dtype, arg(0)?, arg(1)?),
        KernelOp::Linalg { op } => linalg(*op, inputs),
        KernelOp::Factorise { op } => Ok(pack(&factorise(*op, arg(0)?)?)),
        KernelOp::Part { offset, dtype, shape } => part(arg(0)?, *offset, *dtype, shape),
        KernelOp::Check { error } => check(arg(0)?, arg(1)?, error),
        KernelOp::ToDevice => Ok(arg(0)?.clone()),
        KernelOp::Transpose { perm } => transpose(arg(0)?, perm),
        KernelOp::ExpandDims { axes } => expand_dims(arg(0)?, axes),
        KernelOp::Select { axes } => select(arg(0)?, axes),
        KernelOp::SetSelect { axes } => set_select(arg(0)?, arg(1)?, axes),
        KernelOp::Fft { axis, inverse } => crate::fft::fft(arg(0)?, *axis, *inverse),
        KernelOp::Reshape { shape } => reshape(arg(0)?, shape),
        KernelOp::WrapIndex { n, axis } => wrap_index(arg(0)?, *n, *axis),
        KernelOp::Gather { axis, start, n } => gather(GatherPlace { axis: *axis, start: *start, n: *n }, inputs),
        KernelOp::Compress => compress(arg(0)?, arg(1)?),
        KernelOp::Assemble { shape, pieces } => assemble(inputs, shape, pieces),
        KernelOp::Scan { op, axis } => scan(*op, *axis, arg(0)?),
        KernelOp::Moving { op, axis, width, start, count } => crate::moving::moving(*op, Span { axis: *axis, width: *width, start: *start, count: *count }, inputs),
        KernelOp::Windows { axis, width, start, count } => crate::moving::windows(Span { axis: *axis, width: *width, start: *start, count: *count }, inputs),
        KernelOp::FillNan => fill_nan(arg(0)?, arg(1)?),
        KernelOp::Sort { axis, descending } => sort(arg(0)?, *axis, *descending),
        KernelOp::ArgSort { axis, descending, offset } => argsort(arg(0)?, *axis, *descending, *offset),
        KernelOp::SortedTake { axis, n } => sorted_take(arg(0)?, arg(1)?, *axis, *n),
        KernelOp::BucketCounts { descending, start } => bucket_counts(arg(0)?, arg(1)?, arg(2)?, *start, *descending),
        KernelOp::BucketPartition { descending, start, arg: positions } => {
            bucket_partition(arg(0)?, arg(1)?, arg(2)?, *start, *descending, *positions)
        }
        KernelOp::MergeRuns { descending, arg } => merge_runs(inputs, *descending, *arg),
        KernelOp::SamplePositions { descending, every, start } => sample_positions(arg(0)?, *every, *start, *descending),
        KernelOp::SearchCount { right } => search_count(arg(0)?, arg(1)?, *right),
        KernelOp::Fused(block) => fused(block, inputs),
        KernelOp::FusedReduce { block, op, axes } => fused_reduce(block, *op, axes, inputs),
    }
}

/// The partial reduction of one block, by the first of the kernels that takes it.
fn reduce_block(op: PartialReduce, axes: &[usize], block: &Chunk) -> Result<Chunk> {
    reduce_strided_f64(op, axes, block)
        .or_else(|| reduce_row_major_f64(op, axes, block))
        .or_else(|| reduce_rows_widened(op, axes, block))
        .unwrap_or_else(|| reduce_partial(op, axes, block))
}

/// `KernelOp::Check`: `value`, or `error` where `failed` holds a true element.
fn check(value: &Chunk, failed: &Chunk, error: &TegulaError) -> Result<Chunk> {
    if failed.typed::<bool>()?.iter().any(|&f| f) {
        return Err(error.clone());
    }
    Ok(value.clone())
}
