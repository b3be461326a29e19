//! The CPU implementation of every `OpKind`: one function from an op and its input chunks to
//! the output chunk.

use crate::binary::{binary, where_};
use crate::buckets::{bucket_counts, merge_runs, sample_positions};
use crate::chunk::Chunk;
use crate::fused::{fused, fused_reduce};
use crate::gather::{compress, gather, wrap_index, GatherPlace};
use crate::layout::{assemble, expand_dims, load, reshape, select, set_select, transpose};
use crate::linalg::linalg;
use crate::matmul::matmul;
use crate::random::{random_block, BlockPlace};
use crate::reduce::{reduce_combine, reduce_finish, reduce_partial};
use crate::scan::scan;
use crate::sort::{argsort, search_count, sort};
use crate::source::{arange, linspace, LinspaceSpec};
use crate::unary::unary;
use tegula_core::{OpKind, Result, TegulaError};

/// Runs `op` on `inputs`. A `Load` takes the stored source array as its one input.
pub fn run(op: &OpKind, inputs: &[Chunk]) -> Result<Chunk> {
    let arg = |i: usize| {
        inputs.get(i).ok_or_else(|| {
            TegulaError::Internal(format!("{} needs input {i}, got {}", op.label(), inputs.len()))
        })
    };
    match op {
        OpKind::Load { region, .. } => load(arg(0)?, region),
        OpKind::Full { value, dtype, shape } => Ok(Chunk::full(*dtype, shape, *value)),
        OpKind::Arange { first, second, dtype, offset, len } => Ok(arange(*first, *second, *dtype, *offset, *len)),
        OpKind::Linspace { start, stop, num, endpoint, dtype, offset, len } => {
            let spec = LinspaceSpec { start: *start, stop: *stop, num: *num, endpoint: *endpoint };
            Ok(linspace(&spec, *dtype, *offset, *len))
        }
        OpKind::Random { key, dist, dtype, array_shape, start, shape } => {
            random_block(*key, *dist, *dtype, &BlockPlace { array_shape, start, shape })
        }
        OpKind::Unary { op, compute } => unary(*op, *compute, arg(0)?),
        OpKind::Binary { op, compute } => binary(*op, *compute, arg(0)?, arg(1)?),
        OpKind::Where { compute } => where_(*compute, arg(0)?, arg(1)?, arg(2)?),
        OpKind::Cast { dtype } => Ok(arg(0)?.cast(*dtype)),
        OpKind::ReducePartial { op, axes } => reduce_partial(*op, axes, arg(0)?),
        OpKind::ReduceCombine { op } => reduce_combine(*op, inputs),
        OpKind::ReduceFinish { finish, squeeze, dtype } => reduce_finish(*finish, squeeze, *dtype, arg(0)?),
        OpKind::Matmul { dtype } => matmul(*dtype, arg(0)?, arg(1)?),
        OpKind::Linalg { op } => linalg(*op, inputs),
        OpKind::Transpose { perm } => transpose(arg(0)?, perm),
        OpKind::ExpandDims { axes } => expand_dims(arg(0)?, axes),
        OpKind::Select { axes } => select(arg(0)?, axes),
        OpKind::SetSelect { axes } => set_select(arg(0)?, arg(1)?, axes),
        OpKind::Fft { axis, inverse } => crate::fft::fft(arg(0)?, *axis, *inverse),
        OpKind::Reshape { shape } => reshape(arg(0)?, shape),
        OpKind::WrapIndex { n, axis } => wrap_index(arg(0)?, *n, *axis),
        OpKind::Gather { axis, start, n } => gather(GatherPlace { axis: *axis, start: *start, n: *n }, inputs),
        OpKind::Compress => compress(arg(0)?, arg(1)?),
        OpKind::Assemble { shape, pieces } => assemble(inputs, shape, pieces),
        OpKind::Scan { op, axis } => scan(*op, *axis, arg(0)?),
        OpKind::Sort { axis, descending } => sort(arg(0)?, *axis, *descending),
        OpKind::ArgSort { axis, descending, offset } => argsort(arg(0)?, *axis, *descending, *offset),
        OpKind::BucketCounts { descending, start } => bucket_counts(arg(0)?, arg(1)?, arg(2)?, *start, *descending),
        OpKind::MergeRuns { descending, arg } => merge_runs(inputs, *descending, *arg),
        OpKind::SamplePositions { descending, every, start } => sample_positions(arg(0)?, *every, *start, *descending),
        OpKind::SearchCount { right } => search_count(arg(0)?, arg(1)?, *right),
        OpKind::Fused(block) => fused(block, inputs),
        OpKind::FusedReduce { block, op, axes } => fused_reduce(block, *op, axes, inputs),
        // Storage is the executor's business (kernels never see a store).
        OpKind::Read { .. } | OpKind::Write { .. } | OpKind::CallBlock { .. } => Err(TegulaError::Internal(format!("{} is not a kernel", op.label()))),
    }
}
