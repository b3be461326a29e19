//! Reading a stored chunk's file into a block's buffer without the page cache's copy, and
//! writing a spilled chunk's file without taking pages of the cache.
//!
//! A buffered read of data not yet cached makes the kernel fill its page cache from the disk,
//! then copy every byte into the buffer on the reading core: for a 2×10⁶ × 500 float64
//! array that copy alone took ~4 s of the two cores' time. `O_DIRECT` has the disk write into
//! the buffer itself. What the page cache already holds is still read from it (the cached
//! start of the file, found with `mincore`), so hot data stays at memory speed; only the rest
//! comes from the disk directly. Where direct reads are not possible (memory not aligned, a
//! file system without `O_DIRECT`, a length the device cannot read directly) the bytes are read
//! through the page cache as usual.

use std::fs::File;
use std::io;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::Path;

/// The alignment of memory, file offsets and lengths for direct reads: the logical block size
/// of most devices (some need 4096; their direct reads fail and fall back).
const DIRECT_ALIGN: usize = 512;
/// Files smaller than this are read through the page cache (direct reads pay a device round
/// trip each, and small files are cheap to copy).
const DIRECT_FROM: usize = 1 << 20;

/// Fills `out` with the bytes of `file` (at `path`) from its start; `out` is as long as the file.
pub fn read_file_into(file: &File, path: &Path, out: &mut [u8]) -> io::Result<()> {
    if out.len() < DIRECT_FROM {
        return file.read_exact_at(out, 0);
    }
    let cached = read_cached(file, out);
    let start = cached / DIRECT_ALIGN * DIRECT_ALIGN;
    let end = start + (out.len() - start) / DIRECT_ALIGN * DIRECT_ALIGN;
    let done = match read_direct(path, &mut out[start..end], start as u64) {
        Ok(true) => end,
        Ok(false) => cached,
        Err(e) => return Err(e),
    };
    file.read_exact_at(&mut out[done..], done as u64)
}

/// Writes `bytes` to a new file at `path` (replacing any there). A big file is written past
/// the page cache (`O_DIRECT`, all but its last partial block): bytes written through the
/// cache take fresh pages of it, which on a virtual machine cost a fault to the host each,
/// about 2 s a GB here against 0.4 s for the disk write.
pub fn write_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let file = File::create(path)?;
    let done = if bytes.len() >= DIRECT_FROM { write_direct(path, bytes)? } else { 0 };
    file.write_all_at(&bytes[done..], done as u64)
}

/// Bytes copied at a time into an aligned buffer for a direct write from unaligned memory.
const BOUNCE: usize = 4 << 20;

/// Writes the longest prefix of `bytes` made of whole aligned blocks with `O_DIRECT`; how many
/// bytes that is, 0 when direct writes are not possible here.
fn write_direct(path: &Path, bytes: &[u8]) -> io::Result<usize> {
    let end = bytes.len() / DIRECT_ALIGN * DIRECT_ALIGN;
    let file = match std::fs::OpenOptions::new().write(true).custom_flags(libc::O_DIRECT).open(path) {
        Ok(file) => file,
        Err(e) if e.raw_os_error() == Some(libc::EINVAL) => return Ok(0),
        Err(e) => return Err(e),
    };
    let written = if (bytes.as_ptr() as usize).is_multiple_of(DIRECT_ALIGN) {
        file.write_all_at(&bytes[..end], 0)
    } else {
        write_bounced(&file, &bytes[..end])
    };
    match written {
        Ok(()) => Ok(end),
        Err(e) if e.raw_os_error() == Some(libc::EINVAL) => Ok(0),
        Err(e) => Err(e),
    }
}

/// Writes `bytes` (whole aligned blocks) from the start of `file`, copied piece by piece into
/// an aligned buffer.
fn write_bounced(file: &File, bytes: &[u8]) -> io::Result<()> {
    let mut buffer: Vec<u8> = Vec::with_capacity(BOUNCE.min(bytes.len()) + DIRECT_ALIGN);
    let skip = buffer.as_ptr().align_offset(DIRECT_ALIGN);
    let room = &mut buffer.spare_capacity_mut()[skip..];
    for (k, piece) in bytes.chunks(BOUNCE).enumerate() {
        let out = &mut room[..piece.len()];
        // SAFETY: `out` has room for `piece`, and the two are different allocations.
        unsafe { std::ptr::copy_nonoverlapping(piece.as_ptr(), out.as_mut_ptr().cast::<u8>(), piece.len()) };
        // SAFETY: the bytes of `out` were all written just above.
        let out = unsafe { std::slice::from_raw_parts(out.as_ptr().cast::<u8>(), piece.len()) };
        file.write_all_at(out, (k * BOUNCE) as u64)?;
    }
    Ok(())
}

/// How many bytes from the start of the file the page cache holds without a gap, read from it
/// into `out`. Asked with `mincore` on a mapping of the file that is never touched (so it
/// cannot fault, and starts no disk reads): a read with `RWF_NOWAIT` would tell too, but it
/// starts the kernel's read-ahead, which then read much of the file a second time.
fn read_cached(file: &File, out: &mut [u8]) -> usize {
    let cached = cached_prefix(file, out.len());
    match file.read_exact_at(&mut out[..cached], 0) {
        Ok(()) => cached,
        Err(_) => 0,
    }
}

fn cached_prefix(file: &File, len: usize) -> usize {
    let fd = std::os::fd::AsRawFd::as_raw_fd(file);
    // SAFETY: a read-only shared mapping of `len` bytes of a file we hold open; it is only
    // passed to `mincore` and unmapped, never read or written through.
    let map = unsafe { libc::mmap(std::ptr::null_mut(), len, libc::PROT_READ, libc::MAP_SHARED, fd, 0) };
    if map == libc::MAP_FAILED {
        return 0;
    }
    // SAFETY: sysconf has no preconditions.
    let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(4096).max(1);
    let mut resident = vec![0u8; len.div_ceil(page)];
    // SAFETY: `map` is a live mapping of `len` bytes and `resident` has a byte per page of it.
    let asked = unsafe { libc::mincore(map, len, resident.as_mut_ptr()) };
    // SAFETY: unmaps exactly the mapping made above.
    unsafe { libc::munmap(map, len) };
    if asked != 0 {
        return 0;
    }
    resident.iter().position(|r| r & 1 == 0).map_or(len, |first_missing| first_missing * page)
}

/// Reads `out` from `offset` of the file with `O_DIRECT`; `Ok(false)` when direct reads are
/// not possible here (then nothing is promised about `out`'s contents).
fn read_direct(path: &Path, out: &mut [u8], offset: u64) -> io::Result<bool> {
    if out.is_empty() || !(out.as_ptr() as usize).is_multiple_of(DIRECT_ALIGN) {
        return Ok(false);
    }
    let file = match std::fs::OpenOptions::new().read(true).custom_flags(libc::O_DIRECT).open(path) {
        Ok(file) => file,
        Err(e) if e.raw_os_error() == Some(libc::EINVAL) => return Ok(false),
        Err(e) => return Err(e),
    };
    match file.read_exact_at(out, offset) {
        Ok(()) => Ok(true),
        Err(e) if e.raw_os_error() == Some(libc::EINVAL) => Ok(false),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A buffer of `len` bytes starting on a 4096-byte boundary.
    fn aligned(len: usize) -> (Vec<u8>, usize) {
        let v = vec![0u8; len + 4096];
        let skip = v.as_ptr().align_offset(4096);
        (v, skip)
    }

    #[test]
    fn reads_every_byte_cached_or_not_aligned_or_not() {
        let dir = std::env::temp_dir().join(format!("tegula-direct-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // Lengths around the direct-read thresholds, one not a multiple of the alignment.
        for len in [10, DIRECT_FROM - 1, DIRECT_FROM, 3 * DIRECT_FROM + 123] {
            let path = dir.join(format!("f{len}"));
            let data: Vec<u8> = (0..len).map(|i| (i * 7 % 253) as u8).collect();
            std::fs::write(&path, &data).unwrap();
            let file = File::open(&path).unwrap();
            // Written back, so that evicting really empties the page cache.
            file.sync_all().unwrap();
            for (evict, shift) in [(false, 0), (true, 0), (true, 8)] {
                if evict {
                    // SAFETY: a plain system call on a file descriptor we own.
                    unsafe { libc::posix_fadvise(std::os::fd::AsRawFd::as_raw_fd(&file), 0, 0, libc::POSIX_FADV_DONTNEED) };
                }
                let (mut buf, skip) = aligned(len + shift);
                let out = &mut buf[skip + shift..skip + shift + len];
                read_file_into(&file, &path, out).unwrap();
                assert!(out == &data[..], "length {len}, evicted {evict}, shifted {shift}");
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Files written from aligned and unaligned memory, around the thresholds, read back
    /// equal; where the directory takes direct writes, a big file's pages (but for its last
    /// partial block) are not left in the page cache.
    #[test]
    fn writes_every_byte_past_the_page_cache() {
        let dir = std::env::temp_dir().join(format!("tegula-direct-write-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let probe = dir.join("probe");
        let direct = std::fs::OpenOptions::new().write(true).create(true).custom_flags(libc::O_DIRECT).open(&probe).is_ok();
        for len in [10, DIRECT_FROM - 1, DIRECT_FROM, 3 * DIRECT_FROM + 123, BOUNCE + 7 * DIRECT_ALIGN] {
            for shift in [0, 8] {
                let (mut buf, skip) = aligned(len + shift);
                let data = &mut buf[skip + shift..skip + shift + len];
                data.iter_mut().enumerate().for_each(|(i, b)| *b = (i * 31 % 251) as u8);
                let path = dir.join(format!("w{len}-{shift}"));
                std::fs::write(&path, vec![7u8; len + 5000]).unwrap();
                write_file(&path, data).unwrap();
                let file = File::open(&path).unwrap();
                if direct && len >= DIRECT_FROM {
                    assert_eq!(cached_prefix(&file, len), 0, "length {len}, shifted {shift}");
                }
                assert!(std::fs::read(&path).unwrap() == data, "length {len}, shifted {shift}");
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
