//! NumPy's `datetime64` and `timedelta64` arithmetic: which operations times take, with which
//! operands and in which unit (the rules of NumPy's datetime ufunc loops, as a table). Values are
//! 64-bit counts of the unit (`time_unit`) since 1970-01-01T00:00 (datetimes) or of the unit
//! (durations), with NaT `i64::MIN`; how the arithmetic is built from integer operations is the
//! planner's.

use crate::dtype::{DType, Kind};
use crate::dtype_err;
use crate::error::Result;
use crate::ops::{BinaryOp, UnaryOp};
use crate::time_unit::TimeUnit;

/// What an operand of a time operation is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operand {
    /// A `datetime64`.
    DateTime,
    /// A `timedelta64`.
    TimeDelta,
    /// A bool: taken as a count of 0 or 1 of the other operand's unit.
    Bool,
    /// A signed integer, or an unsigned one of at most 32 bits: taken as a count of the
    /// other operand's unit.
    Integer,
    /// uint64, which NumPy takes in arithmetic but not in comparisons and extremes.
    UInt64,
    /// A real float: durations are scaled by it.
    Float,
    /// Complex: no time operation takes it.
    Other,
}

impl Operand {
    /// What an operand of dtype `d` is.
    pub fn of(d: DType) -> Operand {
        match d.kind() {
            Kind::DateTime => Operand::DateTime,
            Kind::TimeDelta => Operand::TimeDelta,
            Kind::Bool => Operand::Bool,
            Kind::UInt if d == DType::UInt64 => Operand::UInt64,
            Kind::Int | Kind::UInt => Operand::Integer,
            Kind::Float => Operand::Float,
            Kind::Complex => Operand::Other,
        }
    }
}

/// How a binary operation with a time operand computes, each variant naming the integer or
/// float arithmetic the planner builds, with NaT in and out handled as NumPy does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeArithmetic {
    /// Integer `op` on both operands in `unit` (integers taken as counts of it); NaT in gives
    /// NaT out (a comparison is false, `!=` true); the result is `output`.
    Integer {
        /// The integer operation.
        op: BinaryOp,
        /// The unit both operands are counted in.
        unit: TimeUnit,
        /// The dtype of the result.
        output: DType,
    },
    /// A duration times or over a float (`reflected`: the float comes first), truncated to
    /// the duration's unit; NaT, or a result that is not finite, is NaT.
    ScaledByFloat {
        /// `Multiply` or `Divide`.
        op: BinaryOp,
        /// The duration's unit.
        unit: TimeUnit,
        /// The float is the first operand.
        reflected: bool,
    },
    /// A duration over an integer, truncated (NumPy's `m8 / int` and `m8 // int`); NaT or a
    /// zero divisor gives NaT.
    OverInteger {
        /// The duration's unit.
        unit: TimeUnit,
    },
    /// A duration over a duration as float64; NaT gives NaN.
    Ratio {
        /// The durations' unit.
        unit: TimeUnit,
    },
    /// A duration floor-divided by a duration as int64; NaT or a zero divisor gives 0.
    FloorRatio {
        /// The durations' unit.
        unit: TimeUnit,
    },
    /// A duration modulo a duration (floored); NaT or a zero divisor gives NaT.
    Modulo {
        /// The durations' unit.
        unit: TimeUnit,
    },
}

/// NumPy's datetime loops for `op(a, b)` when `a` or `b` is a time.
pub fn binary_arithmetic(op: BinaryOp, a: DType, b: DType) -> Result<TimeArithmetic> {
    use BinaryOp::*;
    use Operand::*;
    let refused = || {
        dtype_err!("ufunc '{}' cannot use operands with types {} and {}", op.name(), numpy_repr(a), numpy_repr(b))
    };
    let unit = match (a.time_unit(), b.time_unit()) {
        (Some(x), Some(y)) => x.finer(y),
        (Some(u), None) | (None, Some(u)) => u,
        (None, None) => return Err(refused()),
    };
    let integer = |output: DType| Ok(TimeArithmetic::Integer { op, unit, output: output.with_unit(unit) });
    let (datetime, duration) = (DType::DateTime64(unit), DType::TimeDelta64(unit));
    match (op, Operand::of(a), Operand::of(b)) {
        (Add, DateTime, TimeDelta | Bool | Integer | UInt64) | (Add, TimeDelta | Bool | Integer | UInt64, DateTime) => integer(datetime),
        (Add, TimeDelta, TimeDelta | Bool | Integer | UInt64) | (Add, Bool | Integer | UInt64, TimeDelta) => integer(duration),
        (Subtract, DateTime, DateTime) => integer(duration),
        (Subtract, DateTime, TimeDelta | Bool | Integer | UInt64) => integer(datetime),
        (Subtract, TimeDelta, TimeDelta | Bool | Integer | UInt64) | (Subtract, Bool | Integer | UInt64, TimeDelta) => integer(duration),
        (Multiply, TimeDelta, Bool | Integer | UInt64) | (Multiply, Bool | Integer | UInt64, TimeDelta) => integer(duration),
        (Multiply | Divide | FloorDivide, TimeDelta, Float) => {
            let op = if op == Multiply { Multiply } else { Divide };
            Ok(TimeArithmetic::ScaledByFloat { op, unit, reflected: false })
        }
        (Multiply, Float, TimeDelta) => Ok(TimeArithmetic::ScaledByFloat { op, unit, reflected: true }),
        (Divide | FloorDivide, TimeDelta, Integer | UInt64) => Ok(TimeArithmetic::OverInteger { unit }),
        (Divide, TimeDelta, TimeDelta) => Ok(TimeArithmetic::Ratio { unit }),
        (FloorDivide, TimeDelta, TimeDelta) => Ok(TimeArithmetic::FloorRatio { unit }),
        (Remainder, TimeDelta, TimeDelta) => Ok(TimeArithmetic::Modulo { unit }),
        (Maximum | Minimum, DateTime, DateTime) => integer(datetime),
        (Maximum | Minimum, TimeDelta, TimeDelta | Bool | Integer) | (Maximum | Minimum, Bool | Integer, TimeDelta) => integer(duration),
        (Equal | NotEqual | Less | LessEqual | Greater | GreaterEqual, x, y)
            if matches!((x, y), (DateTime, DateTime) | (TimeDelta, TimeDelta | Bool | Integer) | (Bool | Integer, TimeDelta)) =>
        {
            integer(DType::Bool)
        }
        _ => Err(refused()),
    }
}

/// The dtype a unary ufunc returns for a time dtype, or NumPy's `TypeError`: durations take
/// the sign functions, any time the NaT tests (`isnan` is NumPy's `isnat` for them) and the
/// real and imaginary parts (itself, and zeros).
pub fn unary_output(op: UnaryOp, d: DType) -> Result<DType> {
    use UnaryOp::*;
    match (op, Operand::of(d)) {
        (Negative | Positive | Abs | Sign, Operand::TimeDelta) | (Real | Imag, _) => Ok(d),
        (Isnan | Isinf | Isfinite, _) => Ok(DType::Bool),
        _ => Err(dtype_err!("ufunc '{}' not supported for the input type {}", op.name(), numpy_repr(d))),
    }
}

/// An error unless `d` is a number: for the operations times do not take.
pub fn refuse_times(d: DType, operation: &str) -> Result<()> {
    if d.is_time() {
        return Err(dtype_err!("{operation} is not supported for {}", numpy_repr(d)));
    }
    Ok(())
}

/// How NumPy prints a dtype in its messages (`dtype('<M8[ns]')`).
pub fn numpy_repr(d: DType) -> String {
    match d {
        DType::DateTime64(TimeUnit::Generic) => "dtype('<M8')".into(),
        DType::TimeDelta64(TimeUnit::Generic) => "dtype('<m8')".into(),
        DType::DateTime64(u) => format!("dtype('<M8[{}]')", u.code()),
        DType::TimeDelta64(u) => format!("dtype('<m8[{}]')", u.code()),
        d => format!("dtype('{d}')"),
    }
}

/// A time-unit conversion `from` → `to`: the factor to multiply by (coarser to finer) or
/// floor-divide by (finer to coarser), or through the calendar (between years or months and
/// the units of fixed length: datetimes only, durations have no such conversion). A generic
/// unit converts to any other, and back, with its count unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rescale {
    /// The count stays as it is (the same unit, or a generic one).
    Same,
    /// Multiply the count by this factor (to a finer unit).
    Multiply(i64),
    /// Floor-divide the count by this factor (to a coarser unit).
    FloorDivide(i64),
    /// Convert through the calendar (between years or months and a unit of fixed length).
    Calendar,
}

/// How a count of `from` becomes a count of `to`.
pub fn rescale(from: TimeUnit, to: TimeUnit) -> Rescale {
    let ratio = |coarse: TimeUnit, fine: TimeUnit| match (coarse.nanos(), fine.nanos()) {
        (Some(c), Some(f)) => Some(c / f),
        (None, None) => Some(12), // years to months
        _ => None,
    };
    if from == TimeUnit::Generic || to == TimeUnit::Generic {
        return Rescale::Same;
    }
    match from.cmp(&to) {
        std::cmp::Ordering::Equal => Rescale::Same,
        std::cmp::Ordering::Less => ratio(from, to).map_or(Rescale::Calendar, Rescale::Multiply),
        std::cmp::Ordering::Greater => ratio(to, from).map_or(Rescale::Calendar, Rescale::FloorDivide),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_parse_from_their_codes_and_order_coarse_to_fine() {
        for u in TimeUnit::ALL {
            assert_eq!(TimeUnit::from_code(u.code()), Some(u));
        }
        assert_eq!(TimeUnit::Second.finer(TimeUnit::Nano), TimeUnit::Nano);
        assert_eq!(rescale(TimeUnit::Day, TimeUnit::Hour), Rescale::Multiply(24));
        assert_eq!(rescale(TimeUnit::Month, TimeUnit::Year), Rescale::FloorDivide(12));
        assert_eq!(rescale(TimeUnit::Month, TimeUnit::Day), Rescale::Calendar);
        assert_eq!(rescale(TimeUnit::Minute, TimeUnit::Second), Rescale::Multiply(60));
        assert_eq!(rescale(TimeUnit::Micro, TimeUnit::Milli), Rescale::FloorDivide(1000));
        assert_eq!(TimeUnit::from_code("ps"), None);
    }

    #[test]
    fn datetimes_subtract_to_durations_and_do_not_add() {
        let (dt, td) = (DType::DateTime64(TimeUnit::Second), DType::TimeDelta64(TimeUnit::Milli));
        let sub = binary_arithmetic(BinaryOp::Subtract, dt, dt).unwrap();
        assert_eq!(sub, TimeArithmetic::Integer { op: BinaryOp::Subtract, unit: TimeUnit::Second, output: DType::TimeDelta64(TimeUnit::Second) });
        let shifted = binary_arithmetic(BinaryOp::Add, dt, td).unwrap();
        assert_eq!(shifted, TimeArithmetic::Integer { op: BinaryOp::Add, unit: TimeUnit::Milli, output: DType::DateTime64(TimeUnit::Milli) });
        assert!(binary_arithmetic(BinaryOp::Add, dt, dt).is_err());
        assert!(binary_arithmetic(BinaryOp::Multiply, dt, DType::Int64).is_err());
        assert!(binary_arithmetic(BinaryOp::Less, dt, DType::Int64).is_err());
        assert!(binary_arithmetic(BinaryOp::Equal, dt, DType::Int64).is_err());
        assert!(binary_arithmetic(BinaryOp::Less, td, DType::UInt64).is_err());
        assert!(binary_arithmetic(BinaryOp::Add, td, DType::UInt64).is_ok());
        assert_eq!(binary_arithmetic(BinaryOp::Divide, td, td).unwrap(), TimeArithmetic::Ratio { unit: TimeUnit::Milli });
    }
}
