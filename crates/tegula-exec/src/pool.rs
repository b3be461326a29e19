//! The rayon pools executors run on, one per thread count, made when first asked for and kept
//! (starting threads for every compute would cost more than small graphs take). Only the pools
//! of the last `KEPT_POOLS` thread counts asked for are kept: a program trying many counts
//! would otherwise keep every pool's threads for the life of the process.

use std::sync::{Arc, Mutex, OnceLock};
use tegula_core::{internal_err, value_err, Result};

/// Threads a computation may ask for at most: far beyond any machine's cores, and few enough
/// that starting them (once, kept for the process) takes a moment, not minutes.
pub const MAX_THREADS: usize = 1024;

/// How many pools (of distinct thread counts) are kept between computations.
const KEPT_POOLS: usize = 2;

/// Refuses a thread count outside 1 to `MAX_THREADS` (a value error).
pub fn check_threads(threads: usize) -> Result<()> {
    if !(1..=MAX_THREADS).contains(&threads) {
        return Err(value_err!("num_workers must be between 1 and {MAX_THREADS}, got {threads}"));
    }
    Ok(())
}

/// Pools by thread count.
type Pools = Vec<(usize, Arc<rayon::ThreadPool>)>;

/// The pools kept, the one asked for last at the end.
static POOLS: OnceLock<Mutex<Pools>> = OnceLock::new();

/// Keeps none of the pools: computations from now on start pools of their own. For a caller
/// that abandoned a computation whose tasks may never end, occupying its pool's threads.
pub fn let_go_of_pools() {
    if let Some(Ok(mut pools)) = POOLS.get().map(Mutex::lock) {
        pools.clear();
    }
}

/// The pool of `threads` threads (1 to `MAX_THREADS`; else a value error). A pool let go of
/// here ends its threads once the computations still running on it end.
pub fn pool(threads: usize) -> Result<Arc<rayon::ThreadPool>> {
    check_threads(threads)?;
    let mut pools = POOLS.get_or_init(Default::default).lock().map_err(|_| internal_err!("thread pools poisoned"))?;
    let p = match pools.iter().position(|(n, _)| *n == threads) {
        Some(i) => pools.remove(i).1,
        None => {
            let p = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .thread_name(|i| format!("tegula-{i}"))
                .build()
                .map_err(|e| internal_err!("cannot start {threads} threads: {e}"))?;
            Arc::new(p)
        }
    };
    pools.push((threads, p.clone()));
    if pools.len() > KEPT_POOLS {
        pools.remove(0);
    }
    Ok(p)
}
