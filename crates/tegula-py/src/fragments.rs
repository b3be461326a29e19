//! Plans that leave the process: a plan's fragments as bytes (`plan_fragments`), running one
//! on NumPy arrays (`run_fragment`, the GIL released), and the loop of a worker process of
//! the process pool (`serve_worker`). Functions travel pickled (cloudpickle), and exceptions
//! they raise in a worker come back pickled too, raised as themselves by the caller.

use crate::array::PyArrayHandle;
use crate::convert::{chunk_over_numpy, chunk_to_numpy, ReadBorrows};
use crate::errors::{pickled_callback_error, IntoPy};
use crate::map_blocks::decode_function;
use crate::options::spec;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};
use std::fs::File;
use std::io::{BufReader, BufWriter};
use std::os::fd::FromRawFd;
use tegula::{Array, cluster::Fragment};

/// Registers the codecs worker processes use: functions are unpickled, their exceptions
/// pickled.
pub fn register_codecs() {
    tegula::cluster::set_function_decoder(decode_function);
    tegula::cluster::set_callback_encoder(pickled_callback_error);
}

/// The fragments computing `arrays`: a list of (bytes, input task ids, output task ids), and
/// for each array the task ids of its blocks, row-major.
#[pyfunction]
#[pyo3(signature = (arrays, fuse=true, memory=None))]
#[allow(clippy::type_complexity)]
pub fn plan_fragments<'py>(
    py: Python<'py>,
    arrays: Vec<PyRef<'_, PyArrayHandle>>,
    fuse: bool,
    memory: Option<usize>,
) -> PyResult<(Vec<(Bound<'py, PyBytes>, Vec<usize>, Vec<usize>)>, Vec<Vec<usize>>)> {
    let inputs: Vec<&Array> = arrays.iter().map(|a| &a.inner).collect();
    let (fragments, outputs) = tegula::cluster::plan_fragments(&inputs, fuse, &spec(memory, None)?).py()?;
    let fragments = fragments.into_iter().map(|f| (PyBytes::new(py, &f.bytes), f.inputs, f.outputs)).collect();
    Ok((fragments, outputs))
}

/// Runs a fragment (its bytes) given the blocks its inputs name, within `memory` bytes, and
/// returns its outputs' blocks — with `return_peak`, a tuple of them and the most bytes of
/// blocks the fragment held at once. Input arrays are read where they are, not copied, when
/// their layout allows (`chunk_over_numpy`); outputs are new arrays (a copy where one is a
/// view of an input), never views of the inputs.
#[pyfunction]
#[pyo3(signature = (fragment, inputs, memory=None, num_workers=1, return_peak=false))]
pub fn run_fragment<'py>(
    py: Python<'py>,
    fragment: &[u8],
    inputs: Vec<Bound<'py, PyAny>>,
    memory: Option<usize>,
    num_workers: usize,
    return_peak: bool,
) -> PyResult<Bound<'py, PyAny>> {
    // Dropped last: the inputs stay read-borrowed until every chunk over them is gone.
    let mut borrows = ReadBorrows::default();
    let given = inputs.iter().map(|a| chunk_over_numpy(a, &mut borrows)).collect::<PyResult<Vec<_>>>()?;
    let spec = spec(memory, None)?;
    let bytes = fragment.to_vec();
    // `given` stays out here, so the last references to the inputs go with the GIL held.
    let given = &given;
    let (blocks, report) = py
        .detach(move || {
            let graph = Fragment::from_bytes(&bytes)?.decode()?;
            tegula::cluster::run_fragment(&graph, given, num_workers, &spec, None)
        })
        .py()?;
    let outputs = blocks.into_iter().map(|b| chunk_to_numpy(py, b)).collect::<PyResult<Vec<_>>>()?;
    let outputs = PyList::new(py, outputs)?.into_any();
    if return_peak {
        return (outputs, report.peak_bytes).into_pyobject(py).map(Bound::into_any);
    }
    Ok(outputs)
}

/// Ends this process as soon as the pool's process is gone (every writer of the request pipe
/// `input` closed), even in the middle of a fragment: an orphan must not go on writing chunks
/// to a store that a later writer may already be filling.
fn exit_when_orphaned(input: i32) {
    std::thread::spawn(move || loop {
        let mut watched = libc::pollfd { fd: input, events: 0, revents: 0 };
        // SAFETY: one valid `pollfd`; hang-ups and errors are reported without asking.
        let ready = unsafe { libc::poll(&mut watched, 1, -1) };
        if ready > 0 && watched.revents & (libc::POLLHUP | libc::POLLERR | libc::POLLNVAL) != 0 {
            std::process::exit(1);
        }
        if ready < 0 && std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            return;
        }
    });
}

/// Serves a process pool's requests read from file descriptor `input`, answering on `output`,
/// until `input` closes (the pool's process ended or let this worker go).
#[pyfunction]
pub fn serve_worker(py: Python<'_>, input: i32, output: i32) -> PyResult<()> {
    exit_when_orphaned(input);
    // SAFETY: the caller hands over two open descriptors that nothing else in this process
    // uses; the files own them from here on.
    let (input, output) = unsafe { (File::from_raw_fd(input), File::from_raw_fd(output)) };
    py.detach(move || tegula::cluster::serve(&mut BufReader::new(input), &mut BufWriter::new(output))).py()
}
