//! The machine's memory bandwidth, measured the way STREAM does, on `threads` threads:
//! `triad` (a[i] = b[i] + s * c[i], counted as 24 bytes per element) and `read` (a sum over
//! one array, 8 bytes per element, the limit of a reduction over data in memory). Arrays of
//! 2^27 float64 (1 GiB each) are far larger than any cache; each figure is the best of 5 runs.
//!
//!     rustc -C opt-level=3 bench/triad.rs -o triad && ./triad <threads>
//!
//! Prints one JSON line: {"threads", "triad_gbs", "read_gbs"}.

use std::time::Instant;

const N: usize = 1 << 27;

fn split<T>(v: &mut [T], parts: usize) -> Vec<&mut [T]> {
    let per = v.len().div_ceil(parts);
    v.chunks_mut(per).collect()
}

fn best_of<F: FnMut()>(mut f: F) -> f64 {
    (0..5).map(|_| {
        let t = Instant::now();
        f();
        t.elapsed().as_secs_f64()
    }).fold(f64::INFINITY, f64::min)
}

fn main() {
    let threads: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(1);
    let mut a = vec![0.0f64; N];
    let mut b = vec![1.0f64; N];
    let c = vec![2.0f64; N];
    let per = N.div_ceil(threads);
    let triad = best_of(|| {
        std::thread::scope(|s| {
            for ((a, b), c) in split(&mut a, threads).into_iter().zip(b.chunks(per)).zip(c.chunks(per)) {
                s.spawn(move || a.iter_mut().zip(b).zip(c).for_each(|((a, b), c)| *a = b + 3.0 * c));
            }
        })
    });
    b.iter_mut().enumerate().for_each(|(i, v)| *v = i as f64);
    let mut total = 0.0;
    let read = best_of(|| {
        total = std::thread::scope(|s| {
            let handles: Vec<_> = b.chunks(per).map(|part| s.spawn(move || {
                let mut acc = [0.0f64; 8];
                for row in part.chunks_exact(8) {
                    for i in 0..8 {
                        acc[i] += row[i];
                    }
                }
                acc.iter().sum::<f64>()
            })).collect();
            handles.into_iter().map(|h| h.join().unwrap_or(0.0)).sum::<f64>()
        });
    });
    std::hint::black_box((&a, total));
    let gb = |bytes: usize, secs: f64| bytes as f64 / secs / 1e9;
    println!(
        "{{\"threads\": {threads}, \"triad_gbs\": {:.2}, \"read_gbs\": {:.2}}}",
        gb(24 * N, triad),
        gb(8 * N, read)
    );
}
