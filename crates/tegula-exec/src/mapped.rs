//! An array shared as a `.npy` file (`shared.rs`) mapped into a worker's memory: its blocks
//! are views of the file's pages, which the process that wrote it shares, instead of copies
//! read region by region.

use std::os::fd::AsRawFd;
use tegula_core::{Result, Scalar};
use tegula_kernels::chunk::Block;
use tegula_kernels::{with_chunk, Chunk, Wrap};
use tegula_store::{ChunkSource, NpySource};

/// The array in the `.npy` file at `path`, mapped; `None` where it cannot be (stored another
/// way, or refused by the kernel), for the caller to read it instead.
pub fn map_npy(path: &str) -> Result<Option<Chunk>> {
    let source = NpySource::open(path)?;
    let Some((file, offset)) = source.mappable() else { return Ok(None) };
    let (shape, dtype) = (source.info().shape.clone(), source.info().dtype);
    let bytes = shape.iter().product::<usize>() * dtype.itemsize();
    if bytes == 0 {
        return Ok(Some(Chunk::full(dtype, &shape, Scalar::Bool(false))));
    }
    if !(offset as usize).is_multiple_of(dtype.itemsize()) {
        return Ok(None);
    }
    let len = offset as usize + bytes;
    // SAFETY: a new read-only shared mapping of a file this process opened; nothing else in
    // the process refers to it.
    let ptr = unsafe { libc::mmap(std::ptr::null_mut(), len, libc::PROT_READ, libc::MAP_SHARED, file.as_raw_fd(), 0) };
    if ptr == libc::MAP_FAILED {
        return Ok(None);
    }
    let mapping = Mapping { addr: ptr as usize, len };
    let first = ptr as usize + offset as usize;
    // A prototype of the dtype, for its element type.
    let like = Chunk::full(dtype, &[0], Scalar::Bool(false));
    Ok(Some(with_chunk!(&like, l => view(l, first, &shape, mapping))))
}

/// The row-major array of `shape` at `first`, kept alive by `mapping`.
fn view<T: Wrap>(_like: &Block<T>, first: usize, shape: &[usize], mapping: Mapping) -> Chunk {
    let mut strides = vec![1isize; shape.len()];
    for k in (0..shape.len().saturating_sub(1)).rev() {
        strides[k] = strides[k + 1] * shape[k + 1] as isize;
    }
    // SAFETY: the mapping holds the file's elements from `first` on (the header says how many,
    // and `NpySource::open` refused a shorter file), aligned to their size; the shared
    // directory's files are written once, before any worker reads them, and never again.
    T::wrap(unsafe { Block::from_raw_parts(first as *const T, shape, &strides, mapping) })
}

/// A mapping, unmapped when the last block viewing it goes.
struct Mapping {
    addr: usize,
    len: usize,
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: the mapping `map_npy` made; no block views it any more.
        unsafe { libc::munmap(self.addr as *mut libc::c_void, self.len) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tegula_core::DType;
    use tegula_kernels::raw::with_bytes;
    use tegula_store::{ChunkSink, NpySink};

    fn written(dir: &std::path::Path, name: &str, chunk: &Chunk) -> String {
        let path = dir.join(name).to_string_lossy().into_owned();
        let sink = NpySink::create(&path, chunk.shape(), chunk.dtype(), true).unwrap();
        let region: Vec<(usize, usize)> = chunk.shape().iter().map(|&n| (0, n)).collect();
        with_bytes(chunk, |bytes| sink.write(&region, bytes)).unwrap();
        sink.finish().unwrap();
        path
    }

    #[test]
    fn a_mapped_file_holds_the_array_written_and_outlives_its_file() {
        let dir = std::env::temp_dir().join(format!("tegula-mapped-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let values = ndarray::Array::from_shape_fn(ndarray::IxDyn(&[3, 5, 2]), |i| (i[0] * 10 + i[1]) as f64 - 0.5 * i[2] as f64);
        let cases = [
            Chunk::Float64(Block::from(values.clone())),
            Chunk::Float64(Block::from(values.clone())).cast(DType::Int16),
            Chunk::Float64(Block::from(values.clone())).cast(DType::Bool),
            Chunk::full(DType::Float32, &[0, 4], Scalar::Float(1.0)),
        ];
        for (k, chunk) in cases.iter().enumerate() {
            let path = written(&dir, &format!("a{k}.npy"), chunk);
            let mapped = map_npy(&path).unwrap().expect("a row-major little-endian file maps");
            std::fs::remove_file(&path).unwrap();
            assert_eq!((mapped.dtype(), mapped.shape()), (chunk.dtype(), chunk.shape()));
            with_bytes(&mapped, |m| with_bytes(chunk, |c| assert_eq!(m, c, "case {k}")));
        }
        std::fs::remove_dir_all(dir).unwrap();
    }
}
