//! Type promotion against NumPy 2's documented promotion results.

use proptest::prelude::*;
use tegula_core::dtype::ALL_DTYPES;
use tegula_core::{promote, DType, DType::*, Scalar, TegulaError};

/// Pairs and results as `numpy.result_type` gives them (NumPy 2.x).
const NUMPY: &[(DType, DType, DType)] = &[
    (Bool, Int8, Int8),
    (Bool, Float16, Float16),
    (Int8, UInt8, Int16),
    (Int16, UInt16, Int32),
    (Int32, UInt32, Int64),
    (Int64, UInt64, Float64),
    (UInt8, Int32, Int32),
    (UInt32, Int8, Int64),
    (Int8, Float16, Float16),
    (Int16, Float16, Float32),
    (UInt16, Float32, Float32),
    (Int32, Float32, Float64),
    (Int64, Float32, Float64),
    (UInt64, Float16, Float64),
    (Float16, Float32, Float32),
    (Float32, Complex64, Complex64),
    (Float64, Complex64, Complex128),
    (Int16, Complex64, Complex64),
    (Int32, Complex64, Complex128),
    (Float16, Complex64, Complex64),
    (Complex64, Complex128, Complex128),
];

#[test]
fn matches_numpy_result_type() {
    for &(a, b, want) in NUMPY {
        assert_eq!(promote(a, b), want, "{a} + {b}");
        assert_eq!(promote(b, a), want, "{b} + {a}");
    }
}

fn dtype() -> impl Strategy<Value = DType> {
    prop::sample::select(ALL_DTYPES.to_vec())
}

proptest! {
    #[test]
    fn promotion_is_symmetric_and_idempotent(a in dtype(), b in dtype()) {
        prop_assert_eq!(promote(a, b), promote(b, a));
        prop_assert_eq!(promote(a, a), a);
        // The result never has a lower kind than either input.
        let r = promote(a, b);
        prop_assert!(r.kind() >= a.kind().min(b.kind()));
        prop_assert_eq!(promote(r, a), r);
        prop_assert_eq!(promote(r, b), r);
    }
}

#[test]
fn python_scalars_are_weak() {
    // NEP 50: the array's dtype wins when the scalar's kind is not higher.
    assert_eq!(Scalar::Int(1).weak_dtype(Int8), Ok(Int8));
    assert_eq!(Scalar::Float(2.5).weak_dtype(Float32), Ok(Float32));
    assert_eq!(Scalar::Float(2.5).weak_dtype(Int8), Ok(Float64));
    assert_eq!(Scalar::Int(3).weak_dtype(Bool), Ok(Int64));
    assert_eq!(Scalar::Complex(1.0, 1.0).weak_dtype(Float32), Ok(Complex64));
    assert_eq!(Scalar::Complex(1.0, 1.0).weak_dtype(Int16), Ok(Complex128));
    assert_eq!(Scalar::Bool(true).weak_dtype(UInt8), Ok(UInt8));
    assert_eq!(Scalar::Int(255).weak_dtype(UInt8), Ok(UInt8));
    assert!(matches!(Scalar::Int(1000).weak_dtype(Int8), Err(TegulaError::Overflow(_))));
    assert!(matches!(Scalar::Int(-1).weak_dtype(UInt8), Err(TegulaError::Overflow(_))));
}

#[test]
fn names_round_trip() {
    for d in ALL_DTYPES {
        assert_eq!(DType::from_name(d.name()), Ok(d));
    }
    assert!(matches!(DType::from_name("object"), Err(TegulaError::DType(_))));
}
