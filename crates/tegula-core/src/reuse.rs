//! An allocator that reuses big freed regions. A block of many megabytes asked of the kernel
//! comes in pages it clears on first touch (a fault for each huge page, and on a virtual
//! machine a fault to the host for a page it was given back): a sort of 10⁹ values under a
//! 2 GB budget allocated and freed some 45 GB of blocks, and a fifth of its time went to
//! clearing them. Regions of at least `BIG` bytes are mapped here, 2 MB aligned in huge pages,
//! and a freed one is kept for the next allocation of its length while a computation runs
//! (`reuse_within`) and the regions in use and kept stay within its budget; smaller
//! allocations go to the system allocator.

use crate::memory::HUGE_PAGE;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Allocations of at least this many bytes are big.
const BIG: usize = 1 << 20;

/// At most this many freed regions are kept.
const SLOTS: usize = 64;

/// The most bytes of big regions, in use and kept together, beyond which a freed region is
/// unmapped (0 until set: nothing is kept).
static LIMIT: AtomicUsize = AtomicUsize::new(0);

/// Bytes of big regions in use.
static LIVE: AtomicUsize = AtomicUsize::new(0);

/// Sets the most bytes of big regions in use and kept for reuse together (a computation's
/// memory budget: keeping what it freed then adds nothing to the most it may hold); kept
/// regions beyond it are unmapped now.
pub fn set_reuse_limit(bytes: usize) {
    LIMIT.store(bytes, Ordering::Relaxed);
    lock().shrink_to(bytes);
}

/// Keeps freed regions within `bytes` (see `set_reuse_limit`) until the returned guard is
/// dropped, which unmaps every kept region: between computations nothing is held for reuse.
pub fn reuse_within(bytes: usize) -> ReuseGuard {
    set_reuse_limit(bytes);
    ReuseGuard(())
}

/// Ends reuse when dropped (`reuse_within`).
pub struct ReuseGuard(());

impl Drop for ReuseGuard {
    fn drop(&mut self) {
        set_reuse_limit(0);
    }
}

/// Bytes of freed big regions kept for reuse now.
pub fn reusable_bytes() -> usize {
    lock().bytes
}

/// The freed regions kept, oldest first: (address, length).
struct Kept {
    regions: [(usize, usize); SLOTS],
    count: usize,
    bytes: usize,
}

static KEPT: Mutex<Kept> = Mutex::new(Kept { regions: [(0, 0); SLOTS], count: 0, bytes: 0 });

fn lock() -> std::sync::MutexGuard<'static, Kept> {
    KEPT.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Kept {
    /// A kept region of exactly `len` bytes, no longer kept.
    fn take(&mut self, len: usize) -> Option<usize> {
        let i = self.regions[..self.count].iter().rposition(|&(_, l)| l == len)?;
        let (addr, _) = self.regions[i];
        self.regions.copy_within(i + 1..self.count, i);
        self.count -= 1;
        self.bytes -= len;
        Some(addr)
    }

    /// Keeps the region, making room by unmapping the oldest ones; false (the region is left
    /// to the caller) when it and the regions in use exceed the limit.
    fn keep(&mut self, addr: usize, len: usize, limit: usize) -> bool {
        let live = LIVE.load(Ordering::Relaxed);
        if live + len > limit {
            return false;
        }
        while self.count == SLOTS || live + self.bytes + len > limit {
            self.evict_oldest();
        }
        self.regions[self.count] = (addr, len);
        self.count += 1;
        self.bytes += len;
        true
    }

    /// Unmaps the oldest kept regions until those in use and kept fit `limit` (or none is kept).
    fn shrink_to(&mut self, limit: usize) {
        while self.count > 0 && self.bytes + LIVE.load(Ordering::Relaxed) > limit {
            self.evict_oldest();
        }
    }

    fn evict_oldest(&mut self) {
        let (addr, len) = self.regions[0];
        self.regions.copy_within(1..self.count, 0);
        self.count -= 1;
        self.bytes -= len;
        unmap(addr, len);
    }
}

/// The global allocator that reuses big regions: `#[global_allocator] static A: Reusing = Reusing;`.
pub struct Reusing;

fn is_big(layout: &Layout) -> bool {
    layout.size() >= BIG && layout.align() <= HUGE_PAGE
}

/// The length of the region for `size` bytes: rounded up to an eighth of its power of two
/// (and to whole 4 KB pages), so that blocks of nearly equal sizes share regions, at most an
/// eighth of which is never touched.
fn region_len(size: usize) -> usize {
    let step = (1usize << (usize::BITS - 1 - size.leading_zeros())) / 8;
    size.next_multiple_of(step.max(4096))
}

// SAFETY: big regions are fresh anonymous mappings (or kept ones no longer in use) of at least
// the layout's size, aligned to 2 MB; all others are the system allocator's.
unsafe impl GlobalAlloc for Reusing {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if !is_big(&layout) {
            return System.alloc(layout);
        }
        obtain(region_len(layout.size())).0
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if !is_big(&layout) {
            return System.alloc_zeroed(layout);
        }
        let (ptr, reused) = obtain(region_len(layout.size()));
        if reused {
            // Clearing here costs a pass over the bytes; the kernel's clearing of a fresh
            // mapping costs that and a fault for every page.
            std::ptr::write_bytes(ptr, 0, layout.size());
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if !is_big(&layout) {
            return System.dealloc(ptr, layout);
        }
        let len = region_len(layout.size());
        LIVE.fetch_sub(len, Ordering::Relaxed);
        if !lock().keep(ptr as usize, len, LIMIT.load(Ordering::Relaxed)) {
            unmap(ptr as usize, len);
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let new = Layout::from_size_align_unchecked(new_size, layout.align());
        match (is_big(&layout), is_big(&new)) {
            (false, false) => System.realloc(ptr, layout, new_size),
            (true, true) if region_len(layout.size()) == region_len(new_size) => ptr,
            _ => {
                let moved = self.alloc(new);
                if !moved.is_null() {
                    std::ptr::copy_nonoverlapping(ptr, moved, layout.size().min(new_size));
                    self.dealloc(ptr, layout);
                }
                moved
            }
        }
    }
}

/// A region of `len` bytes, kept (true) or freshly mapped (false); null when the kernel
/// refuses a mapping.
fn obtain(len: usize) -> (*mut u8, bool) {
    LIVE.fetch_add(len, Ordering::Relaxed);
    {
        let mut kept = lock();
        if let Some(addr) = kept.take(len) {
            return (addr as *mut u8, true);
        }
        // Kept regions of other lengths go first where this one would take the regions in
        // use and kept past the limit: kept memory never adds to the most a computation holds.
        kept.shrink_to(LIMIT.load(Ordering::Relaxed));
    }
    let ptr = map(len);
    if ptr.is_null() {
        LIVE.fetch_sub(len, Ordering::Relaxed);
    }
    (ptr, false)
}

/// A fresh anonymous mapping of `len` bytes (whole pages) aligned to 2 MB and backed by
/// huge pages where the kernel allows; null when the kernel refuses.
fn map(len: usize) -> *mut u8 {
    let Some(padded) = len.checked_add(HUGE_PAGE) else { return std::ptr::null_mut() };
    // SAFETY: a new private anonymous mapping; nothing else refers to it.
    let raw = unsafe {
        libc::mmap(std::ptr::null_mut(), padded, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1, 0)
    };
    if raw == libc::MAP_FAILED {
        return std::ptr::null_mut();
    }
    let raw = raw as usize;
    let start = raw.next_multiple_of(HUGE_PAGE);
    // The padding before and after the aligned region goes back at once.
    unmap(raw, start - raw);
    unmap(start + len, raw + padded - start - len);
    // SAFETY: the range is the mapping just made; the advice only changes how it is backed.
    unsafe { libc::madvise(start as *mut libc::c_void, len, libc::MADV_HUGEPAGE) };
    start as *mut u8
}

fn unmap(addr: usize, len: usize) {
    if len > 0 {
        // SAFETY: callers pass mappings made by `map` that nothing uses any more.
        unsafe { libc::munmap(addr as *mut libc::c_void, len) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_are_whole_pages_at_most_an_eighth_over() {
        for size in [BIG, BIG + 1, 2_359_000, 133_333_336, 135 << 20, (1 << 30) + 5] {
            let len = region_len(size);
            assert!(len >= size && len <= size + size / 8 + 4096 && len.is_multiple_of(4096), "{size} -> {len}");
        }
        // Blocks of nearly equal sizes share a region length.
        assert_eq!(region_len(133_333_336), region_len(133_333_344));
    }

    /// One test, since the kept regions are the process's: a freed region is handed out again
    /// (cleared when asked zeroed) while the limit allows keeping it, and unmapped when reuse
    /// ends or the limit does not allow it; reallocation keeps the bytes.
    #[test]
    fn freed_regions_are_reused_within_the_limit() {
        let a = Reusing;
        let layout = Layout::from_size_align(3 << 20, 8).unwrap();
        let reusing = reuse_within(1 << 30);
        let before = reusable_bytes();
        // SAFETY: every pointer is allocated by `a` with the layout it is freed with, and
        // written or read only within that layout's size.
        unsafe {
            let p = a.alloc(layout);
            assert!(!p.is_null() && (p as usize).is_multiple_of(HUGE_PAGE));
            std::ptr::write_bytes(p, 0xAB, layout.size());
            a.dealloc(p, layout);
            assert_eq!(reusable_bytes(), before + region_len(layout.size()));
            let q = a.alloc_zeroed(layout);
            assert_eq!(q, p, "the freed region is handed out again");
            assert!(std::slice::from_raw_parts(q, layout.size()).iter().all(|&b| b == 0));
            std::ptr::write_bytes(q, 0xCD, layout.size());
            let grown = a.realloc(q, layout, 40 << 20);
            assert!(std::slice::from_raw_parts(grown, layout.size()).iter().all(|&b| b == 0xCD));
            let grown_layout = Layout::from_size_align(40 << 20, 8).unwrap();
            let small = a.realloc(grown, grown_layout, 100);
            assert!(std::slice::from_raw_parts(small, 100).iter().all(|&b| b == 0xCD));
            a.dealloc(small, Layout::from_size_align(100, 8).unwrap());
            assert!(reusable_bytes() > 0);
            drop(reusing);
            assert_eq!(reusable_bytes(), 0, "the end of reuse unmaps what was kept");
            let r = a.alloc(layout);
            a.dealloc(r, layout);
            assert_eq!(reusable_bytes(), 0, "nothing is kept beyond the limit");
        }
    }
}
