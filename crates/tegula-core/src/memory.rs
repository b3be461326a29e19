//! Big buffers: memory for blocks (or plans) of many megabytes is asked of the kernel in huge
//! pages where it allows that on request (Linux's transparent huge pages in `madvise` mode), as
//! NumPy does for its arrays. A buffer's first write otherwise takes a page fault every 4 KB,
//! which costs more than computing the values of a cheap element-wise program.

/// Regions smaller than this are left alone (huge pages are 2 MB).
pub(crate) const HUGE_PAGE: usize = 2 << 20;

/// An empty vector with room for `len` elements, in huge pages when it is big.
pub fn big_vec<T>(len: usize) -> Vec<T> {
    let v: Vec<T> = Vec::with_capacity(len);
    advise_huge_pages(v.as_ptr() as usize, len.saturating_mul(std::mem::size_of::<T>()));
    v
}

/// Gives the kernel back the memory the allocator holds free. glibc keeps freed blocks below
/// its mmap threshold (which rises to 32 MiB as big blocks are freed) in its heaps for reuse,
/// and after many blocks of mixed sizes much of it sits in holes no later block fits: a
/// staged rechunk under a 1 GB budget reached 1.7 GB resident. Called after spilling, so that
/// what the executor let go leaves the process's resident memory too.
pub fn return_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free memory of the allocator's own heaps.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(target_os = "linux")]
fn advise_huge_pages(addr: usize, bytes: usize) {
    if bytes < 4 * HUGE_PAGE {
        return;
    }
    let start = addr.next_multiple_of(HUGE_PAGE);
    let end = (addr + bytes) / HUGE_PAGE * HUGE_PAGE;
    if end > start {
        // SAFETY: the range lies inside an allocation this vector owns; MADV_HUGEPAGE only
        // changes how the kernel backs it (the call fails harmlessly where unsupported).
        unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE) };
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_addr: usize, _bytes: usize) {}
