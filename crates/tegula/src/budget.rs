//! The budget a computation gets: the one it is given, less what persisted arrays keep.

use tegula_core::kept::kept_bytes;
use tegula_core::{Result, Spec, TegulaError};
use tegula_plan::memory::human_bytes;

/// `spec` with the bytes persisted arrays keep in memory taken out of its budget; a memory
/// error when they leave nothing.
pub fn budget_left(spec: Spec) -> Result<Spec> {
    let kept = kept_bytes();
    match spec.memory.checked_sub(kept) {
        Some(left) if left > 0 => Ok(Spec { memory: left, ..spec }),
        _ => Err(TegulaError::Memory(format!(
            "persisted arrays keep {} in memory, all of the {} budget; drop some of them or raise the budget",
            human_bytes(kept),
            human_bytes(spec.memory)
        ))),
    }
}
