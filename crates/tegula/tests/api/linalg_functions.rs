//! `tegula::linalg::Linalg` against NumPy 2's answers for the same matrices, written out
//! below: QR by TSQR (one level and several) and in tiles, singular values, norms, condition
//! numbers, least squares, the pseudo-inverse, rank, powers, chains of products, cross
//! products, diagonals and traces, at several chunkings.

use ndarray::ArrayD;
use tegula::linalg::{Linalg, NormOrder};
use tegula::{Array, AxisChunks, ChunkSpec, TegulaError};

/// A 6×3 matrix.
const A: [f64; 18] = [2.0, -1.0, 0.5, 1.0, 3.0, -2.0, 0.0, 1.5, 4.0, -3.0, 2.0, 1.0, 1.0, -1.0, 2.5, 4.0, 0.5, -1.0];
/// A 5×5 symmetric matrix.
const S: [f64; 25] = [4.0, 1.0, 0.5, -2.0, 1.0, 1.0, 5.0, -1.0, 0.5, 2.0, 0.5, -1.0, 6.0, 1.0, -0.5, -2.0, 0.5, 1.0, 3.0, 1.5, 1.0, 2.0, -0.5, 1.5, 7.0];
const INF: f64 = f64::INFINITY;
/// np.linalg.svd(A, compute_uv=False).
const SINGULAR_VALUES: [f64; 3] = [5.972632208977087, 5.06593129767507, 3.957777732961471];

fn matrix(values: &[f64], shape: [usize; 2], blocks: [usize; 2]) -> Array {
    let data = ArrayD::from_shape_vec(shape.to_vec(), values.to_vec()).unwrap();
    Array::from_ndarray(data, &ChunkSpec::PerAxis(blocks.iter().map(|&b| AxisChunks::Size(b)).collect())).unwrap()
}

fn values(a: &Array) -> Vec<f64> {
    a.compute().unwrap().typed::<f64>().unwrap().iter().copied().collect()
}

fn assert_close(actual: &[f64], expected: &[f64], what: &str) {
    let close = actual.len() == expected.len() && actual.iter().zip(expected).all(|(a, e)| (a - e).abs() <= 1e-10 * (1.0 + e.abs()));
    assert!(close, "{what}: {actual:?} against NumPy's {expected:?}");
}

/// `Q R == x`, `Q` has orthonormal columns, `R` is upper triangular and `|diag(R)|` is NumPy's.
fn check_qr(q: &Array, r: &Array, x: &[f64], shape: [usize; 2], r_diagonal: &[f64]) {
    let (m, n) = (shape[0], shape[1]);
    let k = m.min(n);
    let (qv, rv) = (values(q), values(r));
    assert_eq!((q.shape(), r.shape()), (vec![m, k], vec![k, n]));
    for i in 0..m {
        for j in 0..n {
            let product: f64 = (0..k).map(|l| qv[i * k + l] * rv[l * n + j]).sum();
            assert!((product - x[i * n + j]).abs() < 1e-10, "Q R differs from the matrix at ({i}, {j})");
        }
    }
    for a in 0..k {
        for b in 0..k {
            let dot: f64 = (0..m).map(|i| qv[i * k + a] * qv[i * k + b]).sum();
            assert!((dot - f64::from(u8::from(a == b))).abs() < 1e-10, "Q's columns are not orthonormal");
        }
        assert!((0..a.min(n)).all(|j| rv[a * n + j] == 0.0), "R is not upper triangular");
    }
    let diagonal: Vec<f64> = (0..k).map(|i| rv[i * n + i].abs()).collect();
    assert_close(&diagonal, r_diagonal, "|diag(R)|");
}

#[test]
fn tall_matrices_in_row_blocks_go_through_tsqr_in_one_level_or_several() {
    for (rows, level_bytes) in [(1, 1), (2, 1 << 30), (2, 200), (4, 1)] {
        let la = Linalg { tsqr_block_bytes: level_bytes, ..Linalg::default() };
        let x = matrix(&A, [6, 3], [rows, 2]);
        let (q, r) = la.qr(&x, false).unwrap();
        check_qr(&q, &r, &A, [6, 3], &[5.5677643628300215, 4.12114922900663, 5.218879635838646]);
        assert_close(&values(&la.svdvals(&x).unwrap()), &[5.972632208977087, 5.06593129767507, 3.957777732961471], "singular values");
        let (_, s, _) = la.svd(&x, false).unwrap();
        assert_close(&values(&s), &[5.972632208977087, 5.06593129767507, 3.957777732961471], "singular values of the SVD");
    }
}

#[test]
fn big_matrices_in_several_column_blocks_are_factorised_in_tiles() {
    let tiles = Linalg { whole_matrix_bytes: 0, ..Linalg::default() };
    for blocks in [[2, 2], [3, 2], [5, 1], [1, 4]] {
        let (q, r) = tiles.qr(&matrix(&S, [5, 5], blocks), false).unwrap();
        check_qr(&q, &r, &S, [5, 5], &[4.716990566028302, 5.214769431597058, 5.780668159245732, 1.9465171243330681, 2.214746824865849]);
        let (q, r) = tiles.qr(&matrix(&A, [6, 3], blocks), true).unwrap();
        assert_eq!((q.shape(), r.shape()), (vec![6, 6], vec![6, 3]));
    }
}

#[test]
fn norms_are_numpys() {
    let la = Linalg::default();
    let x = matrix(&A, [6, 3], [4, 2]);
    for (p, expected) in [(1.0, [11.0, 9.0, 11.0]), (2.0, [5.5677643628300215, 4.183300132670378, 5.338539126015656]), (INF, [4.0, 3.0, 4.0]), (-INF, [0.0, 0.5, 0.5]), (0.0, [5.0, 6.0, 6.0]), (3.5, [4.464898280992641, 3.2857430860049424, 4.309201922136263])] {
        assert_close(&values(&la.vector_norm(&x, Some(&[0]), false, NormOrder::P(p)).unwrap()), &expected, "vector norm");
    }
    let orders = [(NormOrder::Fro, [8.774964387392123]), (NormOrder::Nuc, [14.996341239613628]), (NormOrder::P(1.0), [11.0]), (NormOrder::P(-1.0), [9.0]),
        (NormOrder::P(2.0), [5.972632208977087]), (NormOrder::P(-2.0), [3.957777732961471]), (NormOrder::P(INF), [6.0]), (NormOrder::P(-INF), [3.5])];
    for (ord, expected) in orders {
        assert_close(&values(&la.matrix_norm(&x, false, ord).unwrap()), &expected, "matrix norm");
        assert_close(&values(&la.norm(&x, Some(ord), None, false).unwrap()), &expected, "norm");
    }
    assert_close(&values(&la.norm(&x, None, None, false).unwrap()), &[8.774964387392123], "the 2-norm of all elements");
    assert_eq!(la.norm(&x, None, Some(&[0, 1]), true).unwrap().shape(), [1, 1]);
    assert!(matches!(la.vector_norm(&x, None, false, NormOrder::Fro), Err(TegulaError::Value(m)) if m == "Invalid norm order 'fro' for vectors"));
    assert!(matches!(la.matrix_norm(&x, false, NormOrder::P(3.0)), Err(TegulaError::Value(m)) if m == "Invalid norm order 3 for matrices"));
    assert!(matches!(la.norm(&x, None, Some(&[1, -1]), false), Err(TegulaError::Value(m)) if m.contains("Duplicate axes")));
}

#[test]
fn condition_numbers_are_numpys() {
    let la = Linalg::default();
    let s = matrix(&S, [5, 5], [2, 3]);
    for (p, expected) in [(None, [16.4852361162366]), (Some(NormOrder::P(1.0)), [30.464926590538337]), (Some(NormOrder::P(-2.0)), [0.060660338314176915]),
        (Some(NormOrder::P(INF)), [30.464926590538337]), (Some(NormOrder::Fro), [24.13391957328377])] {
        assert_close(&values(&la.cond(&s, p).unwrap()), &expected, "cond");
    }
    assert!(matches!(la.cond(&matrix(&A, [6, 3], [2, 2]), Some(NormOrder::P(1.0))), Err(TegulaError::LinAlg(_))));
}

#[test]
fn least_squares_pseudo_inverse_and_rank_are_numpys() {
    let la = Linalg::default();
    for blocks in [[2, 2], [6, 3], [1, 1]] {
        let a = matrix(&A, [6, 3], blocks);
        let b = Array::from_ndarray(ArrayD::from_shape_vec(vec![6], vec![1.0, -2.0, 0.5, 3.0, 1.0, -1.0]).unwrap(), &ChunkSpec::All(AxisChunks::Size(4))).unwrap();
        let found = la.lstsq(&a, &b, None).unwrap();
        assert_close(&values(&found.x), &[-0.3377019028774157, -0.1443284141525963, 0.383373575892818], "lstsq x");
        assert_close(&values(&found.residuals), &[6.96114595409733], "lstsq residuals");
        assert_eq!(found.rank, 3);
        assert_close(&values(&found.s), &[5.972632208977086, 5.0659312976750694, 3.9577777329614725], "lstsq s");
        assert_close(&values(&la.pinv(&a, None).unwrap()), &[0.06428639917713411, 0.04593753541199957, 0.04130891467124589, -0.07968898457998101, 0.0439239546377734, 0.13562468946400402, -0.04006241228720114, 0.1774740457283322, 0.10835853941301057, 0.09820346754299555, -0.039033829900367, 0.05907375284385596, 0.02784145884362934, -0.05196956093478964, 0.15402585402846902, 0.024877746881564813, 0.0941414387949896, -0.0058053887256910046], "pinv");
        let rtol = Array::full(&[], tegula::Scalar::Float(1e-12), None, &ChunkSpec::All(AxisChunks::Full)).unwrap();
        assert_close(&values(&la.pinv_each(&a, &rtol).unwrap()), &[0.06428639917713411, 0.04593753541199957, 0.04130891467124589, -0.07968898457998101, 0.0439239546377734, 0.13562468946400402, -0.04006241228720114, 0.1774740457283322, 0.10835853941301057, 0.09820346754299555, -0.039033829900367, 0.05907375284385596, 0.02784145884362934, -0.05196956093478964, 0.15402585402846902, 0.024877746881564813, 0.0941414387949896, -0.0058053887256910046], "pinv with a tolerance per matrix");
    }
    let deficient = matrix(&[1.0, 2.0, 3.0, 2.0, 4.0, 6.0, 1.0, 0.0, 1.0], [3, 3], [2, 2]);
    let rank = la.matrix_rank(&deficient, None).unwrap().compute().unwrap();
    assert_eq!(rank.typed::<i64>().unwrap().iter().copied().collect::<Vec<_>>(), [2]);
}

#[test]
fn powers_chains_crosses_diagonals_and_traces_are_numpys() {
    let la = Linalg::default();
    let s = matrix(&S, [5, 5], [2, 2]);
    assert_close(&values(&la.matrix_power(&s, 3).unwrap()), &[132.0, 82.0, -5.75, -58.125, 91.5, 82.0, 231.25, -101.625, 37.0, 267.25, -5.75, -101.625, 252.75, 40.5, -75.125, -58.125, 37.0, 40.5, 101.5, 112.375, 91.5, 267.25, -75.125, 112.375, 481.25], "s ** 3");
    assert_close(&values(&la.matrix_power(&s, -2).unwrap()), &[1.127083508668224, -0.3167129335941762, -0.4540089373391632, 1.4040050619529554, -0.43505267489800925, -0.3167129335941762, 0.1466537932047348, 0.1391923545449465, -0.3919246681471862, 0.09617738682209018, -0.45400893733916314, 0.1391923545449465, 0.2159363531850685, -0.5842447421155018, 0.17811819728343747, 1.4040050619529552, -0.3919246681471861, -0.5842447421155018, 1.836433254206707, -0.5662029481543184, -0.4350526748980092, 0.09617738682209016, 0.17811819728343747, -0.5662029481543184, 0.20386929661241354], "s ** -2");
    let identity = values(&la.matrix_power(&s, 0).unwrap());
    assert_close(&identity, &(0..25).map(|i| f64::from(u8::from(i % 6 == 0))).collect::<Vec<_>>(), "s ** 0");
    let a = matrix(&A, [6, 3], [4, 2]);
    let top = a.index(&[tegula::ops::IndexItem::Slice { start: None, stop: Some(3), step: None }]).unwrap();
    assert_close(&values(&la.multi_dot(&[&a.t(), &a, &top]).unwrap()), &[58.0, -51.25, 1.5, 9.5, 54.25, -43.0, -12.5, 43.75, 114.25], "multi_dot");
    let rows = |start: i64| a.index(&[tegula::ops::IndexItem::Slice { start: Some(start), stop: Some(start + 2), step: None }]).unwrap();
    assert_close(&values(&rows(0).cross(&rows(2), -1).unwrap()), &[-4.75, -8.0, 3.0, 7.0, 5.0, 11.0], "cross");
    assert_close(&values(&s.diagonal(1).unwrap()), &[1.0, -1.0, 1.0, 1.5], "diagonal 1");
    assert_close(&values(&a.diagonal(-2).unwrap()), &[0.0, 2.0, 2.5], "diagonal -2");
    assert_close(&values(&s.trace(-1, None).unwrap()), &[2.5], "trace -1");
    assert!(matches!(la.matrix_power(&a, 2), Err(TegulaError::LinAlg(_))));
}

#[test]
fn randomized_svd_finds_numpys_leading_singular_values() {
    use tegula::linalg::Sampling;
    use tegula::random::Generator;
    // A is 6×3: of rank 3, so k + oversamples >= 3 samples its whole range.
    let la = Linalg::default();
    for orthonormalise_each in [false, true] {
        let sampling = Sampling { k: 2, power_iterations: 2, oversamples: 1, orthonormalise_each, coerce_signs: true };
        let (u, s, vh) = la.svd_compressed(&matrix(&A, [6, 3], [2, 3]), &sampling, &Generator::new(7)).unwrap();
        assert_eq!((u.shape(), s.shape(), vh.shape()), (vec![6, 2], vec![2], vec![2, 3]));
        assert_close(&values(&s), &SINGULAR_VALUES[..2], "leading singular values");
        let rows = values(&vh);
        assert!(rows.chunks(3).all(|row| row.iter().sum::<f64>() >= 0.0), "coerced signs");
    }
    let sampling = Sampling { k: 4, power_iterations: 0, oversamples: 0, orthonormalise_each: false, coerce_signs: false };
    assert!(matches!(la.svd_compressed(&matrix(&A, [6, 3], [2, 3]), &sampling, &Generator::new(7)), Err(TegulaError::Value(m)) if m.contains("k must be")));
}

#[test]
fn big_matrices_in_several_blocks_have_their_cholesky_factor_by_tiles() {
    // A = L L^T for a lower L of small integers; the strict upper triangle of A is NaN, which
    // a Cholesky (NumPy's, and this one by tiles) never reads.
    let n = 7;
    let l = |i: usize, j: usize| if j > i { 0.0 } else if i == j { 2.0 + i as f64 } else { (i as f64 - 2.0 * j as f64) % 3.0 };
    let a: Vec<f64> = (0..n * n)
        .map(|k| {
            let (i, j) = (k / n, k % n);
            if j > i { f64::NAN } else { (0..n).map(|m| l(i, m) * l(j, m)).sum() }
        })
        .collect();
    let lower: Vec<f64> = (0..n * n).map(|k| l(k / n, k % n)).collect();
    let upper: Vec<f64> = (0..n * n).map(|k| l(k % n, k / n)).collect();
    let tiles = Linalg { whole_matrix_bytes: 0, min_tile: 1, ..Linalg::default() };
    for blocks in [[2, 2], [3, 3], [3, 2], [7, 1], [4, 7]] {
        let x = matrix(&a, [n, n], blocks);
        assert_close(&values(&tiles.cholesky(&x, false).unwrap()), &lower, &format!("L in {blocks:?} blocks"));
        assert_close(&values(&tiles.cholesky(&x, true).unwrap()), &upper, &format!("L^T in {blocks:?} blocks"));
    }
    let indefinite = matrix(&[1.0, 0.0, 0.0, 2.0, 1.0, 0.0, 0.0, 0.0, 1.0], [3, 3], [1, 1]);
    let err = tiles.cholesky(&indefinite, false).unwrap().compute().unwrap_err();
    // Tile 0 holds 1; tile 1 is left with 1 - 2² once tile 0's column is taken out.
    assert_eq!(err, TegulaError::LinAlg("Matrix is not positive definite (in diagonal tile 1 of a factorisation by tiles)".into()));
    assert!(matches!(tiles.cholesky(&matrix(&A, [6, 3], [2, 2]), false), Err(TegulaError::LinAlg(_))));
}

#[test]
fn big_triangular_systems_in_several_blocks_are_solved_by_tiles() {
    // A 7×7 matrix whose triangles are both well conditioned, and 7×3 right-hand sides; the
    // answer by tiles is the answer of one task for the whole matrix (which reads one
    // triangle), whatever the blocks. NaN stands in the triangle not read.
    let n = 7;
    let dense: Vec<f64> = (0..n * n).map(|k| if k / n == k % n { 10.0 + k as f64 / 7.0 } else { ((k * 37) % 11) as f64 / 5.0 - 1.0 }).collect();
    let rhs: Vec<f64> = (0..n * 3).map(|k| ((k * 13) % 7) as f64 - 3.0).collect();
    let whole = Linalg::default();
    let tiles = Linalg { whole_matrix_bytes: 0, min_tile: 1, ..Linalg::default() };
    for (lower, unit_diagonal) in [(true, false), (false, false), (true, true), (false, true)] {
        let (row, col) = (|k: usize| k / n, |k: usize| k % n);
        let t: Vec<f64> = (0..n * n).map(|k| if (lower && col(k) > row(k)) || (!lower && col(k) < row(k)) { f64::NAN } else { dense[k] }).collect();
        let expected = values(&whole.solve_triangular(&matrix(&t, [n, n], [n, n]), &matrix(&rhs, [n, 3], [n, 3]), lower, unit_diagonal).unwrap());
        assert!(expected.iter().all(|v| v.is_finite()));
        for blocks in [[2, 2], [3, 3], [3, 2], [7, 1], [4, 7]] {
            let b = matrix(&rhs, [n, 3], [blocks[0], 2]);
            let solved = tiles.solve_triangular(&matrix(&t, [n, n], blocks), &b, lower, unit_diagonal).unwrap();
            assert_close(&values(&solved), &expected, &format!("lower {lower}, unit {unit_diagonal}, {blocks:?} blocks"));
        }
    }
    let singular = matrix(&[1.0, 0.0, 0.0, 2.0, 0.0, 0.0, 3.0, 4.0, 5.0], [3, 3], [1, 1]);
    let err = tiles.solve_triangular(&singular, &matrix(&[1.0, 1.0, 1.0], [3, 1], [1, 1]), true, false).unwrap().compute().unwrap_err();
    assert_eq!(err, TegulaError::LinAlg("singular matrix: resolution failed at diagonal 0".into()));
}

#[test]
fn cho_solve_solves_with_either_factor_whole_or_by_tiles() {
    // S is symmetric positive definite; x = S^-1 b through its lower factor and its upper one.
    let b: Vec<f64> = (0..10).map(|k| k as f64 - 4.5).collect();
    let rhs = matrix(&b, [5, 2], [5, 2]);
    let expected = values(&matrix(&S, [5, 5], [5, 5]).linalg(tegula::linalg::LinalgOp::Solve, &[&rhs]).unwrap());
    for la in [Linalg::default(), Linalg { whole_matrix_bytes: 0, min_tile: 1, ..Linalg::default() }] {
        for blocks in [[5, 5], [2, 2], [3, 2]] {
            let s = matrix(&S, [5, 5], blocks);
            for upper in [false, true] {
                let c = la.cholesky(&s, upper).unwrap();
                assert_close(&values(&la.cho_solve(&c, !upper, &matrix(&b, [5, 2], [blocks[0], 1])).unwrap()), &expected, &format!("upper {upper}, {blocks:?}"));
            }
        }
    }
}

#[test]
fn big_systems_in_several_blocks_are_solved_inverted_and_their_determinants_taken_by_tiles() {
    // A 7×7 matrix whose first pivots must come from other rows (a zero corner, small leading
    // elements), and 7×3 right-hand sides: the answers by tiles are those of one task for the
    // whole matrix, whatever the blocks.
    let n = 7;
    let dense: Vec<f64> = (0..n * n).map(|k| if k == 0 { 0.0 } else { ((k * 37) % 11) as f64 / 5.0 - 1.0 + (k / n) as f64 * 0.01 }).collect();
    let rhs: Vec<f64> = (0..n * 3).map(|k| ((k * 13) % 7) as f64 - 3.0).collect();
    let (whole, tiles) = (Linalg::default(), Linalg { whole_matrix_bytes: 0, min_tile: 1, ..Linalg::default() });
    let a = matrix(&dense, [n, n], [n, n]);
    let solved = values(&whole.solve(&a, &matrix(&rhs, [n, 3], [n, 3])).unwrap());
    let inverse = values(&whole.inv(&a).unwrap());
    let (sign, log) = whole.slogdet(&a).unwrap();
    let (sign, log, det) = (values(&sign), values(&log), values(&whole.det(&a).unwrap()));
    assert!(solved.iter().chain(&inverse).all(|v| v.is_finite()) && sign[0] != 0.0);
    for blocks in [[2, 2], [3, 3], [3, 2], [7, 1], [4, 7]] {
        let a = matrix(&dense, [n, n], blocks);
        let b = matrix(&rhs, [n, 3], [blocks[0], 2]);
        let what = format!("{blocks:?} blocks");
        assert_close(&values(&tiles.solve(&a, &b).unwrap()), &solved, &format!("solve, {what}"));
        assert_close(&values(&tiles.inv(&a).unwrap()), &inverse, &format!("inv, {what}"));
        assert_close(&values(&tiles.det(&a).unwrap()), &det, &format!("det, {what}"));
        let (s, l) = tiles.slogdet(&a).unwrap();
        assert_close(&[values(&s), values(&l)].concat(), &[sign.clone(), log.clone()].concat(), &format!("slogdet, {what}"));
    }
    // A zero column: NumPy's solve and inv refuse it, its determinant is 0.
    let singular: Vec<f64> = (0..n * n).map(|k| if k % n == 3 { 0.0 } else { dense[k] }).collect();
    let a = matrix(&singular, [n, n], [3, 3]);
    let err = tiles.solve(&a, &matrix(&rhs, [n, 3], [3, 3])).unwrap().compute().unwrap_err();
    assert_eq!(err, TegulaError::LinAlg("Singular matrix".into()));
    assert!(matches!(tiles.inv(&a).unwrap().compute(), Err(TegulaError::LinAlg(_))));
    assert_eq!(values(&tiles.det(&a).unwrap()), [0.0]);
    let (s, l) = tiles.slogdet(&a).unwrap();
    assert_eq!((values(&s), values(&l)), (vec![0.0], vec![f64::NEG_INFINITY]));
    assert!(matches!(tiles.solve(&matrix(&A, [6, 3], [2, 2]), &matrix(&rhs[..18], [6, 3], [2, 2])), Err(TegulaError::LinAlg(_))));
}

#[test]
fn stacks_of_big_matrices_are_factorised_by_tiles_matrix_by_matrix() {
    // A 2×3 stack of 7×7 matrices (each needing pivots from other rows) and of 7×2 right-hand
    // sides: each matrix by tiles gives the answers of one task per whole matrix.
    let (n, count) = (7, 6);
    let diagonal = |k: usize| if k.is_multiple_of(n + 1) { 2.0 } else { 0.0 };
    let entry = |m: usize, k: usize| if k == 0 { 0.0 } else { ((k * 2_654_435_761 + m * 40_503) % 1000) as f64 / 500.0 - 1.0 + diagonal(k) };
    let dense: Vec<f64> = (0..count * n * n).map(|i| entry(i / (n * n), i % (n * n))).collect();
    let rhs: Vec<f64> = (0..count * n * 2).map(|k| ((k * 13) % 7) as f64 - 3.0).collect();
    let stack = |values: &[f64], cols: usize, blocks: [usize; 2]| {
        let data = ArrayD::from_shape_vec(vec![2, 3, n, cols], values.to_vec()).unwrap();
        let chunks = [1, 2, blocks[0], blocks[1]].map(AxisChunks::Size).to_vec();
        Array::from_ndarray(data, &ChunkSpec::PerAxis(chunks)).unwrap()
    };
    let (whole, tiles) = (Linalg::default(), Linalg { whole_matrix_bytes: 0, min_tile: 1, ..Linalg::default() });
    let (a, b) = (stack(&dense, n, [n, n]), stack(&rhs, 2, [n, 2]));
    let (sign, log) = whole.slogdet(&a).unwrap();
    let expected = [whole.solve(&a, &b).unwrap(), whole.inv(&a).unwrap(), whole.det(&a).unwrap(), sign, log].map(|x| values(&x));
    for blocks in [[2, 2], [3, 2], [7, 1]] {
        let (a, b) = (stack(&dense, n, blocks), stack(&rhs, 2, [blocks[0], 1]));
        let (sign, log) = tiles.slogdet(&a).unwrap();
        let by_tiles = [tiles.solve(&a, &b).unwrap(), tiles.inv(&a).unwrap(), tiles.det(&a).unwrap(), sign, log];
        for ((name, got), want) in ["solve", "inv", "det", "sign", "log"].iter().zip(&by_tiles).zip(&expected) {
            assert_eq!(got.shape()[..2], [2, 3], "{name}'s stack axes");
            assert_close(&values(got), want, &format!("{name}, {blocks:?} blocks"));
        }
    }
    // The Cholesky factor of each S-like matrix of a stack, and the tile of the one that is not
    // positive definite named as the tiled factorisation names it.
    let spd: Vec<f64> = (0..2).flat_map(|m| S.iter().enumerate().map(move |(k, v)| if k.is_multiple_of(6) { v + m as f64 } else { *v })).collect();
    let spd_stack = |blocks: usize| Array::from_ndarray(ArrayD::from_shape_vec(vec![2, 5, 5], spd.clone()).unwrap(), &ChunkSpec::PerAxis([1, blocks, blocks].map(AxisChunks::Size).to_vec())).unwrap();
    assert_close(&values(&tiles.cholesky(&spd_stack(2), false).unwrap()), &values(&whole.cholesky(&spd_stack(5), false).unwrap()), "stacked Cholesky");
    let indefinite: Vec<f64> = [1.0, 0.0, 0.0, 2.0, 1.0, 0.0, 0.0, 0.0, 1.0].repeat(2);
    let indefinite = Array::from_ndarray(ArrayD::from_shape_vec(vec![2, 3, 3], indefinite).unwrap(), &ChunkSpec::All(AxisChunks::Size(1))).unwrap();
    let err = tiles.cholesky(&indefinite, false).unwrap().compute().unwrap_err();
    assert_eq!(err, TegulaError::LinAlg("Matrix is not positive definite (in diagonal tile 1 of a factorisation by tiles)".into()));
}
