//! Arrays on disk through the Rust API: what is written to Zarr (every format and codec) or
//! `.npy` reads back bit-exactly, whole or by region, whatever the chunkings.

use proptest::prelude::*;
use tegula::random::Generator;
use tegula::{Array, AxisChunks, ChunkSpec, Chunk, ComputeOptions, io::{Codec, ZarrOptions}, ops::IndexItem};

fn values(c: &Chunk) -> Vec<f64> {
    c.typed::<f64>().unwrap().iter().copied().collect()
}

fn options(format: u8, chunk_shape: Vec<usize>, codec: Codec) -> ZarrOptions {
    ZarrOptions { format, chunk_shape, codec, shard_shape: None, fill_value: None, attributes: "{}".into(), overwrite: false }
}

/// A new directory for one test case (removed by the case).
fn temp_dir() -> std::path::PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("tegula-store-test-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn zarr_and_npy_round_trip(rows in 1usize..40, cols in 1usize..9, block in 1usize..12, stored in 1usize..15,
                               format in 2u8..4, codec in 0usize..4, lo in 0usize..40) {
        let x = Generator::new(7).random(&[rows, cols], &ChunkSpec::All(AxisChunks::Size(block))).unwrap();
        let expected = values(&x.compute().unwrap());
        let dir = temp_dir();
        let codec = [Codec::None, Codec::Zstd { level: 1 }, Codec::Gzip { level: 1 }, Codec::Blosc { level: 5 }][codec].clone();
        let path = dir.join("a.zarr").to_string_lossy().into_owned();
        x.to_zarr(&path, &options(format, vec![stored, cols], codec), ComputeOptions::default()).unwrap();
        let back = Array::from_source(tegula::io::open_zarr(&path).unwrap(), None).unwrap();
        prop_assert_eq!(values(&back.compute().unwrap()), expected.clone());
        // a region of rows, read alone
        let lo = lo.min(rows - 1);
        let part = back.index(&[IndexItem::Slice { start: Some(lo as i64), stop: None, step: None }]).unwrap();
        prop_assert_eq!(values(&part.compute().unwrap()), expected[lo * cols..].to_vec());
        let npy = dir.join("a.npy").to_string_lossy().into_owned();
        x.to_npy(&npy, false, ComputeOptions::default()).unwrap();
        let spec = ChunkSpec::All(AxisChunks::Size(stored));
        let back = Array::from_source(tegula::io::open_npy(&npy).unwrap(), Some(&spec)).unwrap();
        prop_assert_eq!(values(&back.compute().unwrap()), expected);
        std::fs::remove_dir_all(dir).unwrap();
    }
}

#[test]
fn a_store_that_exists_is_refused_and_kept() {
    let dir = temp_dir();
    let path = dir.join("a.zarr").to_string_lossy().into_owned();
    let x = Array::zeros(&[4], tegula::DType::Float64, &ChunkSpec::All(AxisChunks::Size(2))).unwrap();
    x.to_zarr(&path, &options(3, vec![2], Codec::None), ComputeOptions::default()).unwrap();
    let again = x.to_zarr(&path, &options(3, vec![2], Codec::None), ComputeOptions::default());
    assert!(matches!(again, Err(tegula::TegulaError::Exists(_))));
    let source = tegula::io::open_zarr(&path).unwrap();
    assert_eq!(source.info().shape, vec![4]);
    let missing = tegula::io::open_zarr(&dir.join("missing").to_string_lossy());
    assert!(matches!(missing, Err(tegula::TegulaError::NotFound(_))));
    std::fs::remove_dir_all(dir).unwrap();
}
