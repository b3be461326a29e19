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
    /// An element-wise function of one input.
    Unary {
        /// The function.
        op: UnaryOp,
        /// The dtype it runs in.
        compute: DType,
    },
    /// Inputs broadcast against each other.
    Binary {
        /// The function.
        op: BinaryOp,
        /// The dtype it runs in.
        compute: DType,
    },
    /// Inputs: condition, then the two choices, broadcast together.
    Where {
        /// The dtype the two choices are cast to.
        compute: DType,
    },
    /// The input cast to `dtype` (NumPy's `astype`).
    Cast {
        /// The dtype of the result.
        dtype: DType,
    },
    /// The block's bytes, row-major, read as `dtype` (NumPy's `view`): with another itemsize
    /// the last axis scales by the ratio of the itemsizes.
    Bitcast {
        /// The dtype the bytes are read as.
        dtype: DType,
    },
    /// Values of `dist` drawn from each element's word with its parameters (inputs: the
    /// words, then `a` and `b`, broadcast together); a parameter out of the distribution's
    /// domain is an error, NumPy's.
    Drawn {
        /// The distribution.
        dist: Rejection,
    },
    /// Reduces the listed axes of one block, keeping them with length one.
    /// (`axes` is shared by all the blocks of a reduction.)
    ReducePartial {
        /// The partial each block produces.
        op: PartialReduce,
        /// The axes reduced, ascending.
        axes: Arc<[usize]>,
    },
    /// Combines any number of same-shaped partials.
    ReduceCombine {
        /// The partial being combined.
        op: PartialReduce,
    },
    /// Turns the combined partial into the result; drops `squeeze` axes; casts to `dtype`.
    ReduceFinish {
        /// How the partial becomes the result.
        finish: Finish,
        /// The reduced axes dropped from the result (none with `keepdims`).
        squeeze: Vec<usize>,
        /// The dtype of the result.
        dtype: DType,
    },
    /// The matrix product of two 2-D blocks, computed in `dtype`.
    Matmul {
        /// The dtype the product is computed in.
        dtype: DType,
    },
    /// `op` applied to each matrix (last two axes, whole) of the input blocks.
    Linalg {
        /// The function and which of its results.
        op: LinalgOp,
    },
    /// Every result of the factorisation `op` (`LinalgOp::results`) of each matrix, at once:
    /// a task with several outputs, packed one after another as the bytes of one block.
    Factorise {
        /// The factorisation, as the op of its first result.
        op: LinalgOp,
    },
    /// One output of a task with several: the `dtype` block of `shape` whose bytes start at
    /// `offset` in the packed block (input 0).
    Part {
        /// Where its bytes start in the packed block.
        offset: usize,
        /// The dtype of the output.
        dtype: DType,
        /// The shape of the output.
        shape: Vec<usize>,
    },
    /// The input's axes permuted: axis `i` of the result is axis `perm[i]` of the input.
    Transpose {
        /// The input axis of each result axis.
        perm: Vec<usize>,
    },
    /// Inserts length-one axes at `axes` (ascending positions in the result; shared by all
    /// the blocks of an operation).
    ExpandDims {
        /// The positions of the new axes in the result, ascending.
        axes: Arc<[usize]>,
    },
    /// Basic indexing of the input: one selection per input axis, and new axes.
    Select {
        /// The selection of each input axis (and new axes).
        axes: Vec<Select>,
    },
    /// A copy of input 0 whose selection `axes` (no new axes) is replaced by input 1.
    SetSelect {
        /// The selection of each axis of input 0 that input 1 replaces.
        axes: Vec<Select>,
    },
    /// The unnormalised discrete Fourier transform (`inverse`: with a positive exponent) of
    /// every lane along `axis` of a complex block that holds the whole axis.
    Fft {
        /// The axis transformed.
        axis: usize,
        /// Use a positive exponent (the unnormalised inverse).
        inverse: bool,
    },
    /// The block's elements in row-major order as a block of `shape` (same element count).
    Reshape {
        /// The shape of the result.
        shape: Vec<usize>,
    },
    /// Integer indices (input 0) into an axis of length `n`, checked and wrapped to int64 in
    /// `[0, n)`; an index outside is an `IndexError` naming it and `axis`.
    WrapIndex {
        /// The length of the indexed axis.
        n: usize,
        /// The indexed axis, for messages.
        axis: usize,
    },
    /// One step of a gather along `axis` (of length `n`): input 0 holds indices (x's ndim,
    /// length one or x's along the other axes), input 1 the x block starting at `start`,
    /// optional input 2 the result so far; positions whose index falls in the x block take
    /// its element, the others keep the result so far (zero at the first step).
    Gather {
        /// The axis gathered along.
        axis: usize,
        /// The x block's first element along `axis`.
        start: usize,
        /// The length of x's `axis`.
        n: usize,
    },
    /// The rows (entries along axis 0) of input 0 where the 1-D boolean input 1 is true.
    Compress,
    /// A new block of `shape` (dtype of the inputs) assembled from pieces of the inputs.
    Assemble {
        /// The shape of the result.
        shape: Vec<usize>,
        /// The pieces copied from the inputs.
        pieces: Vec<Piece>,
    },
    /// The running `op` of one block along `axis` (same shape and dtype).
    Scan {
        /// The running reduction.
        op: ScanOp,
        /// The axis it runs along.
        axis: usize,
    },
    /// `op` over `count` windows of `width` consecutive elements along `axis`, the first
    /// starting at element `start` of input 0; the inputs are consecutive blocks along the
    /// axis that hold every window whole.
    Moving {
        /// The reduction of each window.
        op: MovingOp,
        /// The axis the windows run along.
        axis: usize,
        /// The number of elements in each window.
        width: usize,
        /// Where the first window starts in input 0.
        start: usize,
        /// The number of windows.
        count: usize,
    },
    /// Those windows themselves, as a new last axis (NumPy's `sliding_window_view`).
    Windows {
        /// The axis the windows run along.
        axis: usize,
        /// The number of elements in each window.
        width: usize,
        /// Where the first window starts in input 0.
        start: usize,
        /// The number of windows.
        count: usize,
    },
    /// Input 0 with each NaN replaced by input 1 (broadcast to it; same dtype): a forward
    /// fill's running values continued from the blocks before.
    FillNan,
    /// The block sorted along `axis` in NumPy's order (NaN last), stably; `descending`
    /// reverses the order but keeps equal elements in their original order.
    Sort {
        /// The axis sorted along.
        axis: usize,
        /// Sort in descending order (equal elements kept in their order).
        descending: bool,
    },
    /// The int64 positions along `axis` that sort the block as `Sort` does, counted from
    /// `offset` (the block's start along the axis when the axis spans several blocks).
    ArgSort {
        /// The axis sorted along.
        axis: usize,
        /// Sort in descending order (equal elements kept in their order).
        descending: bool,
        /// The number added to every position.
        offset: usize,
    },
    /// The elements of block 0's lanes along `axis` at the int64 positions of block 1 (its
    /// ndim; along the other axes block 0's length or one) of each lane sorted in NumPy's
    /// order, found by selection, without sorting. Its lanes are `n` long.
    SortedTake {
        /// The axis of the lanes.
        axis: usize,
        /// The length of each lane.
        n: usize,
    },
    /// The int64 positions (counted from `start`) of every `every`-th element, from rank
    /// `every / 2`, of a 1-D block in sorted order: by value in NumPy's order (reversed when
    /// `descending`), then by position.
    SamplePositions {
        /// Order by value descending.
        descending: bool,
        /// The distance in rank between samples.
        every: usize,
        /// The number added to every position.
        start: usize,
    },
    /// How many elements of a 1-D block (starting at element `start` of its array) fall in
    /// each bucket between splitters (input 1: their values, same dtype; input 2: their int64
    /// positions), as int64, one per bucket. Elements compare by value in NumPy's order
    /// (reversed when `descending`), then by position, so every element is distinct.
    BucketCounts {
        /// Order by value descending.
        descending: bool,
        /// The block's first position in its array.
        start: usize,
    },
    /// A 1-D block's elements (with `arg`, their int64 positions, counted from `start`)
    /// grouped by the bucket `BucketCounts` counts each in, buckets in order, and the
    /// elements of a bucket in their order in the block.
    BucketPartition {
        /// Order by value descending.
        descending: bool,
        /// The block's first position in its array.
        start: usize,
        /// Give the elements' positions instead of their values.
        arg: bool,
    },
    /// The stable merge of sorted 1-D runs (in NumPy's order, reversed when `descending`),
    /// taken in input order: equal elements keep that order. With `arg`, the first half of
    /// the inputs are the runs' values and the second half their int64 positions, and the
    /// result is the positions in merged order.
    MergeRuns {
        /// The runs are sorted descending.
        descending: bool,
        /// Merge positions along with values and give the positions.
        arg: bool,
    },
    /// For every element `v` of input 1, how many elements of input 0 (a 1-D block sorted in
    /// NumPy's order, same dtype) come before `v` in that order (`right`: or equal it); int64.
    SearchCount {
        /// Count the elements equal to `v` too (NumPy's `side="right"`).
        right: bool,
    },
    /// Input 0, or `error` when any element of the boolean input 1 (same shape) is true: an
    /// error NumPy raises from the data, found when the block is computed.
    Check {
        /// The error returned when the check fails.
        error: TegulaError,
    },
    /// Its input, on the task's device: moving a block from one device to another (the
    /// executor moves an input that lives on another device; this kernel adds nothing).
    ToDevice,
    /// A fused element-wise program producing its block.
    Fused(FusedBlock),
    /// The partial reduction `op` over `axes` of a fused program's block, computed without
    /// building that block.
    FusedReduce {
        /// The fused program and its block.
        block: FusedBlock,
        /// The partial the block produces.
        op: PartialReduce,
        /// The axes reduced, ascending.
        axes: Arc<[usize]>,
    },
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
