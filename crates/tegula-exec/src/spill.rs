//! The spill directory of one computation: chunks that do not fit in the memory budget are
//! written there as raw files (`tegula_kernels::raw`) and read back when a task needs them.
//! The directory is made on the first spill, inside the configured parent, and removed with
//! everything in it when the computation ends, whether it succeeded or failed.

use std::fs::File;
use std::io::{BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;
use tegula_core::{DType, Result, TegulaError};
use tegula_kernels::raw::{read_raw, write_raw};
use tegula_kernels::Chunk;

/// A chunk on disk: its file and what the bytes are.
#[derive(Debug, Clone)]
pub struct Spilled {
    path: PathBuf,
    dtype: DType,
    shape: Vec<usize>,
}

impl Spilled {
    /// The bytes the chunk takes in memory once read back.
    pub fn nbytes(&self) -> usize {
        self.shape.iter().product::<usize>() * self.dtype.itemsize()
    }
}

pub struct SpillDir {
    parent: PathBuf,
    dir: OnceLock<std::result::Result<PathBuf, String>>,
}

/// Distinguishes the spill directories of computations running at once in one process.
static NEXT: AtomicUsize = AtomicUsize::new(0);

impl SpillDir {
    /// A spill directory to be made inside `parent` when first needed.
    pub fn new(parent: &Path) -> SpillDir {
        SpillDir { parent: parent.to_path_buf(), dir: OnceLock::new() }
    }

    fn dir(&self) -> Result<&Path> {
        let made = self.dir.get_or_init(|| {
            let dir = self.parent.join(format!("tegula-spill-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed)));
            std::fs::create_dir_all(&dir).map(|()| dir.clone()).map_err(|e| format!("cannot make spill directory {}: {e}", dir.display()))
        });
        made.as_deref().map_err(|e| TegulaError::Io(e.clone()))
    }

    /// Writes task `id`'s chunk to its file.
    pub fn write(&self, id: usize, chunk: &Chunk) -> Result<Spilled> {
        let path = self.dir()?.join(format!("{id}.raw"));
        // Every failure names the file (a full disk is the common one), whatever layer saw it.
        let failed = |e: &dyn std::fmt::Display| TegulaError::Io(format!("spilling to {}: {e}", path.display()));
        let written = File::create(&path).map_err(|e| failed(&e)).and_then(|file| {
            let mut out = BufWriter::new(file);
            write_raw(chunk, &mut out).map_err(|e| failed(&e))?;
            out.flush().map_err(|e| failed(&e))
        });
        if let Err(e) = written {
            let _ = std::fs::remove_file(&path);
            return Err(e);
        }
        Ok(Spilled { path, dtype: chunk.dtype(), shape: chunk.shape().to_vec() })
    }

    /// Reads a spilled chunk back (the file stays until `remove`).
    pub fn read(&self, spilled: &Spilled) -> Result<Chunk> {
        let failed = |e: &dyn std::fmt::Display| TegulaError::Io(format!("{}: {e}", spilled.path.display()));
        let file = File::open(&spilled.path).map_err(|e| failed(&e))?;
        read_raw(spilled.dtype, &spilled.shape, &mut BufReader::new(file)).map_err(|e| failed(&e))
    }

    /// Deletes a spilled chunk's file once no task needs it.
    pub fn remove(&self, spilled: Spilled) {
        // A file that cannot be deleted now goes with the directory at the end.
        let _ = std::fs::remove_file(spilled.path);
    }
}

impl Drop for SpillDir {
    fn drop(&mut self) {
        if let Some(Ok(dir)) = self.dir.get() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}
