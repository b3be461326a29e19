//! The executors, by the names users give `compute(scheduler=...)`: one row each.

use crate::executor::{Executor, ExecutorConfig};
use crate::process_pool::ProcessPool;
use crate::threaded::Threaded;
use std::sync::Arc;
use tegula_core::{value_err, Result};

struct Entry {
    names: &'static [&'static str],
    make: fn(&ExecutorConfig) -> Result<Arc<dyn Executor>>,
}

const EXECUTORS: &[Entry] = &[
    Entry { names: &["threads", "threading"], make: |c| Ok(Arc::new(Threaded::new(c.workers)?)) },
    Entry { names: &["serial", "synchronous", "sync", "single-threaded"], make: |_| Ok(Arc::new(Threaded::serial())) },
    Entry { names: &["processes", "multiprocessing"], make: |c| Ok(Arc::new(ProcessPool::new(c)?)) },
];

/// The executor called `name`.
pub fn executor(name: &str, config: &ExecutorConfig) -> Result<Arc<dyn Executor>> {
    match EXECUTORS.iter().find(|e| e.names.contains(&name)) {
        Some(entry) => (entry.make)(config),
        None => Err(value_err!("unknown scheduler '{name}'; use one of {}", names().join(", "))),
    }
}

/// Every executor's first name.
pub fn names() -> Vec<&'static str> {
    EXECUTORS.iter().map(|e| e.names[0]).collect()
}
