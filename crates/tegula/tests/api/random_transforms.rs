//! The distributions `Generator` composes of uniform and normal draws, against NumPy's formulas
//! for them applied here, element by element, to the draws of a generator of the same seed
//! (the call order decides the streams, as in `tegula.random`): exact for the inversions,
//! within a few ulps where `libm` and the kernels' vectorised functions may differ.

use tegula::random::{Generator, Param};
use tegula::{Array, AxisChunks, ChunkSpec, DType, TegulaError};

const SHAPE: [usize; 2] = [7, 9];

fn chunks() -> ChunkSpec {
    ChunkSpec::All(AxisChunks::Size(4))
}

fn values(a: &Array) -> Vec<f64> {
    a.compute().unwrap().typed::<f64>().unwrap().iter().copied().collect()
}

fn uniforms(seed: u64) -> Vec<f64> {
    values(&Generator::new(seed).random(&SHAPE, &chunks()).unwrap())
}

fn assert_close(actual: &[f64], expected: &[f64], what: &str) {
    assert_eq!(actual.len(), expected.len());
    for (a, e) in actual.iter().zip(expected) {
        assert!((a - e).abs() <= 1e-13 * e.abs().max(1.0), "{what}: {a} against {e}");
    }
}

#[test]
fn inversions_of_uniform_draws_are_numpys_formulas() {
    let shape = Some(&SHAPE[..]);
    let (two, half) = (Param::Number(2.0), Param::Number(0.5));
    let u = uniforms(11);
    let g = || Generator::new(11);
    let exponential = values(&g().exponential(&two, shape, &chunks()).unwrap());
    assert_close(&exponential, &u.iter().map(|u| -(-u).ln_1p() * 2.0).collect::<Vec<_>>(), "exponential");
    let laplace = values(&g().laplace(&half, &two, shape, &chunks()).unwrap());
    let expected: Vec<f64> = u.iter().map(|&u| 0.5 + 2.0 * if u >= 0.5 { -(2.0 - 2.0 * u).ln() } else { (2.0 * u).ln() }).collect();
    assert_close(&laplace, &expected, "laplace");
    let logistic = values(&g().logistic(&half, &two, shape, &chunks()).unwrap());
    assert_close(&logistic, &u.iter().map(|u| 0.5 + 2.0 * (u / (1.0 - u)).ln()).collect::<Vec<_>>(), "logistic");
    let gumbel = values(&g().gumbel(&half, &two, shape, &chunks()).unwrap());
    assert_close(&gumbel, &u.iter().map(|u| 0.5 - 2.0 * (-(-u).ln_1p()).ln()).collect::<Vec<_>>(), "gumbel");
    let e: Vec<f64> = u.iter().map(|u| -(-u).ln_1p()).collect();
    assert_close(&values(&g().weibull(&two, shape, &chunks()).unwrap()), &e.iter().map(|e| e.powf(0.5)).collect::<Vec<_>>(), "weibull");
    assert_close(&values(&g().pareto(&two, shape, &chunks()).unwrap()), &e.iter().map(|e| (e / 2.0).exp_m1()).collect::<Vec<_>>(), "pareto");
    assert_close(&values(&g().rayleigh(&two, shape, &chunks()).unwrap()), &e.iter().map(|e| 2.0 * (2.0 * e).sqrt()).collect::<Vec<_>>(), "rayleigh");
    assert_close(&values(&g().power(&two, shape, &chunks()).unwrap()), &e.iter().map(|e| (-(-e).exp_m1()).powf(0.5)).collect::<Vec<_>>(), "power");
}

#[test]
fn array_parameters_broadcast_against_the_draws() {
    let low = Array::from_ndarray(ndarray::arr1(&[0.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0]).into_dyn(), &chunks()).unwrap();
    let g = Generator::new(3);
    let drawn = g.uniform(&Param::Array(low.clone()), &Param::Number(100.0), None, &chunks()).unwrap();
    assert_eq!(drawn.shape(), [9]);
    let u: Vec<f64> = values(&Generator::new(3).random(&[9], &chunks()).unwrap());
    let expected: Vec<f64> = u.iter().enumerate().map(|(i, u)| i as f64 * 10.0 + (100.0 - i as f64 * 10.0) * u).collect();
    assert_close(&values(&drawn), &expected, "uniform of array bounds");
    let normal = Generator::new(3).normal(&Param::Number(1.0), &Param::Array(low), Some(&SHAPE), &chunks()).unwrap();
    assert_eq!(normal.shape(), SHAPE);
}

#[test]
fn orderings_and_ratios_draw_their_streams_in_order() {
    let g = Generator::new(5);
    let order: Vec<i64> = g.permutation(50, &chunks()).unwrap().compute().unwrap().typed::<i64>().unwrap().iter().copied().collect();
    let mut sorted = order.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (0..50).collect::<Vec<_>>());
    let cauchy = values(&Generator::new(5).standard_cauchy(&SHAPE, &chunks()).unwrap());
    let normals = Generator::new(5);
    let (a, b) = (values(&normals.standard_normal(&SHAPE, &chunks()).unwrap()), values(&normals.standard_normal(&SHAPE, &chunks()).unwrap()));
    assert_close(&cauchy, &a.iter().zip(&b).map(|(a, b)| a / b).collect::<Vec<_>>(), "standard_cauchy");
    let single = Generator::new(5).standard_exponential(&SHAPE, DType::Float32, &chunks()).unwrap();
    assert_eq!(single.dtype(), DType::Float32);
    assert!(matches!(Generator::new(5).exponential(&Param::Number(-1.0), None, &chunks()), Err(TegulaError::Value(m)) if m == "scale < 0"));
    assert!(matches!(Generator::new(5).pareto(&Param::Number(0.0), None, &chunks()), Err(TegulaError::Value(m)) if m == "a <= 0"));
}

#[test]
fn triangular_is_numpys_inversion_of_the_uniform_draws() {
    let (lo, md, hi) = (ndarray::arr0(-1.0).into_dyn(), ndarray::arr0(0.5).into_dyn(), ndarray::arr0(3.0).into_dyn());
    let drawn = values(&Generator::new(13).triangular(&lo, &md, &hi, Some(&SHAPE), &chunks()).unwrap());
    let (base, ratio) = (4.0, 1.5 / 4.0);
    let expected: Vec<f64> =
        uniforms(13).iter().map(|&u| if u <= ratio { -1.0 + (u * 1.5 * base).sqrt() } else { 3.0 - ((1.0 - u) * 2.5 * base).sqrt() }).collect();
    assert_close(&drawn, &expected, "triangular");
    assert!(matches!(Generator::new(1).triangular(&md, &lo, &hi, None, &chunks()), Err(TegulaError::Value(m)) if m == "left > mode"));
}

#[test]
fn choices_are_samples_of_the_positions() {
    let ints = |a: &Array| -> Vec<i64> { a.compute().unwrap().typed::<i64>().unwrap().iter().copied().collect() };
    let distinct = ints(&Generator::new(2).choice(30, &[3, 5], false, None, &chunks()).unwrap());
    let mut sorted = distinct.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted.len(), 15, "without replacement every position is drawn once");
    let p = [0.5, 0.0, 0.25, 0.0, 0.25];
    for replace in [true, false] {
        let drawn = ints(&Generator::new(2).choice(5, &[if replace { 200 } else { 3 }], replace, Some(&p), &chunks()).unwrap());
        assert!(drawn.iter().all(|&i| p[i as usize] > 0.0), "a position of probability 0 was drawn: {drawn:?}");
    }
    assert!(ints(&Generator::new(2).choice(4, &[50], true, None, &chunks()).unwrap()).iter().all(|i| (0..4).contains(i)));
    assert!(matches!(Generator::new(2).choice(3, &[4], false, None, &chunks()), Err(TegulaError::Value(m)) if m.contains("larger sample")));
}

/// A symmetric positive definite covariance and NumPy's `np.linalg.cholesky` of it.
const COV: [f64; 9] = [2.0, 0.6, -0.4, 0.6, 1.5, 0.3, -0.4, 0.3, 1.0];
const COV_CHOLESKY: [f64; 9] = [std::f64::consts::SQRT_2, 0.0, 0.0, 0.42426406871192845, 1.1489125293076057, 0.0, -0.282842712474619, 0.36556307750696543, 0.8867714679463004];

fn matrix(values: &[f64], n: usize) -> Array {
    let data = ndarray::ArrayD::from_shape_vec(vec![values.len() / n, n], values.to_vec()).unwrap();
    Array::from_ndarray(data, &ChunkSpec::All(AxisChunks::Full)).unwrap()
}

#[test]
fn multivariate_normal_is_the_mean_plus_draws_times_the_factor() {
    use tegula::random::CovarianceFactor;
    let mean = [1.0, -2.0, 0.5];
    let m = Array::from_ndarray(ndarray::arr1(&mean).into_dyn(), &chunks()).unwrap();
    // Cholesky's factor is unique: the samples are NumPy's formula on the same draws.
    let drawn = Generator::new(11).multivariate_normal(&m, &matrix(&COV, 3), &[50], CovarianceFactor::Cholesky, 1e-8, &chunks()).unwrap();
    assert!(drawn.valid);
    let z = values(&Generator::new(11).standard_normal(&[50, 3], &chunks()).unwrap());
    let expected: Vec<f64> = (0..150).map(|k| {
        let (row, col) = (k / 3, k % 3);
        mean[col] + (0..3).map(|j| z[row * 3 + j] * COV_CHOLESKY[col * 3 + j]).sum::<f64>()
    }).collect();
    assert_close(&values(&drawn.samples), &expected, "multivariate_normal (cholesky)");
    // SVD and eigh factors differ from NumPy's by signs; the samples' covariance is `cov`.
    for method in [CovarianceFactor::Svd, CovarianceFactor::Eigh] {
        let drawn = Generator::new(5).multivariate_normal(&m, &matrix(&COV, 3), &[40000], method, 1e-8, &chunks()).unwrap();
        assert!(drawn.valid);
        let x = values(&drawn.samples);
        let means: Vec<f64> = (0..3).map(|c| x.iter().skip(c).step_by(3).sum::<f64>() / 40000.0).collect();
        for (a, b) in [(0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2)] {
            let product = x.chunks(3).map(|r| (r[a] - means[a]) * (r[b] - means[b])).sum::<f64>() / 40000.0;
            assert!((product - COV[a * 3 + b]).abs() < 0.05, "{method:?} cov[{a}, {b}] = {product}");
        }
    }
    // Not positive-semidefinite (eigenvalues -1 and 3): NumPy's tests fail, Cholesky refuses.
    let bad = matrix(&[1.0, 2.0, 2.0, 1.0], 2);
    let m2 = Array::from_ndarray(ndarray::arr1(&[0.0, 0.0]).into_dyn(), &chunks()).unwrap();
    for method in [CovarianceFactor::Svd, CovarianceFactor::Eigh] {
        assert!(!Generator::new(1).multivariate_normal(&m2, &bad, &[3], method, 1e-8, &chunks()).unwrap().valid);
    }
    let chol = Generator::new(1).multivariate_normal(&m2, &bad, &[3], CovarianceFactor::Cholesky, 1e-8, &chunks()).unwrap();
    assert!(matches!(chol.samples.compute(), Err(TegulaError::LinAlg(_))));
    assert!(matches!(Generator::new(1).multivariate_normal(&m, &bad, &[3], CovarianceFactor::Svd, 1e-8, &chunks()), Err(TegulaError::Value(_))));
}
