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

/// The product of two blocks as 2-D matrices (a vector is a column).
fn block_product(a: &Chunk, b: &Chunk) -> Result<Chunk> {
    let a = a.typed::<f64>()?.to_owned().into_dimensionality::<ndarray::Ix2>().unwrap();
    let b = b.typed::<f64>()?;
    let rows = b.shape()[0];
    let b = ndarray::Array2::from_shape_vec((rows, b.len() / rows.max(1)), b.iter().copied().collect()).unwrap();
    Ok(Element::wrap(a.dot(&b).into_dyn().into()))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    /// Dask's blockwise with a contracted index: `ij,j->i` (a matrix times a vector) and
    /// `ij,jk->ik`, the contracted axis given whole; an outer product `i,j->ij` broadcasts
    /// each input over the index it lacks; `ij->ji` sees blocks in the input's own order and returns them in the result's.
    #[test]
    fn blockwise_gives_each_input_in_its_own_order(rows in 1usize..12, cols in 1usize..12, block in 1usize..6) {
        let (a, x) = matrix(rows, cols, 0.3, block);
        let (v, y) = matrix(cols, 1, 0.7, block);
        let y = y.reshape(&[cols as i64]).unwrap();
        let product = |_: &[usize], blocks: &[Chunk]| {
            let out = block_product(&blocks[0], &blocks[1])?;
            let n = out.shape()[0];
            tegula_kernels_reshape(&out, n)
        };
        let mv = Array::blockwise(product, "i", &[(&x, "ij"), (&y, "j")], &[], "matvec", DType::Float64).unwrap();
        let out = mv.compute().unwrap();
        let out = out.typed::<f64>().unwrap();
        prop_assert_eq!(out.shape(), &[rows]);
        for r in 0..rows {
            let expected: f64 = (0..cols).map(|c| a[r * cols + c] * v[c]).sum();
            prop_assert!((out[[r]] - expected).abs() < 1e-12);
        }
        let (b, z) = matrix(cols, 3, 0.5, block);
        let mm = Array::blockwise(|_: &[usize], blocks: &[Chunk]| block_product(&blocks[0], &blocks[1]), "ik", &[(&x, "ij"), (&z, "jk")], &[], "matmul", DType::Float64).unwrap();
        let out = mm.compute().unwrap();
        let out = out.typed::<f64>().unwrap();
        for r in 0..rows {
            for k in 0..3 {
                let expected: f64 = (0..cols).map(|c| a[r * cols + c] * b[c * 3 + k]).sum();
                prop_assert!((out[[r, k]] - expected).abs() < 1e-12);
            }
        }
        let outer = Array::blockwise(|_: &[usize], blocks: &[Chunk]| {
            let (p, q) = (blocks[0].typed::<f64>()?, blocks[1].typed::<f64>()?);
            let cells: Vec<f64> = p.iter().flat_map(|&s| q.iter().map(move |&t| s * t)).collect();
            Ok(Element::wrap(ArrayD::from_shape_vec(IxDyn(&[p.len(), q.len()]), cells).unwrap().into()))
        }, "ij", &[(&x.index(&[tegula::ops::IndexItem::Slice { start: None, stop: None, step: None }, tegula::ops::IndexItem::Int(0)]).unwrap(), "i"), (&y, "j")], &[], "outer", DType::Float64).unwrap();
        let out = outer.compute().unwrap();
        let out = out.typed::<f64>().unwrap();
        for r in 0..rows {
            for c in 0..cols {
                prop_assert_eq!(out[[r, c]], a[r * cols] * v[c]);
            }
        }
        let flipped = Array::blockwise(|_: &[usize], blocks: &[Chunk]| {
            let block = blocks[0].typed::<f64>()?;
            Ok(Element::wrap(block.t().as_standard_layout().into_owned().into()))
        }, "ji", &[(&x, "ij")], &[], "same", DType::Float64).unwrap();
        let out = flipped.compute().unwrap();
        let out = out.typed::<f64>().unwrap();
        prop_assert_eq!(out.shape(), &[cols, rows]);
        for r in 0..rows {
            for c in 0..cols {
                prop_assert_eq!(out[[c, r]], a[r * cols + c]);
            }
        }
    }
}

#[test]
fn blockwise_refuses_what_it_cannot_lay_out() {
    let (_, x) = matrix(4, 5, 0.3, 2);
    let same = |_: &[usize], blocks: &[Chunk]| Ok(blocks[0].clone());
    assert!(matches!(Array::blockwise(same, "ij", &[(&x, "i")], &[], "f", DType::Float64), Err(TegulaError::Value(_))));
    assert!(matches!(Array::blockwise(same, "ijk", &[(&x, "ij")], &[], "f", DType::Float64), Err(TegulaError::Value(_))));
    assert!(matches!(Array::blockwise(same, "i", &[(&x, "ii")], &[], "f", DType::Float64), Err(TegulaError::Value(_))));
}

/// A block of `n` elements as a vector.
fn tegula_kernels_reshape(c: &Chunk, n: usize) -> Result<Chunk> {
    let values: Vec<f64> = c.typed::<f64>()?.iter().copied().collect();
    Ok(Element::wrap(ArrayD::from_shape_vec(IxDyn(&[n]), values).unwrap().into()))
}
