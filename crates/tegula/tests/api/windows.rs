//! `sliding_windows` and the moving reductions over them against sums of ndarray slices of
//! the same data, over random lengths, irregular chunkings and window widths; and a reduction
//! over the windows never plans the windows themselves.

use ndarray::{ArrayD, Axis, Slice};
use proptest::prelude::*;
use tegula::{Array, AxisChunks, ChunkSpec, ComputeOptions, ops::ReduceOp, execute::Threaded};
use tegula_plan::construct::reduce::ReduceSpec;
use tegula_plan::walk::topological;
use tegula_plan::NodeKind;

/// Block lengths summing to `n`, from `cuts` (the last one clipped).
fn blocks(n: usize, cuts: &[usize]) -> Vec<usize> {
    let mut sizes = Vec::new();
    for &c in cuts {
        let done: usize = sizes.iter().sum();
        if done < n {
            sizes.push(c.min(n - done));
        }
    }
    sizes
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn moving_sums_and_windows_match_slices(
        n in 1usize..=12,
        cuts in prop::collection::vec(1usize..=5, 12),
        other in 1usize..=20,
        axis in 0usize..2,
        width_pick in 0usize..12,
        fuse in any::<bool>(),
    ) {
        let shape = if axis == 0 { vec![n, other] } else { vec![other, n] };
        let size = n * other;
        let data = ArrayD::from_shape_vec(shape.clone(), (0..size as i64).map(|v| v * v % 17 - 8).collect()).unwrap();
        let per_axis = |a: usize| if a == axis { AxisChunks::Explicit(blocks(n, &cuts)) } else { AxisChunks::Size(7) };
        let x = Array::from_ndarray(data.clone(), &ChunkSpec::PerAxis(vec![per_axis(0), per_axis(1)])).unwrap();
        let width = width_pick % n + 1;
        let windows = x.sliding_windows(axis as i64, width).unwrap();
        let sums = windows.reduce(&ReduceSpec { axes: Some(vec![-1]), ..ReduceSpec::new(ReduceOp::Sum) }).unwrap();
        let count = n + 1 - width;
        let shifted = |k: usize| data.slice_axis(Axis(axis), Slice::from(k..k + count)).to_owned();
        let expected = (1..width).fold(shifted(0), |acc, k| acc + shifted(k));
        let options = || ComputeOptions { executor: std::sync::Arc::new(Threaded { threads: 2 }), fuse, spec: None };
        let (got, _) = sums.compute_with(options()).unwrap();
        prop_assert_eq!(got.typed::<i64>().unwrap(), &expected.into());
        let planned_windows = topological(std::slice::from_ref(sums.node())).iter().any(|node| matches!(node.kind, NodeKind::Windows { .. }));
        prop_assert!(!planned_windows, "a sum over windows planned the windows");
        let (all, _) = windows.compute_with(options()).unwrap();
        let all = all.typed::<i64>().unwrap();
        for k in 0..width {
            prop_assert_eq!(all.index_axis(Axis(2), k).to_owned(), shifted(k));
        }
    }
}

#[test]
fn windows_wider_than_the_axis_are_refused() {
    let x = Array::zeros(&[4, 3], tegula::DType::Float32, &ChunkSpec::All(AxisChunks::Size(2))).unwrap();
    assert!(matches!(x.sliding_windows(0, 5), Err(tegula::TegulaError::Value(_))));
    assert!(matches!(x.sliding_windows(1, 0), Err(tegula::TegulaError::Value(_))));
    assert!(matches!(x.sliding_windows(2, 1), Err(tegula::TegulaError::Axis { .. })));
}
