//! An allocator that reuses big freed regions. A block of many megabytes asked of the kernel
//! comes in pages it clears on first touch (a fault for each huge page, and on a virtual
//! machine a fault to the host for a page it was given back): a sort of 10⁹ values under a
//! 2 GB budget allocated and freed some 45 GB of blocks, and a fifth of its time went to
//! clearing them. Regions of at least `BIG` bytes are mapped here, 2 MB aligned in huge pages,
//! and a freed one is kept while a computation runs, or briefly after (`reuse_within`,
//! `reuse_lingering`), and the regions in use and kept stay within its budget. An allocation
//! takes the head of the smallest kept region long enough, the rest staying kept; when none
//! is, kept regions' pages are moved into its fresh mapping (`mremap`), so blocks of every
//! size share them, as they are onto a result array's pages before its blocks are copied
//! there (`refill`). Allocations under `SMALL` go to the allocator it wraps, the others to
//! the system's.

use crate::memory::HUGE_PAGE;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// Allocations of at least this many bytes are big.
const BIG: usize = 1 << 20;

/// Allocations under this many bytes go to the wrapped allocator; those from it up to `BIG`
/// to the system's. (Blocks of 720 KB in mimalloc, which gives their pages back and takes
/// them again, made `x @ x.T` over 300² blocks 13-18% slower than in glibc.)
const SMALL: usize = 64 << 10;

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

/// Keeps freed regions within `bytes` (see `set_reuse_limit`) until the last guard alive is
/// dropped, which unmaps every kept region: between computations nothing is held for reuse.
pub fn reuse_within(bytes: usize) -> ReuseGuard {
    enter(bytes, None)
}

/// `reuse_within`, but the kept regions stay for `linger` after the last guard is dropped,
/// and are unmapped then unless another guard has come: a worker running the pieces of a
/// computation one after another reuses the memory of the last one instead of asking the
/// kernel for fresh pages for each.
pub fn reuse_lingering(bytes: usize, linger: Duration) -> ReuseGuard {
    enter(bytes, Some(linger))
}

/// Ends reuse when the last one alive is dropped (`reuse_within`, `reuse_lingering`).
pub struct ReuseGuard {
    linger: Option<Duration>,
}

/// The guards alive, when reuse ends after the last lingering one (unless another guard comes
/// first), and whether the thread that ends it then has been started.
struct Guards {
    alive: usize,
    ends_at: Option<Instant>,
    ender: bool,
}

static GUARDS: Mutex<Guards> = Mutex::new(Guards { alive: 0, ends_at: None, ender: false });

/// Wakes the ending thread when `ends_at` is set.
static ENDING: Condvar = Condvar::new();

fn guards() -> MutexGuard<'static, Guards> {
    GUARDS.lock().unwrap_or_else(PoisonError::into_inner)
}

fn enter(bytes: usize, linger: Option<Duration>) -> ReuseGuard {
    let mut g = guards();
    g.alive += 1;
    g.ends_at = None;
    set_reuse_limit(bytes);
    ReuseGuard { linger }
}

impl Drop for ReuseGuard {
    fn drop(&mut self) {
        let mut g = guards();
        g.alive -= 1;
        if g.alive > 0 {
            return;
        }
        let Some(linger) = self.linger else { return set_reuse_limit(0) };
        g.ends_at = Some(Instant::now() + linger);
        // One thread for the life of the process ends every linger (a worker lingers after
        // each fragment it runs).
        if !g.ender {
            g.ender = std::thread::Builder::new().name("tegula-reuse-end".into()).spawn(end_lingering_reuse).is_ok();
        }
        if g.ender {
            ENDING.notify_one();
        } else {
            // Without a thread to wait, reuse ends now.
            g.ends_at = None;
            set_reuse_limit(0);
        }
    }
}

/// Ends reuse whenever a linger has passed with no guard alive.
fn end_lingering_reuse() {
    let mut g = guards();
    loop {
        g = match g.ends_at {
            None => ENDING.wait(g).unwrap_or_else(PoisonError::into_inner),
            Some(at) if Instant::now() >= at => {
                g.ends_at = None;
                set_reuse_limit(0);
                g
            }
            Some(at) => ENDING.wait_timeout(g, at - Instant::now()).map_or_else(|e| e.into_inner().0, |(g, _)| g),
        };
    }
}

/// Bytes of freed big regions kept for reuse now.
pub fn reusable_bytes() -> usize {
    lock().bytes
}

/// Moves kept pages onto the `len` bytes at `addr` (whole pages), from the start, while any is
/// kept; returns the bytes moved. A result array written block by block takes the memory its
/// computation freed this way instead of fresh pages, which the kernel clears on first touch
/// (on a virtual machine, pages given back to the host a few seconds earlier came back at
/// 0.5 GB/s where reused ones are written at 10 GB/s and more).
///
/// # Safety
/// The range lies in memory the caller holds (an allocation of its own, 4 KB aligned), none of
/// whose pages there has been written since it was allocated: they are replaced.
pub unsafe fn refill(addr: usize, len: usize) -> usize {
    if !addr.is_multiple_of(PAGE) || !len.is_multiple_of(PAGE) {
        return 0;
    }
    lock().gather(addr, len)
}

/// The freed regions kept, oldest first: (address, length).
struct Kept {
    regions: [(usize, usize); SLOTS],
    count: usize,
    bytes: usize,
}

static KEPT: Mutex<Kept> = Mutex::new(Kept { regions: [(0, 0); SLOTS], count: 0, bytes: 0 });

fn lock() -> MutexGuard<'static, Kept> {
    KEPT.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Kept {
    /// The start of `len` bytes (aligned to `align`) from a kept region, no longer kept: the
    /// smallest region at least that long, whose head is handed out and whose rest stays kept
    /// (allocations of all sizes share the kept pages: a sort frees big blocks and asks for its
    /// runs, a fraction of them, and then the reverse).
    fn take(&mut self, len: usize, align: usize) -> Option<usize> {
        let fits = self.regions[..self.count].iter().enumerate().filter(|(_, &(a, l))| l >= len && a % align == 0);
        let (i, &(addr, kept)) = fits.min_by_key(|(_, &(_, l))| l)?;
        self.remove(i);
        self.keep_rest(addr + len, kept - len);
        Some(addr)
    }

    /// Keeps what is left of a region taken, unless it is too short to serve a big block.
    fn keep_rest(&mut self, addr: usize, len: usize) {
        if len >= BIG {
            self.insert(addr, len);
        } else {
            unmap(addr, len);
        }
    }

    fn remove(&mut self, i: usize) {
        self.bytes -= self.regions[i].1;
        self.regions.copy_within(i + 1..self.count, i);
        self.count -= 1;
    }

    /// Adds a region (there is a free slot).
    fn insert(&mut self, addr: usize, len: usize) {
        self.regions[self.count] = (addr, len);
        self.count += 1;
        self.bytes += len;
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
        self.insert(addr, len);
        true
    }

    /// Unmaps the oldest kept regions until those in use and kept fit `limit` (or none is kept).
    fn shrink_to(&mut self, limit: usize) {
        while self.count > 0 && self.bytes + LIVE.load(Ordering::Relaxed) > limit {
            self.evict_oldest();
        }
    }

    /// Moves the pages of kept regions, largest first, onto the `len` bytes at `dest` (pages
    /// never written), while some of it remains; returns the bytes moved. Pages moved are not cleared
    /// again (a fresh page costs a clearing, and on a virtual machine often a fault to the
    /// host), and kept regions shorter than `len` serve it together.
    fn gather(&mut self, dest: usize, len: usize) -> usize {
        let mut at = 0;
        while at < len && self.count > 0 {
            let (i, _) = self.regions[..self.count].iter().enumerate().max_by_key(|(_, &(_, l))| l).expect("a kept region");
            let (addr, kept) = self.regions[i];
            self.remove(i);
            let n = kept.min(len - at);
            let moved = move_pages(addr, dest + at, n);
            at += moved;
            if moved < n {
                unmap(addr + moved, kept - moved);
                break;
            }
            self.keep_rest(addr + n, kept - n);
        }
        at
    }

    fn evict_oldest(&mut self) {
        let (addr, len) = self.regions[0];
        self.remove(0);
        unmap(addr, len);
    }
}

/// The global allocator that reuses big regions, and leaves the others to `A`:
/// `#[global_allocator] static A: Reusing = Reusing(System);`.
pub struct Reusing<A = System>(pub A);

/// Which allocator serves an allocation, by its layout.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    /// The wrapped allocator's.
    Small,
    /// The system allocator's.
    Middle,
    /// A region mapped here.
    Big,
}

fn class(layout: &Layout) -> Class {
    if layout.size() < SMALL {
        Class::Small
    } else if layout.size() >= BIG && layout.align() <= HUGE_PAGE {
        Class::Big
    } else {
        Class::Middle
    }
}

/// The length of the region for `size` bytes: whole 4 KB pages.
fn region_len(size: usize) -> usize {
    size.next_multiple_of(PAGE)
}

/// The kernel's page: what mappings are made of.
const PAGE: usize = 4096;

// SAFETY: big regions are fresh anonymous mappings (or kept ones no longer in use) of at least
// the layout's size, aligned to 2 MB; small ones are the wrapped allocator's, all others the
// system allocator's (the layout given back is the one given, so each goes back where it came from).
unsafe impl<A: GlobalAlloc> GlobalAlloc for Reusing<A> {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        match class(&layout) {
            Class::Small => self.0.alloc(layout),
            Class::Middle => System.alloc(layout),
            Class::Big => obtain(region_len(layout.size()), layout.align()).0,
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        match class(&layout) {
            Class::Small => self.0.alloc_zeroed(layout),
            Class::Middle => System.alloc_zeroed(layout),
            Class::Big => {
                let (ptr, reused) = obtain(region_len(layout.size()), layout.align());
                if reused {
                    // Clearing here costs a pass over the bytes; the kernel's clearing of a
                    // fresh mapping costs that and a fault for every page.
                    std::ptr::write_bytes(ptr, 0, layout.size());
                }
                ptr
            }
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        match class(&layout) {
            Class::Small => self.0.dealloc(ptr, layout),
            Class::Middle => System.dealloc(ptr, layout),
            Class::Big => {
                let len = region_len(layout.size());
                LIVE.fetch_sub(len, Ordering::Relaxed);
                if !lock().keep(ptr as usize, len, LIMIT.load(Ordering::Relaxed)) {
                    unmap(ptr as usize, len);
                }
            }
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let new = Layout::from_size_align_unchecked(new_size, layout.align());
        match (class(&layout), class(&new)) {
            (Class::Small, Class::Small) => self.0.realloc(ptr, layout, new_size),
            (Class::Middle, Class::Middle) => System.realloc(ptr, layout, new_size),
            (Class::Big, Class::Big) if region_len(layout.size()) == region_len(new_size) => ptr,
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

/// A region of `len` bytes aligned to `align` (at most a huge page), and whether any of its
/// pages were kept ones (not cleared); null when the kernel refuses a mapping.
fn obtain(len: usize, align: usize) -> (*mut u8, bool) {
    LIVE.fetch_add(len, Ordering::Relaxed);
    let mut kept = lock();
    if let Some(addr) = kept.take(len, align) {
        return (addr as *mut u8, true);
    }
    // Kept regions go first where this one would take the regions in use and kept past the
    // limit: kept memory never adds to the most a computation holds.
    kept.shrink_to(LIMIT.load(Ordering::Relaxed));
    let ptr = map(len);
    if ptr.is_null() {
        LIVE.fetch_sub(len, Ordering::Relaxed);
        return (ptr, false);
    }
    let moved = kept.gather(ptr as usize, len);
    (ptr, moved > 0)
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

/// Moves the `len` bytes (whole pages) mapped at `from` to `to`, replacing what is mapped
/// there, without copying or clearing them: at once when `from` lies in one mapping, else in
/// halves (a region gathered from several is several). Returns the bytes moved from the start,
/// all unless the kernel refuses; those not moved are still at `from`.
fn move_pages(from: usize, to: usize, len: usize) -> usize {
    // SAFETY: both ranges are this allocator's mappings that nothing else uses; the pages at
    // `to` are untouched ones of a fresh mapping.
    let moved = unsafe {
        let (from, to) = (from as *mut libc::c_void, to as *mut libc::c_void);
        libc::mremap(from, len, len, libc::MREMAP_MAYMOVE | libc::MREMAP_FIXED, to)
    };
    if moved != libc::MAP_FAILED {
        return len;
    }
    if len <= PAGE {
        return 0;
    }
    let half = (len / 2).next_multiple_of(PAGE);
    match move_pages(from, to, half) {
        done if done < half => done,
        _ => half + move_pages(from + half, to + half, len - half),
    }
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
    fn regions_are_whole_pages_less_than_a_page_over() {
        for size in [BIG, BIG + 1, 2_359_000, 133_333_336, 135 << 20, (1 << 30) + 5] {
            let len = region_len(size);
            assert!(len >= size && len < size + 4096 && len.is_multiple_of(4096), "{size} -> {len}");
        }
    }

    /// A block longer than every kept region takes their pages, moved, and fresh ones for the
    /// rest; a block gathered so (several mappings) is gathered again when freed.
    ///
    /// # Safety
    /// Only called from the one test holding reuse on.
    unsafe fn gathers_kept_pages(a: &Reusing) {
        let mb = |n: usize| Layout::from_size_align(n << 20, 8).unwrap();
        shrink_to_nothing();
        let (six, ten) = (a.alloc(mb(6)), a.alloc(mb(10)));
        std::ptr::write_bytes(six, 6, 6 << 20);
        std::ptr::write_bytes(ten, 10, 10 << 20);
        let under_a_huge_page = Layout::from_size_align(3 << 19, 8).unwrap();
        let small = a.alloc(under_a_huge_page);
        std::ptr::write_bytes(small, 15, 3 << 19);
        a.dealloc(six, mb(6));
        a.dealloc(ten, mb(10));
        a.dealloc(small, under_a_huge_page);
        assert_eq!(reusable_bytes(), (16 << 20) + (3 << 19));
        let big = a.alloc(mb(20));
        assert_eq!(reusable_bytes(), 0, "all three regions moved in");
        let bytes = std::slice::from_raw_parts(big, 20 << 20);
        assert!(bytes[..10 << 20].iter().all(|&b| b == 10), "the largest region first");
        assert!(bytes[10 << 20..16 << 20].iter().all(|&b| b == 6));
        assert!(bytes[16 << 20..(16 << 20) + (3 << 19)].iter().all(|&b| b == 15));
        assert!(bytes[(16 << 20) + (3 << 19)..].iter().all(|&b| b == 0), "fresh pages for the rest");
        std::ptr::write_bytes(big, 20, 20 << 20);
        a.dealloc(big, mb(20));
        let again = a.alloc(mb(30));
        assert_eq!(reusable_bytes(), 0, "the gathered region moved again");
        let bytes = std::slice::from_raw_parts(again, 30 << 20);
        assert!(bytes[..20 << 20].iter().all(|&b| b == 20) && bytes[20 << 20..].iter().all(|&b| b == 0));
        a.dealloc(again, mb(30));
        let zeroed = a.alloc_zeroed(mb(40));
        assert!(std::slice::from_raw_parts(zeroed, 40 << 20).iter().all(|&b| b == 0), "cleared when asked zeroed");
        a.dealloc(zeroed, mb(40));
    }

    /// Kept pages moved onto the unwritten part of a block in use keep their bytes and leave
    /// the rest of the block as it was; with nothing kept, nothing moves.
    ///
    /// # Safety
    /// Only called from the one test holding reuse on.
    unsafe fn refills_unwritten_pages(a: &Reusing) {
        let mb = |n: usize| Layout::from_size_align(n << 20, 8).unwrap();
        shrink_to_nothing();
        let (four, block) = (a.alloc(mb(4)), a.alloc(mb(12)));
        std::ptr::write_bytes(four, 4, 4 << 20);
        std::ptr::write_bytes(block, 1, 2 << 20);
        a.dealloc(four, mb(4));
        assert_eq!(refill(block as usize + (2 << 20), 8 << 20), 4 << 20, "all that was kept");
        assert_eq!(reusable_bytes(), 0);
        assert_eq!(refill(block as usize + (6 << 20), 4 << 20), 0, "nothing kept to move");
        assert_eq!(refill(block as usize + 1, 4096), 0, "not on a page");
        let bytes = std::slice::from_raw_parts(block, 12 << 20);
        assert!(bytes[..2 << 20].iter().all(|&b| b == 1), "written bytes stay");
        assert!(bytes[2 << 20..6 << 20].iter().all(|&b| b == 4), "the kept pages, moved");
        assert!(bytes[6 << 20..].iter().all(|&b| b == 0), "fresh pages for the rest");
        a.dealloc(block, mb(12));
    }

    /// Unmaps every kept region (reuse stays on).
    fn shrink_to_nothing() {
        let limit = LIMIT.load(Ordering::Relaxed);
        set_reuse_limit(0);
        set_reuse_limit(limit);
    }

    /// One test, since the kept regions are the process's: a freed region is handed out again
    /// (cleared when asked zeroed), whole or its head, while the limit allows keeping it, and
    /// unmapped when reuse ends or the limit does not allow it; reallocation keeps the bytes.
    #[test]
    fn freed_regions_are_reused_within_the_limit() {
        let a = Reusing(System);
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
            // Kept: the 3 MB region and the 40 MB one. A 5 MB block is the head of the
            // smallest region long enough, whose rest stays kept.
            assert_eq!(reusable_bytes(), before + (43 << 20));
            let five = Layout::from_size_align(5 << 20, 8).unwrap();
            let head = a.alloc(five);
            assert_eq!(head, grown, "carved from the 40 MB region");
            assert_eq!(reusable_bytes(), before + (3 << 20) + (35 << 20));
            std::ptr::write_bytes(head, 0xEF, five.size());
            let exact = a.alloc(layout);
            assert_eq!(exact, p, "the 3 MB region fits a 3 MB block exactly");
            // The rest starts 5 MB in, not on a huge page: a block aligned to one has its pages
            // moved into a fresh mapping instead.
            let aligned_layout = Layout::from_size_align(2 << 20, HUGE_PAGE).unwrap();
            let aligned = a.alloc(aligned_layout);
            assert!((aligned as usize).is_multiple_of(HUGE_PAGE));
            assert_eq!(reusable_bytes(), before + (33 << 20));
            let rest = a.alloc(Layout::from_size_align(30 << 20, 8).unwrap());
            assert_eq!(rest as usize, grown as usize + (7 << 20), "the head of what is left");
            std::ptr::write_bytes(rest, 0x12, 30 << 20);
            assert!(std::slice::from_raw_parts(head, five.size()).iter().all(|&b| b == 0xEF));
            a.dealloc(aligned, aligned_layout);
            a.dealloc(rest, Layout::from_size_align(30 << 20, 8).unwrap());
            a.dealloc(exact, layout);
            a.dealloc(head, five);
            gathers_kept_pages(&a);
            refills_unwritten_pages(&a);
            assert!(reusable_bytes() > 0);
            drop(reusing);
            assert_eq!(reusable_bytes(), 0, "the end of reuse unmaps what was kept");
            let r = a.alloc(layout);
            a.dealloc(r, layout);
            assert_eq!(reusable_bytes(), 0, "nothing is kept beyond the limit");
            guards_nest_and_linger(&a, layout);
        }
    }

    /// Reuse ends with the last guard alive; a lingering one's regions stay kept after it, as
    /// long as it says or until another guard comes and goes.
    ///
    /// # Safety
    /// Only called from the one test holding reuse on, after it has ended.
    unsafe fn guards_nest_and_linger(a: &Reusing, layout: Layout) {
        let freed = |a: &Reusing| {
            let r = a.alloc(layout);
            a.dealloc(r, layout);
        };
        let outer = reuse_within(1 << 30);
        let inner = reuse_within(1 << 30);
        freed(a);
        drop(inner);
        assert_eq!(reusable_bytes(), region_len(layout.size()), "an inner guard's end leaves reuse on");
        drop(outer);
        assert_eq!(reusable_bytes(), 0);
        let lingering = reuse_lingering(1 << 30, Duration::from_secs(600));
        freed(a);
        drop(lingering);
        assert_eq!(reusable_bytes(), region_len(layout.size()), "kept after a lingering guard's end");
        let next = reuse_within(1 << 30);
        drop(next);
        assert_eq!(reusable_bytes(), 0, "a guard that came since ends reuse itself");
        let lingering = reuse_lingering(1 << 30, Duration::from_millis(50));
        freed(a);
        drop(lingering);
        let start = std::time::Instant::now();
        while reusable_bytes() > 0 && start.elapsed() < Duration::from_secs(60) {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert_eq!(reusable_bytes(), 0, "unmapped once the linger has passed");
    }
}
