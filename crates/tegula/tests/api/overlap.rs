//! `overlap`, `trim_internal` and `map_overlap` with a Rust closure, against Dask's `overlap`
//! and a NumPy stencil on the same data (written out below).

use ndarray::ArrayD;
use std::sync::Arc;
use tegula::ops::Boundary;
use tegula::{Array, AxisChunks, ChunkSpec, Chunk, DType, Element, Scalar, TegulaError};

const X: [f64; 10] = [0.0, 1.0, 2.8284271247461903, 5.196152422706632, 8.0, 11.180339887498949, 14.696938456699069, 18.520259177452132, 22.627416997969522, 27.0];

fn x(block: usize) -> Array {
    Array::from_ndarray(ArrayD::from_shape_vec(vec![10], X.to_vec()).unwrap(), &ChunkSpec::All(AxisChunks::Size(block))).unwrap()
}

fn blocks_3_3_4() -> Array {
    let data = ArrayD::from_shape_vec(vec![10], X.to_vec()).unwrap();
    Array::from_ndarray(data, &ChunkSpec::PerAxis(vec![AxisChunks::Explicit(vec![3, 3, 4])])).unwrap()
}

fn constant(v: f64) -> Boundary {
    Boundary::Constant(Array::full(&[], Scalar::Float(v), None, &ChunkSpec::All(AxisChunks::Full)).unwrap())
}

fn values(a: &Array) -> Vec<f64> {
    a.compute().unwrap().typed::<f64>().unwrap().iter().copied().collect()
}

#[test]
fn overlap_is_dasks_and_trimming_undoes_it() {
    // da.overlap.overlap(da.from_array(X, chunks=((3, 3, 4),)), depth={0: 2}, boundary={0: b}): values, chunks.
    let cases: [(Boundary, &[f64], &[f64]); 5] = [
        (Boundary::Reflect, [1.0, 0.0, 0.0, 1.0, 2.8284271247461903, 5.196152422706632, 8.0, 1.0, 2.8284271247461903, 5.196152422706632, 8.0, 11.180339887498949, 14.696938456699069, 18.520259177452132, 8.0, 11.180339887498949, 14.696938456699069, 18.520259177452132, 22.627416997969522, 27.0, 27.0, 22.627416997969522].as_slice(), [7.0, 7.0, 8.0].as_slice()),
        (Boundary::Periodic, [22.627416997969522, 27.0, 0.0, 1.0, 2.8284271247461903, 5.196152422706632, 8.0, 1.0, 2.8284271247461903, 5.196152422706632, 8.0, 11.180339887498949, 14.696938456699069, 18.520259177452132, 8.0, 11.180339887498949, 14.696938456699069, 18.520259177452132, 22.627416997969522, 27.0, 0.0, 1.0].as_slice(), [7.0, 7.0, 8.0].as_slice()),
        (Boundary::Nearest, [0.0, 0.0, 0.0, 1.0, 2.8284271247461903, 5.196152422706632, 8.0, 1.0, 2.8284271247461903, 5.196152422706632, 8.0, 11.180339887498949, 14.696938456699069, 18.520259177452132, 8.0, 11.180339887498949, 14.696938456699069, 18.520259177452132, 22.627416997969522, 27.0, 27.0, 27.0].as_slice(), [7.0, 7.0, 8.0].as_slice()),
        (Boundary::None, [0.0, 1.0, 2.8284271247461903, 5.196152422706632, 8.0, 1.0, 2.8284271247461903, 5.196152422706632, 8.0, 11.180339887498949, 14.696938456699069, 18.520259177452132, 8.0, 11.180339887498949, 14.696938456699069, 18.520259177452132, 22.627416997969522, 27.0].as_slice(), [5.0, 7.0, 6.0].as_slice()),
        (constant(-1.0), [-1.0, -1.0, 0.0, 1.0, 2.8284271247461903, 5.196152422706632, 8.0, 1.0, 2.8284271247461903, 5.196152422706632, 8.0, 11.180339887498949, 14.696938456699069, 18.520259177452132, 8.0, 11.180339887498949, 14.696938456699069, 18.520259177452132, 22.627416997969522, 27.0, -1.0, -1.0].as_slice(), [7.0, 7.0, 8.0].as_slice()),
    ];
    for (boundary, expected, chunks) in cases {
        let extended = blocks_3_3_4().overlap(&[[2, 2]], std::slice::from_ref(&boundary), true).unwrap();
        assert_eq!(values(&extended), expected, "{boundary:?}");
        let lengths: Vec<f64> = extended.chunks().sizes()[0].iter().map(|&n| n as f64).collect();
        assert_eq!(lengths, chunks, "{boundary:?}");
        let trimmed = extended.trim_internal(&[[2, 2]], &[boundary]).unwrap();
        assert_eq!(values(&trimmed), X);
        assert_eq!(trimmed.chunks(), blocks_3_3_4().chunks());
    }
    assert!(matches!(x(3).overlap(&[[2, 2]], &[Boundary::None], false), Err(TegulaError::Value(m)) if m.contains("allow_rechunk")));
}

#[test]
fn map_overlap_runs_a_rust_closure_on_extended_blocks() {
    // A three-point mean with the edges repeated: NumPy's (p[:-2] + p[1:-1] + p[2:]) / 3 of
    // np.pad(X, 1, mode="edge").
    let mean3 = Arc::new(|_block: &[usize], args: &[Chunk]| -> tegula::Result<Chunk> {
        let v = args[0].typed::<f64>()?;
        let n = v.len();
        let mut out = ndarray::Array1::<f64>::zeros(n);
        for i in 1..n - 1 {
            out[i] = (v[[i - 1]] + v[[i]] + v[[i + 1]]) / 3.0;
        }
        Ok(Element::wrap(out.into_dyn().into()))
    });
    for block in [2, 3, 4, 10] {
        let smoothed = Array::map_overlap(&[&x(block)], mean3.clone(), "mean3", &[[1, 1]], &[Boundary::Nearest], DType::Float64).unwrap();
        let got = values(&smoothed);
        let expected = [0.3333333333333333, 1.2761423749153968, 3.008193182484274, 5.341526515817608, 8.125497436735193, 11.292426114732672, 14.799179173883383, 18.61487154404024, 22.715892058473884, 25.542472332656505];
        assert!(got.iter().zip(&expected).all(|(a, e)| (a - e).abs() < 1e-12), "{got:?} against {expected:?}");
        assert_eq!(smoothed.chunks(), x(block).chunks());
    }
}
