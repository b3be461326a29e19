//! Bytes kept in memory by persisted arrays (`persist`), which every later computation of the
//! process counts against its budget. A `KeptBytes` is the charge of one persisted array's
//! blocks: taken when they are kept, given back when the last array reading them is dropped.

use std::sync::atomic::{AtomicUsize, Ordering};

static KEPT: AtomicUsize = AtomicUsize::new(0);

/// Bytes the persisted arrays alive now keep in memory.
pub fn kept_bytes() -> usize {
    KEPT.load(Ordering::Relaxed)
}

/// The charge of `bytes` kept in memory, released when dropped.
#[derive(Debug)]
pub struct KeptBytes(usize);

impl KeptBytes {
    pub fn charge(bytes: usize) -> KeptBytes {
        KEPT.fetch_add(bytes, Ordering::Relaxed);
        KeptBytes(bytes)
    }
}

impl Drop for KeptBytes {
    fn drop(&mut self) {
        KEPT.fetch_sub(self.0, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_charge_is_released_when_dropped() {
        let before = kept_bytes();
        let charge = KeptBytes::charge(1000);
        assert_eq!(kept_bytes(), before + 1000);
        drop(charge);
        assert_eq!(kept_bytes(), before);
    }
}
