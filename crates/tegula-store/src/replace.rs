//! Replacing a directory (a Zarr array) as a whole. A new array is built in a hidden sibling
//! directory of its own (`.NAME.tegula-new-PID-N`, in the same parent, so on the same file
//! system), and switched in only once complete: with one atomic exchange of the two names
//! (`renameat2(RENAME_EXCHANGE)`), or where the file system cannot, by renaming the old array
//! aside (`.NAME.tegula-old-PID-N`) and the new one in. The old array is deleted last. So a
//! writer killed at any moment, or failing (a full disk), leaves the old array whole at its
//! path; a reader opening the path sees the complete old or the complete new array.
//!
//! Switches into one parent directory hold an exclusive `flock` on it, so two writers of one
//! path serialise (the last to finish wins, whole), and a reader that finds the path missing
//! waits for a switch in progress before restoring an old array a killed writer left aside.

use std::ffi::CString;
use std::fs::File;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

const NEW: &str = ".tegula-new-";
const OLD: &str = ".tegula-old-";

static NEXT: AtomicU64 = AtomicU64::new(0);

fn name_of(target: &Path) -> io::Result<String> {
    target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "the path has no file name"))
}

fn parent_of(target: &Path) -> PathBuf {
    match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// A sibling of `target` named for this process: `.NAME{kind}PID-N`.
fn sibling(target: &Path, kind: &str) -> io::Result<PathBuf> {
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    Ok(parent_of(target).join(format!(".{}{kind}{}-{n}", name_of(target)?, std::process::id())))
}

/// Makes the (empty) directory a new array of `target` is built in.
pub(crate) fn make_staging(target: &Path) -> io::Result<PathBuf> {
    let dir = sibling(target, NEW)?;
    std::fs::create_dir_all(parent_of(target))?;
    std::fs::create_dir(&dir)?;
    Ok(dir)
}

/// An exclusive lock on `target`'s parent directory, released when dropped (or when the
/// process dies). On a file system without `flock` (some network ones) there is no lock: the
/// exchange of names is atomic without it, only the fallback's two renames are not.
pub(crate) struct Lock(Option<File>);

pub(crate) fn lock(target: &Path) -> io::Result<Lock> {
    let dir = File::open(parent_of(target))?;
    loop {
        // SAFETY: a plain system call on a file descriptor we own.
        let done = unsafe { libc::flock(std::os::fd::AsRawFd::as_raw_fd(&dir), libc::LOCK_EX) };
        if done == 0 {
            return Ok(Lock(Some(dir)));
        }
        let e = io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EINTR) => {}
            Some(libc::ENOLCK) | Some(libc::EOPNOTSUPP) | Some(libc::EINVAL) => return Ok(Lock(None)),
            _ => return Err(e),
        }
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        if let Some(dir) = &self.0 {
            // SAFETY: as above; closing the file would release it too.
            unsafe { libc::flock(std::os::fd::AsRawFd::as_raw_fd(dir), libc::LOCK_UN) };
        }
    }
}

/// Swaps the names of two directories at once; `Ok(false)` where the file system cannot.
fn exchange(a: &Path, b: &Path) -> io::Result<bool> {
    #[cfg(target_os = "linux")]
    {
        let c = |p: &Path| CString::new(p.as_os_str().as_bytes()).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e));
        let (ca, cb) = (c(a)?, c(b)?);
        // SAFETY: two valid C strings, relative to the working directory.
        let done = unsafe { libc::renameat2(libc::AT_FDCWD, ca.as_ptr(), libc::AT_FDCWD, cb.as_ptr(), libc::RENAME_EXCHANGE) };
        if done == 0 {
            return Ok(true);
        }
        let e = io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EINVAL) | Some(libc::ENOSYS) | Some(libc::EOPNOTSUPP) => Ok(false),
            _ => Err(e),
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (a, b, CString::default(), OsStrExt::as_bytes(a.as_os_str()));
        Ok(false)
    }
}

/// Replaces the directory `target` (which the caller holds the lock for and checked may be
/// replaced) with `staging`; returns the directory now holding the old array, to delete.
pub(crate) fn switch(staging: &Path, target: &Path) -> io::Result<PathBuf> {
    if exchange(staging, target)? {
        return Ok(staging.to_path_buf());
    }
    let aside = sibling(target, OLD)?;
    std::fs::rename(target, &aside)?;
    if let Err(e) = std::fs::rename(staging, target) {
        // Put the old array back: the path must never stay empty.
        let _ = std::fs::rename(&aside, target);
        return Err(e);
    }
    Ok(aside)
}

/// The pid a leftover sibling of `target` was made by, and whether it is an old array set
/// aside (`true`) or a new one being built (`false`).
fn leftover(name: &str, target_name: &str) -> Option<(bool, u32)> {
    let rest = name.strip_prefix('.')?.strip_prefix(target_name)?;
    let (old, rest) = if let Some(r) = rest.strip_prefix(OLD) {
        (true, r)
    } else {
        (false, rest.strip_prefix(NEW)?)
    };
    let pid = rest.split('-').next()?.parse().ok()?;
    Some((old, pid))
}

fn alive(pid: u32) -> bool {
    if pid == std::process::id() {
        return true;
    }
    // SAFETY: signal 0 only asks whether the process exists.
    let r = unsafe { libc::kill(pid as libc::pid_t, 0) };
    r == 0 || io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

/// Leftovers of writers of `target` that are no longer running: `(old, path)`.
fn dead_leftovers(target: &Path) -> Vec<(bool, PathBuf)> {
    let Ok(name) = name_of(target) else { return Vec::new() };
    let Ok(entries) = std::fs::read_dir(parent_of(target)) else { return Vec::new() };
    entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let (old, pid) = leftover(&e.file_name().to_string_lossy(), &name)?;
            (!alive(pid)).then(|| (old, e.path()))
        })
        .collect()
}

/// Called before `target` is opened: when it is missing and a killed writer left the old
/// array aside (between its two renames), puts that array back. Holding the lock, so a
/// switch in progress is waited for, not undone.
pub(crate) fn recover(target: &Path) {
    if target.exists() {
        return;
    }
    let has_aside = |t: &Path| dead_leftovers(t).into_iter().find(|(old, _)| *old).map(|(_, p)| p);
    if has_aside(target).is_none() {
        return;
    }
    let Ok(_lock) = lock(target) else { return };
    if !target.exists() {
        if let Some(aside) = has_aside(target) {
            let _ = std::fs::rename(aside, target);
        }
    }
}

/// Deletes what killed writers of `target` left beside it (their new arrays, never complete
/// in place, and old arrays set aside once the path holds an array again).
pub(crate) fn clean_leftovers(target: &Path) {
    recover(target);
    for (old, path) in dead_leftovers(target) {
        if !old || target.exists() {
            let _ = std::fs::remove_dir_all(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leftover_names_are_recognised() {
        assert_eq!(leftover(".a.zarr.tegula-new-12-3", "a.zarr"), Some((false, 12)));
        assert_eq!(leftover(".a.zarr.tegula-old-7-0", "a.zarr"), Some((true, 7)));
        assert_eq!(leftover(".b.zarr.tegula-old-7-0", "a.zarr"), None);
        assert_eq!(leftover("a.zarr", "a.zarr"), None);
    }

    #[test]
    fn a_switch_replaces_whole_and_a_killed_one_is_undone() {
        let dir = std::env::temp_dir().join(format!("tegula-replace-{}", std::process::id()));
        let target = dir.join("a.zarr");
        std::fs::create_dir_all(&target).unwrap();
        std::fs::write(target.join("old"), b"1").unwrap();
        let staging = make_staging(&target).unwrap();
        std::fs::write(staging.join("new"), b"2").unwrap();
        let old = {
            let _lock = lock(&target).unwrap();
            switch(&staging, &target).unwrap()
        };
        assert!(target.join("new").exists() && old.join("old").exists());
        std::fs::remove_dir_all(&old).unwrap();
        // A writer (a pid no process has) killed between its renames: the old array is put back.
        std::fs::rename(&target, dir.join(".a.zarr.tegula-old-999999999-0")).unwrap();
        std::fs::create_dir(dir.join(".a.zarr.tegula-new-999999999-1")).unwrap();
        recover(&target);
        assert!(target.join("new").exists());
        clean_leftovers(&target);
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
