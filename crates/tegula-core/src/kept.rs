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
    /// The charge of `bytes` kept in memory, taken whatever is already kept.
    pub fn charge(bytes: usize) -> KeptBytes {
        KEPT.fetch_add(bytes, Ordering::Relaxed);
        KeptBytes(bytes)
    }

    /// The charge of `bytes` if every kept byte, these included, stays within `cap`; `None`
    /// if not. Checked and taken at once, so arrays persisted by several threads together
    /// never keep more than `cap` between them.
    pub fn within(bytes: usize, cap: usize) -> Option<KeptBytes> {
        let taken = KEPT.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |kept| kept.checked_add(bytes).filter(|&total| total <= cap));
        taken.ok().map(|_| KeptBytes(bytes))
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

    #[test]
    fn charges_within_a_cap_never_pass_it_together() {
        // Other tests charge the same counter: the cap is set far above what they take.
        let cap = usize::MAX / 2;
        let threads: Vec<_> = (0..8).map(|_| std::thread::spawn(move || KeptBytes::within(cap / 4, cap))).collect();
        let granted: Vec<KeptBytes> = threads.into_iter().filter_map(|t| t.join().unwrap()).collect();
        assert!(granted.len() <= 4, "{} charges of a quarter granted", granted.len());
        assert!(granted.len() >= 3, "only {} charges granted", granted.len());
    }
}
