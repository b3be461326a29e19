//! `unique` (elements and slices, NaNs apart or as one), `union1d`, `intersect1d`,
//! `setdiff1d`, `isin` and `count_nonzero` against NumPy 2's answers for the same data, written
//! out below, at several chunkings.

use ndarray::ArrayD;
use tegula::ops::UniqueSpec;
use tegula::{Array, AxisChunks, ChunkSpec, Chunk, TegulaError};

const NAN: f64 = f64::NAN;
const DATA: [f64; 12] = [3.0, NAN, 1.0, 3.0, -2.0, 1.0, NAN, 3.0, 0.0, -2.0, 7.0, 1.0];
const OTHER: [f64; 6] = [1.0, 7.0, 7.0, NAN, -2.0, 9.0];
const CHUNKINGS: [usize; 3] = [1, 2, 3];

fn matrix(block: usize) -> Array {
    let values = ArrayD::from_shape_vec(vec![3, 4], DATA.to_vec()).unwrap();
    Array::from_ndarray(values, &ChunkSpec::All(AxisChunks::Size(block))).unwrap()
}

fn other(block: usize) -> Array {
    Array::from_ndarray(ArrayD::from_shape_vec(vec![6], OTHER.to_vec()).unwrap(), &ChunkSpec::All(AxisChunks::Size(block))).unwrap()
}

fn floats(a: &Array) -> Vec<f64> {
    a.compute().unwrap().typed::<f64>().unwrap().iter().copied().collect()
}

fn ints(a: &Array) -> Vec<i64> {
    let out: Chunk = a.compute().unwrap();
    match out.typed::<bool>() {
        Ok(b) => b.iter().map(|&v| i64::from(v)).collect(),
        Err(_) => out.typed::<i64>().unwrap().iter().copied().collect(),
    }
}

fn assert_same(actual: &[f64], expected: &[f64]) {
    let same = actual.len() == expected.len() && actual.iter().zip(expected).all(|(a, e)| a == e || (a.is_nan() && e.is_nan()));
    assert!(same, "{actual:?} against NumPy's {expected:?}");
}

#[test]
fn unique_elements_are_numpys_with_nans_apart_or_as_one() {
    for block in CHUNKINGS {
        let all = UniqueSpec { index: true, inverse: true, counts: true, ..UniqueSpec::default() };
        let apart = matrix(block).unique(&all).unwrap();
        assert_same(&floats(&apart.values), &[-2.0, 0.0, 1.0, 3.0, 7.0, NAN, NAN]);
        assert_eq!(ints(&apart.index.unwrap()), [4, 8, 2, 0, 10, 1, 6]);
        let inverse = apart.inverse.unwrap();
        assert_eq!(inverse.shape(), [3, 4]);
        assert_eq!(ints(&inverse), [3, 5, 2, 3, 0, 2, 6, 3, 1, 0, 4, 2]);
        assert_eq!(ints(&apart.counts.unwrap()), [2, 1, 3, 3, 1, 1, 1]);
        let one = matrix(block).unique(&UniqueSpec { equal_nan: true, ..all }).unwrap();
        assert_same(&floats(&one.values), &[-2.0, 0.0, 1.0, 3.0, 7.0, NAN]);
        assert_eq!(ints(&one.index.unwrap()), [4, 8, 2, 0, 10, 1]);
        assert_eq!(ints(&one.inverse.unwrap()), [3, 5, 2, 3, 0, 2, 5, 3, 1, 0, 4, 2]);
        assert_eq!(ints(&one.counts.unwrap()), [2, 1, 3, 3, 1, 2]);
        assert!(matrix(block).unique(&UniqueSpec::default()).unwrap().counts.is_none());
    }
}

#[test]
fn unique_slices_are_numpys() {
    let rows = ArrayD::from_shape_vec(vec![4, 3], vec![1i64, 2, 1, 0, 5, 0, 1, 2, 1, 0, 5, 1]).unwrap();
    for block in CHUNKINGS {
        let m = Array::from_ndarray(rows.clone(), &ChunkSpec::All(AxisChunks::Size(block))).unwrap();
        let spec = UniqueSpec { index: true, inverse: true, counts: true, axis: Some(0), ..UniqueSpec::default() };
        let found = m.unique(&spec).unwrap();
        assert_eq!(found.values.shape(), [3, 3]);
        assert_eq!(ints(&found.values), [0, 5, 0, 0, 5, 1, 1, 2, 1]);
        assert_eq!(ints(&found.index.unwrap()), [1, 3, 0]);
        assert_eq!(ints(&found.inverse.unwrap()), [2, 0, 2, 1]);
        assert_eq!(ints(&found.counts.unwrap()), [1, 1, 2]);
        let columns = m.unique(&UniqueSpec { axis: Some(-1), ..UniqueSpec::default() }).unwrap().values;
        assert_eq!(columns.shape(), [4, 3]);
        assert_eq!(ints(&columns), [1, 1, 2, 0, 0, 5, 1, 1, 2, 0, 1, 5]);
        assert!(matches!(m.unique(&UniqueSpec { axis: Some(2), ..UniqueSpec::default() }), Err(TegulaError::Axis { .. })));
    }
}

#[test]
fn set_operations_are_numpys() {
    for block in CHUNKINGS {
        let (a, b) = (matrix(block), other(block));
        assert_same(&floats(&a.union1d(&b).unwrap()), &[-2.0, 0.0, 1.0, 3.0, 7.0, 9.0, NAN]);
        let (common, positions) = a.intersect1d(&b, false, true).unwrap();
        assert_same(&floats(&common), &[-2.0, 1.0, 7.0]);
        let [in_a, in_b] = positions.unwrap();
        assert_eq!((ints(&in_a), ints(&in_b)), (vec![4, 2, 10], vec![4, 0, 1]));
        assert!(a.intersect1d(&b, false, false).unwrap().1.is_none());
        assert_same(&floats(&a.setdiff1d(&b, false).unwrap()), &[0.0, 3.0, NAN]);
        assert_eq!(ints(&a.isin(&b, false).unwrap()), [0, 0, 1, 0, 1, 1, 0, 0, 0, 1, 1, 1]);
        assert_eq!(ints(&a.isin(&b, true).unwrap()), [1, 1, 0, 1, 0, 0, 1, 1, 1, 0, 0, 0]);
        assert_eq!(ints(&a.count_nonzero(Some(&[1]), false).unwrap()), [4, 4, 3]);
    }
}
