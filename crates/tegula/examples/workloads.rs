//! The seed workloads from Rust, each printing its result and time: square matmul and
//! `x @ x.T`, tall-skinny QR and SVD, logistic regression by Newton's method, mean, std and
//! quantiles of a Zarr array, `unique`, `einsum`, a stencil with a Rust closure, and a sort.
//!
//! cargo run --release -p tegula --example workloads [NAME ...] [--scale N] [--small] [--bits]
//!
//! Without names every workload runs; `--scale` multiplies the sizes (default 1: seconds each)
//! and `--small` divides them by 10; `--bits` prints each result's values as the hex of their
//! float64 bits, which `tests/test_same_engine.py` compares with the same program in Python.

use std::sync::Arc;
use std::time::Instant;
use tegula::linalg::{Linalg, LinalgOp};
use tegula::ops::{Boundary, QuantileSpec, Quantiles, UniqueSpec};
use tegula::random::Generator;
use tegula::{compute, Array, AxisChunks, ChunkSpec, Chunk, ComputeOptions, DType, Element, Result, Scalar};

/// Sizes: a workload's base sizes times `scale`, divided by `divisor`.
#[derive(Clone, Copy)]
struct Size {
    scale: usize,
    divisor: usize,
}

impl Size {
    fn of(self, base: usize) -> usize {
        (base * self.scale / self.divisor).max(1)
    }
}

/// A workload's report and the values whose bits identify its result.
type Outcome = (String, Vec<f64>);
type Workload = fn(Size) -> Result<Outcome>;

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
    let size = Size { scale, divisor: if args.iter().any(|a| a == "--small") { 10 } else { 1 } };
    let bits = args.iter().any(|a| a == "--bits");
    let names: Vec<&String> = args.iter().filter(|a| !a.starts_with("--") && a.parse::<usize>().is_err()).collect();
    for (name, run) in WORKLOADS {
        if names.is_empty() || names.iter().any(|n| *n == name) {
            let start = Instant::now();
            let (report, values) = run(size)?;
            if bits {
                let hex: Vec<String> = values.iter().map(|v| format!("{:016x}", v.to_bits())).collect();
                println!("{name} {}", hex.join(" "));
            } else {
                println!("{name:>10}: {report} ({:.2?})", start.elapsed());
            }
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

/// `sum(x @ y)` of two square matrices in four by four blocks.
fn matmul(size: Size) -> Result<Outcome> {
    let n = size.of(2000);
    let rng = Generator::new(1);
    let (x, y) = (rng.random(&[n, n], &blocks(n.div_ceil(4)))?, rng.random(&[n, n], &blocks(n.div_ceil(4)))?);
    let total = scalar(&x.matmul(&y)?.sum(None, false)?.compute()?)?;
    Ok((format!("sum(x @ y) = {total:.6e}"), vec![total]))
}

/// `sum(x @ x.T)`: the product of a matrix and its transpose, symmetric blocks shared.
fn gram(size: Size) -> Result<Outcome> {
    let x = Generator::new(2).random(&[size.of(4000), size.of(1000)], &blocks(size.of(1000)))?;
    let total = scalar(&x.matmul(&x.t())?.sum(None, false)?.compute()?)?;
    Ok((format!("sum(x @ x.T) = {total:.6e}"), vec![total]))
}

/// QR and SVD of a tall matrix in row blocks, by TSQR.
fn tsqr(size: Size) -> Result<Outcome> {
    let rows = ChunkSpec::PerAxis(vec![AxisChunks::Size(size.of(20_000)), AxisChunks::Full]);
    let x = Generator::new(3).standard_normal(&[size.of(200_000), 50], &rows)?;
    let la = Linalg::default();
    let (_, r) = la.qr(&x, false)?;
    let s = la.svdvals(&x)?;
    let corner = r.index(&[tegula::ops::IndexItem::Int(0), tegula::ops::IndexItem::Int(0)])?;
    let (out, _) = compute(&[&corner, &s], ComputeOptions::default())?;
    let s: Vec<f64> = out[1].typed::<f64>()?.iter().copied().collect();
    let report = format!("|R[0, 0]| = {:.4}, singular values {:.4} .. {:.4}", scalar(&out[0])?.abs(), s[0], s[s.len() - 1]);
    Ok((report, s))
}

/// Logistic regression by Newton's method: gradient `X.T @ (mu - y)`, Hessian `(X.T * w) @ X`.
fn logreg(size: Size) -> Result<Outcome> {
    let (n, d, rows) = (size.of(400_000), 20, size.of(50_000));
    let rng = Generator::new(4);
    let x = rng.standard_normal(&[n, d], &ChunkSpec::PerAxis(vec![AxisChunks::Size(rows), AxisChunks::Full]))?;
    let truth = Array::linspace(-1.0, 1.0, d, true, DType::Float64, &blocks(d))?;
    let noise = rng.standard_normal(&[n], &blocks(rows))?;
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
    let w: Vec<f64> = w.compute()?.typed::<f64>()?.iter().copied().collect();
    Ok((format!("w[0] = {:.4}, w[-1] = {:.4} (the truth's signs: -, +)", w[0], w[d - 1]), w))
}

/// Mean, standard deviation and quartiles of a Zarr array written and read back.
fn zarr_stats(size: Size) -> Result<Outcome> {
    let dir = std::env::temp_dir().join(format!("tegula-workloads-{}", std::process::id()));
    let path = dir.join("x.zarr").to_string_lossy().into_owned();
    let block = size.of(1000);
    let x = Generator::new(5).standard_normal(&[size.of(4000), size.of(2000)], &blocks(block))?;
    let options = tegula::io::ZarrOptions {
        format: 3,
        chunk_shape: vec![block, block],
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
    let mut values = vec![scalar(&out[0])?, scalar(&out[1])?];
    values.extend(out[2].typed::<f64>()?.iter().copied());
    let report = format!("mean {:.4}, std {:.4}, quartiles {:.4} {:.4} {:.4}", values[0], values[1], values[2], values[3], values[4]);
    Ok((report, values))
}

/// The distinct values of random integers, and their counts.
fn unique(size: Size) -> Result<Outcome> {
    let x = Generator::new(6).integers(0, 1000, &[size.of(2_000_000)], &blocks(size.of(250_000)))?;
    let found = x.unique(&UniqueSpec { counts: true, ..UniqueSpec::default() })?;
    let counts: Vec<f64> = found.counts.expect("asked for").compute()?.typed::<i64>()?.iter().map(|&c| c as f64).collect();
    let (least, most) = counts.iter().fold((f64::INFINITY, 0.0f64), |(l, m), &c| (l.min(c), m.max(c)));
    Ok((format!("{} distinct values, counts {least} .. {most}", counts.len()), counts))
}

/// `einsum("ij,jk,k->i")`: a chain contracted pairwise.
fn einsum(size: Size) -> Result<Outcome> {
    let rng = Generator::new(7);
    let (m, k, n) = (size.of(2000), size.of(1000), size.of(800));
    let a = rng.random(&[m, k], &blocks(size.of(500)))?;
    let b = rng.random(&[k, n], &blocks(size.of(500)))?;
    let v = rng.random(&[n], &blocks(size.of(400)))?;
    let total = scalar(&Array::einsum("ij,jk,k->i", &[&a, &b, &v], None)?.sum(None, false)?.compute()?)?;
    Ok((format!("sum(einsum('ij,jk,k->i')) = {total:.6e}"), vec![total]))
}

/// A five-point Laplacian of a grid, block by block, with a Rust closure over each block
/// extended by one element of its neighbours (the grid's edges repeated).
fn stencil(size: Size) -> Result<Outcome> {
    let n = size.of(4000);
    let grid = Generator::new(8).random(&[n, n], &blocks(size.of(1000)))?;
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
    let total = scalar(&result.sum(None, false)?.compute()?)?;
    Ok((format!("sum of the Laplacian = {total:.6e}"), vec![total]))
}

/// A sort of 10⁷ float64 values, checked in order.
fn sort(size: Size) -> Result<Outcome> {
    let x = Generator::new(9).random(&[size.of(10_000_000)], &blocks(size.of(1_000_000)))?;
    let sorted: Vec<f64> = x.sort(0, false)?.compute()?.typed::<f64>()?.iter().copied().collect();
    let ordered = sorted.windows(2).all(|w| w[0] <= w[1]);
    let ends = vec![sorted[0], sorted[sorted.len() / 2], sorted[sorted.len() - 1]];
    Ok((format!("{} values, in order: {ordered}", sorted.len()), ends))
}
