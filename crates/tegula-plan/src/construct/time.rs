//! `datetime64` and `timedelta64` arithmetic, casts, reductions and sorting, built from int64
//! and float64 operations on the stored counts: NumPy's rules are `tegula_core::time`'s table,
//! and NaT (`i64::MIN`) is carried by masks, so the kernels never see a time dtype's meaning.

use super::calendar;
use super::creation::full;
use super::elementwise::{binary, cast, unary, where_};
use super::reduce::{reduce as reduce_numbers, ReduceSpec};
use super::scan::{cumulative, ScanSpec};
use crate::node::{Node, NodeKind, NodeRef};
use tegula_core::shape::normalize_axes;
use tegula_core::time::{binary_arithmetic, numpy_repr, rescale, unary_output, Rescale, TimeArithmetic};
use tegula_core::{dtype_err, BinaryOp, Chunks, DType, ReduceOp, Result, Scalar, ScanOp, TimeUnit, UnaryOp, NAT};

/// `op(a, b)` where `a` or `b` is a time.
pub fn time_binary(op: BinaryOp, a: &NodeRef, b: &NodeRef) -> Result<NodeRef> {
    use BinaryOp::*;
    match binary_arithmetic(op, a.dtype, b.dtype)? {
        TimeArithmetic::Integer { op, unit, output } => {
            let (x, y) = (counts(a, unit)?, counts(b, unit)?);
            let nat = either_nat(&x, &y)?;
            let value = binary(op, &x, &y)?;
            match (output, op) {
                (DType::Bool, NotEqual) => binary(LogicalOr, &value, &nat),
                (DType::Bool, _) => binary(LogicalAnd, &value, &unary(UnaryOp::LogicalNot, &nat)?),
                _ => Ok(relabel(&nat_where(&nat, &value)?, output)),
            }
        }
        TimeArithmetic::ScaledByFloat { op, unit, reflected } => {
            let (duration, factor) = if reflected { (b, a) } else { (a, b) };
            let x = counts(duration, unit)?;
            let value = binary(op, &cast(&x, DType::Float64)?, &cast(factor, DType::Float64)?)?;
            let counts = float_counts(&value)?;
            Ok(relabel(&nat_where(&is_nat(&x)?, &counts)?, DType::TimeDelta64(unit)))
        }
        TimeArithmetic::OverInteger { unit } => {
            let (x, d) = (counts(a, unit)?, cast(b, DType::Int64)?);
            let bad = binary(LogicalOr, &is_nat(&x)?, &equals(&d, 0)?)?;
            Ok(relabel(&nat_where(&bad, &truncating_divide(&x, &d)?)?, DType::TimeDelta64(unit)))
        }
        TimeArithmetic::Ratio { unit } => {
            let (x, y) = (counts(a, unit)?, counts(b, unit)?);
            let float = |n: &NodeRef| cast(n, DType::Float64);
            let value = binary(Divide, &float(&x)?, &float(&y)?)?;
            where_(&either_nat(&x, &y)?, &constant(Scalar::Float(f64::NAN), DType::Float64)?, &value)
        }
        TimeArithmetic::FloorRatio { unit } => {
            let (x, y) = (counts(a, unit)?, counts(b, unit)?);
            let bad = binary(LogicalOr, &either_nat(&x, &y)?, &equals(&y, 0)?)?;
            where_(&bad, &constant(Scalar::Int(0), DType::Int64)?, &binary(FloorDivide, &x, &y)?)
        }
        TimeArithmetic::Modulo { unit } => {
            let (x, y) = (counts(a, unit)?, counts(b, unit)?);
            let bad = binary(LogicalOr, &either_nat(&x, &y)?, &equals(&y, 0)?)?;
            Ok(relabel(&nat_where(&bad, &binary(Remainder, &x, &y)?)?, DType::TimeDelta64(unit)))
        }
    }
}

/// A unary ufunc of a time: the sign functions of a duration, the NaT tests (`isnan` is
/// NumPy's `isnat` for times; no time is infinite), and the real and imaginary parts.
pub fn time_unary(op: UnaryOp, x: &NodeRef) -> Result<NodeRef> {
    let output = unary_output(op, x.dtype)?;
    let raw = relabel(x, DType::Int64);
    match op {
        UnaryOp::Real => Ok(x.clone()),
        UnaryOp::Imag => full(Scalar::Int(0), x.dtype, x.chunks.clone()),
        UnaryOp::Isnan => is_nat(&raw),
        UnaryOp::Isfinite => unary(UnaryOp::LogicalNot, &is_nat(&raw)?),
        UnaryOp::Isinf => full(Scalar::Bool(false), DType::Bool, x.chunks.clone()),
        // Wrapping int64 arithmetic keeps NaT: its negation and absolute value are itself.
        _ => Ok(relabel(&unary(op, &raw)?, output)),
    }
}

/// `x` as `dtype`, where either is a time: unit changes as NumPy makes them (floored toward
/// coarser units), numbers to times by value (NaN and infinities to NaT, floats truncated),
/// times to numbers, and datetimes to durations or back, as their stored counts (NumPy's
/// casts between the kinds ignore the units).
pub fn time_cast(x: &NodeRef, dtype: DType) -> Result<NodeRef> {
    match (x.dtype.is_time(), dtype.time_unit()) {
        (true, Some(_)) if x.dtype.kind() != dtype.kind() => Ok(relabel(&relabel(x, DType::Int64), dtype)),
        (true, Some(unit)) => Ok(relabel(&counts(x, unit)?, dtype)),
        (true, None) => cast(&relabel(x, DType::Int64), dtype),
        (false, Some(_)) if x.dtype.is_float() || x.dtype.is_complex() => {
            Ok(relabel(&float_counts(&cast(x, DType::Float64)?)?, dtype))
        }
        (false, _) => Ok(relabel(&cast(x, DType::Int64)?, dtype)),
    }
}

/// A reduction of a time: extremes (NaT propagating, or skipped by `nanmin`/`nanmax`) of any
/// time; sums and means (truncated) of durations; `any`/`all`. NumPy's other nan-functions
/// do not skip NaT, so `nansum` and `nanmean` are `sum` and `mean` here too.
pub fn time_reduce(x: &NodeRef, spec: &ReduceSpec) -> Result<NodeRef> {
    use ReduceOp::*;
    let refused = || dtype_err!("{} is not supported for {}", spec.op.name(), numpy_repr(x.dtype));
    if spec.dtype.is_some_and(|d| d != x.dtype) {
        return Err(refused());
    }
    let duration = matches!(x.dtype, DType::TimeDelta64(_));
    let raw = relabel(x, DType::Int64);
    let nat = is_nat(&raw)?;
    let over = |op: ReduceOp, n: &NodeRef| reduce_numbers(n, &ReduceSpec { op, dtype: None, ..spec.clone() });
    let any_nat = || over(Any, &nat);
    let result = match spec.op {
        // NaT is the smallest count: `min` propagates it and `nanmax` skips it unaided.
        Min | NanMax => over(spec.op, &raw)?,
        Max => nat_where(&any_nat()?, &over(Max, &raw)?)?,
        NanMin => {
            let skipped = where_(&nat, &constant(Scalar::Int(i64::MAX as i128), DType::Int64)?, &raw)?;
            nat_where(&over(All, &nat)?, &over(Min, &skipped)?)?
        }
        Sum | NanSum if duration => nat_where(&any_nat()?, &over(Sum, &raw)?)?,
        Mean | NanMean if duration => {
            let axes = normalize_axes(spec.axes.as_deref(), x.ndim())?;
            let shape = x.shape();
            let n = axes.iter().map(|&a| shape[a] as i128).product::<i128>();
            let count = constant(Scalar::Int(n), DType::Int64)?;
            // No elements: 0 / 0, NaT as NumPy's mean of none.
            let undefined = binary(BinaryOp::LogicalOr, &any_nat()?, &equals(&count, 0)?)?;
            nat_where(&undefined, &truncating_divide(&over(Sum, &raw)?, &count)?)?
        }
        Any | All => return over(spec.op, &raw),
        _ => return Err(refused()),
    };
    Ok(relabel(&result, x.dtype))
}

/// The running sum of durations (NumPy's `cumsum` of `timedelta64`): NaT from the first NaT
/// on. Other scans of times are refused.
pub fn time_cumulative(x: &NodeRef, spec: &ScanSpec) -> Result<NodeRef> {
    let summed = matches!(x.dtype, DType::TimeDelta64(_)) && spec.op == ScanOp::Sum;
    if !summed || spec.dtype.is_some_and(|d| d != x.dtype) {
        return Err(dtype_err!("{} is not supported for {}", spec.op.name(), numpy_repr(x.dtype)));
    }
    let raw = relabel(x, DType::Int64);
    let nat = is_nat(&raw)?;
    let running = |n: &NodeRef| cumulative(n, &ScanSpec { dtype: Some(DType::Int64), ..spec.clone() });
    let sums = running(&where_(&nat, &constant(Scalar::Int(0), DType::Int64)?, &raw)?)?;
    let nats_so_far = running(&cast(&nat, DType::Int64)?)?;
    let after_nat = binary(BinaryOp::Greater, &nats_so_far, &constant(Scalar::Int(0), DType::Int64)?)?;
    Ok(relabel(&nat_where(&after_nat, &sums)?, x.dtype))
}

/// `x`'s counts as keys that sort as NumPy sorts times (NaT last): each count less one, with
/// wrapping, turns NaT into the largest key and keeps every other count's order.
pub fn sort_keys(x: &NodeRef) -> Result<NodeRef> {
    binary(BinaryOp::Subtract, &relabel(x, DType::Int64), &constant(Scalar::Int(1), DType::Int64)?)
}

/// The times back from `sort_keys`.
pub fn from_sort_keys(keys: &NodeRef, dtype: DType) -> Result<NodeRef> {
    Ok(relabel(&binary(BinaryOp::Add, keys, &constant(Scalar::Int(1), DType::Int64)?)?, dtype))
}

/// Int64 counts of `unit` for a time (NaT kept), or an integer or bool converted to int64
/// (taken as counts of the unit, as NumPy takes them). Datetimes go between years or months
/// and the units of fixed length through the calendar; durations cannot.
fn counts(x: &NodeRef, unit: TimeUnit) -> Result<NodeRef> {
    let Some(from) = x.dtype.time_unit() else {
        return cast(x, DType::Int64);
    };
    let raw = relabel(x, DType::Int64);
    let scaled = match rescale(from, unit) {
        Rescale::Same => return Ok(raw),
        Rescale::Calendar if x.dtype.kind() == tegula_core::Kind::TimeDelta => {
            return Err(dtype_err!(
                "Cannot convert {} to {}: years and months have no fixed length",
                numpy_repr(x.dtype),
                numpy_repr(x.dtype.with_unit(unit))
            ))
        }
        Rescale::Calendar if unit < TimeUnit::Week => calendar::from_days(&fixed(&raw, from, TimeUnit::Day)?, unit)?,
        Rescale::Calendar => fixed(&calendar::to_days(&raw, from)?, TimeUnit::Day, unit)?,
        Rescale::Multiply(_) | Rescale::FloorDivide(_) => fixed(&raw, from, unit)?,
    };
    nat_where(&is_nat(&raw)?, &scaled)
}

/// Counts of one unit of fixed length as another (NaT not kept).
fn fixed(counts: &NodeRef, from: TimeUnit, to: TimeUnit) -> Result<NodeRef> {
    let (op, factor) = match rescale(from, to) {
        Rescale::Multiply(f) => (BinaryOp::Multiply, f),
        Rescale::FloorDivide(f) => (BinaryOp::FloorDivide, f),
        _ => return Ok(counts.clone()),
    };
    binary(op, counts, &constant(Scalar::Int(factor as i128), DType::Int64)?)
}

/// Float64 values truncated to int64 counts, NaT where they are NaN or out of int64's range
/// (NumPy's conversion there gives `i64::MIN`, which is NaT).
fn float_counts(value: &NodeRef) -> Result<NodeRef> {
    let limit = constant(Scalar::Float(-(i64::MIN as f64)), DType::Float64)?;
    let in_range = binary(BinaryOp::Less, &unary(UnaryOp::Abs, value)?, &limit)?;
    nat_where(&unary(UnaryOp::LogicalNot, &in_range)?, &cast(value, DType::Int64)?)
}

/// Integer division rounded toward zero (NumPy's for a duration over an integer): the floored
/// quotient, plus one where the remainder is not zero and the signs differ.
fn truncating_divide(x: &NodeRef, d: &NodeRef) -> Result<NodeRef> {
    use BinaryOp::*;
    let zero = constant(Scalar::Int(0), DType::Int64)?;
    let floored = binary(FloorDivide, x, d)?;
    let inexact = binary(NotEqual, &binary(Remainder, x, d)?, &zero)?;
    let signs_differ = binary(LogicalXor, &binary(Less, x, &zero)?, &binary(Less, d, &zero)?)?;
    let adjust = cast(&binary(LogicalAnd, &inexact, &signs_differ)?, DType::Int64)?;
    binary(Add, &floored, &adjust)
}

/// The same elements as another dtype of the same storage: a cast the kernels need not run.
fn relabel(x: &NodeRef, dtype: DType) -> NodeRef {
    if x.dtype == dtype {
        return x.clone();
    }
    debug_assert_eq!(x.dtype.storage(), dtype.storage());
    Node::new(NodeKind::Cast, vec![x.clone()], dtype, x.chunks.clone())
}

fn constant(value: Scalar, dtype: DType) -> Result<NodeRef> {
    full(value, dtype, Chunks::single(&[]))
}

fn equals(x: &NodeRef, value: i64) -> Result<NodeRef> {
    binary(BinaryOp::Equal, x, &constant(Scalar::Int(value as i128), DType::Int64)?)
}

fn is_nat(counts: &NodeRef) -> Result<NodeRef> {
    equals(counts, NAT)
}

fn either_nat(x: &NodeRef, y: &NodeRef) -> Result<NodeRef> {
    binary(BinaryOp::LogicalOr, &is_nat(x)?, &is_nat(y)?)
}

/// NaT where `mask`, `counts` elsewhere (int64).
fn nat_where(mask: &NodeRef, counts: &NodeRef) -> Result<NodeRef> {
    where_(mask, &constant(Scalar::Int(NAT as i128), DType::Int64)?, counts)
}
