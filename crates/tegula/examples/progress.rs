//! A progress bar for a long computation: the executor tells a `tegula::execute::Progress` about each
//! task as it ends, and this thread draws its counters with indicatif while another computes.
//!
//!     cargo run --release --example progress -- 400000000

use indicatif::{ProgressBar, ProgressStyle};
use std::time::Duration;
use tegula::random::Generator;
use tegula::{AxisChunks, ChunkSpec, Scalar, execute::{compute_observed, Threaded, Progress}, ops::BinaryOp};

fn main() -> tegula::Result<()> {
    let points: usize = std::env::args().nth(1).and_then(|n| n.parse().ok()).unwrap_or(100_000_000);
    let chunks = ChunkSpec::All(AxisChunks::Size(1_000_000));
    let rng = Generator::new(2026);
    let (x, y) = (rng.random(&[points], &chunks)?, rng.random(&[points], &chunks)?);
    let r2 = x.mul(&x)?.add(&y.mul(&y)?)?;
    let inside = r2.binary_scalar(BinaryOp::Less, Scalar::Float(1.0), false)?.sum(None, false)?;

    let progress = Progress::new();
    let bar = ProgressBar::new(inside.task_count()? as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} tasks  {msg}  {elapsed} (eta {eta})")
            .expect("a valid template"),
    );
    let (result, _, _) = std::thread::scope(|scope| {
        let worker = scope.spawn(|| compute_observed(&[&inside], Threaded::default(), Some(&progress), false));
        while !worker.is_finished() {
            let (done, _, bytes) = progress.snapshot();
            bar.set_position(done as u64);
            bar.set_message(format!("{:.1} MB made", bytes as f64 / 1e6));
            std::thread::sleep(Duration::from_millis(100));
        }
        worker.join().expect("the computation's thread ended normally")
    })?;
    bar.finish();
    let count = result[0].cast(tegula::DType::Float64).typed::<f64>()?.iter().copied().sum::<f64>();
    println!("pi ~= {:.6} from {points} points", 4.0 * count / points as f64);
    Ok(())
}
