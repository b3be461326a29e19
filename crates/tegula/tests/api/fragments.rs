//! Plans leave the process as bytes: a plan serialised, deserialised and run gives the
//! threaded executor's results bit for bit, and so does running every fragment of it through
//! `run_fragment` from its bytes, blocks passed between fragments by hand.

use proptest::prelude::*;
use std::collections::HashMap;
use std::sync::Arc;
use tegula::random::Generator;
use tegula::{Array, AxisChunks, Chunk, ChunkSpec, DType, cluster::{plan_fragments, run_fragment, Fragment}, execute::{plan_of, Executor, Spec, Threaded}, ops::{BinaryOp, ReduceOp, ReduceSpec, UnaryOp}};

fn chunks(block: usize) -> ChunkSpec {
    ChunkSpec::All(AxisChunks::Size(block))
}

/// Bits of every element, so NaNs and signed zeros compare exactly.
fn bits(c: &Chunk) -> (DType, Vec<usize>, Vec<u64>) {
    let values = c.cast(DType::Float64).typed::<f64>().unwrap().iter().map(|v| v.to_bits()).collect();
    (c.dtype(), c.shape().to_vec(), values)
}

/// Expressions over a generated matrix and one held in memory: element-wise chains, a
/// transpose, a matmul, reductions, a sort and a cast.
fn expression(seed: u64, n: usize, block: usize, dtype: DType) -> Vec<Array> {
    let x = Generator::new(seed).random(&[n, n], &chunks(block)).unwrap();
    let held: Vec<f64> = (0..n * n).map(|i| ((i * 7919) % 97) as f64 - 40.0).collect();
    let m = Array::from_ndarray(ndarray::ArrayD::from_shape_vec(vec![n, n], held).unwrap(), &chunks(block + 1)).unwrap();
    let m = m.astype(dtype).unwrap();
    let y = x.add_scalar(1.0).unwrap().mul(&m.t()).unwrap().unary(UnaryOp::Sqrt).unwrap();
    let spec = |op, axis: Option<Vec<i64>>| ReduceSpec { axes: axis, split_every: 3, ..ReduceSpec::new(op) };
    vec![
        y.reduce(&spec(ReduceOp::Sum, Some(vec![0]))).unwrap(),
        y.reduce(&spec(ReduceOp::Var, Some(vec![1]))).unwrap(),
        y.matmul(&x).unwrap(),
        m.binary(BinaryOp::Greater, &x).unwrap().reduce(&spec(ReduceOp::Any, None)).unwrap(),
        m.sorted(&tegula::ops::SortSpec { block_bytes: 64, ..tegula::ops::SortSpec::new(0, false, false) }).unwrap(),
    ]
}

fn dtypes() -> impl Strategy<Value = DType> {
    prop_oneof![Just(DType::Float64), Just(DType::Float32), Just(DType::Int32), Just(DType::Int64)]
}

fn threaded_blocks(arrays: &[Array]) -> Vec<Vec<Chunk>> {
    let refs: Vec<&Array> = arrays.iter().collect();
    let (_, graph) = plan_of(&refs, true).unwrap();
    Threaded { threads: 2 }.execute(&graph, &Spec::default(), None).unwrap().0
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[test]
    fn a_plan_round_trips_through_bytes(seed in any::<u64>(), n in 1usize..24, block in 1usize..9, dtype in dtypes()) {
        let arrays = expression(seed, n, block, dtype);
        let refs: Vec<&Array> = arrays.iter().collect();
        let (_, graph) = plan_of(&refs, true).unwrap();
        let bytes = Fragment::encode(&graph, None).unwrap().to_bytes().unwrap();
        let decoded = Fragment::from_bytes(&bytes).unwrap().decode().unwrap();
        let (again, _) = Threaded { threads: 2 }.execute(&decoded, &Spec::default(), None).unwrap();
        let expected = threaded_blocks(&arrays);
        prop_assert_eq!(expected.len(), again.len());
        for (e, a) in expected.iter().zip(&again) {
            prop_assert_eq!(e.iter().map(bits).collect::<Vec<_>>(), a.iter().map(bits).collect::<Vec<_>>());
        }
    }

    #[test]
    fn every_fragment_run_from_its_bytes_gives_the_threaded_results(seed in any::<u64>(), n in 1usize..24, block in 1usize..9, dtype in dtypes()) {
        let arrays = expression(seed, n, block, dtype);
        let refs: Vec<&Array> = arrays.iter().collect();
        let (fragments, outputs) = plan_fragments(&refs, true, &Spec::default()).unwrap();
        let mut results: HashMap<usize, Chunk> = HashMap::new();
        for f in &fragments {
            let graph = Fragment::from_bytes(&f.bytes).unwrap().decode().unwrap();
            let given: Vec<Chunk> = f.inputs.iter().map(|t| results[t].clone()).collect();
            let (blocks, _) = run_fragment(&graph, &given, 1, &Spec::default(), None).unwrap();
            prop_assert_eq!(blocks.len(), f.outputs.len());
            results.extend(f.outputs.iter().copied().zip(blocks));
        }
        let expected = threaded_blocks(&arrays);
        for (e, tasks) in expected.iter().zip(&outputs) {
            let got: Vec<_> = tasks.iter().map(|t| bits(&results[t])).collect();
            prop_assert_eq!(e.iter().map(bits).collect::<Vec<_>>(), got);
        }
    }
}

#[test]
fn fragments_are_chains_not_single_tasks() {
    // Blocks of 2 MB: each block's chain is worth a fragment of its own.
    let x = Generator::new(1).random(&[2048, 2048], &chunks(512)).unwrap();
    let y = x.add_scalar(1.0).unwrap().unary(UnaryOp::Exp).unwrap().reduce(&ReduceSpec::new(ReduceOp::Sum)).unwrap();
    let (_, graph) = plan_of(&[&y], false).unwrap();
    let (fragments, _) = plan_fragments(&[&y], false, &Spec::default()).unwrap();
    // Unfused: per block a source, an add, an exp and a partial sum, which one fragment runs.
    assert!(fragments.len() * 3 < graph.tasks.len(), "{} fragments for {} tasks", fragments.len(), graph.tasks.len());
    assert!(fragments.len() >= 16, "the 16 blocks stay in parallel fragments");
}

#[test]
fn a_blocks_steps_that_share_intermediates_are_one_fragment() {
    // a = √(x+1); b = x·x − a; c = max(a, b) / (x+2); a·b + c, in blocks of 2 MB: each step
    // reads intermediates the later ones read again, all of one block, so a fragment per
    // block runs them all and ships none of its intermediates.
    let x = Generator::new(1).random(&[2048, 2048], &chunks(512)).unwrap();
    let a = x.add_scalar(1.0).unwrap().unary(UnaryOp::Sqrt).unwrap();
    let b = x.binary(BinaryOp::Multiply, &x).unwrap().binary(BinaryOp::Subtract, &a).unwrap();
    let c = a.binary(BinaryOp::Maximum, &b).unwrap().binary(BinaryOp::Divide, &x.add_scalar(2.0).unwrap()).unwrap();
    let y = a.binary(BinaryOp::Multiply, &b).unwrap().binary(BinaryOp::Add, &c).unwrap();
    let (fragments, _) = plan_fragments(&[&y], true, &Spec::default()).unwrap();
    assert_eq!(fragments.len(), 16, "one fragment per block");
    assert!(fragments.iter().all(|f| f.inputs.is_empty() && f.outputs.len() == 1));
}

#[test]
fn small_blocks_are_gathered_into_local_subtrees() {
    // 4096 blocks of 128 bytes: a fragment per block would cost far more than its work.
    let x = Generator::new(1).random(&[1 << 16], &chunks(16)).unwrap();
    let y = x.unary(UnaryOp::Sin).unwrap().reduce(&ReduceSpec::new(ReduceOp::Sum)).unwrap();
    let (fragments, _) = plan_fragments(&[&y], true, &Spec::default()).unwrap();
    assert!(fragments.len() <= 8, "{} fragments", fragments.len());
}

#[test]
fn in_memory_arrays_travel_by_reference_as_files() {
    let dir = std::env::temp_dir().join(format!("tegula-shared-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let data: Vec<f64> = (0..100).map(f64::from).collect();
    let m = Array::from_ndarray(ndarray::ArrayD::from_shape_vec(vec![10, 10], data).unwrap(), &chunks(4)).unwrap();
    let y = m.t().add_scalar(0.5).unwrap();
    let (_, graph) = plan_of(&[&y], true).unwrap();
    let shared = tegula::execute::SharedArrays::new(&dir);
    let bytes = Fragment::encode(&graph, Some(&shared)).unwrap().to_bytes().unwrap();
    assert!(bytes.len() < 800, "the array is not inside the plan ({} bytes)", bytes.len());
    let decoded = Fragment::from_bytes(&bytes).unwrap().decode().unwrap();
    let (got, _) = Threaded::serial().execute(&decoded, &Spec::default(), None).unwrap();
    let (expected, _) = Threaded::serial().execute(&graph, &Spec::default(), None).unwrap();
    assert_eq!(got.iter().flatten().map(bits).collect::<Vec<_>>(), expected.iter().flatten().map(bits).collect::<Vec<_>>());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn in_memory_arrays_travel_as_addresses_where_workers_read_the_callers_memory() {
    // Decoded here, the array is read out of this process as a worker reads its caller.
    // Small blocks are read at once, before the tasks; 9 MB of them, each by its task.
    let dir = std::env::temp_dir().join(format!("tegula-in-place-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (rows, cols, block) in [(50, 100, 16), (1024, 1100, 300)] {
        let data: Vec<f64> = (0..rows * cols).map(|i| i as f64 * 0.25).collect();
        let m = Array::from_ndarray(ndarray::ArrayD::from_shape_vec(vec![rows, cols], data).unwrap(), &chunks(block)).unwrap();
        let y = m.t().add_scalar(0.5).unwrap().reduce(&ReduceSpec { axes: Some(vec![0]), ..ReduceSpec::new(ReduceOp::Sum) }).unwrap();
        let (_, graph) = plan_of(&[&y], true).unwrap();
        let shared = tegula::execute::SharedArrays::new(&dir).read_in_place(true);
        let bytes = Fragment::encode(&graph, Some(&shared)).unwrap().to_bytes().unwrap();
        assert!(bytes.len() < 8000, "the array is not inside the plan ({} bytes)", bytes.len());
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "no file is written");
        let decoded = Fragment::from_bytes(&bytes).unwrap().decode().unwrap();
        let (got, _) = Threaded::serial().execute(&decoded, &Spec::default(), None).unwrap();
        let (expected, _) = Threaded::serial().execute(&graph, &Spec::default(), None).unwrap();
        assert_eq!(got.iter().flatten().map(bits).collect::<Vec<_>>(), expected.iter().flatten().map(bits).collect::<Vec<_>>());
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn bytes_that_are_not_a_plan_are_a_value_error() {
    let err = Fragment::from_bytes(&[7, 1, 2]).unwrap_err();
    assert!(matches!(err, tegula::TegulaError::Value(_)), "{err:?}");
}

#[test]
fn a_function_is_encoded_once_for_all_the_fragments_of_a_computation() {
    struct Counted(std::sync::atomic::AtomicUsize);
    impl tegula::execute::BlockFunction for Counted {
        fn call(&self, _: &[usize], args: &[Chunk]) -> tegula::Result<Chunk> {
            Ok(args[0].clone())
        }
        fn encode(&self) -> tegula::Result<Vec<u8>> {
            Ok(vec![self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst) as u8])
        }
    }
    let function = Arc::new(Counted(0.into()));
    let x = Generator::new(1).random(&[1 << 20], &chunks(1 << 17)).unwrap();
    let y = Array::map_blocks(&[&x], function.clone(), "counted", x.chunks().clone(), DType::Float64).unwrap();
    let (fragments, _) = plan_fragments(&[&y], true, &Spec::default()).unwrap();
    assert_eq!(fragments.len(), 8, "a fragment per block");
    assert_eq!(function.0.load(std::sync::atomic::Ordering::SeqCst), 1, "encoded once");
    // Another computation encodes it again: a closure's values may have changed since.
    plan_fragments(&[&y], true, &Spec::default()).unwrap();
    assert_eq!(function.0.load(std::sync::atomic::Ordering::SeqCst), 2);
}

#[test]
fn what_cannot_leave_the_process_is_refused_by_name() {
    struct Here;
    impl tegula::execute::BlockFunction for Here {
        fn call(&self, _: &[usize], args: &[Chunk]) -> tegula::Result<Chunk> {
            Ok(args[0].clone())
        }
    }
    let x = Generator::new(1).random(&[8], &chunks(4)).unwrap();
    let y = Array::map_blocks(&[&x], Arc::new(Here), "here", x.chunks().clone(), DType::Float64).unwrap();
    let (_, graph) = plan_of(&[&y], true).unwrap();
    let err = Fragment::encode(&graph, None).unwrap_err();
    assert!(err.to_string().contains("cannot leave its process"), "{err}");
}
