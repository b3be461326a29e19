//! Python scalars and NumPy 2's "weak scalar" promotion rule (NEP 50): a Python `int`, `float`
//! or `complex` takes the array's dtype when its kind is not higher than the array's kind.

use crate::dtype::{complex_for, DType, Kind};
use crate::error::{Result, TegulaError};
use serde::{Deserialize, Serialize};

/// A scalar value as Python spells it. Integers are kept as i128 so that every int64 and uint64
/// value (and a sign) is representable.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum Scalar {
    /// A Python `bool`.
    Bool(bool),
    /// A Python `int`.
    Int(i128),
    /// A Python `float`.
    Float(f64),
    /// A Python `complex`: its real and imaginary parts.
    Complex(f64, f64),
}

impl Scalar {
    /// The dtype NumPy gives this scalar on its own (`np.asarray(5)` → int64).
    pub fn default_dtype(&self) -> DType {
        match self {
            Scalar::Bool(_) => DType::Bool,
            Scalar::Int(_) => DType::Int64,
            Scalar::Float(_) => DType::Float64,
            Scalar::Complex(..) => DType::Complex128,
        }
    }

    fn kind(&self) -> Kind {
        match self {
            Scalar::Bool(_) => Kind::Bool,
            Scalar::Int(_) => Kind::Int,
            Scalar::Float(_) => Kind::Float,
            Scalar::Complex(..) => Kind::Complex,
        }
    }

    /// The dtype this scalar takes next to an array of dtype `array` (weak promotion).
    /// A Python int outside an integer dtype's range is an `OverflowError`, as in NumPy 2.
    pub fn weak_dtype(&self, array: DType) -> Result<DType> {
        let dtype = self.weak_promotion(array);
        self.check_fits(dtype)?;
        Ok(dtype)
    }

    /// The dtype of weak promotion, without checking that the value fits it: a ufunc checks
    /// the value against the dtype its loop computes in (`int8 / 1000` computes in float64).
    pub fn weak_promotion(&self, array: DType) -> DType {
        let array_kind = match array.kind() {
            Kind::UInt => Kind::Int,
            k => k,
        };
        if self.kind() <= array_kind {
            array
        } else {
            match self {
                Scalar::Complex(..) if array.is_float() => complex_for(array),
                s => s.default_dtype(),
            }
        }
    }

    /// Fails with `OverflowError` when an integer scalar does not fit an integer dtype, or,
    /// for a bool dtype, a C long (NumPy converts Python ints to bool through one).
    pub fn check_fits(&self, dtype: DType) -> Result<()> {
        let bounds = match dtype {
            DType::Bool => DType::Int64.integer_bounds(),
            d => d.integer_bounds(),
        };
        if let (Scalar::Int(v), Some((lo, hi))) = (self, bounds) {
            if *v < lo || *v > hi {
                return Err(TegulaError::Overflow(format!(
                    "integer scalar {v} out of bounds for {dtype}"
                )));
            }
        }
        Ok(())
    }

    /// Python's `bool(value)`: non-zero (NaN included) is true.
    pub fn is_truthy(&self) -> bool {
        match *self {
            Scalar::Bool(b) => b,
            Scalar::Int(v) => v != 0,
            Scalar::Float(v) => v != 0.0,
            Scalar::Complex(re, im) => re != 0.0 || im != 0.0,
        }
    }

    /// The value as an `f64`: `True` is 1.0, a complex scalar gives its real part.
    pub fn as_f64(&self) -> f64 {
        match *self {
            Scalar::Bool(b) => b as u8 as f64,
            Scalar::Int(v) => v as f64,
            Scalar::Float(v) => v,
            Scalar::Complex(re, _) => re,
        }
    }
}

impl std::fmt::Display for Scalar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Scalar::Bool(b) => write!(f, "{}", if *b { "True" } else { "False" }),
            Scalar::Int(v) => write!(f, "{v}"),
            Scalar::Float(v) => write!(f, "{v:?}"),
            Scalar::Complex(re, im) => write!(f, "({re:?}{im:+?}j)"),
        }
    }
}
