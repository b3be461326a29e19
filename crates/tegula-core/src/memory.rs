//! Big buffers: memory for blocks (or plans) of many megabytes is asked of the kernel in huge
//! pages where it allows that on request (Linux's transparent huge pages in `madvise` mode), as
//! NumPy does for its arrays. A buffer's first write otherwise takes a page fault every 4 KB,
//! which costs more than computing the values of a cheap element-wise program.

/// Regions smaller than this are left alone (huge pages are 2 MB).
const HUGE_PAGE: usize = 2 << 20;

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

/// A file's bytes mapped read-only. Reading a file copies its bytes into fresh memory, which
/// the kernel clears first: reading back a spilled block paid both, where a mapping uses the
/// page cache's pages themselves.
#[cfg(target_os = "linux")]
pub struct MappedFile {
    ptr: std::ptr::NonNull<u8>,
    len: usize,
}

// SAFETY: the mapping is read-only and owned by this value alone, so it can be read from and
// unmapped on any thread.
#[cfg(target_os = "linux")]
unsafe impl Send for MappedFile {}
// SAFETY: as above; `&MappedFile` only gives out shared reads.
#[cfg(target_os = "linux")]
unsafe impl Sync for MappedFile {}

#[cfg(target_os = "linux")]
impl MappedFile {
    /// Maps the whole of `file`, which must hold exactly `len` (> 0) bytes, and reads them all
    /// in now: a failure to read is returned here, never met as a fault later. An error of
    /// kind `Unsupported` where the file cannot be mapped (its file system, or the process's
    /// limit of mappings) or the kernel cannot read a mapping in at once (before Linux 5.14):
    /// read the file instead.
    pub fn map(file: &std::fs::File, len: usize) -> std::io::Result<MappedFile> {
        use std::io::{Error, ErrorKind};
        let size = file.metadata()?.len();
        if len == 0 || u64::try_from(len).ok() != Some(size) {
            return Err(Error::new(ErrorKind::InvalidData, format!("a file of {size} bytes mapped as {len}")));
        }
        let fd = std::os::fd::AsRawFd::as_raw_fd(file);
        // SAFETY: a new private read-only mapping of `len` bytes of an open file, all inside it.
        let ptr = unsafe { libc::mmap(std::ptr::null_mut(), len, libc::PROT_READ, libc::MAP_PRIVATE, fd, 0) };
        let ptr = match std::ptr::NonNull::new(ptr.cast::<u8>()) {
            Some(p) if ptr != libc::MAP_FAILED => p,
            // A file system without mappings, or the process's count of them reached: neither
            // says anything about the file's bytes.
            _ => return Err(Error::new(ErrorKind::Unsupported, Error::last_os_error())),
        };
        let mapped = MappedFile { ptr, len };
        // SAFETY: the range is the mapping just made; populating only reads the file into it.
        if unsafe { libc::madvise(ptr.as_ptr().cast(), len, libc::MADV_POPULATE_READ) } != 0 {
            let e = Error::last_os_error();
            let kind = if e.raw_os_error() == Some(libc::EINVAL) { ErrorKind::Unsupported } else { e.kind() };
            return Err(Error::new(kind, e));
        }
        Ok(mapped)
    }

    pub fn bytes(&self) -> &[u8] {
        // SAFETY: `len` mapped, readable bytes that live until `drop` and are never written.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

#[cfg(target_os = "linux")]
impl Drop for MappedFile {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the mapping `map` made; no borrow of it outlives `self`.
        unsafe { libc::munmap(self.ptr.as_ptr().cast(), self.len) };
    }
}
