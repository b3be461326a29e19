//! Asking the kernel to read files ahead of need, from one background thread: the request
//! (`posix_fadvise(WILLNEED)`) blocks while it queues the reads, which would otherwise stall
//! the worker that asked, and with it the computation the read-ahead is meant to overlap.

use std::path::PathBuf;
use std::sync::mpsc::{channel, Sender};
use std::sync::{Mutex, OnceLock};

static QUEUE: OnceLock<Option<Mutex<Sender<PathBuf>>>> = OnceLock::new();

/// Bytes per request. Linux reads at most the device's read-ahead size (often 128 KB to 8 MB)
/// per `WILLNEED` request, so a whole-file request for an 80 MB chunk primed only its start.
const PIECE: u64 = 1 << 20;

/// Asks for every piece of the file, in order.
fn read_into_cache(file: &std::fs::File) {
    let Ok(len) = file.metadata().map(|m| m.len()) else { return };
    let fd = std::os::fd::AsRawFd::as_raw_fd(file);
    for offset in (0..len).step_by(PIECE as usize) {
        // SAFETY: a plain system call on a file descriptor we own.
        unsafe { libc::posix_fadvise(fd, offset as libc::off_t, PIECE as libc::off_t, libc::POSIX_FADV_WILLNEED) };
    }
}

/// Queues `path` to be read into the page cache; a hint, silently dropped if it cannot be.
pub(crate) fn prefetch(path: PathBuf) {
    let queue = QUEUE.get_or_init(|| {
        let (send, receive) = channel::<PathBuf>();
        let started = std::thread::Builder::new().name("tegula-prefetch".into()).spawn(move || {
            for path in receive {
                if let Ok(file) = crate::files::open_regular(&path) {
                    read_into_cache(&file);
                }
            }
        });
        started.ok().map(|_| Mutex::new(send))
    });
    if let Some(queue) = queue {
        if let Ok(send) = queue.lock() {
            let _ = send.send(path);
        }
    }
}
