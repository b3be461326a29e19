//! The pages of a result array not written yet, given memory the computation freed before a
//! block is copied onto them: a fresh page costs the kernel a clearing on first touch (on a
//! virtual machine, often a fault to the host), a reused one nothing (`reuse::refill`). A
//! fresh page reads as zeros, so blocks of zeros need not be written there at all.

use std::mem::MaybeUninit;
use std::ops::Range;

/// The kernel's page.
const PAGE: usize = 4096;

/// Arrays of at least this many bytes are mapped apart (as the allocator's big regions).
const BIG: usize = 1 << 20;

/// Which whole pages of an array's memory hold nothing yet (and read as zeros).
pub(crate) struct FreshPages {
    /// The address of the first whole page of the array.
    first: usize,
    /// Per whole page from `first`: not yet written (nor backed by memory).
    fresh: Vec<bool>,
}

impl FreshPages {
    /// The whole pages of `bytes` bytes at `base`, just allocated: fresh where the kernel has
    /// neither backed them yet nor swapped them out (a region the allocator reused is backed or
    /// swapped). None of an array under `BIG`, which lies among other allocations.
    pub(crate) fn of(base: *const u8, bytes: usize) -> FreshPages {
        let (start, end) = ((base as usize).next_multiple_of(PAGE), base as usize + bytes);
        let pages = if bytes < BIG { 0 } else { end.saturating_sub(start) / PAGE };
        FreshPages { first: start, fresh: unbacked(start, pages) }
    }

    /// Before bytes `span` of the array (from `base`) are written: its pages still fresh take
    /// kept pages where the computation freed some, and none of them is fresh any more.
    pub(crate) fn before_writing(&mut self, base: *const u8, span: Range<usize>) {
        let (start, end) = (base as usize + span.start, base as usize + span.end);
        let from = start.saturating_sub(self.first) / PAGE;
        let to = (end.saturating_sub(self.first).div_ceil(PAGE)).min(self.fresh.len());
        let mut page = from;
        while let Some(start) = (page..to).find(|&p| self.fresh[p]) {
            let end = (start..to).find(|&p| !self.fresh[p]).unwrap_or(to);
            refill(self.first + start * PAGE, (end - start) * PAGE);
            self.fresh[start..end].fill(false);
            page = end;
        }
    }

    /// Writes zeros over bytes `span` of `array` (the memory these pages are of) but on the
    /// pages still fresh, which hold zeros already.
    pub(crate) fn zero_unless_fresh(&self, array: &mut [MaybeUninit<u8>], span: Range<usize>) {
        let base = array.as_ptr() as usize;
        let mut at = span.start;
        while at < span.end {
            let addr = base + at;
            let next_page = if addr < self.first { self.first } else { addr - (addr - self.first) % PAGE + PAGE };
            let end = (next_page - base).min(span.end);
            if !self.is_fresh(addr) {
                array[at..end].fill(MaybeUninit::new(0));
            }
            at = end;
        }
    }

    /// Whether the page holding address `addr` is fresh.
    fn is_fresh(&self, addr: usize) -> bool {
        addr.checked_sub(self.first).is_some_and(|off| self.fresh.get(off / PAGE) == Some(&true))
    }
}

/// Whether each of `pages` pages at `start` is neither backed by memory nor swapped out (never
/// written since mapped: zeros), from `/proc/self/pagemap` (none where it cannot be read).
#[cfg(target_os = "linux")]
fn unbacked(start: usize, pages: usize) -> Vec<bool> {
    use std::os::unix::fs::FileExt;
    /// A page's entry: bit 63 present, bit 62 swapped.
    const IN_USE: u64 = 0b11 << 62;
    let mut entries = vec![0u8; pages * 8];
    let read = std::fs::File::open("/proc/self/pagemap").and_then(|f| f.read_exact_at(&mut entries, (start / PAGE * 8) as u64));
    if read.is_err() {
        return vec![false; pages];
    }
    entries.chunks_exact(8).map(|e| u64::from_le_bytes(e.try_into().expect("eight bytes")) & IN_USE == 0).collect()
}

#[cfg(not(target_os = "linux"))]
fn unbacked(_start: usize, pages: usize) -> Vec<bool> {
    vec![false; pages]
}

#[cfg(target_os = "linux")]
fn refill(addr: usize, len: usize) {
    // SAFETY: the pages are whole pages of the array, which the caller holds, fresh: nothing
    // has been written to them.
    unsafe { tegula_core::reuse::refill(addr, len) };
}

#[cfg(not(target_os = "linux"))]
fn refill(_addr: usize, _len: usize) {}
