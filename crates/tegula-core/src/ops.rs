//! The parameters chunk operations share: the element-wise, reduction and scan functions by
//! their NumPy names, with their dtype rules as tables, and the small plain types kernels take
//! (partials, selections, pieces, distributions). The operations themselves are `KernelOp`,
//! `SourceOp` and `IoOp`, joined in a task by `TaskOp`.

use crate::dtype::{promote, DType, Kind};
use crate::error::Result;
use crate::scalar::Scalar;
use crate::dtype_err;
use serde::{Deserialize, Serialize};

/// Declares an op enum with its NumPy name, and `from_name`/`name`.
macro_rules! named_ops {
    ($(#[$m:meta])* $name:ident { $($variant:ident => $text:literal),* $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum $name { $(#[doc = concat!("NumPy's `", $text, "`.")] $variant),* }
        impl $name {
            /// Every op, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),*];
            /// The op's NumPy name.
            pub fn name(self) -> &'static str {
                match self { $($name::$variant => $text),* }
            }
            /// The op of NumPy name `text`, if there is one.
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
    /// Array reductions; the `Nan` ones skip NaN elements (NumPy's nan-functions: a sum over
    /// only NaNs is 0; an extreme, mean or variance over only NaNs is NaN, and so is a
    /// variance of no more than `ddof` values).
    ReduceOp {
        Sum => "sum", Prod => "prod", Min => "min", Max => "max", Any => "any", All => "all",
        Mean => "mean", Var => "var", Std => "std", NanSum => "nansum", NanMin => "nanmin",
        NanMax => "nanmax", NanMean => "nanmean", NanVar => "nanvar", NanStd => "nanstd",
    }
);

named_ops!(
    /// Running reductions along one axis: the array API's cumulative functions, and the
    /// forward fill (each NaN replaced by the last value before it that is not NaN:
    /// bottleneck's and Dask's `push`, xarray's `ffill`).
    ScanOp { Sum => "cumulative_sum", Prod => "cumulative_prod", Fill => "forward_fill" }
);

named_ops!(
    /// Reductions over every window of consecutive elements along one axis (xarray's
    /// rolling reductions): sums and products in the elements' dtype, extremes propagating
    /// NaN as NumPy's `max` and `min` do.
    MovingOp { Sum => "moving_sum", Prod => "moving_prod", Min => "moving_min", Max => "moving_max" }
);

impl ScanOp {
    /// The value before the first element (`include_initial`).
    pub fn identity(self) -> Scalar {
        match self {
            ScanOp::Sum => Scalar::Int(0),
            ScanOp::Prod => Scalar::Int(1),
            ScanOp::Fill => Scalar::Float(f64::NAN),
        }
    }
}

/// The dtype an operation computes in and the dtype it returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Signature {
    /// The dtype the inputs are cast to and the function runs in.
    pub compute: DType,
    /// The dtype of the result.
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
    /// Whether the op compares (`==`, `!=`, `<`, `<=`, `>`, `>=`), giving bools.
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
            Sum | Prod | NanSum => d.sum_dtype(),
            Min | Max | NanMin | NanMax => d,
            Any | All => DType::Bool,
            Mean | NanMean => match d.kind() {
                Kind::Float | Kind::Complex => d,
                _ => DType::Float64,
            },
            Var | Std | NanVar | NanStd => match d.kind() {
                Kind::Float => d,
                Kind::Complex => d.real_part(),
                _ => DType::Float64,
            },
        }
    }

    /// Whether reducing zero elements is an error (no identity), as for NumPy's min and max.
    pub fn needs_elements(self) -> bool {
        matches!(self, ReduceOp::Min | ReduceOp::Max | ReduceOp::NanMin | ReduceOp::NanMax)
    }

    /// The name of the ufunc NumPy's error for an empty reduction names.
    pub fn ufunc_name(self) -> &'static str {
        match self {
            ReduceOp::Min => "minimum",
            ReduceOp::Max => "maximum",
            ReduceOp::NanMin => "fmin",
            ReduceOp::NanMax => "fmax",
            op => op.name(),
        }
    }
}

/// The partial result one block of a reduction produces; partials of the same kind combine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum PartialReduce {
    /// Sum, accumulated in `acc`.
    Sum {
        /// The dtype it is accumulated in.
        acc: DType,
    },
    /// Product, accumulated in `acc`.
    Prod {
        /// The dtype it is accumulated in.
        acc: DType,
    },
    /// The smallest element (NaN propagates).
    Min,
    /// The largest element (NaN propagates).
    Max,
    /// Sum of the elements that are not NaN, accumulated in `acc`.
    NanSum {
        /// The dtype it is accumulated in.
        acc: DType,
    },
    /// Extremes of the elements that are not NaN (NaN where every element is).
    NanMin,
    /// The largest element that is not NaN (NaN where every element is).
    NanMax,
    /// Whether any element is true.
    Any,
    /// Whether every element is true.
    All,
    /// Count, mean and sum of squared deviations, stacked on a new leading axis of length 3
    /// (float64, or complex128 for complex input; count and M2 are then real parts).
    Moments,
    /// `Moments` of the elements that are not NaN.
    NanMoments,
    /// The sum and the count of the elements that are not NaN, stacked on a new leading axis
    /// of length 2, accumulated in `acc` (float64 or complex128; the count a real part).
    NanSumCount {
        /// The dtype it is accumulated in.
        acc: DType,
    },
}

impl PartialReduce {
    /// Whether the partial is (count, mean, M2) stacked on a leading axis.
    pub fn is_moments(self) -> bool {
        matches!(self, PartialReduce::Moments | PartialReduce::NanMoments)
    }

    /// The length of the leading axis the partial stacks its numbers on, if it has one.
    pub fn stacked(self) -> Option<usize> {
        match self {
            PartialReduce::Moments | PartialReduce::NanMoments => Some(3),
            PartialReduce::NanSumCount { .. } => Some(2),
            _ => None,
        }
    }
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
    Variance {
        /// The delta degrees of freedom subtracted from the count.
        ddof: f64,
        /// Take the square root (std).
        sqrt: bool,
    },
    /// The sum over the count of a `NanSumCount` partial; NaN where the count is 0 (nanmean).
    SumOverCount,
    /// `M2 / (n - ddof)`, NaN where that is not positive, then the square root when `sqrt`
    /// (nanvar, nanstd).
    NanVariance {
        /// The delta degrees of freedom subtracted from the count.
        ddof: f64,
        /// Take the square root (nanstd).
        sqrt: bool,
    },
}

/// Random distributions of `Generator` methods.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum Distribution {
    /// Uniform on `[low, high)`.
    Uniform {
        /// The lowest value (included).
        low: f64,
        /// The end of the range (excluded).
        high: f64,
    },
    /// Normal with mean `loc` and standard deviation `scale`.
    Normal {
        /// The mean.
        loc: f64,
        /// The standard deviation.
        scale: f64,
    },
    /// Integers uniform on `[low, high)`.
    Integers {
        /// The lowest value (included).
        low: i128,
        /// The end of the range (excluded).
        high: i128,
    },
    /// Gamma of `shape` and `scale` (both ≥ 0).
    Gamma {
        /// The shape parameter.
        shape: f64,
        /// The scale parameter.
        scale: f64,
    },
    /// Beta of `a` and `b` (both > 0).
    Beta {
        /// The first shape parameter (alpha).
        a: f64,
        /// The second shape parameter (beta).
        b: f64,
    },
    /// Chi-square with `df` > 0 degrees of freedom.
    ChiSquare {
        /// The degrees of freedom.
        df: f64,
    },
    /// Student's t with `df` > 0 degrees of freedom.
    StudentT {
        /// The degrees of freedom.
        df: f64,
    },
    /// Poisson counts of mean `lam` ≥ 0.
    Poisson {
        /// The mean.
        lam: f64,
    },
    /// Binomial counts of `n` trials of probability `p`.
    Binomial {
        /// The number of trials.
        n: u64,
        /// The probability of success in each.
        p: f64,
    },
    /// Each element's raw 64-bit word (uint64): where its own stream starts, from which
    /// `KernelOp::Drawn` draws with parameters given per element.
    Words,
}

/// A distribution drawn by rejection with parameters given per element (arrays broadcast
/// to the result): `KernelOp::Drawn`'s inputs are the words of `Distribution::Words`, then
/// `a` and `b`, as named on each variant (`b` unused where there is one parameter).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Rejection {
    /// `a`: shape, `b`: scale.
    Gamma,
    /// `a` and `b`: the two shape parameters.
    Beta,
    /// `a`: degrees of freedom.
    ChiSquare,
    /// `a`: degrees of freedom.
    StudentT,
    /// `a`: mean.
    Poisson,
    /// `a`: trials, `b`: probability.
    Binomial,
}

impl Rejection {
    /// A short name for plans and reports.
    pub fn name(&self) -> &'static str {
        match self {
            Rejection::Gamma => "gamma",
            Rejection::Beta => "beta",
            Rejection::ChiSquare => "chisquare",
            Rejection::StudentT => "standard-t",
            Rejection::Poisson => "poisson",
            Rejection::Binomial => "binomial",
        }
    }

    /// Counts are int64, other values float64.
    pub fn dtype(&self) -> crate::DType {
        match self {
            Rejection::Poisson | Rejection::Binomial => crate::DType::Int64,
            _ => crate::DType::Float64,
        }
    }
}

impl Distribution {
    /// Whether its values are counts (integers), drawn into an integer dtype.
    pub fn is_count(&self) -> bool {
        matches!(self, Distribution::Integers { .. } | Distribution::Poisson { .. } | Distribution::Binomial { .. })
    }
}

/// How one input axis is selected by basic indexing, in ndarray's terms: elements
/// `start..stop` of the block, every `step`-th one, counted from `stop - 1` when `step < 0`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Select {
    /// Elements `start..stop`, every `step`-th one (from the end when `step < 0`).
    Range {
        /// The first element of the range, in the block.
        start: usize,
        /// The end of the range (excluded).
        stop: usize,
        /// The step; negative counts down from `stop - 1`.
        step: isize,
    },
    /// One element; the axis is dropped.
    Index(usize),
    /// A new axis of length one (`None` in a Python index).
    NewAxis,
}

/// A rectangular piece copied from input `input` (`src` ranges) to `dst` offsets of the output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Piece {
    /// The input the piece is copied from.
    pub input: usize,
    /// The half-open range copied along each axis of the input.
    pub src: Vec<(usize, usize)>,
    /// Where the piece starts along each axis of the output.
    pub dst: Vec<usize>,
}

pub(crate) fn partial_name(op: &PartialReduce) -> &'static str {
    match op {
        PartialReduce::Sum { .. } => "sum",
        PartialReduce::Prod { .. } => "prod",
        PartialReduce::Min => "min",
        PartialReduce::Max => "max",
        PartialReduce::NanSum { .. } => "nansum",
        PartialReduce::NanMin => "nanmin",
        PartialReduce::NanMax => "nanmax",
        PartialReduce::Any => "any",
        PartialReduce::All => "all",
        PartialReduce::Moments => "moments",
        PartialReduce::NanMoments => "nanmoments",
        PartialReduce::NanSumCount { .. } => "nansum-count",
    }
}
