//! The spill directory of one computation: chunks that do not fit in the memory budget are
//! written there as raw files (`tegula_kernels::raw`) and read back when a task needs them.
//! The directory is made on the first spill, inside the configured parent, and removed with
//! everything in it when the computation ends, whether it succeeded or failed. Big chunks go
//! to and from the disk past the page cache (`tegula_store::write_file`, `read_file_into`):
//! a spill written through it took as many fresh pages of the cache as it had bytes, and each
//! cost the host of a virtual machine a fault.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;
use tegula_core::{DType, Result, TegulaError};
use tegula_kernels::raw::{chunk_from_bytes_in_order, with_bytes_in_memory_order};
use tegula_kernels::Chunk;

/// A chunk on disk: its file and what the bytes are. Worker processes send their results
/// this way too, so it travels between processes. The bytes keep the order of the chunk's axes
/// in memory (`order`), so the chunk read back has the strides it had (a transposed block stays
/// one, as on threads).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Spilled {
    path: PathBuf,
    dtype: DType,
    shape: Vec<usize>,
    order: Vec<usize>,
}

impl Spilled {
    /// The bytes the chunk takes in memory once read back.
    pub fn nbytes(&self) -> usize {
        self.shape.iter().product::<usize>() * self.dtype.itemsize()
    }

    /// Writes `chunk` to a new file at `path`; a failure names the file and leaves none.
    pub fn write(path: PathBuf, chunk: &Chunk) -> Result<Spilled> {
        // Every failure names the file (a full disk is the common one), whatever layer saw it.
        let failed = |e: &dyn std::fmt::Display| TegulaError::Io(format!("spilling to {}: {e}", path.display()));
        let written = with_bytes_in_memory_order(chunk, |bytes, order| tegula_store::write_file(&path, bytes).map(|()| order.to_vec()));
        match written {
            Ok(order) => Ok(Spilled { path, dtype: chunk.dtype(), shape: chunk.shape().to_vec(), order }),
            Err(e) => {
                let _ = std::fs::remove_file(&path);
                Err(failed(&e))
            }
        }
    }

    /// Reads the chunk back (the file stays): a big one straight into its buffer, a small one
    /// through the page cache (`read_file_into`).
    pub fn read(&self) -> Result<Chunk> {
        let failed = |e: &dyn std::fmt::Display| TegulaError::Io(format!("{}: {e}", self.path.display()));
        let file = File::open(&self.path).map_err(|e| failed(&e))?;
        chunk_from_bytes_in_order(self.dtype, &self.shape, &self.order, |out| tegula_store::read_file_into(&file, &self.path, out).map_err(|e| failed(&e)))
    }
}

pub struct SpillDir {
    parent: PathBuf,
    /// The start of the directory's name.
    name: &'static str,
    dir: OnceLock<std::result::Result<PathBuf, String>>,
}

/// Distinguishes the spill directories of computations running at once in one process.
static NEXT: AtomicUsize = AtomicUsize::new(0);

impl SpillDir {
    /// A spill directory to be made inside `parent` when first needed.
    pub fn new(parent: &Path) -> SpillDir {
        SpillDir::named(parent, "tegula-spill")
    }

    /// A directory of chunk files named `name-PID-N`, made inside `parent` when first needed.
    pub fn named(parent: &Path, name: &'static str) -> SpillDir {
        SpillDir { parent: parent.to_path_buf(), name, dir: OnceLock::new() }
    }

    pub fn dir(&self) -> Result<&Path> {
        let made = self.dir.get_or_init(|| {
            crate::leftovers::remove_dead_owners(&self.parent);
            let dir = self.parent.join(format!("{}-{}-{}", self.name, std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed)));
            std::fs::create_dir_all(&dir).map(|()| dir.clone()).map_err(|e| format!("cannot make spill directory {}: {e}", dir.display()))
        });
        made.as_deref().map_err(|e| TegulaError::Io(e.clone()))
    }

    /// Writes task `id`'s chunk to its file.
    pub fn write(&self, id: usize, chunk: &Chunk) -> Result<Spilled> {
        Spilled::write(self.dir()?.join(format!("{id}.raw")), chunk)
    }

    /// Reads a spilled chunk back (the file stays until `remove`).
    pub fn read(&self, spilled: &Spilled) -> Result<Chunk> {
        spilled.read()
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

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use ndarray::{Array, IxDyn};
    use tegula_kernels::Wrap;

    fn chunk<T: Wrap>(shape: &[usize], value: impl Fn(usize) -> T) -> Chunk {
        let n = shape.iter().product();
        T::wrap(Array::from_shape_vec(IxDyn(shape), (0..n).map(value).collect()).unwrap().into())
    }

    fn same(a: &Chunk, b: &Chunk) -> bool {
        a.dtype() == b.dtype() && tegula_kernels::raw::with_bytes(a, |x| tegula_kernels::raw::with_bytes(b, |y| x == y))
    }

    #[test]
    fn chunks_read_back_equal() {
        let dir = SpillDir::named(&std::env::temp_dir(), "tegula-test-spill-read");
        let transposed = match chunk::<f32>(&[700, 500], |i| i as f32 * 0.5) {
            Chunk::Float32(b) => Chunk::Float32(b.map_view(|v| v.reversed_axes())),
            _ => unreachable!(),
        };
        let chunks = [
            chunk::<f64>(&[3, 200, 300], |i| (i as f64).sin()),
            chunk::<i16>(&[1 << 19], |i| (i % 30011) as i16 - 15000),
            chunk::<tegula_kernels::element::C128>(&[70_000], |i| tegula_kernels::element::C128::new(i as f64, -(i as f64))),
            chunk::<bool>(&[1 << 21], |i| i % 3 == 0),
            chunk::<f32>(&[10, 7], |i| i as f32),
            chunk::<u8>(&[0, 5], |_| 0),
            transposed,
        ];
        for (id, c) in chunks.iter().enumerate() {
            let spilled = dir.write(id, c).unwrap();
            let back = dir.read(&spilled).unwrap();
            assert_eq!(back.shape(), c.shape(), "{:?}", c.dtype());
            assert!(same(&back, c), "{:?} {:?}", c.dtype(), c.shape());
            if let (Chunk::Float32(b), Chunk::Float32(a)) = (&back, c) {
                assert_eq!(b.strides(), a.strides(), "a transposed chunk comes back transposed");
            }
            // The file can go while the chunk read from it is held.
            dir.remove(spilled);
            assert!(same(&back, c), "{:?} after its file was removed", c.dtype());
        }
    }

    #[test]
    fn a_file_shorter_than_its_chunk_is_an_error() {
        let dir = SpillDir::named(&std::env::temp_dir(), "tegula-test-spill-short");
        for len in [10usize, 1 << 20] {
            let spilled = dir.write(len, &chunk::<f64>(&[len], |i| i as f64)).unwrap();
            let file = std::fs::OpenOptions::new().write(true).open(&spilled.path).unwrap();
            file.set_len((len * 8 - 8) as u64).unwrap();
            assert!(matches!(dir.read(&spilled), Err(TegulaError::Io(_))), "{len}");
        }
    }
}
