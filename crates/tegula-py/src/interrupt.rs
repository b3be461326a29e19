//! Computations that Ctrl-C stops: the work runs without the GIL on a thread of its own while
//! the calling thread waits, checking for signals every 50 ms (Python runs its signal handlers
//! only in a thread holding the GIL, so a computation waited on with the GIL released would
//! hear Ctrl-C only once it ended).
//!
//! On Ctrl-C the work is asked to stop (it starts no task after that; worker processes running
//! one are killed) and waited for briefly. Work still running after `ABANDON_AFTER` (a task in
//! user code that never returns, a server sending a byte a second) is abandoned: its thread
//! runs on, unwaited, a warning says so, and Ctrl-C returns control to the caller at once.

use pyo3::prelude::*;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};
use tegula::execute::Cancel;

const SIGNAL_CHECK: Duration = Duration::from_millis(50);

/// How long stopped work is waited for before it is abandoned.
const ABANDON_AFTER: Duration = Duration::from_millis(600);

/// Something to call every `every` while the work runs, and once when it ends.
pub struct Poll<'a> {
    pub every: Duration,
    pub call: &'a mut (dyn FnMut() + Send),
}

/// Runs `work`; when a signal handler raises (Ctrl-C's `KeyboardInterrupt`), sets `cancel`,
/// waits a moment for the work to stop, and raises that exception.
pub fn run_interruptible<T: Send + 'static>(
    py: Python<'_>,
    cancel: &Cancel,
    mut poll: Option<Poll<'_>>,
    work: impl FnOnce() -> T + Send + 'static,
) -> PyResult<T> {
    let mut interrupted: Option<(PyErr, Instant)> = None;
    let outcome = py.detach(|| {
        let (done_tx, done_rx) = mpsc::channel();
        let started = std::thread::Builder::new().name("tegula-compute".into()).spawn(move || {
            let _ = done_tx.send(work());
        });
        if let Err(e) = started {
            return Err(format!("cannot start the computation's thread: {e}"));
        }
        let mut polled = Instant::now();
        loop {
            let received = done_rx.recv_timeout(SIGNAL_CHECK);
            let finished = !matches!(received, Err(RecvTimeoutError::Timeout));
            if let Some(p) = poll.as_mut() {
                if finished || polled.elapsed() >= p.every {
                    (p.call)();
                    polled = Instant::now();
                }
            }
            match received {
                Ok(result) => return Ok(Some(result)),
                Err(RecvTimeoutError::Disconnected) => return Err("the computation's thread panicked".into()),
                Err(RecvTimeoutError::Timeout) => {}
            }
            match &interrupted {
                Some((_, at)) if at.elapsed() >= ABANDON_AFTER => return Ok(None),
                Some(_) => {}
                None => {
                    if let Err(e) = Python::attach(|py| py.check_signals()) {
                        cancel.set();
                        interrupted = Some((e, Instant::now()));
                    }
                }
            }
        }
    });
    let outcome = outcome.map_err(pyo3::exceptions::PyRuntimeError::new_err)?;
    match (interrupted, outcome) {
        (Some((e, _)), finished) => {
            if finished.is_none() {
                abandoned(py);
            }
            Err(e)
        }
        (None, Some(result)) => Ok(result),
        (None, None) => Err(pyo3::exceptions::PyRuntimeError::new_err("the computation ended without a result")),
    }
}

/// Says that a stopped computation is still running, and lets go of the thread pools it may
/// occupy, so that the next computation gets threads of its own.
fn abandoned(py: Python<'_>) {
    tegula::execute::let_go_of_pools();
    let warned = py.import("warnings").and_then(|w| {
        let message = "tegula: the interrupted computation did not stop within a second (a task still runs user code \
                       or waits on a server); its thread was abandoned and runs on in the background";
        w.call_method1("warn", (message, py.get_type::<pyo3::exceptions::PyRuntimeWarning>(), 2))
    });
    // A warning turned into an error by the caller's filters gives way to the KeyboardInterrupt.
    drop(warned);
}
