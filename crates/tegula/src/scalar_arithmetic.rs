//! Numbers as NumPy's scalar arithmetic carries them (NEP 50): a Python float is weak and
//! takes the other operand's precision; two NumPy floats meet in the wider. Formulas NumPy
//! evaluates on computed statistics (the histogram bin estimators) give the same bits only
//! when each step rounds where NumPy's does.

use half::f16;
use std::ops::{Add, Div, Mul, Sub};
use tegula_core::DType;

/// A number and the precision NumPy holds it in.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Num {
    /// A Python float (or int): takes the other operand's precision.
    Weak(f64),
    Half(f64),
    Single(f64),
    Double(f64),
}

impl Num {
    /// A value computed in `dtype` (integers as float64, as NumPy's true division makes them).
    pub(crate) fn of(dtype: DType, value: f64) -> Num {
        match dtype {
            DType::Float16 => Num::Half(value),
            DType::Float32 => Num::Single(value),
            _ => Num::Double(value),
        }
    }

    pub(crate) fn value(self) -> f64 {
        match self {
            Num::Weak(v) | Num::Half(v) | Num::Single(v) | Num::Double(v) => v,
        }
    }

    fn rank(self) -> u8 {
        match self {
            Num::Weak(_) => 0,
            Num::Half(_) => 1,
            Num::Single(_) => 2,
            Num::Double(_) => 3,
        }
    }

    /// `value` rounded to this number's precision, in it.
    fn with(self, value: f64) -> Num {
        match self {
            Num::Weak(_) => Num::Weak(value),
            Num::Half(_) => Num::Half(f16::from_f64(value).to_f64()),
            Num::Single(_) => Num::Single(value as f32 as f64),
            Num::Double(_) => Num::Double(value),
        }
    }

    /// `f` of the two values in the wider precision. Rounding the exact float64 result once
    /// to a narrower float is what that float's own arithmetic gives for these operations.
    fn combine(self, other: Num, f: impl Fn(f64, f64) -> f64) -> Num {
        let wider = if self.rank() >= other.rank() { self } else { other };
        wider.with(f(self.value(), other.value()))
    }

    /// `f` of the value in its precision (NumPy's `log2`, `absolute`, ...; a Python number
    /// through a NumPy function becomes float64).
    pub(crate) fn map(self, f: impl Fn(f64) -> f64) -> Num {
        match self {
            Num::Weak(v) => Num::Double(f(v)),
            _ => self.with(f(self.value())),
        }
    }
}

macro_rules! num_op {
    ($trait:ident, $method:ident, $op:tt) => {
        impl $trait for Num {
            type Output = Num;
            fn $method(self, other: Num) -> Num {
                self.combine(other, |a, b| a $op b)
            }
        }
    };
}

num_op!(Add, add, +);
num_op!(Sub, sub, -);
num_op!(Mul, mul, *);
num_op!(Div, div, /);

#[cfg(test)]
mod tests {
    use super::Num;

    #[test]
    fn weak_numbers_take_the_other_precision() {
        // float32(1) / 3.0 rounds to float32; with a float64 it is float64.
        assert_eq!((Num::Single(1.0) / Num::Weak(3.0)).value(), (1.0f32 / 3.0f32) as f64);
        assert_eq!((Num::Single(1.0) / Num::Double(3.0)).value(), 1.0 / 3.0);
        assert_eq!((Num::Half(1.0) / Num::Weak(3.0)).value(), half::f16::from_f64(1.0 / 3.0).to_f64());
        assert!(matches!(Num::Weak(2.0).map(f64::sqrt), Num::Double(_)));
    }
}
