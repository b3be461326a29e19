//! Sorting an axis longer than one block (the sample sort) against sorting it in one block,
//! over random shapes, chunkings, values with many equal elements, NaN and signed zeros, both
//! orders and argsort; no block of its plan exceeds twice the block limit; bad axes are typed
//! errors.

use ndarray::ArrayD;
use proptest::prelude::*;
use tegula::{Array, AxisChunks, ChunkSpec, Chunk, ComputeOptions, DType, TegulaError, execute::Threaded, ops::SortSpec};
use tegula_plan::walk::topological;
use tegula_plan::{lower, Fusion};

/// One axis: its length and irregular block lengths (drawn from `cuts`, the last one clipped).
fn axis(most: usize) -> impl Strategy<Value = (usize, Vec<usize>)> {
    (1usize..=most, prop::collection::vec(1usize..=4, 40)).prop_map(|(n, cuts)| {
        let mut sizes = Vec::new();
        for c in cuts.into_iter().cycle() {
            let done: usize = sizes.iter().sum();
            if done == n {
                break;
            }
            sizes.push(c.min(n - done));
        }
        (n, sizes)
    })
}

/// Floats with few distinct values: NaN, signed zeros, infinities and small integers.
fn value(code: u8) -> f64 {
    match code % 8 {
        0 => f64::NAN,
        1 => -0.0,
        2 => 0.0,
        3 => f64::INFINITY,
        4 => f64::NEG_INFINITY,
        c => f64::from(c) - 6.0,
    }
}

fn compute(x: &Array) -> Chunk {
    let options = ComputeOptions { executor: std::sync::Arc::new(Threaded { threads: 2 }), fuse: true, spec: None };
    x.compute_with(options).unwrap().0
}

/// The same bits, NaN included.
fn same(a: &Chunk, b: &Chunk) -> bool {
    match (a, b) {
        (Chunk::Float64(a), Chunk::Float64(b)) => a.shape() == b.shape() && a.iter().zip(b.iter()).all(|(p, q)| p.to_bits() == q.to_bits()),
        (Chunk::Int16(a), Chunk::Int16(b)) => a == b,
        (Chunk::Int64(a), Chunk::Int64(b)) => a == b,
        _ => false,
    }
}

/// An array of `axes`' lengths and blocks, its values from `codes`, as int16 when `ints`;
/// and its shape.
fn array(axes: &[(usize, Vec<usize>)], codes: &[u8], ints: bool) -> (Array, Vec<usize>) {
    let shape: Vec<usize> = axes.iter().map(|(n, _)| *n).collect();
    let size: usize = shape.iter().product();
    let chunks = ChunkSpec::PerAxis(axes.iter().map(|(_, s)| AxisChunks::Explicit(s.clone())).collect());
    let floats: Vec<f64> = codes[..size].iter().map(|&c| value(c)).collect();
    let x = Array::from_ndarray(ArrayD::from_shape_vec(shape.clone(), floats).unwrap(), &chunks).unwrap();
    (if ints { x.astype(DType::Int16).unwrap() } else { x }, shape)
}

fn largest_block(chunks: &tegula::Chunks) -> usize {
    chunks.max_block_shape().iter().product()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn sample_sort_matches_the_one_block_sort(
        // Up to 24³ elements in blocks of 1 to 4 per axis: thousands of blocks, sampled
        // whenever the axis is longer than the limit (1 to 5 elements).
        axes in prop::collection::vec(axis(24), 1..=3),
        codes in prop::collection::vec(any::<u8>(), 13_824),
        pick in 0usize..3,
        descending in any::<bool>(),
        arg in any::<bool>(),
        ints in any::<bool>(),
        limit in 1usize..6,
    ) {
        let (x, shape) = array(&axes, &codes, ints);
        let axis = pick % shape.len();
        let itemsize = x.dtype().itemsize().max(if arg { 8 } else { 1 });
        let input = largest_block(x.chunks());
        let spec = SortSpec { axis: axis as i64, descending, arg, block_bytes: limit * itemsize };
        let sorted = x.sorted(&spec).unwrap();
        let whole = x.sorted(&SortSpec { block_bytes: usize::MAX, ..spec.clone() }).unwrap();
        let sampled = shape[axis] > spec.block_bytes / itemsize;
        if sampled {
            prop_assert_eq!(sorted.chunks(), x.chunks());
        }
        let (got, want) = (compute(&sorted), compute(&whole));
        prop_assert!(same(&got, &want), "{:?} != {:?}", got, want);
        // The splitters are one block of `buckets - 1`, read whole by each block's partition;
        // the input keeps its blocks, cut down to the limit before the sort.
        let buckets = shape[axis].div_ceil(limit);
        let most = (2 * limit).max(buckets - 1).max(input);
        for node in topological(std::slice::from_ref(sorted.node())) {
            prop_assert!(largest_block(&node.chunks) <= most, "{} has chunks {:?}, input {:?}", node.label(), node.chunks, x.chunks());
        }
    }
}

#[test]
fn a_long_axis_is_sample_sorted_in_bounded_blocks_and_tasks() {
    let n = 10_000;
    let values: Vec<i64> = (0..n).map(|i| (i * 7919) % 97).collect();
    let x = Array::from_ndarray(ArrayD::from_shape_vec(vec![n as usize], values).unwrap(), &ChunkSpec::All(AxisChunks::Size(500))).unwrap();
    let y = x.sorted(&SortSpec { axis: 0, descending: false, arg: false, block_bytes: 1000 * 8 }).unwrap();
    let graph = lower(std::slice::from_ref(y.node()), Fusion::On).unwrap();
    // 20 blocks of 500 (kept: within the limit of 1000), 10 buckets.
    let merges = graph.tasks.iter().filter(|t| matches!(t.op, tegula_core::TaskOp::Kernel(tegula_core::KernelOp::MergeRuns { .. }))).count();
    assert_eq!(merges, 10);
    // Reading the splitters (values, positions) adds two tasks.
    assert!(graph.tasks.len() <= 20 + 20 * 10 + 10 + 40 + 2, "{} tasks", graph.tasks.len());
    assert!(graph.tasks.iter().all(|t| t.size <= 1300), "a task holds more than 1.3 blocks");
    let got = compute(&y);
    let got = got.typed::<i64>().unwrap();
    assert!(got.iter().zip(got.iter().skip(1)).all(|(a, b)| a <= b));
    assert_eq!(got.iter().sum::<i64>(), (0..n).map(|i| (i * 7919) % 97).sum::<i64>());
}

#[test]
fn equal_values_split_evenly_by_position() {
    let x = Array::zeros(&[4000], DType::Float64, &ChunkSpec::All(AxisChunks::Size(100))).unwrap();
    let order = x.sorted(&SortSpec { axis: 0, descending: true, arg: true, block_bytes: 400 * 8 }).unwrap();
    let graph = lower(std::slice::from_ref(order.node()), Fusion::On).unwrap();
    assert!(graph.tasks.iter().all(|t| t.size <= 500), "buckets of equal values are uneven");
    let got = compute(&order);
    assert!(got.typed::<i64>().unwrap().iter().copied().eq(0..4000));
}

#[test]
fn bad_axes_are_typed_errors() {
    let x = Array::zeros(&[50, 3], DType::Float64, &ChunkSpec::All(AxisChunks::Size(7))).unwrap();
    let spec = |axis| SortSpec { axis, descending: false, arg: false, block_bytes: 8 };
    assert!(matches!(x.sorted(&spec(2)), Err(TegulaError::Axis { .. })));
    assert!(matches!(x.sorted(&spec(-3)), Err(TegulaError::Axis { .. })));
    let scalar = Array::zeros(&[], DType::Float64, &ChunkSpec::All(AxisChunks::Auto)).unwrap();
    assert!(matches!(scalar.sorted(&spec(0)), Err(TegulaError::Axis { .. })));
}

/// Equal as values (selection may return either of -0.0 and 0.0), NaN equal to NaN.
fn same_values(a: &Chunk, b: &Chunk) -> bool {
    match (a, b) {
        (Chunk::Float64(a), Chunk::Float64(b)) => a.shape() == b.shape() && a.iter().zip(b.iter()).all(|(p, q)| p == q || (p.is_nan() && q.is_nan())),
        _ => same(a, b),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn sorted_take_matches_a_gather_of_the_sort(
        axes in prop::collection::vec(axis(20), 1..=3),
        codes in prop::collection::vec(any::<u8>(), 8_000),
        picks in prop::collection::vec(any::<u32>(), 1..=5),
        pick in 0usize..3,
        per_lane in any::<bool>(),
        ints in any::<bool>(),
        limit in prop::option::of(1usize..6),
    ) {
        let (x, shape) = array(&axes, &codes, ints);
        let axis = pick % shape.len();
        // Positions the same for every lane, or drawn per lane.
        let mut ishape = if per_lane { shape.clone() } else { vec![1; shape.len()] };
        ishape[axis] = picks.len();
        let count: usize = ishape.iter().product();
        let positions: Vec<i64> = (0..count).map(|i| (picks[i % picks.len()].wrapping_add(i as u32 * 7) as usize % shape[axis]) as i64).collect();
        let idx = Array::from_ndarray(ArrayD::from_shape_vec(ishape, positions).unwrap(), &ChunkSpec::All(AxisChunks::Size(4))).unwrap();
        // A small block limit takes the sort-then-gather path for long lanes.
        let block_bytes = limit.map_or(usize::MAX, |l| l * x.dtype().itemsize());
        let got = compute(&x.sorted_take(&idx, axis as i64, block_bytes).unwrap());
        let want = compute(&x.sort(axis as i64, false).unwrap().take_along_axis(&idx, axis as i64).unwrap());
        prop_assert!(same_values(&got, &want), "{:?} != {:?}", got, want);
    }
}

#[test]
fn sorted_take_errors_are_typed() {
    let x = Array::zeros(&[5, 3], DType::Float64, &ChunkSpec::All(AxisChunks::Size(2))).unwrap();
    let at = |shape: &[usize], v: i64| Array::from_ndarray(ArrayD::from_elem(shape.to_vec(), v), &ChunkSpec::All(AxisChunks::Auto)).unwrap();
    let outside = x.sorted_take(&at(&[1, 1], 3), 1, usize::MAX).unwrap();
    assert!(matches!(outside.compute(), Err(TegulaError::Index(_))));
    assert!(matches!(x.sorted_take(&at(&[2, 1], 0), 1, usize::MAX), Err(TegulaError::Shape(_))));
    assert!(matches!(x.sorted_take(&at(&[1], 0), 1, usize::MAX), Err(TegulaError::Shape(_))));
    assert!(matches!(x.sorted_take(&at(&[1, 1], 0), 2, usize::MAX), Err(TegulaError::Axis { .. })));
}
