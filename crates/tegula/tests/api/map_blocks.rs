//! `map_blocks`: each block of the result is the function of the same blocks of the inputs,
//! whatever the chunking and the executor; wrong results and failures are clear errors.

use ndarray::{ArrayD, IxDyn};
use proptest::prelude::*;
use std::sync::Arc;
use tegula::{Array, AxisChunks, ChunkSpec, Chunk, Chunks, DType, Result, TegulaError, Element, execute::{BlockFunction, Threaded}};

/// `a + 10 * b + block number along axis 0`, or a broken variant.
struct AddWithBlock {
    broken: Option<&'static str>,
}

impl BlockFunction for AddWithBlock {
    fn call(&self, block: &[usize], args: &[Chunk]) -> Result<Chunk> {
        let a = args[0].typed::<f64>()?;
        let b = args[1].typed::<f64>()?;
        let out = &**a + (&**b * 10.0) + block[0] as f64;
        match self.broken {
            Some("dtype") => Ok(Element::wrap(out.mapv(|v| v as f32).into())),
            Some("shape") => Ok(Element::wrap(ArrayD::<f64>::zeros(IxDyn(&[1])).into())),
            Some(_) => Err(TegulaError::Value("the function failed".into())),
            None => Ok(Element::wrap(out.into())),
        }
    }
}

fn matrix(rows: usize, cols: usize, seed: f64, block: usize) -> (Vec<f64>, Array) {
    let values: Vec<f64> = (0..rows * cols).map(|i| (i as f64 * seed).sin()).collect();
    let data = ArrayD::from_shape_vec(IxDyn(&[rows, cols]), values.clone()).unwrap();
    (values, Array::from_ndarray(data, &ChunkSpec::All(AxisChunks::Size(block))).unwrap())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn each_block_is_the_function_of_the_same_blocks(rows in 1usize..20, cols in 1usize..20, block in 1usize..8, threads in 1usize..4) {
        let (a, x) = matrix(rows, cols, 0.3, block);
        let (b, y) = matrix(rows, cols, 0.7, block);
        let f = Arc::new(AddWithBlock { broken: None });
        let z = Array::map_blocks(&[&x, &y], f, "add_with_block", x.chunks().clone(), DType::Float64).unwrap();
        let (out, _) = z.compute_with(Threaded { threads }).unwrap();
        let out = out.typed::<f64>().unwrap();
        for r in 0..rows {
            for c in 0..cols {
                let expected = a[r * cols + c] + 10.0 * b[r * cols + c] + (r / block) as f64;
                prop_assert_eq!(out[[r, c]], expected);
            }
        }
    }
}

#[test]
fn wrong_results_and_failures_are_errors() {
    let (_, x) = matrix(6, 4, 0.3, 3);
    for (broken, expected) in [("dtype", "float32"), ("shape", "shape [1]"), ("fail", "the function failed")] {
        let f = Arc::new(AddWithBlock { broken: Some(broken) });
        let z = Array::map_blocks(&[&x, &x], f, "broken", x.chunks().clone(), DType::Float64).unwrap();
        let err = z.compute().unwrap_err().to_string();
        assert!(err.contains(expected), "{broken}: {err}");
    }
}

#[test]
fn inputs_must_share_a_block_grid() {
    let (_, x) = matrix(6, 4, 0.3, 3);
    let (_, y) = matrix(6, 4, 0.3, 2);
    let f = Arc::new(AddWithBlock { broken: None });
    let err = Array::map_blocks(&[&x, &y], f.clone(), "f", x.chunks().clone(), DType::Float64).unwrap_err();
    assert!(matches!(err, TegulaError::Shape(_)), "{err}");
    let other = Chunks::new(vec![vec![6], vec![4]], &[6, 4]).unwrap();
    assert!(Array::map_blocks(&[&x, &x], f.clone(), "f", other, DType::Float64).is_err());
    assert!(Array::map_blocks(&[], f, "f", x.chunks().clone(), DType::Float64).is_err());
}

#[test]
fn the_plan_has_one_task_per_block_named_by_the_function() {
    let (_, x) = matrix(9, 8, 0.3, 3);
    let f = Arc::new(AddWithBlock { broken: None });
    let z = Array::map_blocks(&[&x, &x], f, "add_with_block", x.chunks().clone(), DType::Float64).unwrap();
    let (plan, graph) = tegula::execute::plan_of(&[&z], true).unwrap();
    let op = plan.operations.iter().position(|o| o.label == "map_blocks(add_with_block)").unwrap();
    assert_eq!(plan.operations[op].tasks, 9);
    assert_eq!(graph.tasks.iter().filter(|t| t.op.label() == "map-blocks").count(), 9);
}
