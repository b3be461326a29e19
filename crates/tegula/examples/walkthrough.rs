//! The walkthrough of the README, from Rust: lazy chunked arrays, one plan, all cores.
//!
//! cargo run --release -p tegula --example walkthrough

use ndarray::ArrayD;
use tegula::random::Generator;
use tegula::{compute, Array, AxisChunks, ChunkSpec, Result, ops::BinaryOp, execute::Threaded};

fn main() -> Result<()> {
    // 20000 x 20000 random float64 (3.2 GB) in 2000 x 2000 chunks: lazy, nothing allocated.
    let x = Generator::new(42).random(&[20_000, 20_000], &ChunkSpec::All(AxisChunks::Size(2_000)))?;
    // ((x + 1) * 2 - x.T).mean(axis=0): still lazy.
    let y = x.add_scalar(1.0)?.mul_scalar(2.0)?.sub(&x.t())?.mean(Some(&[0]), false)?;
    println!("{y}");
    print!("{}", y.explain()?);
    let start = std::time::Instant::now();
    let (out, report) = y.compute_with(Threaded::default())?;
    let out = out.typed::<f64>()?;
    println!(
        "computed {} values in {:.2?} ({} tasks, at most {:.0} MB of chunks held); first: {:.4}",
        out.len(),
        start.elapsed(),
        report.tasks,
        report.peak_bytes as f64 / 1e6,
        out[[0]]
    );

    // Several outputs in one pass: the shared input is read once.
    let data = ArrayD::from_shape_vec(vec![3, 4], (0..12).map(f64::from).collect()).expect("12 values");
    let a = Array::from_ndarray(data, &ChunkSpec::All(AxisChunks::Size(2)))?;
    let (results, _) = compute(&[&a.sum(None, false)?, &a.mean(Some(&[1]), false)?], Threaded::default())?;
    println!("sum = {}, row means = {}", results[0].typed::<f64>()?, results[1].typed::<f64>()?);

    // a @ a.T as blockwise products plus a tree sum.
    let gram = a.matmul(&a.t())?.compute()?;
    println!("a @ a.T =\n{}", gram.typed::<f64>()?);

    // NumPy's weak scalars: int8 + 1 stays int8; errors are values, never panics.
    let small = Array::from_ndarray(ArrayD::from_elem(vec![4], 100i8), &ChunkSpec::Auto(1 << 20))?;
    println!("int8 + 1 -> {}", small.add_scalar(1i64)?.dtype());
    match small.binary_scalar(BinaryOp::Add, tegula::Scalar::Int(1000), false) {
        Err(e) => println!("int8 + 1000 -> error: {e}"),
        Ok(_) => println!("int8 + 1000 -> unexpectedly accepted"),
    }
    Ok(())
}
