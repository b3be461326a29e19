//! NumPy's counting functions (`histogram` with counts, edges, ranges, weights, density and
//! each of NumPy's bin estimators, `histogramdd`, `bincount`, `digitize`) against NumPy 2's
//! answers for the same data, written out below, at several chunkings. Edges must be NumPy's
//! bit for bit: an estimator's bin count, and the edges' `linspace`, follow NumPy's precision.

use tegula::ops::{BinEstimator, Bins};
use tegula::{Array, AxisChunks, ChunkSpec, DType, TegulaError};

const DATA: [f64; 37] = [0.004, 0.896, -0.822, -2.672, -1.364, 10.25, 0.18, 4.021, -1.477, -1.861, 1.47, 1.071, 0.316, -2.791, -0.088, 2.086, -4.033, -1.373, -5.704, -3.869, -5.525, -0.705, -3.802, 0.814, 0.47, -0.561, -7.55, -1.616, -0.146, 0.34, -4.59, -1.433, -2.936, -2.427, 3.183, -2.423, -0.098];
const SKEW: [f64; 29] = [2.4064, 1.0501, 1.2369, 1.2509, 0.1665, 1.3004, 4.9357, 0.2916, 1.907, 2.0707, 2.046, 0.5785, 0.7344, 0.2968, 0.9673, 2.8923, 0.5016, 0.0666, 1.0647, 2.081, 0.8121, 3.7072, 0.8684, 1.041, 0.3296, 0.7501, 2.0238, 2.0478, 2.712];

/// np.histogram(x, bins=name) of DATA (float64 and float32) and SKEW: (name, counts, edges) each.
/// One histogram's counts and edges.
type Expected = (&'static [i64], &'static [f64]);

const ESTIMATED: [(&str, Expected, Expected, Expected); 8] = [
    ("auto", (&[1, 4, 7, 9, 11, 2, 2, 0, 0, 1], &[-7.55, -5.77, -3.9899999999999998, -2.21, -0.4299999999999997, 1.3500000000000005, 3.13, 4.910000000000001, 6.69, 8.469999999999999, 10.25]), (&[1, 4, 7, 9, 11, 2, 2, 0, 0, 1], &[-7.550000190734863, -5.770000457763672, -3.9900002479553223, -2.2100000381469727, -0.43000030517578125, 1.3499994277954102, 3.130000114440918, 4.909999847412109, 6.689999580383301, 8.470000267028809, 10.25]), (&[11, 7, 7, 2, 1, 1], &[0.0666, 0.8781166666666665, 1.689633333333333, 2.50115, 3.3126666666666664, 4.124183333333333, 4.9357])),
    ("fd", (&[1, 4, 7, 9, 11, 2, 2, 0, 0, 1], &[-7.55, -5.77, -3.9899999999999998, -2.21, -0.4299999999999997, 1.3500000000000005, 3.13, 4.910000000000001, 6.69, 8.469999999999999, 10.25]), (&[1, 4, 7, 9, 11, 2, 2, 0, 0, 1], &[-7.550000190734863, -5.770000457763672, -3.9900002479553223, -2.2100000381469727, -0.43000030517578125, 1.3499994277954102, 3.130000114440918, 4.909999847412109, 6.689999580383301, 8.470000267028809, 10.25]), (&[11, 7, 7, 2, 1, 1], &[0.0666, 0.8781166666666665, 1.689633333333333, 2.50115, 3.3126666666666664, 4.124183333333333, 4.9357])),
    ("doane", (&[2, 5, 6, 15, 6, 2, 0, 0, 1], &[-7.55, -5.572222222222222, -3.594444444444444, -1.6166666666666663, 0.3611111111111116, 2.3388888888888895, 4.316666666666667, 6.294444444444445, 8.272222222222222, 10.25]), (&[2, 5, 6, 15, 6, 2, 0, 0, 1], &[-7.550000190734863, -5.572222709655762, -3.594444751739502, -1.6166667938232422, 0.3611106872558594, 2.338888168334961, 4.316666603088379, 6.2944440841674805, 8.272221565246582, 10.25]), (&[7, 10, 1, 7, 2, 1, 0, 1], &[0.0666, 0.6752374999999999, 1.2838749999999999, 1.8925124999999998, 2.50115, 3.1097875, 3.718425, 4.327062499999999, 4.9357])),
    ("scott", (&[4, 9, 19, 4, 0, 1], &[-7.55, -4.583333333333333, -1.6166666666666663, 1.3500000000000005, 4.316666666666667, 7.283333333333334, 10.25]), (&[4, 9, 19, 4, 0, 1], &[-7.550000190734863, -4.583333969116211, -1.6166672706604004, 1.3499994277954102, 4.3166656494140625, 7.283331871032715, 10.25]), (&[17, 8, 3, 1], &[0.0666, 1.2838749999999999, 2.50115, 3.718425, 4.9357])),
    ("rice", (&[3, 7, 15, 9, 2, 0, 1], &[-7.55, -5.007142857142856, -2.4642857142857135, 0.07857142857143007, 2.6214285714285728, 5.1642857142857155, 7.70714285714286, 10.25]), (&[3, 7, 15, 9, 2, 0, 1], &[-7.550000190734863, -5.007143020629883, -2.4642863273620605, 0.07857036590576172, 2.621427536010742, 5.164284706115723, 7.707140922546387, 10.25]), (&[9, 9, 6, 2, 1, 1, 1], &[0.0666, 0.7621857142857142, 1.4577714285714285, 2.1533571428571427, 2.848942857142857, 3.5445285714285717, 4.240114285714285, 4.9357])),
    ("sturges", (&[3, 7, 15, 9, 2, 0, 1], &[-7.55, -5.007142857142856, -2.4642857142857135, 0.07857142857143007, 2.6214285714285728, 5.1642857142857155, 7.70714285714286, 10.25]), (&[3, 7, 15, 9, 2, 0, 1], &[-7.550000190734863, -5.007143020629883, -2.4642863273620605, 0.07857036590576172, 2.621427536010742, 5.164284706115723, 7.707140922546387, 10.25]), (&[11, 7, 7, 2, 1, 1], &[0.0666, 0.8781166666666665, 1.689633333333333, 2.50115, 3.3126666666666664, 4.124183333333333, 4.9357])),
    ("sqrt", (&[3, 7, 15, 9, 2, 0, 1], &[-7.55, -5.007142857142856, -2.4642857142857135, 0.07857142857143007, 2.6214285714285728, 5.1642857142857155, 7.70714285714286, 10.25]), (&[3, 7, 15, 9, 2, 0, 1], &[-7.550000190734863, -5.007143020629883, -2.4642863273620605, 0.07857036590576172, 2.621427536010742, 5.164284706115723, 7.707140922546387, 10.25]), (&[11, 7, 7, 2, 1, 1], &[0.0666, 0.8781166666666665, 1.689633333333333, 2.50115, 3.3126666666666664, 4.124183333333333, 4.9357])),
    ("stone", (&[7, 25, 4, 1], &[-7.55, -3.0999999999999996, 1.3500000000000005, 5.800000000000002, 10.25]), (&[7, 25, 4, 1], &[-7.550000190734863, -3.1000003814697266, 1.3499994277954102, 5.799999237060547, 10.25]), (&[17, 8, 3, 1], &[0.0666, 1.2838749999999999, 2.50115, 3.718425, 4.9357])),
];

fn array(values: &[f64], chunk: usize) -> Array {
    let data = ndarray::ArrayD::from_shape_vec(vec![values.len()], values.to_vec()).unwrap();
    Array::from_ndarray(data, &ChunkSpec::All(AxisChunks::Size(chunk))).unwrap()
}

fn floats(a: &Array) -> Vec<f64> {
    a.compute().unwrap().cast(DType::Float64).typed::<f64>().unwrap().iter().copied().collect()
}

fn ints(a: &Array) -> Vec<i64> {
    a.compute().unwrap().cast(DType::Int64).typed::<i64>().unwrap().iter().copied().collect()
}

fn bits(values: &[f64]) -> Vec<u64> {
    values.iter().map(|v| v.to_bits()).collect()
}

#[test]
fn estimators_give_numpys_bins_and_edges() {
    for chunk in [5, 37] {
        for &(name, (counts, edges), (counts32, edges32), (skew_counts, skew_edges)) in &ESTIMATED {
            let bins = Bins::Estimator(BinEstimator::from_name(name).unwrap());
            let cases = [
                (array(&DATA, chunk), counts, edges),
                (array(&DATA, chunk).astype(DType::Float32).unwrap(), counts32, edges32),
                (array(&SKEW, chunk), skew_counts, skew_edges),
            ];
            for (x, counts, edges) in cases {
                let h = x.histogram(&bins, None, false, None).unwrap();
                assert_eq!(ints(&h.counts), counts, "{name} ({})", x.dtype());
                assert_eq!(bits(&floats(&h.edges)), bits(edges), "{name} ({})", x.dtype());
                assert_eq!(h.edges.dtype(), x.dtype());
            }
        }
    }
}

#[test]
fn equal_bins_ranges_weights_and_density() {
    for chunk in [4, 11, 37] {
        let x = array(&DATA, chunk);
        let h = x.histogram(&Bins::Count(8), None, false, None).unwrap();
        assert_eq!(ints(&h.counts), [3, 4, 11, 14, 3, 1, 0, 1]);
        let edges = [-7.55, -5.324999999999999, -3.0999999999999996, -0.8749999999999991, 1.3500000000000005, 3.575, 5.800000000000002, 8.025000000000002, 10.25];
        assert_eq!(bits(&floats(&h.edges)), bits(&edges));
        let h32 = x.astype(DType::Float32).unwrap().histogram(&Bins::Count(5), None, false, None).unwrap();
        let edges32 = [-7.550000190734863, -3.9900002479553223, -0.43000030517578125, 3.130000114440918, 6.689999580383301, 10.25];
        assert_eq!(bits(&floats(&h32.edges)), bits(&edges32));
        assert_eq!(ints(&x.histogram(&Bins::Count(4), Some((-2.0, 3.0)), false, None).unwrap().counts), [7, 10, 4, 1]);
        let w: Vec<f64> = (0..37).map(|i| (i % 5) as f64).collect();
        let w = array(&w, chunk).astype(DType::Int64).unwrap();
        let given = Bins::Edges(array(&[-5.0, -1.0, 0.0, 2.0, 10.25], 2));
        let weighted = x.histogram(&given, None, false, Some(&w)).unwrap().counts;
        assert_eq!((ints(&weighted), weighted.dtype()), (vec![34, 11, 16, 6], DType::Int64));
        let density = floats(&x.histogram(&Bins::Count(3), None, true, None).unwrap().counts);
        assert_eq!(bits(&density), bits(&[0.05921651989067719, 0.10476768903735195, 0.004555116914667477]));
    }
}

#[test]
fn histogramdd_bincount_and_digitize() {
    for chunk in [3, 20] {
        let columns = [array(&DATA[..20], chunk), array(&DATA[17..], chunk)];
        let bins = [Bins::Count(3), Bins::Edges(array(&[-4.0, 0.0, 4.0], 3))];
        let (hist, edges) = Array::histogramdd(&columns, &bins, &[None, None], false, None).unwrap();
        assert_eq!((hist.shape(), floats(&hist)), (vec![3, 2], vec![6.0, 1.0, 5.0, 3.0, 1.0, 0.0]));
        assert_eq!(bits(&floats(&edges[0])), bits(&[-5.704, -0.38599999999999923, 4.932000000000001, 10.25]));

        let x = array(&[0.0, 3.0, 3.0, 7.0, 1.0, 0.0, 2.0, 9.0], chunk).astype(DType::Int32).unwrap();
        assert_eq!(ints(&x.bincount(None, 0).unwrap()), [2, 1, 1, 2, 0, 0, 0, 1, 0, 1]);
        let w: Vec<f64> = (0..8).map(|i| i as f64 / 7.0).collect();
        let weighted = floats(&x.bincount(Some(&array(&w, chunk)), 12).unwrap());
        let expected = [0.7142857142857142, 0.5714285714285714, 0.8571428571428571, 0.42857142857142855, 0.0, 0.0, 0.0, 0.42857142857142855, 0.0, 1.0, 0.0, 0.0];
        // Sums of weights come from a running sum's differences: NumPy's to an ulp or two.
        assert!(weighted.iter().zip(expected).all(|(w, e)| (w - e).abs() <= 4.0 * f64::EPSILON * e.abs()), "{weighted:?}");
        let ten = array(&DATA[..10], chunk);
        assert_eq!(ints(&ten.digitize(&array(&[-3.0, 0.0, 2.5], 2), false).unwrap()), [2, 2, 1, 1, 1, 3, 2, 3, 1, 1]);
        assert_eq!(ints(&ten.digitize(&array(&[2.5, 0.0, -3.0], 2), true).unwrap()), [1, 1, 2, 2, 2, 0, 1, 0, 2, 2]);
    }
}

#[test]
fn bad_input_is_numpys_error() {
    let x = array(&DATA, 7);
    let negative = array(&[1.0, -1.0], 1).astype(DType::Int64).unwrap();
    assert!(matches!(negative.bincount(None, 0), Err(TegulaError::Value(_))));
    assert!(matches!(x.bincount(None, 0), Err(TegulaError::DType(_))));
    assert!(matches!(x.histogram(&Bins::Count(0), None, false, None), Err(TegulaError::Value(_))));
    assert!(matches!(x.histogram(&Bins::Count(2), Some((3.0, 1.0)), false, None), Err(TegulaError::Value(_))));
    assert!(matches!(x.digitize(&array(&[0.0, 2.0, 1.0], 3), false), Err(TegulaError::Value(_))));
    let unsorted = Bins::Edges(array(&[0.0, 2.0, 1.0], 3));
    assert!(matches!(x.histogram(&unsorted, None, false, None), Err(TegulaError::Value(_))));
    // A range from data that is not finite is found when computed.
    let infinite = array(&[1.0, f64::INFINITY, 2.0], 1).histogram(&Bins::Count(3), None, false, None).unwrap();
    assert!(matches!(infinite.counts.compute(), Err(TegulaError::Value(_))));
}
