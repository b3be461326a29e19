//! The seed workloads from Rust, each printing its result and time: square matmul and
//! `x @ x.T`, tall-skinny QR and SVD, logistic regression by Newton's method, mean, std and
//! quantiles of a Zarr array, `unique`, `einsum`, a stencil with a Rust closure, and a sort.
//!
//! cargo run --release -p tegula --example workloads [NAME ...] [--scale N]
//!
//! Without names every workload runs; `--scale` multiplies the sizes (default 1: seconds each).

use std::sync::Arc;
use std::time::Instant;
use tegula::linalg::{Linalg, LinalgOp};
use tegula::ops::{Boundary, QuantileSpec, Quantiles, UniqueSpec};
use tegula::random::Generator;
use tegula::{compute, Array, AxisChunks, ChunkSpec, Chunk, ComputeOptions, DType, Element, Result, Scalar};

type Workload = fn(usize) -> Result<String>;

const WORKLOADS: [(&str, Workload); 9] = [
    ("matmul", matmul),
    ("gram", gram),
    ("tsqr", tsqr),
    ("logreg", logreg),
    ("zarr-stats", zarr_stats),
    ("unique", unique),
    ("einsum", einsum),
    ("stencil", stencil),
    ("sort", sort),
];

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let scale = args.iter().position(|a| a == "--scale").and_then(|i| args.get(i + 1)).map_or(Ok(1), |s| s.parse()).unwrap_or(1);
    let names: Vec<&String> = args.iter().filter(|a| !a.starts_with("--") && a.parse::<usize>().is_err()).collect();
    for (name, run) in WORKLOADS {
        if names.is_empty() || names.iter().any(|n| *n == name) {
            let start = Instant::now();
            let result = run(scale)?;
            println!("{name:>10}: {result} ({:.2?})", start.elapsed());
        }
    }
    Ok(())
}

fn blocks(size: usize) -> ChunkSpec {
    ChunkSpec::All(AxisChunks::Size(size))
}

fn scalar(chunk: &Chunk) -> Result<f64> {
    Ok(chunk.typed::<f64>()?.iter().copied().sum())
}

/// `sum(x @ y)` of two 2000·scale square matrices in 500·scale blocks.
fn matmul(scale: usize) -> Result<String> {
    let n = 2000 * scale;
    let rng = Generator::new(1);
    let (x, y) = (rng.random(&[n, n], &blocks(n / 4))?, rng.random(&[n, n], &blocks(n / 4))?);
    Ok(format!("sum(x @ y) = {:.6e}", scalar(&x.matmul(&y)?.sum(None, false)?.compute()?)?))
}

/// `sum(x @ x.T)`: the product of a matrix and its transpose, symmetric blocks shared.
fn gram(scale: usize) -> Result<String> {
    let x = Generator::new(2).random(&[4000 * scale, 1000], &blocks(1000))?;
    Ok(format!("sum(x @ x.T) = {:.6e}", scalar(&x.matmul(&x.t())?.sum(None, false)?.compute()?)?))
}

/// QR and SVD of a tall matrix in row blocks, by TSQR.
fn tsqr(scale: usize) -> Result<String> {
    let x = Generator::new(3).standard_normal(&[200_000 * scale, 50], &ChunkSpec::PerAxis(vec![AxisChunks::Size(20_000), AxisChunks::Full]))?;
    let la = Linalg::default();
    let (_, r) = la.qr(&x, false)?;
    let s = la.svdvals(&x)?;
    let (out, _) = compute(&[&r.index(&[tegula::ops::IndexItem::Int(0), tegula::ops::IndexItem::Int(0)])?, &s], ComputeOptions::default())?;
    let s = out[1].typed::<f64>()?;
    Ok(format!("|R[0, 0]| = {:.4}, singular values {:.4} .. {:.4}", scalar(&out[0])?.abs(), s[[0]], s[[s.len() - 1]]))
}

/// Logistic regression by Newton's method: gradient `X.T @ (mu - y)`, Hessian `(X.T * w) @ X`.
fn logreg(scale: usize) -> Result<String> {
    let (n, d) = (400_000 * scale, 20);
    let rng = Generator::new(4);
    let rows = ChunkSpec::PerAxis(vec![AxisChunks::Size(50_000), AxisChunks::Full]);
    let x = rng.standard_normal(&[n, d], &rows)?;
    let truth = Array::from_ndarray(ndarray::Array1::linspace(-1.0, 1.0, d).into_dyn(), &blocks(d))?;
    let noise = rng.standard_normal(&[n], &blocks(50_000))?;
    let y = x.matmul(&truth)?.add(&noise)?.binary_scalar(tegula::ops::BinaryOp::Greater, Scalar::Int(0), false)?.astype(DType::Float64)?;
    let (x, y) = {
        let kept = tegula::execute::persist(&[&x, &y], ComputeOptions::default())?;
        (kept[0].clone(), kept[1].clone())
    };
    let mut w = Array::zeros(&[d], DType::Float64, &blocks(d))?;
    for _ in 0..6 {
        let z = x.matmul(&w)?;
        let mu = z.unary(tegula::ops::UnaryOp::Negative)?.unary(tegula::ops::UnaryOp::Exp)?.add_scalar(1.0)?;
        let mu = mu.binary_scalar(tegula::ops::BinaryOp::Divide, Scalar::Int(1), true)?;
        let gradient = x.t().matmul(&mu.sub(&y)?)?;
        let weight = mu.mul(&mu.binary_scalar(tegula::ops::BinaryOp::Subtract, Scalar::Int(1), true)?)?;
        let hessian = x.t().mul(&weight)?.matmul(&x)?;
        let step = hessian.linalg(LinalgOp::Solve, &[&gradient.reshape(&[d as i64, 1])?])?.reshape(&[d as i64])?;
        let (out, _) = compute(&[&w.sub(&step)?], ComputeOptions::default())?;
        w = Array::from_chunk(out.into_iter().next().expect("one result"), &blocks(d))?;
    }
    let w = w.compute()?;
    let w = w.typed::<f64>()?;
    Ok(format!("w[0] = {:.4}, w[-1] = {:.4} (the truth's signs: -, +)", w[[0]], w[[d - 1]]))
}

/// Mean, standard deviation and quartiles of a Zarr array written and read back.
fn zarr_stats(scale: usize) -> Result<String> {
    let dir = std::env::temp_dir().join(format!("tegula-workloads-{}", std::process::id()));
    let path = dir.join("x.zarr").to_string_lossy().into_owned();
    let x = Generator::new(5).standard_normal(&[4000 * scale, 2000], &blocks(1000))?;
    let options = tegula::io::ZarrOptions {
        format: 3,
        chunk_shape: vec![1000, 1000],
        codec: tegula::io::Codec::Zstd { level: 1 },
        shard_shape: None,
        fill_value: None,
        attributes: "{}".into(),
        overwrite: true,
    };
    x.to_zarr(&path, &options, ComputeOptions::default())?;
    let stored = Array::from_source(tegula::io::open_zarr(&path)?, None)?;
    let quartiles = stored.quantile(&Quantiles::of(&[0.25, 0.5, 0.75])?, &QuantileSpec::new(None))?;
    let (out, _) = compute(&[&stored.mean(None, false)?, &stored.std(None, false)?, &quartiles], ComputeOptions::default())?;
    let _ = std::fs::remove_dir_all(&dir);
    let q = out[2].typed::<f64>()?;
    Ok(format!("mean {:.4}, std {:.4}, quartiles {:.4} {:.4} {:.4}", scalar(&out[0])?, scalar(&out[1])?, q[[0]], q[[1]], q[[2]]))
}

/// The distinct values of random integers, and their counts.
fn unique(scale: usize) -> Result<String> {
    let x = Generator::new(6).integers(0, 1000, &[2_000_000 * scale], &blocks(250_000))?;
    let found = x.unique(&UniqueSpec { counts: true, ..UniqueSpec::default() })?;
    let counts = found.counts.expect("asked for").compute()?;
    let counts = counts.typed::<i64>()?;
    Ok(format!("{} distinct values, counts {} .. {}", counts.len(), counts.iter().min().unwrap_or(&0), counts.iter().max().unwrap_or(&0)))
}

/// `einsum("ij,jk,k->i")`: a chain contracted pairwise.
fn einsum(scale: usize) -> Result<String> {
    let rng = Generator::new(7);
    let (a, b, v) = (rng.random(&[2000 * scale, 1000], &blocks(500))?, rng.random(&[1000, 800], &blocks(500))?, rng.random(&[800], &blocks(400))?);
    let out = Array::einsum("ij,jk,k->i", &[&a, &b, &v], None)?.sum(None, false)?.compute()?;
    Ok(format!("sum(einsum('ij,jk,k->i')) = {:.6e}", scalar(&out)?))
}

/// A five-point Laplacian of a grid, block by block, with a Rust closure over each block
/// extended by one element of its neighbours (the grid's edges repeated).
fn stencil(scale: usize) -> Result<String> {
    let n = 4000 * scale;
    let grid = Generator::new(8).random(&[n, n], &blocks(1000))?;
    let laplacian = Arc::new(|_block: &[usize], args: &[Chunk]| -> Result<Chunk> {
        let v = args[0].typed::<f64>()?;
        let (rows, cols) = (v.shape()[0], v.shape()[1]);
        let mut out = ndarray::Array2::<f64>::zeros((rows, cols));
        for i in 1..rows - 1 {
            for j in 1..cols - 1 {
                out[[i, j]] = v[[i - 1, j]] + v[[i + 1, j]] + v[[i, j - 1]] + v[[i, j + 1]] - 4.0 * v[[i, j]];
            }
        }
        Ok(Element::wrap(out.into_dyn().into()))
    });
    let result = Array::map_overlap(&[&grid], laplacian, "laplacian", &[[1, 1], [1, 1]], &[Boundary::Nearest, Boundary::Nearest], DType::Float64)?;
    Ok(format!("sum of the Laplacian = {:.6e}", scalar(&result.sum(None, false)?.compute()?)?))
}

/// A sort of 10⁷·scale float64 values, checked in order.
fn sort(scale: usize) -> Result<String> {
    let x = Generator::new(9).random(&[10_000_000 * scale], &blocks(1_000_000))?;
    let sorted = x.sort(0, false)?.compute()?;
    let sorted = sorted.typed::<f64>()?;
    let values: Vec<f64> = sorted.iter().copied().collect();
    let ordered = values.windows(2).all(|w| w[0] <= w[1]);
    Ok(format!("{} values, in order: {ordered}", sorted.len()))
}
