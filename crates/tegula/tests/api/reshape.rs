//! `reshape` against ndarray's row-major reshape of the same data, over random shapes,
//! chunkings and target shapes; and no node of its plan has a block larger than the input's
//! chunk size.

use ndarray::ArrayD;
use proptest::prelude::*;
use tegula::{Array, AxisChunks, ChunkSpec, ComputeOptions, execute::Threaded};
use tegula_plan::walk::topological;

/// One axis: its length and irregular block lengths (drawn from `cuts`, the last one clipped).
fn axis() -> impl Strategy<Value = (usize, Vec<usize>)> {
    (0usize..=6, prop::collection::vec(1usize..=4, 6)).prop_map(|(n, cuts)| {
        let mut sizes = Vec::new();
        for c in cuts {
            let done: usize = sizes.iter().sum();
            if done < n {
                sizes.push(c.min(n - done));
            }
        }
        (n, sizes)
    })
}

/// A target shape of `size` elements: up to three divisors picked by `picks`, then what is
/// left, with length-one axes where `ones` says; `minus` makes one length `-1`.
fn target(size: usize, picks: &[usize], ones: &[usize], minus: Option<usize>) -> Vec<i64> {
    let mut dims = Vec::new();
    let mut rest = size;
    for &p in picks {
        let d = if rest == 0 { p % 3 + 1 } else { (1..=rest).filter(|d| rest.is_multiple_of(*d)).nth(p % divisors(rest)).unwrap_or(1) };
        dims.push(d as i64);
        rest = if rest == 0 { 0 } else { rest / d };
    }
    dims.push(rest as i64);
    for &o in ones {
        dims.insert(o % (dims.len() + 1), 1);
    }
    if let Some(m) = minus {
        // With no elements, only the zero length can be inferred.
        let at = if size == 0 { dims.iter().position(|&d| d == 0).unwrap_or(0) } else { m % dims.len() };
        dims[at] = -1;
    }
    dims
}

fn divisors(n: usize) -> usize {
    (1..=n).filter(|d| n.is_multiple_of(*d)).count()
}

fn max_block(chunks: &tegula::Chunks) -> usize {
    chunks.max_block_shape().iter().product()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn reshape_matches_ndarray_and_never_grows_blocks(
        axes in prop::collection::vec(axis(), 0..=4),
        picks in prop::collection::vec(0usize..12, 0..=3),
        ones in prop::collection::vec(0usize..5, 0..=1),
        minus in prop::option::of(0usize..5),
        fuse in any::<bool>(),
    ) {
        let shape: Vec<usize> = axes.iter().map(|(n, _)| *n).collect();
        let size: usize = shape.iter().product();
        let data = ArrayD::from_shape_vec(shape.clone(), (0..size as i64).collect()).unwrap();
        let chunks = ChunkSpec::PerAxis(axes.iter().map(|(n, s)| if *n == 0 { AxisChunks::Full } else { AxisChunks::Explicit(s.clone()) }).collect());
        let x = Array::from_ndarray(data.clone(), &chunks).unwrap();
        let wanted = target(size, &picks, &ones, minus);
        let y = x.reshape(&wanted).unwrap();
        let dims: Vec<usize> = wanted.iter().zip(y.shape()).map(|(&w, n)| if w < 0 { n } else { w as usize }).collect();
        prop_assert_eq!(y.shape(), dims.clone());
        let expected = data.into_shape_with_order(dims).unwrap();
        let options = ComputeOptions { executor: std::sync::Arc::new(Threaded { threads: 2 }), fuse, spec: None };
        let (got, _) = y.compute_with(options).unwrap();
        prop_assert_eq!(got.typed::<i64>().unwrap(), &expected.into());
        let bound = max_block(x.chunks());
        for node in topological(std::slice::from_ref(y.node())) {
            prop_assert!(max_block(&node.chunks) <= bound, "{} has chunks {:?}, input {:?}", node.label(), node.chunks, x.chunks());
        }
    }
}

#[test]
fn flattening_a_tiled_matrix_keeps_the_block_size() {
    let x = Array::zeros(&[1000, 1000], tegula::DType::Float32, &ChunkSpec::All(AxisChunks::Size(100))).unwrap();
    let y = x.reshape(&[-1]).unwrap();
    assert_eq!(y.chunks().sizes(), &[vec![10_000; 100]]);
    let z = y.reshape(&[100, 10, 1000]).unwrap();
    assert_eq!(z.chunks().max_block_shape(), vec![1, 10, 1000]);
}

#[test]
fn errors_speak_numpy() {
    let x = Array::zeros(&[2, 3], tegula::DType::Int8, &ChunkSpec::All(AxisChunks::Size(2))).unwrap();
    let message = |shape: &[i64]| x.reshape(shape).unwrap_err().to_string();
    assert!(message(&[4]).contains("cannot reshape array of size 6 into shape (4,)"));
    assert!(message(&[4, -1]).contains("cannot reshape array of size 6 into shape (4,newaxis)"));
    assert!(message(&[-1, -1]).contains("can only specify one unknown dimension"));
    assert!(matches!(x.reshape(&[5]), Err(tegula::TegulaError::Shape(_))));
    assert!(matches!(x.reshape(&[-1, -1]), Err(tegula::TegulaError::Value(_))));
    let empty = Array::zeros(&[0, 3], tegula::DType::Int8, &ChunkSpec::All(AxisChunks::Size(2))).unwrap();
    assert!(empty.reshape(&[0, -1]).is_err());
    assert_eq!(empty.reshape(&[3, -1]).unwrap().shape(), vec![3, 0]);
}
