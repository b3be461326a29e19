//! The executors, by the names users give `compute(scheduler=...)`: one row each.

use crate::executor::Executor;
use crate::process_pool::ProcessPool;
use crate::threaded::Threaded;
use std::sync::Arc;
use tegula_core::{value_err, Result};

/// What a user may say about the executor beside its name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExecutorConfig {
    /// Threads or processes; `None`: one per core.
    pub workers: Option<usize>,
    /// The command that starts a worker process (its program, then its arguments), for
    /// executors with worker processes.
    pub worker_command: Option<Vec<String>>,
}

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
