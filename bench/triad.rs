//! The machine's memory bandwidth, measured the way STREAM does, on `threads` threads:
//! `triad` (a[i] = b[i] + s * c[i], counted as 24 bytes per element) and `read` (a sum over
//! one array, 8 bytes per element, the limit of a reduction over data in memory). Arrays of
//! 2^27 float64 (1 GiB each) are far larger than any cache; each figure is the best of 5 runs.
//!
//!     rustc -C opt-level=3 bench/triad.rs -o triad && ./triad <threads> [serve]
//!
//! Prints one JSON line: {"threads", "triad_gbs", "read_gbs"}. With `serve`, it measures
//! `read` again for each line it reads on its standard input and prints {"threads",
//! "read_gbs"} each time, a fraction of a second with the array already in memory, so that a
//! benchmark can measure the limit between the runs of the workload it judges.
//!
//! The arrays are asked for in transparent huge pages where Linux allows that on request, as
//! tegula asks for its big buffers, so that the limit is not understated by TLB misses that
//! tegula does not pay.

use std::time::Instant;

const N: usize = 1 << 27;

fn split<T>(v: &mut [T], parts: usize) -> Vec<&mut [T]> {
    let per = v.len().div_ceil(parts);
    v.chunks_mut(per).collect()
}

/// `len` copies of `value`, in huge pages where the kernel gives them on request.
fn filled(len: usize, value: f64) -> Vec<f64> {
    let mut v: Vec<f64> = Vec::with_capacity(len);
    advise_huge_pages(v.as_mut_ptr() as usize, len * 8);
    v.resize(len, value);
    v
}

#[cfg(target_os = "linux")]
fn advise_huge_pages(addr: usize, bytes: usize) {
    extern "C" {
        fn madvise(addr: *mut u8, len: usize, advice: i32) -> i32;
    }
    const MADV_HUGEPAGE: i32 = 14;
    let start = (addr + 4095) & !4095;
    if bytes > start - addr {
        // SAFETY: advice on pages inside this process's own allocation; it changes no data.
        unsafe { madvise(start as *mut u8, bytes - (start - addr), MADV_HUGEPAGE) };
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_addr: usize, _bytes: usize) {}

fn best_of<F: FnMut()>(mut f: F) -> f64 {
    (0..5).map(|_| {
        let t = Instant::now();
        f();
        t.elapsed().as_secs_f64()
    }).fold(f64::INFINITY, f64::min)
}

fn main() {
    let threads: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(1);
    let gb = |bytes: usize, secs: f64| bytes as f64 / secs / 1e9;
    let mut b = filled(N, 1.0);
    if std::env::args().nth(2).as_deref() == Some("serve") {
        b.iter_mut().enumerate().for_each(|(i, v)| *v = i as f64);
        for _ in std::io::stdin().lines().map_while(Result::ok) {
            println!("{{\"threads\": {threads}, \"read_gbs\": {:.2}}}", gb(8 * N, read_secs(&b, threads)));
        }
        return;
    }
    let triad = gb(24 * N, triad_secs(&b, threads));
    b.iter_mut().enumerate().for_each(|(i, v)| *v = i as f64);
    let read = gb(8 * N, read_secs(&b, threads));
    println!("{{\"threads\": {threads}, \"triad_gbs\": {triad:.2}, \"read_gbs\": {read:.2}}}");
}

/// The best time of `a[i] = b[i] + 3 c[i]` over 1 GiB arrays on `threads` threads.
fn triad_secs(b: &[f64], threads: usize) -> f64 {
    let mut a = filled(N, 0.0);
    let c = filled(N, 2.0);
    let per = N.div_ceil(threads);
    let secs = best_of(|| {
        std::thread::scope(|s| {
            for ((a, b), c) in split(&mut a, threads).into_iter().zip(b.chunks(per)).zip(c.chunks(per)) {
                s.spawn(move || a.iter_mut().zip(b).zip(c).for_each(|((a, b), c)| *a = b + 3.0 * c));
            }
        })
    });
    std::hint::black_box(&a);
    secs
}

/// The best time of a sum of `b`, split between `threads` threads, eight sums each.
fn read_secs(b: &[f64], threads: usize) -> f64 {
    let per = N.div_ceil(threads);
    let mut total = 0.0;
    let secs = best_of(|| {
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
    std::hint::black_box(total);
    secs
}
