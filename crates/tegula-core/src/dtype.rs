//! Data types and NumPy 2 type promotion (the array API standard's table, extended with NumPy's
//! mixed signed/unsigned and integer/float rules). Everything here is a table or a small rule,
//! never the result of running a kernel.

use crate::error::{Result, TegulaError};
use crate::time_unit::TimeUnit;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The type of an array's elements: NumPy's numeric dtypes, `datetime64` and `timedelta64`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum DType {
    /// NumPy's `bool`: `True` or `False`, one byte each.
    Bool,
    /// NumPy's `int8`: signed 8-bit integers.
    Int8,
    /// NumPy's `int16`: signed 16-bit integers.
    Int16,
    /// NumPy's `int32`: signed 32-bit integers.
    Int32,
    /// NumPy's `int64`: signed 64-bit integers.
    Int64,
    /// NumPy's `uint8`: unsigned 8-bit integers.
    UInt8,
    /// NumPy's `uint16`: unsigned 16-bit integers.
    UInt16,
    /// NumPy's `uint32`: unsigned 32-bit integers.
    UInt32,
    /// NumPy's `uint64`: unsigned 64-bit integers.
    UInt64,
    /// NumPy's `float16`: IEEE half-precision floats.
    Float16,
    /// NumPy's `float32`: IEEE single-precision floats.
    Float32,
    /// NumPy's `float64`: IEEE double-precision floats.
    Float64,
    /// NumPy's `complex64`: complex numbers of two `float32` parts.
    Complex64,
    /// NumPy's `complex128`: complex numbers of two `float64` parts.
    Complex128,
    /// A point in time: a count of the unit since 1970-01-01T00:00 (see `time`).
    DateTime64(TimeUnit),
    /// A duration: a count of the unit.
    TimeDelta64(TimeUnit),
}

/// The kind of a dtype, ordered as NumPy orders kinds for promotion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// Booleans.
    Bool,
    /// Unsigned integers.
    UInt,
    /// Signed integers.
    Int,
    /// Real floating point numbers.
    Float,
    /// Complex floating point numbers.
    Complex,
    /// Durations (`timedelta64`).
    TimeDelta,
    /// Points in time (`datetime64`).
    DateTime,
}

/// Every dtype without a time unit: bool and the numeric dtypes.
pub const ALL_DTYPES: [DType; 14] = [
    DType::Bool,
    DType::Int8,
    DType::Int16,
    DType::Int32,
    DType::Int64,
    DType::UInt8,
    DType::UInt16,
    DType::UInt32,
    DType::UInt64,
    DType::Float16,
    DType::Float32,
    DType::Float64,
    DType::Complex64,
    DType::Complex128,
];

impl DType {
    /// NumPy's name of the dtype (`"int32"`, `"datetime64[ns]"`).
    pub fn name(self) -> &'static str {
        use DType::*;
        match self {
            Bool => "bool",
            Int8 => "int8",
            Int16 => "int16",
            Int32 => "int32",
            Int64 => "int64",
            UInt8 => "uint8",
            UInt16 => "uint16",
            UInt32 => "uint32",
            UInt64 => "uint64",
            Float16 => "float16",
            Float32 => "float32",
            Float64 => "float64",
            Complex64 => "complex64",
            Complex128 => "complex128",
            DateTime64(u) => datetime_name(u),
            TimeDelta64(u) => timedelta_name(u),
        }
    }

    /// Parses a canonical NumPy dtype name (`"int32"`, `"float64"`, `"bool"`,
    /// `"datetime64[ns]"`, ...).
    pub fn from_name(name: &str) -> Result<DType> {
        let times = TimeUnit::ALL.into_iter().flat_map(|u| [DType::DateTime64(u), DType::TimeDelta64(u)]);
        ALL_DTYPES
            .into_iter()
            .chain(times)
            .find(|d| d.name() == name)
            .ok_or_else(|| TegulaError::DType(format!("data type {name:?} is not supported by tegula")))
    }

    /// The bytes of one element (NumPy's `itemsize`).
    pub fn itemsize(self) -> usize {
        use DType::*;
        match self {
            Bool | Int8 | UInt8 => 1,
            Int16 | UInt16 | Float16 => 2,
            Int32 | UInt32 | Float32 => 4,
            Int64 | UInt64 | Float64 | Complex64 | DateTime64(_) | TimeDelta64(_) => 8,
            Complex128 => 16,
        }
    }

    /// The dtype's kind, for promotion.
    pub fn kind(self) -> Kind {
        use DType::*;
        match self {
            Bool => Kind::Bool,
            Int8 | Int16 | Int32 | Int64 => Kind::Int,
            UInt8 | UInt16 | UInt32 | UInt64 => Kind::UInt,
            Float16 | Float32 | Float64 => Kind::Float,
            Complex64 | Complex128 => Kind::Complex,
            DateTime64(_) => Kind::DateTime,
            TimeDelta64(_) => Kind::TimeDelta,
        }
    }

    /// True for signed and unsigned integer dtypes (not bool).
    pub fn is_integer(self) -> bool {
        matches!(self.kind(), Kind::Int | Kind::UInt)
    }
    /// True for real floating point dtypes.
    pub fn is_float(self) -> bool {
        self.kind() == Kind::Float
    }
    /// True for complex dtypes.
    pub fn is_complex(self) -> bool {
        self.kind() == Kind::Complex
    }
    /// True for bool and integer dtypes: the ones `& | ^ ~` accept.
    pub fn is_bool_or_integer(self) -> bool {
        self == DType::Bool || self.is_integer()
    }

    /// The real dtype of a complex one's components (identity for other dtypes).
    pub fn real_part(self) -> DType {
        match self {
            DType::Complex64 => DType::Float32,
            DType::Complex128 => DType::Float64,
            d => d,
        }
    }

    /// The float dtype that NumPy's float-valued functions (sqrt, exp, ...) return for `self`:
    /// the smallest float that holds every value exactly (bool/8-bit → float16, 16-bit →
    /// float32, wider → float64); floats and complexes are unchanged.
    pub fn to_inexact(self) -> DType {
        match self.kind() {
            Kind::Float | Kind::Complex => self,
            Kind::TimeDelta | Kind::DateTime => DType::Float64,
            Kind::Bool => DType::Float16,
            Kind::Int | Kind::UInt => float_of_size(min_float_size_for_int(self)),
        }
    }

    /// The dtype `sum`/`prod` accumulate and return in by default: NumPy widens bool and small
    /// integers to the platform integer (int64 / uint64 here).
    pub fn sum_dtype(self) -> DType {
        match self.kind() {
            Kind::Bool | Kind::Int => DType::Int64,
            Kind::UInt => DType::UInt64,
            _ => self,
        }
    }

    /// The signed integer dtype of `size` bytes.
    fn int_of_size(size: usize) -> DType {
        match size {
            1 => DType::Int8,
            2 => DType::Int16,
            4 => DType::Int32,
            _ => DType::Int64,
        }
    }

    /// Smallest value of an integer dtype, and largest (as i128, which holds both).
    pub fn integer_bounds(self) -> Option<(i128, i128)> {
        if !self.is_integer() {
            return None;
        }
        let bits = 8 * self.itemsize() as u32;
        Some(if self.kind() == Kind::Int {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        } else {
            (0, (1i128 << bits) - 1)
        })
    }
}

/// `datetime64[unit]`, as a name that lives as long as the program.
fn datetime_name(unit: TimeUnit) -> &'static str {
    use TimeUnit::*;
    match unit {
        Generic => "datetime64",
        Year => "datetime64[Y]",
        Month => "datetime64[M]",
        Week => "datetime64[W]",
        Day => "datetime64[D]",
        Hour => "datetime64[h]",
        Minute => "datetime64[m]",
        Second => "datetime64[s]",
        Milli => "datetime64[ms]",
        Micro => "datetime64[us]",
        Nano => "datetime64[ns]",
    }
}

fn timedelta_name(unit: TimeUnit) -> &'static str {
    use TimeUnit::*;
    match unit {
        Generic => "timedelta64",
        Year => "timedelta64[Y]",
        Month => "timedelta64[M]",
        Week => "timedelta64[W]",
        Day => "timedelta64[D]",
        Hour => "timedelta64[h]",
        Minute => "timedelta64[m]",
        Second => "timedelta64[s]",
        Milli => "timedelta64[ms]",
        Micro => "timedelta64[us]",
        Nano => "timedelta64[ns]",
    }
}

impl DType {
    /// The unit of a `datetime64` or `timedelta64` dtype.
    pub fn time_unit(self) -> Option<TimeUnit> {
        match self {
            DType::DateTime64(u) | DType::TimeDelta64(u) => Some(u),
            _ => None,
        }
    }

    /// Whether the dtype is `datetime64` or `timedelta64`.
    pub fn is_time(self) -> bool {
        self.time_unit().is_some()
    }

    /// The same kind of time in another unit (other dtypes unchanged).
    pub fn with_unit(self, unit: TimeUnit) -> DType {
        match self {
            DType::DateTime64(_) => DType::DateTime64(unit),
            DType::TimeDelta64(_) => DType::TimeDelta64(unit),
            d => d,
        }
    }

    /// The dtype of the elements as stored and computed on: int64 for times.
    pub fn storage(self) -> DType {
        if self.is_time() {
            DType::Int64
        } else {
            self
        }
    }
}

fn float_of_size(size: usize) -> DType {
    match size {
        2 => DType::Float16,
        4 => DType::Float32,
        _ => DType::Float64,
    }
}

fn complex_of_component_size(size: usize) -> DType {
    if size <= 4 {
        DType::Complex64
    } else {
        DType::Complex128
    }
}

/// Size of the smallest float that NumPy promotes an integer dtype to.
fn min_float_size_for_int(d: DType) -> usize {
    match d.itemsize() {
        1 => 2,
        2 => 4,
        _ => 8,
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// NumPy 2's `result_type` for two array dtypes. Symmetric; every pair of numeric dtypes has
/// an answer (int64 + uint64 → float64, as in NumPy); for times see `promote_checked`.
pub fn promote(a: DType, b: DType) -> DType {
    use Kind::*;
    if a == b {
        return a;
    }
    if let Ok(Some(time)) = promote_times(a, b) {
        return time;
    }
    let (lo, hi) = if a.kind() <= b.kind() { (a, b) } else { (b, a) };
    match (lo.kind(), hi.kind()) {
        (Bool, _) => hi,
        (UInt, UInt) | (Int, Int) | (Float, Float) | (Complex, Complex) => {
            if lo.itemsize() >= hi.itemsize() {
                lo
            } else {
                hi
            }
        }
        (UInt, Int) => {
            if hi.itemsize() > lo.itemsize() {
                hi
            } else if lo.itemsize() < 8 {
                DType::int_of_size(2 * lo.itemsize())
            } else {
                DType::Float64
            }
        }
        (UInt | Int, Float) => float_of_size(hi.itemsize().max(min_float_size_for_int(lo))),
        (UInt | Int, Complex) => {
            complex_of_component_size((hi.itemsize() / 2).max(min_float_size_for_int(lo)))
        }
        (Float, Complex) => complex_of_component_size((hi.itemsize() / 2).max(lo.itemsize())),
        _ => hi,
    }
}

/// `promote`, failing as NumPy does where no common dtype exists (a time with a number or a
/// datetime with a duration).
pub fn promote_checked(a: DType, b: DType) -> Result<DType> {
    Ok(promote_times(a, b)?.unwrap_or_else(|| promote(a, b)))
}

/// The common dtype when `a` or `b` is a time (`None` when neither is): the same kind of
/// time, in the finer unit; a duration also takes bools and signed integers, as NumPy's does.
fn promote_times(a: DType, b: DType) -> Result<Option<DType>> {
    use Kind::*;
    let none = || TegulaError::DType(format!("The DTypes {a} and {b} have no common DType"));
    Ok(match (a.kind(), b.kind(), a.time_unit(), b.time_unit()) {
        (_, _, None, None) => None,
        (x, y, Some(u), Some(v)) if x == y => Some(a.with_unit(u.finer(v))),
        (TimeDelta, Bool | Int, ..) => Some(a),
        (Bool | Int, TimeDelta, ..) => Some(b),
        _ => return Err(none()),
    })
}

/// `promote_checked` folded over several dtypes.
pub fn result_type(dtypes: &[DType]) -> Result<DType> {
    let (first, rest) = dtypes
        .split_first()
        .ok_or_else(|| TegulaError::Value("at least one array or dtype is required".into()))?;
    rest.iter().try_fold(*first, |acc, d| promote_checked(acc, *d))
}

/// The complex dtype whose components are `d` (float16 widens to complex64).
pub fn complex_for(d: DType) -> DType {
    complex_of_component_size(d.itemsize().max(4))
}
