//! The NaN-skipping reductions (`NanSum`, `NanMin`, `NanMax`, `NanMean`, `NanVar`, `NanStd`)
//! against the same statistics of each lane's values that are not NaN, computed here plainly,
//! over random shapes, irregular chunkings, axes and NaN patterns (whole lanes of NaNs too).

use ndarray::{ArrayD, Axis};
use proptest::prelude::*;
use tegula::{Array, AxisChunks, ChunkSpec, ops::ReduceOp};
use tegula_plan::construct::reduce::ReduceSpec;

/// The expected value of `op` over the values that are not NaN (`ddof` for the variances).
fn expected(op: ReduceOp, values: &[f64], ddof: f64) -> f64 {
    let kept: Vec<f64> = values.iter().copied().filter(|v| !v.is_nan()).collect();
    let n = kept.len() as f64;
    let mean = kept.iter().sum::<f64>() / n;
    let var = || if n - ddof > 0.0 { kept.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (n - ddof) } else { f64::NAN };
    match op {
        ReduceOp::NanSum => kept.iter().sum(),
        ReduceOp::NanMin => kept.iter().copied().reduce(f64::min).unwrap_or(f64::NAN),
        ReduceOp::NanMax => kept.iter().copied().reduce(f64::max).unwrap_or(f64::NAN),
        ReduceOp::NanMean => mean,
        ReduceOp::NanVar => var(),
        ReduceOp::NanStd => var().sqrt(),
        op => unreachable!("{op:?}"),
    }
}

fn close(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || (a - b).abs() <= 1e-9 * (1.0 + b.abs())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn nan_reductions_skip_exactly_the_nans(
        rows in 1usize..=9,
        cols in 1usize..=9,
        block in (1usize..=4, 1usize..=4),
        nans in prop::collection::vec(0u8..4, 81),
        op in prop::sample::select(vec![ReduceOp::NanSum, ReduceOp::NanMin, ReduceOp::NanMax, ReduceOp::NanMean, ReduceOp::NanVar, ReduceOp::NanStd]),
        axis in 0usize..2,
        ddof in 0u8..3,
    ) {
        // A NaN where `nans` says 0; the last row all NaN.
        let values: Vec<f64> = (0..rows * cols)
            .map(|i| if nans[i] == 0 || (i / cols == rows - 1 && rows > 1) { f64::NAN } else { (i * 37 % 11) as f64 - 5.0 })
            .collect();
        let data = ArrayD::from_shape_vec(vec![rows, cols], values).unwrap();
        let spec = ChunkSpec::PerAxis(vec![AxisChunks::Size(block.0), AxisChunks::Size(block.1)]);
        let x = Array::from_ndarray(data.clone(), &spec).unwrap();
        let ddof = f64::from(ddof);
        let reduced = x.reduce(&ReduceSpec { axes: Some(vec![axis as i64]), ddof, ..ReduceSpec::new(op) }).unwrap();
        let got = reduced.compute().unwrap();
        let got: Vec<f64> = got.typed::<f64>().unwrap().iter().copied().collect();
        for (i, lane) in data.lanes(Axis(axis)).into_iter().enumerate() {
            let want = expected(op, &lane.to_vec(), ddof);
            prop_assert!(close(got[i], want), "{op:?} lane {i}: {} != {want}", got[i]);
        }
    }
}

#[test]
fn empty_nan_extremes_are_refused_as_numpy_refuses_them() {
    let x = Array::from_ndarray(ArrayD::<f64>::zeros(vec![0, 3]), &ChunkSpec::PerAxis(vec![AxisChunks::Size(1), AxisChunks::Size(2)])).unwrap();
    let error = x.reduce(&ReduceSpec { axes: Some(vec![0]), ..ReduceSpec::new(ReduceOp::NanMax) }).unwrap_err();
    assert!(error.to_string().contains("reduction operation fmax which has no identity"), "{error}");
    let sums = x.reduce(&ReduceSpec { axes: Some(vec![0]), ..ReduceSpec::new(ReduceOp::NanSum) }).unwrap().compute().unwrap();
    assert_eq!(sums.typed::<f64>().unwrap().iter().copied().collect::<Vec<_>>(), [0.0; 3]);
}
