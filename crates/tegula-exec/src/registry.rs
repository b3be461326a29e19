//! The executors, by the names users give `compute(scheduler=...)`: one row each, plus those a
//! front end registers while it runs (executors hosted by a distributed engine's own API, such
//! as Ray's in Python).

use crate::executor::{Executor, ExecutorConfig};
use crate::process_pool::ProcessPool;
use crate::threaded::Threaded;
use std::sync::{Arc, RwLock};
use tegula_core::{internal_err, value_err, Result};

/// Makes an executor registered at run time.
pub type MakeExecutor = Arc<dyn Fn(&ExecutorConfig) -> Result<Arc<dyn Executor>> + Send + Sync>;

static REGISTERED: RwLock<Vec<(String, MakeExecutor)>> = RwLock::new(Vec::new());

/// Registers (or replaces) the executor called `name`.
pub fn register_executor(name: &str, make: MakeExecutor) -> Result<()> {
    let mut registered = REGISTERED.write().map_err(|_| internal_err!("the executor registry is poisoned"))?;
    registered.retain(|(n, _)| n != name);
    registered.push((name.to_string(), make));
    Ok(())
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
    if let Some(entry) = EXECUTORS.iter().find(|e| e.names.contains(&name)) {
        return (entry.make)(config);
    }
    let make = REGISTERED.read().ok().and_then(|r| r.iter().find(|(n, _)| n == name).map(|(_, make)| Arc::clone(make)));
    match make {
        Some(make) => make(config),
        None => Err(value_err!("unknown scheduler '{name}'; use one of {}", names().join(", "))),
    }
}

/// Every executor's first name (but those registered for one caller's use, whose names start
/// with `_`).
pub fn names() -> Vec<String> {
    let registered = REGISTERED.read().map(|r| r.iter().map(|(n, _)| n.clone()).filter(|n| !n.starts_with('_')).collect()).unwrap_or_default();
    EXECUTORS.iter().map(|e| e.names[0].to_string()).chain::<Vec<String>>(registered).collect()
}
