//! In-memory arrays shared with other processes: read out of the caller's memory where the
//! workers may (`caller_memory.rs`), else as `.npy` files in one directory (on a memory file
//! system such as `/dev/shm` where there is one): each array is written once, when a fragment
//! first names it, and workers map it (`mapped.rs`), reading in place only the regions their
//! tasks load.

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use tegula_core::{internal_err, ResourceId, Result};
use tegula_kernels::raw::with_bytes;
use tegula_kernels::Chunk;
use tegula_store::{ChunkSink, NpySink};

/// In-memory arrays for workers to read: out of this process's memory, or written as `.npy`
/// files in one directory, each once.
pub struct SharedArrays {
    dir: PathBuf,
    written: Mutex<HashMap<ResourceId, String>>,
    reads_caller: bool,
}

impl SharedArrays {
    /// Arrays written to `dir`, which must exist and is the caller's to remove.
    pub fn new(dir: &Path) -> SharedArrays {
        SharedArrays { dir: dir.to_path_buf(), written: Mutex::new(HashMap::new()), reads_caller: false }
    }

    /// The same, but arrays that lie row-major in this process's memory are read there by the
    /// workers (which must be able to: `Probe::readable`), not written to files.
    pub fn read_in_place(self, workers_read_caller: bool) -> SharedArrays {
        SharedArrays { reads_caller: workers_read_caller, ..self }
    }

    /// Whether workers read arrays out of this process's memory.
    pub fn reads_caller(&self) -> bool {
        self.reads_caller
    }

    /// The file holding array `id`, written on first use from the chunk `whole` makes.
    pub fn path_of<'a>(&self, id: ResourceId, whole: impl FnOnce() -> Result<Cow<'a, Chunk>>) -> Result<String> {
        let mut written = self.written.lock().map_err(|_| internal_err!("shared arrays poisoned"))?;
        if let Some(path) = written.get(&id) {
            return Ok(path.clone());
        }
        let chunk = whole()?;
        let chunk = chunk.as_ref();
        let path = self.dir.join(format!("array-{id}.npy")).to_string_lossy().into_owned();
        let sink = NpySink::create(&path, chunk.shape(), chunk.dtype(), true)?;
        let region: Vec<(usize, usize)> = chunk.shape().iter().map(|&n| (0, n)).collect();
        with_bytes(chunk, |bytes| sink.write(&region, bytes))?;
        sink.finish()?;
        written.insert(id, path.clone());
        Ok(path)
    }
}
