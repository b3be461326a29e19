//! Asking the kernel to read files ahead of need, from one background thread: the request
//! (`posix_fadvise(WILLNEED)`) blocks while it queues the reads, which would otherwise stall
//! the worker that asked, and with it the computation the read-ahead is meant to overlap.

use std::path::PathBuf;
use std::sync::mpsc::{channel, Sender};
use std::sync::{Mutex, OnceLock};

static QUEUE: OnceLock<Option<Mutex<Sender<PathBuf>>>> = OnceLock::new();

/// Queues `path` to be read into the page cache; a hint, silently dropped if it cannot be.
pub(crate) fn prefetch(path: PathBuf) {
    let queue = QUEUE.get_or_init(|| {
        let (send, receive) = channel::<PathBuf>();
        let started = std::thread::Builder::new().name("tegula-prefetch".into()).spawn(move || {
            for path in receive {
                if let Ok(file) = std::fs::File::open(&path) {
                    // SAFETY: a plain system call on a file descriptor we own.
                    unsafe { libc::posix_fadvise(std::os::fd::AsRawFd::as_raw_fd(&file), 0, 0, libc::POSIX_FADV_WILLNEED) };
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
