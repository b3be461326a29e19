//! The closed set of kernels: what a task computes from its input blocks. A task names its
//! kernel by a `KernelOp` value with its parameters — plain, serialisable data, never a
//! closure.

use crate::linalg::LinalgOp;
use crate::ops::{partial_name, BinaryOp, Finish, MovingOp, PartialReduce, Piece, Rejection, ScanOp, Select, UnaryOp};
use crate::dtype::DType;
use crate::error::TegulaError;
use crate::program::FusedBlock;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// What a kernel computes from its input blocks (named by the task), on any device.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum KernelOp {
    Unary { op: UnaryOp, compute: DType },
    /// Inputs broadcast against each other.
    Binary { op: BinaryOp, compute: DType },
    /// Inputs: condition, then the two choices, broadcast together.
    Where { compute: DType },
    Cast { dtype: DType },
    /// The block's bytes, row-major, read as `dtype` (NumPy's `view`): with another itemsize
    /// the last axis scales by the ratio of the itemsizes.
    Bitcast { dtype: DType },
    /// Values of `dist` drawn from each element's word with its parameters (inputs: the
    /// words, then `a` and `b`, broadcast together); a parameter out of the distribution's
    /// domain is an error, NumPy's.
    Drawn { dist: Rejection },
    /// Reduces the listed axes of one block, keeping them with length one.
    /// (`axes` is shared by all the blocks of a reduction.)
    ReducePartial { op: PartialReduce, axes: Arc<[usize]> },
    /// Combines any number of same-shaped partials.
    ReduceCombine { op: PartialReduce },
    /// Turns the combined partial into the result; drops `squeeze` axes; casts to `dtype`.
    ReduceFinish { finish: Finish, squeeze: Vec<usize>, dtype: DType },
    /// The matrix product of two 2-D blocks, computed in `dtype`.
    Matmul { dtype: DType },
    /// `op` applied to each matrix (last two axes, whole) of the input blocks.
    Linalg { op: LinalgOp },
    /// Every result of the factorisation `op` (`LinalgOp::results`) of each matrix, at once:
    /// a task with several outputs, packed one after another as the bytes of one block.
    Factorise { op: LinalgOp },
    /// One output of a task with several: the `dtype` block of `shape` whose bytes start at
    /// `offset` in the packed block (input 0).
    Part { offset: usize, dtype: DType, shape: Vec<usize> },
    Transpose { perm: Vec<usize> },
    /// Inserts length-one axes at `axes` (ascending positions in the result; shared by all
    /// the blocks of an operation).
    ExpandDims { axes: Arc<[usize]> },
    Select { axes: Vec<Select> },
    /// A copy of input 0 whose selection `axes` (no new axes) is replaced by input 1.
    SetSelect { axes: Vec<Select> },
    /// The unnormalised discrete Fourier transform (`inverse`: with a positive exponent) of
    /// every lane along `axis` of a complex block that holds the whole axis.
    Fft { axis: usize, inverse: bool },
    /// The block's elements in row-major order as a block of `shape` (same element count).
    Reshape { shape: Vec<usize> },
    /// Integer indices (input 0) into an axis of length `n`, checked and wrapped to int64 in
    /// `[0, n)`; an index outside is an `IndexError` naming it and `axis`.
    WrapIndex { n: usize, axis: usize },
    /// One step of a gather along `axis` (of length `n`): input 0 holds indices (x's ndim,
    /// length one or x's along the other axes), input 1 the x block starting at `start`,
    /// optional input 2 the result so far; positions whose index falls in the x block take
    /// its element, the others keep the result so far (zero at the first step).
    Gather { axis: usize, start: usize, n: usize },
    /// The rows (entries along axis 0) of input 0 where the 1-D boolean input 1 is true.
    Compress,
    /// A new block of `shape` (dtype of the inputs) assembled from pieces of the inputs.
    Assemble { shape: Vec<usize>, pieces: Vec<Piece> },
    /// The running `op` of one block along `axis` (same shape and dtype).
    Scan { op: ScanOp, axis: usize },
    /// `op` over `count` windows of `width` consecutive elements along `axis`, the first
    /// starting at element `start` of input 0; the inputs are consecutive blocks along the
    /// axis that hold every window whole.
    Moving { op: MovingOp, axis: usize, width: usize, start: usize, count: usize },
    /// Those windows themselves, as a new last axis (NumPy's `sliding_window_view`).
    Windows { axis: usize, width: usize, start: usize, count: usize },
    /// Input 0 with each NaN replaced by input 1 (broadcast to it; same dtype): a forward
    /// fill's running values continued from the blocks before.
    FillNan,
    /// The block sorted along `axis` in NumPy's order (NaN last), stably; `descending`
    /// reverses the order but keeps equal elements in their original order.
    Sort { axis: usize, descending: bool },
    /// The int64 positions along `axis` that sort the block as `Sort` does, counted from
    /// `offset` (the block's start along the axis when the axis spans several blocks).
    ArgSort { axis: usize, descending: bool, offset: usize },
    /// The elements of block 0's lanes along `axis` at the int64 positions of block 1 (its
    /// ndim; along the other axes block 0's length or one) of each lane sorted in NumPy's
    /// order, found by selection, without sorting. Its lanes are `n` long.
    SortedTake { axis: usize, n: usize },
    /// The int64 positions (counted from `start`) of every `every`-th element, from rank
    /// `every / 2`, of a 1-D block in sorted order: by value in NumPy's order (reversed when
    /// `descending`), then by position.
    SamplePositions { descending: bool, every: usize, start: usize },
    /// How many elements of a 1-D block (starting at element `start` of its array) fall in
    /// each bucket between splitters (input 1: their values, same dtype; input 2: their int64
    /// positions), as int64, one per bucket. Elements compare by value in NumPy's order
    /// (reversed when `descending`), then by position, so every element is distinct.
    BucketCounts { descending: bool, start: usize },
    /// A 1-D block's elements (with `arg`, their int64 positions, counted from `start`)
    /// grouped by the bucket `BucketCounts` counts each in, buckets in order, and the
    /// elements of a bucket in their order in the block.
    BucketPartition { descending: bool, start: usize, arg: bool },
    /// The stable merge of sorted 1-D runs (in NumPy's order, reversed when `descending`),
    /// taken in input order: equal elements keep that order. With `arg`, the first half of
    /// the inputs are the runs' values and the second half their int64 positions, and the
    /// result is the positions in merged order.
    MergeRuns { descending: bool, arg: bool },
    /// For every element `v` of input 1, how many elements of input 0 (a 1-D block sorted in
    /// NumPy's order, same dtype) come before `v` in that order (`right`: or equal it); int64.
    SearchCount { right: bool },
    /// Input 0, or `error` when any element of the boolean input 1 (same shape) is true: an
    /// error NumPy raises from the data, found when the block is computed.
    Check { error: TegulaError },
    /// Its input, on the task's device: moving a block from one device to another (the
    /// executor moves an input that lives on another device; this kernel adds nothing).
    ToDevice,
    /// A fused element-wise program producing its block.
    Fused(FusedBlock),
    /// The partial reduction `op` over `axes` of a fused program's block, computed without
    /// building that block.
    FusedReduce { block: FusedBlock, op: PartialReduce, axes: Arc<[usize]> },
}

impl KernelOp {
    /// A short name for plans and reports.
    pub fn label(&self) -> String {
        match self {
            KernelOp::Unary { op, .. } => op.name().into(),
            KernelOp::Binary { op, .. } => op.name().into(),
            KernelOp::Where { .. } => "where".into(),
            KernelOp::Cast { dtype } => format!("astype({dtype})"),
            KernelOp::Bitcast { dtype } => format!("view({dtype})"),
            KernelOp::Drawn { dist } => format!("random-{}", dist.name()),
            KernelOp::ReducePartial { op, .. } => format!("partial-{}", partial_name(op)),
            KernelOp::ReduceCombine { op } => format!("combine-{}", partial_name(op)),
            KernelOp::ReduceFinish { .. } => "finish".into(),
            KernelOp::Matmul { .. } => "matmul-block".into(),
            KernelOp::Linalg { op } => op.name().into(),
            // Named by its last result (a first result may be named as computed alone).
            KernelOp::Factorise { op } => format!("{}-factors", op.results().last().map_or(op.name(), |r| r.name())),
            KernelOp::Part { .. } => "part".into(),
            KernelOp::Transpose { .. } => "transpose".into(),
            KernelOp::ExpandDims { .. } => "expand_dims".into(),
            KernelOp::Select { .. } => "select".into(),
            KernelOp::SetSelect { .. } => "setitem".into(),
            KernelOp::Fft { inverse, .. } => if *inverse { "ifft".into() } else { "fft".into() },
            KernelOp::Reshape { .. } => "reshape".into(),
            KernelOp::WrapIndex { .. } => "wrap-index".into(),
            KernelOp::Gather { .. } => "gather".into(),
            KernelOp::Compress => "compress".into(),
            KernelOp::Assemble { .. } => "assemble".into(),
            KernelOp::Scan { op, .. } => format!("{}-block", op.name()),
            KernelOp::Moving { op, .. } => op.name().into(),
            KernelOp::Windows { .. } => "sliding-windows".into(),
            KernelOp::Sort { .. } => "sort-block".into(),
            KernelOp::ArgSort { .. } => "argsort-block".into(),
            KernelOp::SortedTake { .. } => "sorted-take".into(),
            KernelOp::BucketCounts { .. } => "bucket-counts".into(),
            KernelOp::BucketPartition { .. } => "bucket-partition".into(),
            KernelOp::SamplePositions { .. } => "sample-positions".into(),
            KernelOp::MergeRuns { arg, .. } => if *arg { "merge-argsort".into() } else { "merge-sort".into() },
            KernelOp::SearchCount { .. } => "searchsorted-count".into(),
            KernelOp::Check { .. } => "check".into(),
            KernelOp::ToDevice => "to-device".into(),
            KernelOp::FillNan => "fill-nan".into(),
            KernelOp::Fused(block) => format!("fused[{}]", block.label()),
            KernelOp::FusedReduce { block, op, .. } => format!("fused[{},{}]", block.label(), partial_name(op)),
        }
    }
}
