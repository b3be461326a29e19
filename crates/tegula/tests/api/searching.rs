//! `argmax`/`argmin` against NumPy's answers for the same data (written out below), at every
//! chunking of the matrix: NaN counts as the extreme and the first of equal extremes wins.

use ndarray::{arr2, ArrayD};
use tegula::{Array, AxisChunks, ChunkSpec, DType, TegulaError};

const NAN: f64 = f64::NAN;

fn matrix() -> ArrayD<f64> {
    arr2(&[[3.0, 1.0, 3.0, -2.0, 0.0], [NAN, 5.0, 5.0, 1.0, NAN], [0.0, 0.0, -1.0, -1.0, 7.0], [2.0, 9.0, 9.0, NAN, 1.0]]).into_dyn()
}

fn positions(a: &Array) -> Vec<i64> {
    let out = a.compute().unwrap();
    assert_eq!(out.dtype(), DType::Int64);
    out.typed::<i64>().unwrap().iter().copied().collect()
}

#[test]
fn arg_extremes_are_numpys_at_every_chunking() {
    // np.argmax(a), np.argmin(a), then along axes 0 and 1, from NumPy 2.
    for (rows, cols) in [(1, 1), (2, 3), (3, 2), (4, 5), (1, 5), (4, 1)] {
        let chunks = ChunkSpec::PerAxis(vec![AxisChunks::Size(rows), AxisChunks::Size(cols)]);
        let a = Array::from_ndarray(matrix(), &chunks).unwrap();
        assert_eq!(positions(&a.argmax(None, false).unwrap()), [5]);
        assert_eq!(positions(&a.argmin(None, false).unwrap()), [5]);
        assert_eq!(positions(&a.argmax(Some(0), false).unwrap()), [1, 3, 3, 3, 1]);
        assert_eq!(positions(&a.argmin(Some(0), false).unwrap()), [1, 2, 2, 3, 1]);
        assert_eq!(positions(&a.argmax(Some(1), false).unwrap()), [0, 0, 4, 3]);
        assert_eq!(positions(&a.argmin(Some(-1), false).unwrap()), [3, 0, 2, 3]);
        assert_eq!(a.argmax(Some(-1), true).unwrap().shape(), [4, 1]);
        assert_eq!(a.argmax(None, true).unwrap().shape(), [1, 1]);
    }
}

#[test]
fn arg_extremes_of_integers_take_the_first_of_ties() {
    let ints = arr2(&[[7i32, -3, 7], [-3, 7, -3]]).into_dyn();
    let a = Array::from_ndarray(ints, &ChunkSpec::All(AxisChunks::Size(1))).unwrap();
    // np.argmax(ints) == 0, np.argmin(ints) == 1, np.argmax(ints, 0) == [0, 1, 0].
    assert_eq!(positions(&a.argmax(None, false).unwrap()), [0]);
    assert_eq!(positions(&a.argmin(None, false).unwrap()), [1]);
    assert_eq!(positions(&a.argmax(Some(0), false).unwrap()), [0, 1, 0]);
}

#[test]
fn arg_extremes_refuse_empty_lanes_and_bad_axes() {
    let a = Array::from_ndarray(matrix(), &ChunkSpec::All(AxisChunks::Size(2))).unwrap();
    assert!(matches!(a.argmax(Some(2), false), Err(TegulaError::Axis { axis: 2, ndim: 2 })));
    assert!(matches!(a.argmin(Some(-3), false), Err(TegulaError::Axis { axis: -3, ndim: 2 })));
    let empty = Array::zeros(&[0, 3], DType::Float64, &ChunkSpec::All(AxisChunks::Size(2))).unwrap();
    assert!(matches!(empty.argmax(None, false), Err(TegulaError::Value(m)) if m.contains("empty sequence")));
    assert!(matches!(empty.argmax(Some(0), false), Err(TegulaError::Value(_))));
    // Along the axis of length 3 each of the 0 lanes has elements: an empty result.
    assert_eq!(empty.argmax(Some(1), false).unwrap().shape(), [0]);
    let scalar = Array::zeros(&[], DType::Float64, &ChunkSpec::All(AxisChunks::Full)).unwrap();
    assert_eq!(positions(&scalar.argmin(Some(0), false).unwrap()), [0]);
}
