//! A caller's request to stop a computation (Ctrl-C in Python), shared with the executor,
//! which starts no task once it is set.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A flag the caller sets and the executor reads between tasks. Clones share the flag.
#[derive(Debug, Clone, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    /// Asks every computation holding this token (or a clone) to stop.
    pub fn set(&self) {
        self.0.store(true, Ordering::Relaxed);
    }
    /// Whether stopping was asked for.
    pub fn is_set(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// Tokens compare equal whatever their state: a spec is the same spec whoever may stop it.
impl PartialEq for Cancel {
    fn eq(&self, _: &Cancel) -> bool {
        true
    }
}
impl Eq for Cancel {}
