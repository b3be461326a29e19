//! What a computation may use: its memory budget and where it spills (and the token that
//! stops it). A `Spec` is resolved
//! once per compute, from the caller's settings, else the environment (`TEGULA_MEMORY`,
//! `TEGULA_SPILL_DIR`), else the machine.

use crate::cancel::Cancel;
use crate::chunks::parse_bytes;
use crate::{value_err, Result};
use std::path::PathBuf;

/// The share of the machine's RAM a computation may hold in chunks when nothing else is said:
/// half, leaving the rest to the inputs the caller holds, the interpreter and the page cache.
const DEFAULT_SHARE: f64 = 0.5;

/// What a computation may use: its memory budget, its spill directory and its stop token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spec {
    /// Bytes of chunks (task results and the kernels' working memory) held at once, at most.
    pub memory: usize,
    /// The directory under which a computation spills chunks that do not fit.
    pub spill_dir: PathBuf,
    /// Set by the caller to stop the computation (`TegulaError::Interrupted`).
    pub cancel: Cancel,
}

impl Default for Spec {
    /// The machine's defaults, whatever the environment says.
    fn default() -> Spec {
        Spec { memory: default_memory(), spill_dir: std::env::temp_dir(), cancel: Cancel::default() }
    }
}

impl Spec {
    /// The defaults, overridden by `TEGULA_MEMORY` (a byte size such as `"2GB"` or
    /// `"512MiB"`) and `TEGULA_SPILL_DIR`; a malformed `TEGULA_MEMORY` is an error, not ignored.
    pub fn from_env() -> Result<Spec> {
        let mut spec = Spec::default();
        if let Some(text) = std::env::var_os("TEGULA_MEMORY") {
            let text = text.into_string().map_err(|t| value_err!("TEGULA_MEMORY={t:?} is not a byte size"))?;
            spec.memory = memory_budget(&text).map_err(|e| value_err!("TEGULA_MEMORY: {e}"))?;
        }
        if let Some(dir) = std::env::var_os("TEGULA_SPILL_DIR") {
            spec.spill_dir = PathBuf::from(dir);
        }
        Ok(spec)
    }
}

/// A memory budget written as a byte size; zero is refused (nothing could ever run).
pub fn memory_budget(text: &str) -> Result<usize> {
    match parse_bytes(text)? {
        0 => Err(value_err!("a memory budget must be more than 0 bytes, got {text:?}")),
        bytes => Ok(bytes),
    }
}

/// Half of the machine's physical memory (8 GiB where it cannot be read).
pub fn default_memory() -> usize {
    (physical_memory().unwrap_or(16 << 30) as f64 * DEFAULT_SHARE) as usize
}

#[cfg(target_os = "linux")]
fn physical_memory() -> Option<usize> {
    // SAFETY: sysconf only reads configuration values.
    let (pages, page) = unsafe { (libc::sysconf(libc::_SC_PHYS_PAGES), libc::sysconf(libc::_SC_PAGESIZE)) };
    (pages > 0 && page > 0).then(|| pages as usize * page as usize)
}

#[cfg(not(target_os = "linux"))]
fn physical_memory() -> Option<usize> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_parse_and_zero_is_refused() {
        assert_eq!(memory_budget("2GB"), Ok(2_000_000_000));
        assert_eq!(memory_budget("1.5 GiB"), Ok(3 << 29));
        assert!(memory_budget("0").is_err());
        assert!(memory_budget("lots").is_err());
        assert!(default_memory() > 0);
    }
}
