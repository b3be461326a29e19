//! The lazy expression graph: each array is a `Node` that knows its shape, dtype and chunks
//! and holds its inputs. Nodes are immutable and shared (`Arc`), so common subexpressions are
//! lowered once; a node's `id` is its identity in plans.

use crate::resource::Resource;
use serde::Serialize;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use tegula_core::limits::check_array_shape;
use tegula_core::{value_err, BinaryOp, Chunks, DeviceId, Result, DType, Distribution, LinalgOp, MovingOp, ReduceOp, Rejection, Scalar, ScanOp, Select, TegulaError, UnaryOp};

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// A new node or resource id, unique in the process.
pub fn next_id() -> u64 {
    NEXT_ID.fetch_add(1, Ordering::Relaxed)
}

/// Where a source node's values come from.
#[derive(Debug, Clone)]
pub enum SourceKind {
    /// An array the caller holds in memory, or a stored array, by its resource.
    Stored(Arc<Resource>),
    /// NumPy's `full`: every element this value.
    Full(Scalar),
    /// NumPy's arange from its first two values (see `SourceOp::Arange`).
    Arange {
        /// Element 0.
        first: Scalar,
        /// Element 1 (`first` plus the step).
        second: Scalar,
    },
    /// NumPy's `linspace` (its number of samples is the node's length).
    Linspace {
        /// NumPy's `start`.
        start: f64,
        /// NumPy's `stop`.
        stop: f64,
        /// Whether `stop` is the last sample.
        endpoint: bool,
    },
    /// Counter-based random values.
    Random {
        /// The key of the random stream.
        key: u64,
        /// The distribution values are drawn from.
        dist: Distribution,
    },
}

/// The part of a source a node produces: the box starting at `origin` of the source's whole
/// extent `whole` (so `x[0, :2]` of a huge stored or generated array plans only the blocks it
/// touches). Empty: the whole source, of the node's own shape.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Window {
    /// Where the node's box starts in the whole source, along each axis.
    pub origin: Arc<[usize]>,
    /// The whole source's shape.
    pub whole: Arc<[usize]>,
}

impl Window {
    /// The position in the whole source of position `at` of the node along `axis`.
    pub fn start(&self, axis: usize, at: usize) -> usize {
        self.origin.get(axis).map_or(at, |o| o + at)
    }
    /// The whole source's shape, given the node's.
    pub fn whole_shape(&self, shape: &[usize]) -> Vec<usize> {
        if self.whole.is_empty() { shape.to_vec() } else { self.whole.to_vec() }
    }
}

/// The basic-index selection of one axis of a node's input, normalised.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum IndexAxis {
    /// `len` elements `start, start + step, ...` (step may be negative).
    Range {
        /// The first element.
        start: usize,
        /// The step between elements.
        step: isize,
        /// The number of elements.
        len: usize,
    },
    /// One element; the axis is dropped.
    Index(usize),
    /// A new axis of length one.
    NewAxis,
}

/// What a node computes from its inputs.
#[derive(Debug, Clone)]
pub enum NodeKind {
    /// Values from a source (stored or generated), the part of it `Window` names.
    Source(SourceKind, Window),
    /// An element-wise function of one input.
    Unary {
        /// The function.
        op: UnaryOp,
        /// The dtype it runs in.
        compute: DType,
    },
    /// An element-wise function of two inputs, broadcast.
    Binary {
        /// The function.
        op: BinaryOp,
        /// The dtype it runs in.
        compute: DType,
    },
    /// NumPy's `where(cond, x, y)` of three inputs, broadcast.
    Where {
        /// The dtype the two choices are cast to.
        compute: DType,
    },
    /// The input cast to the node's dtype (`astype`).
    Cast,
    /// Each block's bytes read as the node's dtype (`construct::elementwise::bitcast`).
    Bitcast,
    /// Values of a rejection-sampled distribution from each element's word and parameters
    /// (`construct::elementwise::drawn`).
    Drawn {
        /// The distribution.
        dist: Rejection,
    },
    /// A reduction of the input over `axes`, as a tree of partials.
    Reduce {
        /// The reduction.
        op: ReduceOp,
        /// The axes reduced, ascending.
        axes: Vec<usize>,
        /// Keep the reduced axes with length one.
        keepdims: bool,
        /// Delta degrees of freedom for `var` and `std`.
        ddof: f64,
        /// The most partials one combining task takes.
        split_every: usize,
    },
    /// The matrix product of two inputs (NumPy's `matmul`).
    Matmul {
        /// The most partial products one summing task takes.
        split_every: usize,
    },
    /// `op` of each matrix of the inputs, whose last two axes are one block each and whose
    /// other (stack) axes are chunked alike; the result keeps the stack chunks (`construct/linalg.rs`).
    Linalg {
        /// The function and which of its results.
        op: LinalgOp,
    },
    /// The input's axes permuted: axis `i` is the input's axis `perm[i]`.
    Transpose {
        /// The input axis of each axis of the result.
        perm: Vec<usize>,
    },
    /// Basic indexing of the input.
    Index {
        /// The selection of each input axis, and new axes.
        axes: Vec<IndexAxis>,
    },
    /// Input 0 with the selection `axes` (no new axes) replaced by input 1, chunked so that
    /// each of its blocks falls in one block of input 0.
    SetItem {
        /// The selection of each axis of input 0 that input 1 replaces.
        axes: Vec<IndexAxis>,
    },
    /// The discrete Fourier transform along `axis`, which is one block (see `construct/fft.rs`).
    Fft {
        /// The axis transformed.
        axis: usize,
        /// Use a positive exponent (the unnormalised inverse).
        inverse: bool,
    },
    /// The input in this node's chunks; with `copy`, no block is a view of an input block
    /// (a staged rechunk's pieces, so holding or spilling them frees the blocks they came from).
    Rechunk {
        /// Copy every block rather than take views of input blocks.
        copy: bool,
    },
    /// The input's elements in row-major order, in this node's shape. The chunkings match
    /// block for block (`construct/reshape.rs`): block `i` of the result is block `i` of the input.
    Reshape,
    /// Integer indices into an axis of length `n` (`axis` of the indexed array, for errors),
    /// checked and wrapped to int64 in `[0, n)`.
    WrapIndex {
        /// The length of the indexed axis.
        n: usize,
        /// The indexed axis, for messages.
        axis: usize,
    },
    /// Input 0, failing with `error` when computed where the boolean input 1 (same chunks)
    /// holds a true element (`construct/check.rs`).
    Check {
        /// The error returned when the check fails.
        error: TegulaError,
    },
    /// The elements of input 0 at the integer indices input 1 along `axis` (`construct/gather.rs`).
    Gather {
        /// The axis gathered along.
        axis: usize,
    },
    /// The points of input 0 at coordinates known when planned (`construct/points.rs`):
    /// `axes[0]` runs over the points, the other indexed axes have length one.
    PickPoints {
        /// The indexed axes.
        axes: Arc<[usize]>,
        /// Each point's coordinate along each of `axes`, point after point.
        coords: Arc<[usize]>,
    },
    /// The rows (axis 0) of input 0 where the 1-D boolean input 1 (same chunks along axis 0)
    /// is true; output block `b` along axis 0 comes from input block `blocks[b]`.
    Compress {
        /// The input block of each output block along axis 0.
        blocks: Arc<[usize]>,
    },
    /// The number of true elements of each block of a 1-D boolean input, as int64.
    BlockCounts,
    /// Length-one axes inserted at `axes` (ascending positions in the result).
    ExpandDims {
        /// The positions of the new axes in the result, ascending.
        axes: Arc<[usize]>,
    },
    /// The inputs (same dtype, same chunks on every other axis) one after another along `axis`.
    Concatenate {
        /// The axis joined along.
        axis: usize,
    },
    /// The running sum or product along `axis` (the input is in the result dtype).
    Scan {
        /// The running operation.
        op: ScanOp,
        /// The axis it runs along.
        axis: usize,
    },
    /// Every window of `width` consecutive elements of the input along `axis`, as a new last
    /// axis (one block); the windows are in the blocks their first elements are in
    /// (`construct/windows.rs`).
    Windows {
        /// The axis the windows run along.
        axis: usize,
        /// The number of elements in each window.
        width: usize,
    },
    /// `op` over every window of `width` along `axis`, blocked as `Windows` is, without
    /// building the windows.
    Moving {
        /// The reduction of each window.
        op: MovingOp,
        /// The axis the windows run along.
        axis: usize,
        /// The number of elements in each window.
        width: usize,
    },
    /// Each block of the input sorted along `axis` on its own (the whole sort when the axis is
    /// one block), or the int64 positions along the axis sorting it (`arg`).
    Sort {
        /// The axis sorted along.
        axis: usize,
        /// Sort in descending order (equal elements kept in their order).
        descending: bool,
        /// Give the int64 positions instead of the values.
        arg: bool,
    },
    /// The elements at the int64 positions input 1 of input 0's lanes along `axis` sorted in
    /// NumPy's order (`take_along_axis` of the sort, found by selection): input 0 is one
    /// block along `axis`, input 1 one block there too and blocked as input 0 or of length
    /// one along the other axes.
    SortedTake {
        /// The axis of the lanes.
        axis: usize,
    },
    /// The elements of the 1-D input 0 at the int64 positions input 1, whose block `b` holds
    /// positions inside block `b` of input 0 (`construct/sample_sort.rs`).
    TakeWithinBlocks,
    /// The int64 positions of regularly spaced elements of each sorted block of the 1-D input
    /// (`construct/sample_sort.rs`: `sample_every` for `buckets`).
    SamplePositions {
        /// Order by value descending.
        descending: bool,
        /// The number of buckets the samples split the array into.
        buckets: usize,
    },
    /// How many elements of each block of the 1-D input 0 fall in each bucket between the
    /// splitters (input 1: values; input 2: positions), one int64 per bucket.
    BucketCounts {
        /// Order by value descending.
        descending: bool,
    },
    /// Each block of the 1-D input 0 with its elements (or with `arg`, their int64 positions)
    /// grouped by the buckets `BucketCounts` counts, in bucket order, each bucket's in block
    /// order.
    BucketPartition {
        /// Order by value descending.
        descending: bool,
        /// Give the elements' positions instead of their values.
        arg: bool,
    },
    /// The sorted 1-D array from the blocks of input 0, each sorted on its own or grouped by
    /// bucket (and for argsort input 1, their positions): `counts[b * buckets + j]` elements of block `b` fall
    /// in bucket `j`; each nonempty bucket is one output block.
    MergeBuckets {
        /// Order by value descending.
        descending: bool,
        /// How many elements of each input block fall in each bucket, block by block.
        counts: Arc<[usize]>,
    },
    /// For each element of input 1, where it would go in the 1-D input 0 (same dtype) to keep
    /// it sorted; `presorted`: input 0 is sorted (else only the order it would sort into
    /// matters, and each of its blocks is sorted first).
    SearchSorted {
        /// Place elements equal to one of input 0 after it (NumPy's `side="right"`).
        right: bool,
        /// Input 0 is sorted already.
        presorted: bool,
    },
    /// Writes its input, block by block, to `sink` (whose stored chunks the blocks align with).
    /// Its blocks are empty: what it makes is the stored array.
    Store {
        /// The stored array being written.
        sink: Arc<Resource>,
    },
    /// A user's function (`name`, held by `function`) applied to the same block of every
    /// input (same block grids); its results are this node's blocks (`construct/map_blocks.rs`).
    MapBlocks {
        /// The user's function, as a resource.
        function: Arc<Resource>,
        /// Its name, for plans.
        name: String,
    },
    /// The input on `device` (the node's own device; see `Node::device`).
    ToDevice {
        /// The device the result lives on.
        device: DeviceId,
    },
}

/// One array of the lazy expression graph: what computes it, from which inputs, and its
/// dtype and chunks.
#[derive(Debug)]
pub struct Node {
    /// Its identity in plans, unique in the process.
    pub id: u64,
    /// What it computes.
    pub kind: NodeKind,
    /// The nodes it reads.
    pub inputs: Vec<Arc<Node>>,
    /// The dtype of its elements.
    pub dtype: DType,
    /// Its chunking (and so its shape).
    pub chunks: Chunks,
    /// Where its tasks run and its blocks live: its inputs' device (all on one), the CPU for
    /// sources, stores and user functions (which run on the host), the target of `ToDevice`.
    pub device: DeviceId,
}

/// A shared reference to a node.
pub type NodeRef = Arc<Node>;

impl Drop for Node {
    /// Dropping a long expression chain recursively would overflow the stack, so the inputs
    /// this node held the last reference to are taken apart one at a time.
    fn drop(&mut self) {
        let mut stack = std::mem::take(&mut self.inputs);
        while let Some(node) = stack.pop() {
            if let Some(mut node) = Arc::into_inner(node) {
                stack.append(&mut node.inputs);
            }
        }
    }
}

impl Node {
    /// A node whose shape is its input's, or known to be valid.
    pub fn new(kind: NodeKind, inputs: Vec<NodeRef>, dtype: DType, chunks: Chunks) -> NodeRef {
        let device = match &kind {
            NodeKind::ToDevice { device } => *device,
            NodeKind::Store { .. } | NodeKind::MapBlocks { .. } => DeviceId::CPU,
            _ => placed(&inputs).next().map_or(DeviceId::CPU, |i| i.device),
        };
        Arc::new(Node { id: next_id(), kind, inputs, dtype, chunks, device })
    }

    /// A node of a shape made from user input: refused, as NumPy refuses such arrays, when it
    /// has more than `MAX_DIMS` axes or more bytes than an address can count.
    pub fn checked(kind: NodeKind, inputs: Vec<NodeRef>, dtype: DType, chunks: Chunks) -> Result<NodeRef> {
        check_array_shape(&chunks.shape(), dtype.itemsize())?;
        check_one_device(&kind, &inputs)?;
        Ok(Node::new(kind, inputs, dtype, chunks))
    }
    /// Its length along each axis.
    pub fn shape(&self) -> Vec<usize> {
        self.chunks.shape()
    }
    /// The number of axes.
    pub fn ndim(&self) -> usize {
        self.chunks.ndim()
    }
    /// The number of elements.
    pub fn size(&self) -> usize {
        self.shape().iter().product()
    }
    /// The bytes of its elements.
    pub fn nbytes(&self) -> usize {
        self.size() * self.dtype.itemsize()
    }

    /// A one-word description of the operation, for plans.
    pub fn label(&self) -> String {
        match &self.kind {
            NodeKind::Source(SourceKind::Stored(s), _) if s.kind == crate::resource::ResourceKind::Source => "from-store".into(),
            NodeKind::Source(SourceKind::Stored(_), _) => "from-array".into(),
            NodeKind::Source(SourceKind::Full(v), _) => format!("full({v})"),
            NodeKind::Source(SourceKind::Arange { .. }, _) => "arange".into(),
            NodeKind::Source(SourceKind::Linspace { .. }, _) => "linspace".into(),
            NodeKind::Source(SourceKind::Random { dist, .. }, _) => match dist {
                Distribution::Uniform { .. } => "random-uniform".into(),
                Distribution::Normal { .. } => "random-normal".into(),
                Distribution::Integers { .. } => "random-integers".into(),
                Distribution::Gamma { .. } => "random-gamma".into(),
                Distribution::Beta { .. } => "random-beta".into(),
                Distribution::ChiSquare { .. } => "random-chisquare".into(),
                Distribution::StudentT { .. } => "random-standard-t".into(),
                Distribution::Poisson { .. } => "random-poisson".into(),
                Distribution::Binomial { .. } => "random-binomial".into(),
                Distribution::Words => "random-words".into(),
            },
            NodeKind::Unary { op, .. } => op.name().into(),
            NodeKind::Binary { op, .. } => op.name().into(),
            NodeKind::Where { .. } => "where".into(),
            NodeKind::Cast => format!("astype({})", self.dtype),
            NodeKind::Bitcast => format!("view({})", self.dtype),
            NodeKind::Drawn { dist } => format!("random-{}", dist.name()),
            NodeKind::Reduce { op, axes, .. } => format!("{}(axis={axes:?})", op.name()),
            NodeKind::Matmul { .. } => "matmul".into(),
            NodeKind::Linalg { op } => op.name().into(),
            NodeKind::Transpose { perm } => format!("transpose{perm:?}"),
            NodeKind::Index { .. } => "getitem".into(),
            NodeKind::SetItem { .. } => "setitem".into(),
            NodeKind::Fft { axis, inverse } => format!("{}(axis={axis})", if *inverse { "ifft" } else { "fft" }),
            NodeKind::Rechunk { .. } => "rechunk".into(),
            NodeKind::Reshape => "reshape".into(),
            NodeKind::WrapIndex { .. } => "wrap-index".into(),
            NodeKind::Check { .. } => "check".into(),
            NodeKind::Gather { axis } => format!("gather(axis={axis})"),
            NodeKind::PickPoints { axes, coords } => format!("pick-points(axes={axes:?}, points={})", coords.len() / axes.len().max(1)),
            NodeKind::Compress { .. } => "compress".into(),
            NodeKind::BlockCounts => "block-counts".into(),
            NodeKind::ExpandDims { axes } => format!("expand_dims(axis={axes:?})"),
            NodeKind::Concatenate { axis } => format!("concatenate(axis={axis})"),
            NodeKind::Scan { op, axis } => format!("{}(axis={axis})", op.name()),
            NodeKind::Windows { axis, width } => format!("sliding_window_view({width}, axis={axis})"),
            NodeKind::Moving { op, axis, width } => format!("{}({width}, axis={axis})", op.name()),
            NodeKind::Sort { axis, arg, .. } => format!("{}(axis={axis})", if *arg { "argsort" } else { "sort" }),
            NodeKind::SortedTake { axis } => format!("sorted-take(axis={axis})"),
            NodeKind::TakeWithinBlocks => "take-within-blocks".into(),
            NodeKind::BucketCounts { .. } => "bucket-counts".into(),
            NodeKind::BucketPartition { .. } => "bucket-partition".into(),
            NodeKind::SamplePositions { .. } => "sample-positions".into(),
            NodeKind::MergeBuckets { .. } => format!("merge-buckets({})", if self.inputs.len() == 2 { "argsort" } else { "sort" }),
            NodeKind::SearchSorted { right, .. } => format!("searchsorted(side={})", if *right { "right" } else { "left" }),
            NodeKind::Store { .. } => "store".into(),
            NodeKind::MapBlocks { name, .. } => format!("map_blocks({name})"),
            NodeKind::ToDevice { device } => format!("to_device({device})"),
        }
    }
}

/// Converts a normalised index axis into the per-block `Select` of ndarray's semantics.
pub(crate) fn range_select(first: usize, last: usize, step: isize) -> Select {
    if step > 0 {
        Select::Range { start: first, stop: last + 1, step }
    } else {
        Select::Range { start: last, stop: first + 1, step }
    }
}

/// Refuses an operation on arrays on different devices (as the array API asks), except those
/// that run on the host whatever their inputs' devices (stores, user functions).
fn check_one_device(kind: &NodeKind, inputs: &[NodeRef]) -> Result<()> {
    if matches!(kind, NodeKind::Store { .. } | NodeKind::MapBlocks { .. }) {
        return Ok(());
    }
    let mut placed = placed(inputs);
    let Some(first) = placed.next() else { return Ok(()) };
    match placed.find(|i| i.device != first.device) {
        Some(other) => Err(value_err!(
            "arrays on different devices ({} and {}) cannot be combined: move them to one with to_device",
            first.device,
            other.device
        )),
        None => Ok(()),
    }
}

/// The inputs that have a place: all but constants (a Python scalar in `x * 2`), which go
/// where the arrays they meet are.
fn placed(inputs: &[NodeRef]) -> impl Iterator<Item = &NodeRef> {
    inputs.iter().filter(|i| !matches!(i.kind, NodeKind::Source(SourceKind::Full(_), _)))
}
