//! The closed set of chunk operations. A task in a task graph names its kernel by an `OpKind`
//! value with its parameters — plain, serialisable data, never a closure. The dtype rules of
//! the element-wise and reduction operations live here, as tables.

use crate::dtype::{promote, DType, Kind};
use crate::error::Result;
use crate::linalg::LinalgOp;
use crate::program::FusedBlock;
use crate::scalar::Scalar;
use crate::dtype_err;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Declares an op enum with its NumPy name, and `from_name`/`name`.
macro_rules! named_ops {
    ($(#[$m:meta])* $name:ident { $($variant:ident => $text:literal),* $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum $name { $($variant),* }
        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),*];
            pub fn name(self) -> &'static str {
                match self { $($name::$variant => $text),* }
            }
            pub fn from_name(text: &str) -> Option<$name> {
                match text { $($text => Some($name::$variant),)* _ => None }
            }
        }
    };
}

named_ops!(
    /// Element-wise functions of one argument (NumPy ufunc names).
    UnaryOp {
        Negative => "negative", Positive => "positive", Abs => "abs", Sqrt => "sqrt",
        Exp => "exp", Expm1 => "expm1", Log => "log", Log1p => "log1p", Log2 => "log2",
        Log10 => "log10", Sin => "sin", Cos => "cos", Tan => "tan", Arcsin => "arcsin",
        Arccos => "arccos", Arctan => "arctan", Sinh => "sinh", Cosh => "cosh", Tanh => "tanh",
        Arcsinh => "arcsinh", Arccosh => "arccosh", Arctanh => "arctanh", Floor => "floor",
        Ceil => "ceil", Trunc => "trunc", Rint => "rint", Sign => "sign", Square => "square",
        Isnan => "isnan", Isinf => "isinf", Isfinite => "isfinite", Conj => "conj",
        Real => "real", Imag => "imag", LogicalNot => "logical_not", Invert => "invert",
        Signbit => "signbit", Reciprocal => "reciprocal",
    }
);

named_ops!(
    /// Element-wise functions of two arguments (NumPy ufunc names).
    BinaryOp {
        Add => "add", Subtract => "subtract", Multiply => "multiply", Divide => "divide",
        FloorDivide => "floor_divide", Remainder => "remainder", Power => "power",
        Equal => "equal", NotEqual => "not_equal", Less => "less", LessEqual => "less_equal",
        Greater => "greater", GreaterEqual => "greater_equal", BitwiseAnd => "bitwise_and",
        BitwiseOr => "bitwise_or", BitwiseXor => "bitwise_xor", LogicalAnd => "logical_and",
        LogicalOr => "logical_or", LogicalXor => "logical_xor", Maximum => "maximum",
        Minimum => "minimum", Arctan2 => "arctan2", Copysign => "copysign", Hypot => "hypot",
        Logaddexp => "logaddexp", Nextafter => "nextafter", LeftShift => "left_shift",
        RightShift => "right_shift",
    }
);

named_ops!(
    /// Array reductions.
    ReduceOp {
        Sum => "sum", Prod => "prod", Min => "min", Max => "max", Any => "any", All => "all",
        Mean => "mean", Var => "var", Std => "std",
    }
);

named_ops!(
    /// Running reductions along one axis (the array API's cumulative functions).
    ScanOp { Sum => "cumulative_sum", Prod => "cumulative_prod" }
);

impl ScanOp {
    /// The element-wise operation that adds a prefix to a block's running values.
    pub fn combine(self) -> BinaryOp {
        match self {
            ScanOp::Sum => BinaryOp::Add,
            ScanOp::Prod => BinaryOp::Multiply,
        }
    }
    /// The value before the first element (`include_initial`).
    pub fn identity(self) -> Scalar {
        match self {
            ScanOp::Sum => Scalar::Int(0),
            ScanOp::Prod => Scalar::Int(1),
        }
    }
    /// The partial that combines block totals in dtype `acc`.
    pub fn partial(self, acc: DType) -> PartialReduce {
        match self {
            ScanOp::Sum => PartialReduce::Sum { acc },
            ScanOp::Prod => PartialReduce::Prod { acc },
        }
    }
}

/// The dtype an operation computes in and the dtype it returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Signature {
    pub compute: DType,
    pub output: DType,
}

impl Signature {
    fn same(d: DType) -> Signature {
        Signature { compute: d, output: d }
    }
}

impl UnaryOp {
    /// NumPy's loop selection for this ufunc on dtype `d`.
    pub fn signature(self, d: DType) -> Result<Signature> {
        use UnaryOp::*;
        let unsupported = || dtype_err!("ufunc '{}' not supported for the input type {d}", self.name());
        Ok(match self {
            Negative | Positive | Sign if d == DType::Bool => return Err(unsupported()),
            Conj if d == DType::Bool => Signature::same(DType::Int8),
            Negative | Positive | Sign | Conj => Signature::same(d),
            Abs => Signature { compute: d, output: d.real_part() },
            Floor | Ceil | Trunc if d.is_complex() => return Err(unsupported()),
            Floor | Ceil | Trunc => Signature::same(d),
            Rint => Signature::same(d.to_inexact()),
            Square | Reciprocal if d == DType::Bool => Signature::same(DType::Int8),
            Square | Reciprocal => Signature::same(d),
            Isnan | Isinf | Isfinite => Signature { compute: d, output: DType::Bool },
            Signbit if d.is_complex() => return Err(unsupported()),
            Signbit => Signature { compute: d, output: DType::Bool },
            Real | Imag => Signature { compute: d, output: d.real_part() },
            LogicalNot => Signature { compute: DType::Bool, output: DType::Bool },
            Invert if d.is_bool_or_integer() => Signature::same(d),
            Invert => return Err(unsupported()),
            _ => Signature::same(d.to_inexact()),
        })
    }
}

impl BinaryOp {
    pub fn is_comparison(self) -> bool {
        use BinaryOp::*;
        matches!(self, Equal | NotEqual | Less | LessEqual | Greater | GreaterEqual)
    }

    /// NumPy 2 compares an integer array with a Python int outside the array's dtype exactly:
    /// every element is below a larger int and above a smaller one, so the result is one
    /// constant. `None` when the comparison has to look at the elements.
    pub fn out_of_range_comparison(self, array: DType, s: &Scalar, reflected: bool) -> Option<bool> {
        use BinaryOp::*;
        let (Scalar::Int(v), Some((lo, hi))) = (s, array.integer_bounds()) else {
            return None;
        };
        if !self.is_comparison() || (lo..=hi).contains(v) {
            return None;
        }
        let left_is_smaller = (*v > hi) != reflected;
        Some(match self {
            Equal => false,
            NotEqual => true,
            Less | LessEqual => left_is_smaller,
            _ => !left_is_smaller,
        })
    }

    /// NumPy's loop selection for this ufunc on dtypes `a` and `b`.
    pub fn signature(self, a: DType, b: DType) -> Result<Signature> {
        use BinaryOp::*;
        let p = promote(a, b);
        let unsupported =
            || dtype_err!("ufunc '{}' not supported for the input types {a} and {b}", self.name());
        Ok(match self {
            Add | Multiply | Maximum | Minimum => Signature::same(p),
            Subtract if p == DType::Bool => {
                return Err(dtype_err!(
                    "numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, the `^` operator, or the logical_xor function instead"
                ))
            }
            Subtract => Signature::same(p),
            Divide => Signature::same(match p.kind() {
                Kind::Bool | Kind::Int | Kind::UInt => DType::Float64,
                _ => p,
            }),
            FloorDivide | Remainder if p.is_complex() => return Err(unsupported()),
            FloorDivide | Remainder | Power if p == DType::Bool => Signature::same(DType::Int8),
            FloorDivide | Remainder | Power => Signature::same(p),
            BitwiseAnd | BitwiseOr | BitwiseXor if p.is_bool_or_integer() => Signature::same(p),
            BitwiseAnd | BitwiseOr | BitwiseXor => return Err(unsupported()),
            LogicalAnd | LogicalOr | LogicalXor => Signature { compute: DType::Bool, output: DType::Bool },
            LeftShift | RightShift if p == DType::Bool => Signature::same(DType::Int8),
            LeftShift | RightShift if p.is_integer() => Signature::same(p),
            LeftShift | RightShift => return Err(unsupported()),
            Arctan2 | Copysign | Hypot | Logaddexp | Nextafter if p.is_complex() => return Err(unsupported()),
            // Their loops are float only: NumPy picks the first float loop each input casts to.
            Arctan2 | Copysign | Hypot | Logaddexp | Nextafter => Signature::same(promote(a.to_inexact(), b.to_inexact())),
            Equal | NotEqual | Less | LessEqual | Greater | GreaterEqual => {
                Signature { compute: p, output: DType::Bool }
            }
        })
    }
}

impl ReduceOp {
    /// The dtype NumPy returns for this reduction of dtype `d` (with no `dtype=` argument).
    pub fn output_dtype(self, d: DType) -> DType {
        use ReduceOp::*;
        match self {
            Sum | Prod => d.sum_dtype(),
            Min | Max => d,
            Any | All => DType::Bool,
            Mean => match d.kind() {
                Kind::Float | Kind::Complex => d,
                _ => DType::Float64,
            },
            Var | Std => match d.kind() {
                Kind::Float => d,
                Kind::Complex => d.real_part(),
                _ => DType::Float64,
            },
        }
    }

    /// Whether reducing zero elements is an error (no identity), as for NumPy's min and max.
    pub fn needs_elements(self) -> bool {
        matches!(self, ReduceOp::Min | ReduceOp::Max)
    }
}

/// The partial result one block of a reduction produces; partials of the same kind combine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum PartialReduce {
    /// Sum, accumulated in `acc`.
    Sum { acc: DType },
    /// Product, accumulated in `acc`.
    Prod { acc: DType },
    Min,
    Max,
    Any,
    All,
    /// Count, mean and sum of squared deviations, stacked on a new leading axis of length 3
    /// (float64, or complex128 for complex input; count and M2 are then real parts).
    Moments,
}

/// How the combined partial becomes the reduction's result.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum Finish {
    /// The partial is the result.
    Identity,
    /// The partial plus `+0.0`: NumPy's sums start from the identity `+0.0`, so a sum of
    /// negative zeros is `+0.0` (tegula's folds start from the first element).
    AddZero,
    /// Divide by the number of reduced elements (mean), the sum first made `AddZero`.
    DivideBy(f64),
    /// `M2 / max(n - ddof, 0)`, then the square root when `sqrt` (var, std).
    Variance { ddof: f64, sqrt: bool },
}

/// Random distributions of `Generator` methods.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum Distribution {
    /// Uniform on `[low, high)`.
    Uniform { low: f64, high: f64 },
    /// Normal with mean `loc` and standard deviation `scale`.
    Normal { loc: f64, scale: f64 },
    /// Integers uniform on `[low, high)`.
    Integers { low: i128, high: i128 },
}

/// How one input axis is selected by basic indexing, in ndarray's terms: elements
/// `start..stop` of the block, every `step`-th one, counted from `stop - 1` when `step < 0`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Select {
    Range { start: usize, stop: usize, step: isize },
    /// One element; the axis is dropped.
    Index(usize),
    /// A new axis of length one (`None` in a Python index).
    NewAxis,
}

/// A rectangular piece copied from input `input` (`src` ranges) to `dst` offsets of the output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Piece {
    pub input: usize,
    pub src: Vec<(usize, usize)>,
    pub dst: Vec<usize>,
}

/// What a task computes. Sources take no inputs; the others name their inputs in the task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum OpKind {
    /// The region `region` of in-memory array `source` (zero-copy).
    Load { source: u64, region: Vec<(usize, usize)> },
    /// The region `region` of stored array `source` read from disk.
    Read { source: u64, region: Vec<(usize, usize)> },
    /// Writes the input block to region `region` of stored array `sink`; the result is empty.
    Write { sink: u64, region: Vec<(usize, usize)> },
    /// Block `block` (one number per axis) of a user's function over the same blocks of the
    /// inputs (`map_blocks`): stored function `function`, whose result must have `shape`.
    CallBlock { function: u64, block: Vec<usize>, shape: Vec<usize> },
    /// A block filled with one value.
    Full { value: Scalar, dtype: DType, shape: Vec<usize> },
    /// NumPy's arange for the global positions `offset .. offset + len`: elements 0 and 1 are
    /// `first` and `second`, element `i` is `first + i * (second - first)` in `dtype`'s arithmetic.
    Arange { first: Scalar, second: Scalar, dtype: DType, offset: usize, len: usize },
    /// NumPy's `linspace(start, stop, num, endpoint)` for the positions `offset .. offset + len`.
    Linspace { start: f64, stop: f64, num: usize, endpoint: bool, dtype: DType, offset: usize, len: usize },
    /// Counter-based random values: element values depend only on `key` and their flat position
    /// in `array_shape`; `start`/`shape` locate this block.
    Random { key: u64, dist: Distribution, dtype: DType, array_shape: Vec<usize>, start: Vec<usize>, shape: Vec<usize> },
    Unary { op: UnaryOp, compute: DType },
    /// Inputs broadcast against each other.
    Binary { op: BinaryOp, compute: DType },
    /// Inputs: condition, then the two choices, broadcast together.
    Where { compute: DType },
    Cast { dtype: DType },
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
    /// The block sorted along `axis` in NumPy's order (NaN last), stably; `descending`
    /// reverses the order but keeps equal elements in their original order.
    Sort { axis: usize, descending: bool },
    /// The int64 positions along `axis` that sort the block as `Sort` does, counted from
    /// `offset` (the block's start along the axis when the axis spans several blocks).
    ArgSort { axis: usize, descending: bool, offset: usize },
    /// The int64 positions (counted from `start`) of every `every`-th element, from rank
    /// `every / 2`, of a 1-D block in sorted order: by value in NumPy's order (reversed when
    /// `descending`), then by position.
    SamplePositions { descending: bool, every: usize, start: usize },
    /// How many elements of a 1-D block (starting at element `start` of its array) fall in
    /// each bucket between splitters (input 1: their values, same dtype; input 2: their int64
    /// positions), as int64, one per bucket. Elements compare by value in NumPy's order
    /// (reversed when `descending`), then by position, so every element is distinct.
    BucketCounts { descending: bool, start: usize },
    /// The stable merge of sorted 1-D runs (in NumPy's order, reversed when `descending`),
    /// taken in input order: equal elements keep that order. With `arg`, the first half of
    /// the inputs are the runs' values and the second half their int64 positions, and the
    /// result is the positions in merged order.
    MergeRuns { descending: bool, arg: bool },
    /// For every element `v` of input 1, how many elements of input 0 (a 1-D block sorted in
    /// NumPy's order, same dtype) come before `v` in that order (`right`: or equal it); int64.
    SearchCount { right: bool },
    /// A fused element-wise program producing its block.
    Fused(FusedBlock),
    /// The partial reduction `op` over `axes` of a fused program's block, computed without
    /// building that block.
    FusedReduce { block: FusedBlock, op: PartialReduce, axes: Arc<[usize]> },
}

impl OpKind {
    /// A short name for plans and reports.
    pub fn label(&self) -> String {
        match self {
            OpKind::Load { .. } => "load".into(),
            OpKind::Read { .. } => "read".into(),
            OpKind::Write { .. } => "write".into(),
            OpKind::CallBlock { .. } => "map-blocks".into(),
            OpKind::Full { .. } => "full".into(),
            OpKind::Arange { .. } => "arange".into(),
            OpKind::Linspace { .. } => "linspace".into(),
            OpKind::Random { .. } => "random".into(),
            OpKind::Unary { op, .. } => op.name().into(),
            OpKind::Binary { op, .. } => op.name().into(),
            OpKind::Where { .. } => "where".into(),
            OpKind::Cast { dtype } => format!("astype({dtype})"),
            OpKind::ReducePartial { op, .. } => format!("partial-{}", partial_name(op)),
            OpKind::ReduceCombine { op } => format!("combine-{}", partial_name(op)),
            OpKind::ReduceFinish { .. } => "finish".into(),
            OpKind::Matmul { .. } => "matmul-block".into(),
            OpKind::Linalg { op } => op.name().into(),
            OpKind::Transpose { .. } => "transpose".into(),
            OpKind::ExpandDims { .. } => "expand_dims".into(),
            OpKind::Select { .. } => "select".into(),
            OpKind::SetSelect { .. } => "setitem".into(),
            OpKind::Fft { inverse, .. } => if *inverse { "ifft".into() } else { "fft".into() },
            OpKind::Reshape { .. } => "reshape".into(),
            OpKind::WrapIndex { .. } => "wrap-index".into(),
            OpKind::Gather { .. } => "gather".into(),
            OpKind::Compress => "compress".into(),
            OpKind::Assemble { .. } => "assemble".into(),
            OpKind::Scan { op, .. } => format!("{}-block", op.name()),
            OpKind::Sort { .. } => "sort-block".into(),
            OpKind::ArgSort { .. } => "argsort-block".into(),
            OpKind::BucketCounts { .. } => "bucket-counts".into(),
            OpKind::SamplePositions { .. } => "sample-positions".into(),
            OpKind::MergeRuns { arg, .. } => if *arg { "merge-argsort".into() } else { "merge-sort".into() },
            OpKind::SearchCount { .. } => "searchsorted-count".into(),
            OpKind::Fused(block) => format!("fused[{}]", block.label()),
            OpKind::FusedReduce { block, op, .. } => format!("fused[{},{}]", block.label(), partial_name(op)),
        }
    }
}

fn partial_name(op: &PartialReduce) -> &'static str {
    match op {
        PartialReduce::Sum { .. } => "sum",
        PartialReduce::Prod { .. } => "prod",
        PartialReduce::Min => "min",
        PartialReduce::Max => "max",
        PartialReduce::Any => "any",
        PartialReduce::All => "all",
        PartialReduce::Moments => "moments",
    }
}
