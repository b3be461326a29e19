//! The pages of a result array not written yet, given memory the computation freed before a
//! block is copied onto them: a fresh page costs the kernel a clearing on first touch (on a
//! virtual machine, often a fault to the host), a reused one nothing (`reuse::refill`).

use std::ops::Range;

/// The kernel's page.
const PAGE: usize = 4096;

/// Arrays of at least this many bytes are mapped apart (as the allocator's big regions).
const BIG: usize = 1 << 20;

/// Which whole pages of an array's memory hold nothing yet.
pub(crate) struct FreshPages {
    /// The address of the first whole page of the array.
    first: usize,
    /// Per whole page from `first`: not yet written (nor backed by memory).
    fresh: Vec<bool>,
}

impl FreshPages {
    /// The whole pages of `bytes` bytes at `base`, just allocated: fresh where the kernel has
    /// not backed them yet (a region the allocator reused is backed already). None of an array
    /// under `BIG`, which lies among other allocations.
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
}

/// Whether each of `pages` pages at `start` is not backed by memory yet.
#[cfg(target_os = "linux")]
fn unbacked(start: usize, pages: usize) -> Vec<bool> {
    let mut resident = vec![0u8; pages];
    // SAFETY: the range is whole pages of an allocation the caller holds; `resident` has a
    // byte per page.
    let ok = pages == 0 || unsafe { libc::mincore(start as *mut libc::c_void, pages * PAGE, resident.as_mut_ptr()) } == 0;
    resident.iter().map(|&r| ok && r & 1 == 0).collect()
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
