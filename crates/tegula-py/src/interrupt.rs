//! Computations that Ctrl-C stops: the work runs without the GIL on a thread of its own while
//! the calling thread waits, checking for signals every 50 ms (Python runs its signal handlers
//! only in a thread holding the GIL, so a computation waited on with the GIL released would
//! hear Ctrl-C only once it ended).

use pyo3::prelude::*;
use std::sync::mpsc;
use std::time::{Duration, Instant};
use tegula::Cancel;

const SIGNAL_CHECK: Duration = Duration::from_millis(50);

/// Something to call every `every` while the work runs, and once when it ends.
pub struct Poll<'a> {
    pub every: Duration,
    pub call: &'a mut (dyn FnMut() + Send),
}

/// Runs `work`; when a signal handler raises (Ctrl-C's `KeyboardInterrupt`), sets `cancel`,
/// waits for the work to stop (it starts no task after that) and raises that exception.
pub fn run_interruptible<T: Send>(
    py: Python<'_>,
    cancel: &Cancel,
    mut poll: Option<Poll<'_>>,
    work: impl FnOnce() -> T + Send,
) -> PyResult<T> {
    let mut interrupted: Option<PyErr> = None;
    let outcome = py.detach(|| {
        std::thread::scope(|scope| {
            let (done_tx, done_rx) = mpsc::channel();
            let worker = scope.spawn(move || {
                let result = work();
                let _ = done_tx.send(());
                result
            });
            let mut polled = Instant::now();
            loop {
                let finished = done_rx.recv_timeout(SIGNAL_CHECK).is_ok();
                if let Some(p) = poll.as_mut() {
                    if finished || polled.elapsed() >= p.every {
                        (p.call)();
                        polled = Instant::now();
                    }
                }
                if finished {
                    break;
                }
                if interrupted.is_none() {
                    if let Err(e) = Python::attach(|py| py.check_signals()) {
                        cancel.set();
                        interrupted = Some(e);
                    }
                }
            }
            worker.join()
        })
    });
    if let Some(e) = interrupted {
        return Err(e);
    }
    outcome.map_err(|_| pyo3::exceptions::PyRuntimeError::new_err("the computation's thread panicked"))
}
