//! Order statistics (`quantile` with each of NumPy's thirteen methods, `median`, their
//! NaN-skipping variants, weights, float32 quantiles, `ptp`) against NumPy 2's answers for the
//! same data, written out below, at several chunkings. Values must be NumPy's bit for bit: the
//! positions and weights are computed with NumPy's operations, in `q`'s precision.

use ndarray::ArrayD;
use tegula::ops::{QuantileMethod, QuantileSpec, Quantiles};
use tegula::{Array, AxisChunks, ChunkSpec, DType, TegulaError};

const NAN: f64 = f64::NAN;
const DATA: [f64; 24] = [3.5, -1.0, 2.0, 8.0, 0.5, 6.25, -4.0, 1.5, 4.0, NAN, 1.0, -2.0, 6.0, 9.5, 3.0, -7.5, 7.0, 7.0, -3.0, 0.0, 2.5, 11.0, 5.0, -0.5];
const Q: [f64; 5] = [0.05, 0.3, 0.5, 0.85, 1.0];

/// np.quantile(DATA, Q, axis=1, method=m) and np.nanquantile(...), each (5, 3) row-major.
const BY_METHOD: [(&str, &[f64], &[f64]); 13] = [
        ("linear", &[-2.95, NAN, -2.125, 0.6000000000000001, NAN, 0.2500000000000002, 1.75, NAN, 3.75, 6.112500000000001, NAN, 7.0, 8.0, NAN, 11.0], &[-2.95, -5.85, -2.125, 0.6000000000000001, 0.39999999999999947, 0.2500000000000002, 1.75, 3.0, 3.75, 6.112500000000001, 6.349999999999999, 7.0, 8.0, 9.5, 11.0]),
        ("lower", &[-4.0, NAN, -3.0, 0.5, NAN, 0.0, 1.5, NAN, 2.5, 3.5, NAN, 7.0, 8.0, NAN, 11.0], &[-4.0, -7.5, -3.0, 0.5, -2.0, 0.0, 1.5, 3.0, 2.5, 3.5, 6.0, 7.0, 8.0, 9.5, 11.0]),
        ("higher", &[-1.0, NAN, -0.5, 1.5, NAN, 2.5, 2.0, NAN, 5.0, 6.25, NAN, 7.0, 8.0, NAN, 11.0], &[-1.0, -2.0, -0.5, 1.5, 1.0, 2.5, 2.0, 3.0, 5.0, 6.25, 9.5, 7.0, 8.0, 9.5, 11.0]),
        ("nearest", &[-4.0, NAN, -3.0, 0.5, NAN, 0.0, 2.0, NAN, 5.0, 6.25, NAN, 7.0, 8.0, NAN, 11.0], &[-4.0, -7.5, -3.0, 0.5, 1.0, 0.0, 2.0, 3.0, 5.0, 6.25, 6.0, 7.0, 8.0, 9.5, 11.0]),
        ("midpoint", &[-2.5, NAN, -1.75, 1.0, NAN, 1.25, 1.75, NAN, 3.75, 4.875, NAN, 7.0, 8.0, NAN, 11.0], &[-2.5, -4.75, -1.75, 1.0, -0.5, 1.25, 1.75, 3.0, 3.75, 4.875, 7.75, 7.0, 8.0, 9.5, 11.0]),
        ("inverted_cdf", &[-4.0, NAN, -3.0, 0.5, NAN, 0.0, 1.5, NAN, 2.5, 6.25, NAN, 7.0, 8.0, NAN, 11.0], &[-4.0, -7.5, -3.0, 0.5, 1.0, 0.0, 1.5, 3.0, 2.5, 6.25, 6.0, 7.0, 8.0, 9.5, 11.0]),
        ("averaged_inverted_cdf", &[-4.0, NAN, -3.0, 0.5, NAN, 0.0, 1.75, NAN, 3.75, 6.25, NAN, 7.0, 8.0, NAN, 11.0], &[-4.0, -7.5, -3.0, 0.5, 1.0, 0.0, 1.75, 3.0, 3.75, 6.25, 6.0, 7.0, 8.0, 9.5, 11.0]),
        ("closest_observation", &[-4.0, NAN, -3.0, -1.0, NAN, -0.5, 1.5, NAN, 2.5, 6.25, NAN, 7.0, 8.0, NAN, 11.0], &[-4.0, -7.5, -3.0, -1.0, -2.0, -0.5, 1.5, 3.0, 2.5, 6.25, 6.0, 7.0, 8.0, 9.5, 11.0]),
        ("interpolated_inverted_cdf", &[-4.0, NAN, -3.0, -0.40000000000000013, NAN, -0.30000000000000004, 1.5, NAN, 2.5, 5.699999999999999, NAN, 7.0, 8.0, NAN, 11.0], &[-4.0, -7.5, -3.0, -0.40000000000000013, -1.6999999999999997, -0.30000000000000004, 1.5, 2.0, 2.5, 5.699999999999999, 5.9, 7.0, 8.0, 9.5, 11.0]),
        ("hazen", &[-4.0, NAN, -3.0, 0.34999999999999987, NAN, -0.050000000000000044, 1.75, NAN, 3.75, 6.7749999999999995, NAN, 8.2, 8.0, NAN, 11.0], &[-4.0, -7.5, -3.0, 0.34999999999999987, -0.19999999999999973, -0.050000000000000044, 1.75, 3.0, 3.75, 6.7749999999999995, 7.575000000000001, 8.2, 8.0, 9.5, 11.0]),
        ("weibull", &[-4.0, NAN, -3.0, 0.0499999999999996, NAN, -0.15000000000000013, 1.75, NAN, 3.75, 7.387499999999999, NAN, 9.599999999999998, 8.0, NAN, 11.0], &[-4.0, -7.5, -3.0, 0.0499999999999996, -0.8000000000000003, -0.15000000000000013, 1.75, 3.0, 3.75, 7.387499999999999, 8.799999999999999, 9.599999999999998, 8.0, 9.5, 11.0]),
        ("median_unbiased", &[-4.0, NAN, -3.0, 0.24999999999999956, NAN, -0.08333333333333348, 1.75, NAN, 3.75, 6.979166666666666, NAN, 8.666666666666664, 8.0, NAN, 11.0], &[-4.0, -7.5, -3.0, 0.24999999999999956, -0.40000000000000036, -0.08333333333333348, 1.75, 3.0, 3.75, 6.979166666666666, 7.9833333333333325, 8.666666666666664, 8.0, 9.5, 11.0]),
        ("normal_unbiased", &[-4.0, NAN, -3.0, 0.27500000000000013, NAN, -0.07499999999999996, 1.75, NAN, 3.75, 6.9281250000000005, NAN, 8.55, 8.0, NAN, 11.0], &[-4.0, -7.5, -3.0, 0.27500000000000013, -0.3499999999999992, -0.07499999999999996, 1.75, 3.0, 3.75, 6.9281250000000005, 7.881250000000001, 8.55, 8.0, 9.5, 11.0]),
];

fn data(rows: &[usize], chunks: (usize, usize)) -> Array {
    let values: Vec<f64> = rows.iter().flat_map(|&r| DATA[r * 8..r * 8 + 8].to_vec()).collect();
    let matrix = ArrayD::from_shape_vec(vec![rows.len(), 8], values).unwrap();
    Array::from_ndarray(matrix, &ChunkSpec::PerAxis(vec![AxisChunks::Size(chunks.0), AxisChunks::Size(chunks.1)])).unwrap()
}

fn values(a: &Array) -> Vec<f64> {
    let out = a.compute().unwrap();
    match out.dtype() {
        DType::Float32 => out.typed::<f32>().unwrap().iter().map(|&v| f64::from(v)).collect(),
        DType::Int64 => out.typed::<i64>().unwrap().iter().map(|&v| v as f64).collect(),
        _ => out.typed::<f64>().unwrap().iter().copied().collect(),
    }
}

fn assert_same(actual: &[f64], expected: &[f64], what: &str) {
    let same = actual.len() == expected.len() && actual.iter().zip(expected).all(|(a, e)| a.to_bits() == e.to_bits() || (a.is_nan() && e.is_nan()));
    assert!(same, "{what}: {actual:?} against NumPy's {expected:?}");
}

const CHUNKINGS: [(usize, usize); 4] = [(1, 8), (2, 3), (3, 1), (1, 5)];

#[test]
fn quantiles_are_numpys_for_every_method() {
    for chunks in CHUNKINGS {
        let x = data(&[0, 1, 2], chunks);
        for (name, plain, skipping) in BY_METHOD {
            let method = QuantileMethod::from_name(name).unwrap();
            assert_eq!(method.name(), name);
            let mut spec = QuantileSpec { method, ..QuantileSpec::new(Some(&[1])) };
            let q = Quantiles::of(&Q).unwrap();
            let result = x.quantile(&q, &spec).unwrap();
            assert_eq!(result.shape(), [5, 3]);
            assert_same(&values(&result), plain, name);
            spec.skip_nan = true;
            assert_same(&values(&x.quantile(&q, &spec).unwrap()), skipping, name);
        }
    }
}

#[test]
fn quantiles_over_all_axes_and_kept_axes() {
    let x = data(&[0, 2], (2, 3));
    let q = Quantiles::of(&Q).unwrap();
    assert_same(&values(&x.quantile(&q, &QuantileSpec::new(None)).unwrap()), &[-3.25, 0.25, 2.25, 7.0, 11.0], "all axes");
    let kept = x.quantile(&q, &QuantileSpec { keepdims: true, ..QuantileSpec::new(Some(&[0, 1])) }).unwrap();
    assert_eq!(kept.shape(), [5, 1, 1]);
    let one = x.quantile(&Quantiles::scalar(0.5).unwrap(), &QuantileSpec::new(None)).unwrap();
    assert_eq!(one.shape(), Vec::<usize>::new());
    assert_same(&values(&one), &[2.25], "the median as a quantile");
}

#[test]
fn medians_are_numpys() {
    for chunks in CHUNKINGS {
        let x = data(&[0, 1, 2], chunks);
        assert_same(&values(&x.median(Some(&[1]), false, false).unwrap()), &[1.75, NAN, 3.75], "median");
        assert_same(&values(&x.median(Some(&[-1]), false, true).unwrap()), &[1.75, 3.0, 3.75], "nanmedian");
        assert_same(&values(&x.median(Some(&[0]), false, false).unwrap()), &[4.0, NAN, 1.0, 0.0, 2.5, 9.5, 3.0, -0.5], "median along 0");
        assert_eq!(x.median(None, true, false).unwrap().shape(), [1, 1]);
    }
}

#[test]
fn weighted_quantiles_are_numpys() {
    let weights = ArrayD::from_shape_vec(vec![8], vec![1.0, 0.0, 2.0, 1.0, 3.0, 0.5, 0.0, 2.0]).unwrap();
    for chunks in CHUNKINGS {
        let x = data(&[0, 1, 2], chunks);
        let w = Array::from_ndarray(weights.clone(), &ChunkSpec::All(AxisChunks::Size(3))).unwrap();
        let q = Quantiles::of(&Q).unwrap();
        let mut spec = QuantileSpec { method: QuantileMethod::InvertedCdf, weights: Some(w.clone()), ..QuantileSpec::new(Some(&[1])) };
        assert_same(&values(&x.quantile(&q, &spec).unwrap()), &[0.5, NAN, -3.0, 0.5, NAN, -0.5, 1.5, NAN, 0.0, 6.25, NAN, 7.0, 8.0, NAN, 11.0], "weighted");
        spec.skip_nan = true;
        spec.weights = Some(w.broadcast_to(&[3, 8]).unwrap());
        assert_same(&values(&x.quantile(&q, &spec).unwrap()), &[0.5, -7.5, -3.0, 0.5, -2.0, -0.5, 1.5, 1.0, 0.0, 6.25, 6.0, 7.0, 8.0, 9.5, 11.0], "weighted, NaN skipped");
        spec.method = QuantileMethod::Linear;
        assert!(matches!(x.quantile(&q, &spec), Err(TegulaError::Value(m)) if m.contains("Only method 'inverted_cdf'")));
    }
    let x = data(&[0], (1, 4));
    let negative = Array::from_ndarray(ArrayD::from_elem(vec![8], -1.0), &ChunkSpec::All(AxisChunks::Size(4))).unwrap();
    let spec = QuantileSpec { method: QuantileMethod::InvertedCdf, weights: Some(negative), ..QuantileSpec::new(Some(&[1])) };
    assert!(matches!(x.quantile(&Quantiles::of(&Q).unwrap(), &spec), Err(TegulaError::Value(m)) if m.contains("non-negative")));
}

#[test]
fn float32_quantiles_are_computed_in_float32() {
    let q32 = ArrayD::from_shape_vec(vec![2], vec![f64::from(0.3f32), f64::from(0.7f32)]).unwrap();
    let q = Quantiles::new(q32, DType::Float32, false).unwrap();
    for chunks in CHUNKINGS {
        let x = data(&[0, 2], chunks);
        let single = x.astype(DType::Float32).unwrap().quantile(&q, &QuantileSpec::new(Some(&[1]))).unwrap();
        assert_eq!(single.dtype(), DType::Float32);
        assert_same(&values(&single), &[0.6000001430511475, 0.25000035762786865, 3.3500001430511475, 6.800000190734863], "float32 data, float32 q");
        let double = x.quantile(&q, &QuantileSpec::new(Some(&[1]))).unwrap();
        assert_eq!(double.dtype(), DType::Float64);
        assert_same(&values(&double), &[0.6000001430511475, 0.25000035762786865, 3.3500001430511475, 6.800000190734863], "float64 data, float32 q");
        let weak = Quantiles::new(ndarray::arr0(0.3).into_dyn(), DType::Float64, true).unwrap();
        let weakly = x.astype(DType::Float32).unwrap().quantile(&weak, &QuantileSpec::new(Some(&[1]))).unwrap();
        assert_eq!(weakly.dtype(), DType::Float32);
        assert_same(&values(&weakly), &[0.6000000238418579, 0.25], "a Python float's weights take the data's float32");
    }
}

#[test]
fn integer_statistics_are_numpys() {
    let ints = ArrayD::from_shape_vec(vec![3, 4], (0..12).map(|v| v * 3).collect::<Vec<i64>>()).unwrap();
    let x = Array::from_ndarray(ints, &ChunkSpec::All(AxisChunks::Size(2))).unwrap();
    assert_same(&values(&x.quantile(&Quantiles::of(&[0.25, 0.75]).unwrap(), &QuantileSpec::new(Some(&[0]))).unwrap()), &[6.0, 9.0, 12.0, 15.0, 18.0, 21.0, 24.0, 27.0], "int quantiles");
    assert_same(&values(&x.median(Some(&[1]), false, false).unwrap()), &[4.5, 16.5, 28.5], "int median");
    let range = x.ptp(Some(&[1]), false).unwrap();
    assert_eq!(range.dtype(), DType::Int64);
    assert_same(&values(&range), &[9.0, 9.0, 9.0], "ptp");
}

#[test]
fn bad_quantiles_are_refused() {
    assert!(matches!(Quantiles::of(&[0.5, 1.5]), Err(TegulaError::Value(m)) if m.contains("[0, 1]")));
    assert!(matches!(QuantileMethod::from_name("cubic"), Err(TegulaError::Value(m)) if m.contains("not a valid method")));
    let x = data(&[0], (1, 4));
    let q = Quantiles::of(&Q).unwrap();
    assert!(matches!(x.quantile(&q, &QuantileSpec::new(Some(&[2]))), Err(TegulaError::Axis { axis: 2, ndim: 2 })));
    assert!(matches!(x.quantile(&q, &QuantileSpec::new(Some(&[1, -1]))), Err(TegulaError::Value(m)) if m.contains("duplicate")));
    let empty = Array::zeros(&[3, 0], DType::Float64, &ChunkSpec::All(AxisChunks::Size(2))).unwrap();
    assert!(matches!(empty.quantile(&q, &QuantileSpec::new(Some(&[1]))), Err(TegulaError::Index(_))));
    let complex = x.astype(DType::Complex128).unwrap();
    assert!(matches!(complex.quantile(&q, &QuantileSpec::new(None)), Err(TegulaError::DType(_))));
}
