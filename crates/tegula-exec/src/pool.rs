//! The rayon pools executors run on, one per thread count, made once and kept for the life of
//! the process (starting threads for every compute would cost more than small graphs take).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use tegula_core::{internal_err, Result};

pub fn pool(threads: usize) -> Result<Arc<rayon::ThreadPool>> {
    static POOLS: OnceLock<Mutex<HashMap<usize, Arc<rayon::ThreadPool>>>> = OnceLock::new();
    let mut pools = POOLS.get_or_init(Default::default).lock().map_err(|_| internal_err!("thread pools poisoned"))?;
    if let Some(p) = pools.get(&threads) {
        return Ok(p.clone());
    }
    let p = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .thread_name(|i| format!("tegula-{i}"))
        .build()
        .map_err(|e| internal_err!("cannot start {threads} threads: {e}"))?;
    let p = Arc::new(p);
    pools.insert(threads, p.clone());
    Ok(p)
}
