//! `Array::einsum` against NumPy 2's answers for the same operands, written out below
//! (products, traces, diagonals, transposes, batches, `...`, outer products and chains of three
//! operands), at several chunkings.

use ndarray::ArrayD;
use tegula::{Array, AxisChunks, ChunkSpec, DType, TegulaError};

const A: [f64; 12] = [-5.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
const B: [f64; 12] = [1.0, 2.0, 0.5, -1.0, 0.0, 3.0, 2.0, 1.0, 1.0, 0.5, -2.0, 1.0];
const C: [f64; 24] = [0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 5.5, 6.0, 6.5, 7.0, 7.5, 8.0, 8.5, 9.0, 9.5, 10.0, 10.5, 11.0, 11.5];

fn array(values: &[f64], shape: &[usize], block: usize) -> Array {
    Array::from_ndarray(ArrayD::from_shape_vec(shape.to_vec(), values.to_vec()).unwrap(), &ChunkSpec::All(AxisChunks::Size(block))).unwrap()
}

fn values(a: &Array) -> Vec<f64> {
    a.compute().unwrap().typed::<f64>().unwrap().iter().copied().collect()
}

#[test]
fn einsum_is_numpys() {
    for block in [1, 2, 3] {
        let (a, b, c) = (array(&A, &[3, 4], block), array(&B, &[4, 3], block), array(&C, &[2, 3, 4], block));
        let full = tegula::ops::IndexItem::Slice { start: None, stop: None, step: None };
        let square = a.index(&[full, tegula::ops::IndexItem::Slice { start: None, stop: Some(3), step: None }]).unwrap();
        let a_cols = square.t();
        let a_row = a.index(&[tegula::ops::IndexItem::Int(0)]).unwrap();
        let b_row = b.index(&[tegula::ops::IndexItem::Int(0)]).unwrap();
        let cases = [
            ("ij,jk->ik", &[&a, &b] as &[&Array], &[3usize, 3usize] as &[usize], &[-8.0, -9.0, -19.5, 2.0, -5.0, 2.5, 12.0, -1.0, 24.5] as &[f64]),
            ("ij,jk", &[&a, &b] as &[&Array], &[3usize, 3usize] as &[usize], &[-8.0, -9.0, -19.5, 2.0, -5.0, 2.5, 12.0, -1.0, 24.5] as &[f64]),
            ("ii->i", &[&square] as &[&Array], &[3usize] as &[usize], &[-5.0, 0.0, 5.0] as &[f64]),
            ("ii", &[&square] as &[&Array], &[0usize; 0] as &[usize], &[0.0] as &[f64]),
            ("ij->", &[&a] as &[&Array], &[0usize; 0] as &[usize], &[6.0] as &[f64]),
            ("ij->ji", &[&a] as &[&Array], &[4usize, 3usize] as &[usize], &[-5.0, -1.0, 3.0, -4.0, 0.0, 4.0, -3.0, 1.0, 5.0, -2.0, 2.0, 6.0] as &[f64]),
            ("bij,jk->bik", &[&c, &b] as &[&Array], &[2usize, 3usize, 3usize] as &[usize], &[2.25, -2.0, 4.0, 7.25, 0.0, 15.0, 12.25, 2.0, 26.0, 17.25, 4.0, 37.0, 22.25, 6.0, 48.0, 27.25, 8.0, 59.0] as &[f64]),
            ("...j,jk->...k", &[&c, &b] as &[&Array], &[2usize, 3usize, 3usize] as &[usize], &[2.25, -2.0, 4.0, 7.25, 0.0, 15.0, 12.25, 2.0, 26.0, 17.25, 4.0, 37.0, 22.25, 6.0, 48.0, 27.25, 8.0, 59.0] as &[f64]),
            ("ij,ij->i", &[&a, &a] as &[&Array], &[3usize] as &[usize], &[54.0, 6.0, 86.0] as &[f64]),
            ("i,j->ij", &[&a_row, &b_row] as &[&Array], &[4usize, 3usize] as &[usize], &[-5.0, -10.0, -2.5, -4.0, -8.0, -2.0, -3.0, -6.0, -1.5, -2.0, -4.0, -1.0] as &[f64]),
            ("bij,bij->b", &[&c, &c] as &[&Array], &[2usize] as &[usize], &[126.5, 954.5] as &[f64]),
            ("ij,jk,kl->il", &[&a, &b, &a_cols] as &[&Array], &[3usize, 3usize] as &[usize], &[134.5, -11.5, -157.5, 2.5, 0.5, -1.5, -129.5, 12.5, 154.5] as &[f64]),
        ];
        for (subscripts, operands, shape, expected) in cases {
            let result = Array::einsum(subscripts, operands, None).unwrap();
            assert_eq!(result.shape(), shape, "{subscripts}");
            assert_eq!(values(&result), expected, "{subscripts}");
        }
    }
}

#[test]
fn einsum_sums_in_the_result_type_and_refuses_bad_subscripts() {
    let ones = Array::full(&[2, 3], tegula::Scalar::Bool(true), Some(DType::Bool), &ChunkSpec::All(AxisChunks::Size(2))).unwrap();
    let floats = array(&[1.0, 2.0, 3.0], &[3], 2);
    // NumPy: einsum("ij,j->", ones((2, 3), bool), [1., 2., 3.]) == 12.0.
    assert_eq!(values(&Array::einsum("ij,j->", &[&ones, &floats], None).unwrap()), [12.0]);
    let a = array(&A, &[3, 4], 2);
    assert!(matches!(Array::einsum("ij,jk", &[&a], None), Err(TegulaError::Value(m)) if m.contains("contains 2 operands, but 1 were given")));
    assert!(matches!(Array::einsum("i1", &[&a], None), Err(TegulaError::Value(m)) if m.contains("invalid subscript '1'")));
    assert!(matches!(Array::einsum("ii", &[&a], None), Err(TegulaError::Value(_))));
    assert!(matches!(Array::einsum("ij->k", &[&a], None), Err(TegulaError::Value(m)) if m.contains("never appeared")));
    assert!(matches!(Array::einsum("ij,ij", &[&a, &a.t()], None), Err(TegulaError::Value(m)) if m.contains("broadcast")));
}
