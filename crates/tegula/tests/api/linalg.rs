//! Linear algebra plans: one task per stack block with each matrix whole, results checked on
//! small matrices with known answers, and the errors NumPy raises.

use ndarray::{array, s, Array2, ArrayD, ArrayViewD, Ix2};
use tegula::{Array, AxisChunks, ChunkSpec, TegulaError, linalg::LinalgOp};

/// Four 2×2 matrices `[[k + 2, 1], [1, 2]]`, stacked (2, 2) and chunked one matrix per block
/// along the stack, in 1×1 pieces along the matrix axes.
fn stack() -> (ArrayD<f64>, Array) {
    let data = ArrayD::from_shape_fn(vec![2, 2, 2, 2], |i| match (i[2], i[3]) {
        (0, 0) => (2 * i[0] + i[1]) as f64 + 2.0,
        (1, 1) => 2.0,
        _ => 1.0,
    });
    let x = Array::from_ndarray(data.clone(), &ChunkSpec::All(AxisChunks::Size(1))).unwrap();
    (data, x)
}

#[test]
fn one_task_per_stack_block_with_whole_matrices() {
    let (_, x) = stack();
    let inv = x.linalg(LinalgOp::Inv, &[]).unwrap();
    assert_eq!(inv.chunks().sizes(), &[vec![1, 1], vec![1, 1], vec![2], vec![2]]);
    let det = x.linalg(LinalgOp::Det, &[]).unwrap();
    assert_eq!(det.chunks().sizes(), &[vec![1, 1], vec![1, 1]]);
    let explained = det.explain().unwrap();
    assert!(explained.contains("det"), "{explained}");
}

#[test]
fn results_of_known_matrices() {
    let (data, x) = stack();
    let det = x.linalg(LinalgOp::Det, &[]).unwrap().compute().unwrap();
    let det = det.typed::<f64>().unwrap();
    for (k, d) in det.iter().enumerate() {
        assert!((d - (2.0 * (k as f64 + 2.0) - 1.0)).abs() < 1e-12);
    }
    let inv = x.linalg(LinalgOp::Inv, &[]).unwrap().compute().unwrap();
    let inv = inv.typed::<f64>().unwrap();
    let product = matrix(data.view()).dot(&matrix(inv.view()));
    assert!((product - array![[1.0, 0.0], [0.0, 1.0]]).iter().all(|e| e.abs() < 1e-12));
}

/// The matrix at stack position (1, 0).
fn matrix(a: ArrayViewD<f64>) -> Array2<f64> {
    a.slice(s![1, 0, .., ..]).into_dimensionality::<Ix2>().unwrap().to_owned()
}

#[test]
fn errors_speak_numpy() {
    let rect = Array::from_ndarray(ArrayD::<f64>::zeros(vec![2, 3]), &ChunkSpec::All(AxisChunks::Full)).unwrap();
    assert!(matches!(rect.linalg(LinalgOp::Inv, &[]), Err(TegulaError::LinAlg(_))));
    let vector = Array::from_ndarray(ArrayD::<f64>::zeros(vec![3]), &ChunkSpec::All(AxisChunks::Full)).unwrap();
    assert!(matches!(vector.linalg(LinalgOp::Det, &[]), Err(TegulaError::LinAlg(_))));
    let half = rect.astype(tegula::DType::Float16).unwrap();
    assert!(matches!(half.linalg(LinalgOp::Svd { full: false, output: 1 }, &[]), Err(TegulaError::DType(_))));
    let singular = Array::from_ndarray(array![[1.0, 2.0], [2.0, 4.0]].into_dyn(), &ChunkSpec::All(AxisChunks::Full)).unwrap();
    let err = singular.linalg(LinalgOp::Inv, &[]).unwrap().compute().unwrap_err();
    assert_eq!(err, TegulaError::LinAlg("Singular matrix".into()));
}

/// The tasks of a plan computing `arrays` together that run `kernel` (by label).
fn tasks_labelled(arrays: &[&Array], label: &str) -> usize {
    let (_, graph) = tegula::execute::plan_of(arrays, true).unwrap();
    graph.tasks.iter().filter(|t| t.op.label() == label).count()
}

#[test]
fn results_asked_together_share_one_factorisation_per_block() {
    let (_, x) = stack();
    let results = |op: LinalgOp| x.linalg_results(op, &[]).unwrap();
    let cases: [(Vec<Array>, &str); 5] = [
        (results(LinalgOp::Svd { full: true, output: 0 }), "svd-factors"),
        (results(LinalgOp::Qr { complete: false, output: 0 }), "qr-factors"),
        (results(LinalgOp::Eigh { output: 0 }), "eigh-factors"),
        (results(LinalgOp::Eig { output: 0 }), "eig-factors"),
        (results(LinalgOp::Slogdet { output: 0 }), "slogdet-factors"),
    ];
    for (arrays, label) in cases {
        let arrays: Vec<&Array> = arrays.iter().collect();
        // Four matrices: four factorisations, and no task computing one result alone.
        assert_eq!(tasks_labelled(&arrays, label), 4, "{label}");
        let (_, graph) = tegula::execute::plan_of(&arrays, true).unwrap();
        // Besides the matrices' loads and assembly (1×1 pieces into whole matrices), only
        // factorisations and parts.
        let mut labels: Vec<String> = graph.tasks.iter().map(|t| t.op.label()).filter(|l| l != "load" && l != "assemble").collect();
        labels.sort();
        labels.dedup();
        let mut expected = [label, "part"];
        expected.sort();
        assert_eq!(labels, expected, "{label}");
        // Each result is the one computed alone, bit for bit.
        let (together, _) = tegula::compute(&arrays, tegula::ComputeOptions::default()).unwrap();
        for (a, t) in arrays.iter().zip(&together) {
            let single = a.compute().unwrap();
            assert_eq!((single.dtype(), single.shape()), (t.dtype(), t.shape()), "{label}");
            assert_eq!(tegula_raw(&single), tegula_raw(t), "{label}");
        }
    }
    // One result alone is computed on its own (the singular values without vectors).
    let s = x.linalg(LinalgOp::Svd { full: true, output: 1 }, &[]).unwrap();
    assert_eq!(tasks_labelled(&[&s], "svd-factors"), 0);
}

fn tegula_raw(c: &tegula::Chunk) -> Vec<u8> {
    tegula_kernels::raw::with_bytes(c, |b| b.to_vec())
}

#[test]
fn triangular_solves_read_one_triangle() {
    // Lower triangle [[2, 0], [3, 4]], upper [[2, 5], [0, 4]], in one 2×2 matrix.
    let a = Array::from_ndarray(array![[2.0, 5.0], [3.0, 4.0]].into_dyn(), &ChunkSpec::All(AxisChunks::Size(1))).unwrap();
    let b = Array::from_ndarray(array![[2.0], [11.0]].into_dyn(), &ChunkSpec::All(AxisChunks::Size(1))).unwrap();
    let solve = |lower, unit_diagonal| {
        let x = a.linalg(LinalgOp::SolveTriangular { lower, unit_diagonal }, &[&b]).unwrap().compute().unwrap();
        x.typed::<f64>().unwrap().iter().copied().collect::<Vec<f64>>()
    };
    // 2 x0 = 2, 3 x0 + 4 x1 = 11; 2 x0 + 5 x1 = 2, 4 x1 = 11; with ones on the diagonal.
    assert_eq!(solve(true, false), vec![1.0, 2.0]);
    assert_eq!(solve(false, false), vec![(2.0 - 5.0 * 2.75) / 2.0, 2.75]);
    assert_eq!(solve(true, true), vec![2.0, 5.0]);
    assert_eq!(solve(false, true), vec![2.0 - 5.0 * 11.0, 11.0]);
    let singular = Array::from_ndarray(array![[2.0, 0.0], [3.0, 0.0]].into_dyn(), &ChunkSpec::All(AxisChunks::Full)).unwrap();
    let err = singular.linalg(LinalgOp::SolveTriangular { lower: true, unit_diagonal: false }, &[&b]).unwrap().compute().unwrap_err();
    assert_eq!(err, TegulaError::LinAlg("singular matrix: resolution failed at diagonal 1".into()));
    let tall = Array::from_ndarray(ArrayD::<f64>::zeros(vec![3, 1]), &ChunkSpec::All(AxisChunks::Full)).unwrap();
    assert!(matches!(a.linalg(LinalgOp::SolveTriangular { lower: true, unit_diagonal: false }, &[&tall]), Err(TegulaError::Shape(_))));
}
