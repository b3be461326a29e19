//! Opening the files of a store without trusting them: a FIFO, device or socket where a chunk
//! or `.npy` file should be is refused at once (opened without blocking, then checked to be a
//! regular file), and a chunk whose path resolves outside the store's root (a symbolic link to
//! another file) is refused rather than read as data.

use std::fs::File;
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// Opens `path` for reading if it is a regular file. `O_NONBLOCK` makes the open of a FIFO
/// return at once (it would otherwise wait for a writer forever); it changes nothing for a
/// regular file.
pub(crate) fn open_regular(path: &Path) -> io::Result<File> {
    let file = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(path)?;
    check_regular(&file.metadata()?)?;
    Ok(file)
}

fn check_regular(meta: &std::fs::Metadata) -> io::Result<()> {
    if meta.is_file() {
        return Ok(());
    }
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    let kind = if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else {
        "not a regular file"
    };
    Err(io::Error::new(io::ErrorKind::InvalidInput, format!("{kind}, not a regular file")))
}

/// The root of a store, resolved once, to check that the files read stay inside it.
#[derive(Debug, Clone)]
pub(crate) struct Root {
    given: PathBuf,
    resolved: PathBuf,
    /// The directory's device and inode when opened: an array switched in over it since (see
    /// `replace.rs`) is another directory, whose chunks are not this array's.
    identity: (u64, u64),
}

fn identity(path: &Path) -> io::Result<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(path)?;
    Ok((meta.dev(), meta.ino()))
}

/// The message of a read that found its array replaced.
pub(crate) const REPLACED: &str = "the array was replaced at its path since it was opened; open it again";

impl Root {
    pub(crate) fn new(root: &Path) -> io::Result<Root> {
        Ok(Root { given: root.to_path_buf(), resolved: root.canonicalize()?, identity: identity(root)? })
    }

    /// The directory's device and inode when opened.
    pub(crate) fn identity(&self) -> (u64, u64) {
        self.identity
    }

    /// Checks that the root is still the directory opened. Called after a file is opened (or
    /// found missing): if it is, that file was this array's, so a read never mixes the chunks
    /// of an old array with those of one that replaced it.
    pub(crate) fn still_same(&self) -> io::Result<()> {
        match identity(&self.given) {
            Ok(id) if id == self.identity => Ok(()),
            _ => Err(io::Error::other(REPLACED)),
        }
    }

    /// Checks, without opening it, that `path` (a file under the root) is absent, or a regular
    /// file that resolves inside the root. `Ok(false)`: absent.
    pub(crate) fn check(&self, path: &Path) -> io::Result<bool> {
        let mut linked = false;
        if let Ok(rel) = path.strip_prefix(&self.given) {
            let mut at = self.given.clone();
            for part in rel.components() {
                at.push(part);
                match std::fs::symlink_metadata(&at) {
                    Ok(meta) => linked |= meta.file_type().is_symlink(),
                    Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
                    Err(e) => return Err(e),
                }
            }
        }
        if linked {
            let target = match path.canonicalize() {
                Ok(target) => target,
                Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
                Err(e) => return Err(e),
            };
            if !target.starts_with(&self.resolved) {
                return Err(outside(path, &target));
            }
        }
        match std::fs::metadata(path) {
            Ok(meta) => check_regular(&meta).map(|()| true),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Opens `path` if it is a regular file inside the root; `Ok(None)` when it is absent.
    pub(crate) fn open(&self, path: &Path) -> io::Result<Option<File>> {
        let opened = if self.check(path)? {
            match open_regular(path) {
                Ok(file) => Some(file),
                Err(e) if e.kind() == io::ErrorKind::NotFound => None,
                Err(e) => return Err(e),
            }
        } else {
            None
        };
        self.still_same()?;
        Ok(opened)
    }
}

fn outside(path: &Path, target: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::PermissionDenied,
        format!("{} is a link to {}, outside the store; not following it", path.display(), target.display()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fifos_and_links_out_of_the_root_are_refused() {
        let dir = std::env::temp_dir().join(format!("tegula-files-{}", std::process::id()));
        let root = dir.join("root");
        std::fs::create_dir_all(root.join("c")).unwrap();
        std::fs::write(dir.join("secret"), b"outside").unwrap();
        std::fs::write(root.join("c/0"), b"inside").unwrap();
        std::os::unix::fs::symlink(dir.join("secret"), root.join("c/1")).unwrap();
        std::os::unix::fs::symlink(root.join("c/0"), root.join("c/2")).unwrap();
        std::os::unix::fs::symlink(&dir, root.join("up")).unwrap();
        let fifo = std::ffi::CString::new(root.join("c/3").to_str().unwrap()).unwrap();
        // SAFETY: a plain system call with a valid C string.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        let r = Root::new(&root).unwrap();
        assert!(r.open(&root.join("c/0")).unwrap().is_some());
        assert!(r.open(&root.join("c/9")).unwrap().is_none());
        assert!(r.open(&root.join("c/2")).unwrap().is_some());
        assert!(r.open(&root.join("c/1")).unwrap_err().to_string().contains("outside the store"));
        assert!(r.open(&root.join("up/secret")).unwrap_err().to_string().contains("outside the store"));
        assert!(!r.check(&root.join("up/absent")).unwrap());
        assert!(r.open(&root.join("c/3")).unwrap_err().to_string().contains("FIFO"));
        assert!(open_regular(&root.join("c/3")).unwrap_err().to_string().contains("FIFO"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
