//! The serial executor is the oracle of the threaded one, and unfused plans of fused ones;
//! random values depend on positions, never on chunking.

use proptest::prelude::*;
use tegula::random::Generator;
use tegula::{compute, Array, AxisChunks, ChunkSpec, Chunk, ComputeOptions, ops::{BinaryOp, ReduceOp, ReduceSpec, UnaryOp}, execute::Threaded};

fn chunks(block: usize) -> ChunkSpec {
    ChunkSpec::All(AxisChunks::Size(block))
}

fn values(c: &Chunk) -> Vec<f64> {
    c.cast(tegula::DType::Float64).typed::<f64>().unwrap().iter().copied().collect()
}

/// A mixed expression over a random matrix: element-wise ops, a transpose, a matmul and
/// reductions along both axes.
fn expression(seed: u64, n: usize, block: usize) -> Vec<Array> {
    let x = Generator::new(seed).random(&[n, n], &chunks(block)).unwrap();
    let y = x.add_scalar(1.0).unwrap().mul(&x.t()).unwrap().unary(UnaryOp::Sqrt).unwrap();
    let spec = |op, axis: Option<Vec<i64>>| ReduceSpec { axes: axis, split_every: 3, ..ReduceSpec::new(op) };
    vec![
        y.reduce(&spec(ReduceOp::Sum, Some(vec![0]))).unwrap(),
        y.reduce(&spec(ReduceOp::Var, Some(vec![1]))).unwrap(),
        y.matmul(&x).unwrap(),
        y.binary(BinaryOp::Greater, &x).unwrap().reduce(&spec(ReduceOp::Any, None)).unwrap(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn threaded_and_unfused_match_serial_fused_bit_for_bit(seed in any::<u64>(), n in 1usize..40, block in 1usize..12, threads in 2usize..5) {
        let arrays = expression(seed, n, block);
        let refs: Vec<&Array> = arrays.iter().collect();
        let (serial, _) = compute(&refs, Threaded::serial()).unwrap();
        let (threaded, _) = compute(&refs, Threaded { threads }).unwrap();
        let (unfused, _) = compute(&refs, ComputeOptions { executor: std::sync::Arc::new(Threaded::serial()), fuse: false, spec: None }).unwrap();
        for ((s, t), u) in serial.iter().zip(&threaded).zip(&unfused) {
            prop_assert_eq!(values(s), values(u));
            let (s, t) = (values(s), values(t));
            prop_assert_eq!(s.len(), t.len());
            for (a, b) in s.iter().zip(&t) {
                prop_assert_eq!(a.to_bits(), b.to_bits());
            }
        }
    }

    #[test]
    fn random_values_ignore_the_chunking(seed in any::<u64>(), rows in 0usize..30, cols in 0usize..30, a in 1usize..9, b in 1usize..9) {
        let draw = |block: usize| {
            let g = Generator::new(seed);
            let normal = g.standard_normal(&[rows, cols], &chunks(block)).unwrap();
            let ints = g.integers(-5, 7, &[rows, cols], &chunks(block)).unwrap();
            (values(&normal.compute().unwrap()), values(&ints.compute().unwrap()))
        };
        let (na, ia) = draw(a);
        let (nb, ib) = draw(b);
        prop_assert_eq!(na, nb);
        prop_assert_eq!(&ia, &ib);
        prop_assert!(ia.iter().all(|&v| (-5.0..7.0).contains(&v)));
    }
}

#[test]
fn uniform_values_look_uniform() {
    let x = Generator::new(7).random(&[1_000_000], &chunks(65_536)).unwrap();
    let mean = values(&x.mean(None, false).unwrap().compute().unwrap())[0];
    let std = values(&x.std(None, false).unwrap().compute().unwrap())[0];
    assert!((mean - 0.5).abs() < 2e-3, "mean {mean}");
    assert!((std - (1.0f64 / 12.0).sqrt()).abs() < 2e-3, "std {std}");
    let max = values(&x.max(None, false).unwrap().compute().unwrap())[0];
    assert!(max < 1.0);
}

#[test]
fn outputs_free_nothing_they_need_and_report_peak_memory() {
    let x = Generator::new(1).random(&[256, 256], &chunks(64)).unwrap();
    let total = x.sum(None, false).unwrap();
    let (_, report) = total.compute_with(Threaded::serial()).unwrap();
    // Depth-first order keeps only a few 32 KiB blocks alive, never the whole 512 KiB array.
    assert!(report.peak_bytes < 256 * 256 * 8 / 2, "peak {}", report.peak_bytes);
    assert!(report.tasks > 16);
}
