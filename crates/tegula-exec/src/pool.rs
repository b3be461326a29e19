//! The rayon pools executors run on, one per thread count, made once and kept for the life of
//! the process (starting threads for every compute would cost more than small graphs take).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use tegula_core::{internal_err, value_err, Result};

/// Threads a computation may ask for at most: far beyond any machine's cores, and few enough
/// that starting them (once, kept for the process) takes a moment, not minutes.
pub const MAX_THREADS: usize = 1024;

/// Refuses a thread count outside 1 to `MAX_THREADS` (a value error).
pub fn check_threads(threads: usize) -> Result<()> {
    if !(1..=MAX_THREADS).contains(&threads) {
        return Err(value_err!("num_workers must be between 1 and {MAX_THREADS}, got {threads}"));
    }
    Ok(())
}

/// The pool of `threads` threads (1 to `MAX_THREADS`; else a value error).
pub fn pool(threads: usize) -> Result<Arc<rayon::ThreadPool>> {
    check_threads(threads)?;
    static POOLS: OnceLock<Mutex<HashMap<usize, Arc<rayon::ThreadPool>>>> = OnceLock::new();
    let mut pools = POOLS.get_or_init(Default::default).lock().map_err(|_| internal_err!("thread pools poisoned"))?;
    if let Some(p) = pools.get(&threads) {
        return Ok(p.clone());
    }
    let p = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("tegula-{i}"))
        .build()
        .map_err(|e| internal_err!("cannot start {threads} threads: {e}"))?;
    let p = Arc::new(p);
    pools.insert(threads, p.clone());
    Ok(p)
}
