//! tegula-store: arrays on disk, read and written region by region. A region's elements travel
//! as raw bytes (row-major, native byte order), the form the kernels' `raw` module converts to
//! and from chunks, so storage never needs the kernels (nor the plans) and the executor joins
//! them. Formats: Zarr v2 and v3 through `zarrs` (`zarr.rs`, writes made atomic by
//! `atomic.rs`, a new or overwritten array built beside its path and switched in whole by
//! `replace.rs`), and NumPy's `.npy` (`npy.rs`).
//!
//! Files are not trusted: `files.rs` refuses FIFOs, devices and links out of a store's root;
//! no chunk decodes to more than its declared size (`compressed.rs` streams the plain zstd and
//! gzip chains into the chunk's buffer, `bounded.rs` wraps the codecs zarrs still decodes);
//! shapes whose bytes overflow `isize`, or with more than `MAX_NDIM` axes, are refused when
//! opened; errors name the path and the stored chunk (`chunk [3, 7] (c/3/7)`).

#![deny(missing_docs)]

mod atomic;
mod aws_profile;
mod bounded;
mod compressed;
mod codecs;
mod direct;
mod files;
mod npy;
mod object;
mod object_storage;
mod raw_chunks;
mod remote_zarr;
mod replace;
mod staged;
mod zarr;
mod zstd_stream;

pub use codecs::{Codec, ZarrOptions};
pub use direct::{read_file_into, write_file};
pub use npy::{NpySink, NpySource};
pub use object::{is_remote, StorageOptions};
pub use remote_zarr::{RemoteZarrSink, RemoteZarrSource};
pub use staged::{StagedNpy, StagedZarr};
pub use zarr::{ZarrSink, ZarrSource};

use tegula_core::{DType, Result, TegulaError};

/// What a stored array is: enough to plan reads of it.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredInfo {
    /// Where it lives, for messages.
    pub path: String,
    /// The array's length along each axis.
    pub shape: Vec<usize>,
    /// The type of its elements.
    pub dtype: DType,
    /// The store's own chunk shape (one chunk for a format without chunks, such as `.npy`).
    pub chunk_shape: Vec<usize>,
    /// User attributes, as a JSON object (`{}` when there are none).
    pub attributes: String,
}

/// An array whose regions can be read. `region` is a half-open `(start, stop)` per axis.
pub trait ChunkSource: Send + Sync {
    /// The array's path, shape, dtype, chunk shape and attributes.
    fn info(&self) -> &StoredInfo;
    /// Fills `out` (exactly the region's elements times the item size) with the region's
    /// elements, row-major, in native byte order.
    fn read_into(&self, region: &[(usize, usize)], out: &mut [u8]) -> Result<()>;
    /// The box a read costs at least, along each axis from the origin: a read of part of one
    /// costs as much as all of it (a compressed chunk is decoded whole), so a plan reads whole
    /// ones and shares them. `None`: any region reads at its own cost.
    fn read_unit(&self) -> Option<&[usize]> {
        None
    }
    /// Where another process opens it again (`open_url`); `None` for a source that lives
    /// only in this process.
    fn url(&self) -> Option<String> {
        None
    }
}

/// Opens the source at `url`, as written by a source's `url`: `zarr:DEV.INODE:PATH`,
/// `zarr-complete:DEV.INODE:PATH`, `npy:PATH` or `zarr-remote:["URL", OPTIONS, VERSION]`.
pub fn open_url(url: &str) -> Result<std::sync::Arc<dyn ChunkSource>> {
    let bad = || TegulaError::Value(format!("not a store URL tegula opens: {url:?}"));
    match url.split_once(':') {
        Some((scheme @ ("zarr" | zarr::COMPLETE_SCHEME), rest)) => {
            let (identity, path) = rest.split_once(':').ok_or_else(bad)?;
            let opened = ZarrSource::open_same(path, parse_identity(identity).ok_or_else(bad)?);
            if scheme == "zarr" {
                return Ok(std::sync::Arc::new(opened?));
            }
            let opened = opened.map_err(|e| match e {
                // Another process (a worker) finds it gone as this one's reads would.
                TegulaError::NotFound(_) => zarr::removed_in_use(path, "the array's directory"),
                e => e,
            })?;
            Ok(std::sync::Arc::new(opened.completed()))
        }
        Some(("npy", path)) => Ok(std::sync::Arc::new(NpySource::open(path)?)),
        Some((remote_zarr::REMOTE_SCHEME, json)) => Ok(std::sync::Arc::new(remote_zarr::open_source(json)?)),
        _ => Err(bad()),
    }
}

/// A directory's `DEV.INODE` as a store URL writes it.
fn parse_identity(text: &str) -> Option<(u64, u64)> {
    let (dev, ino) = text.split_once('.')?;
    Some((dev.parse().ok()?, ino.parse().ok()?))
}

/// Opens the sink a `ChunkSink::url` names, to write regions of it in this process.
pub fn open_sink_url(url: &str) -> Result<std::sync::Arc<dyn ChunkSink>> {
    match url.split_once(':') {
        Some((staged::STAGED_SCHEME, staging)) => Ok(std::sync::Arc::new(StagedZarr::open(staging)?)),
        Some((staged::STAGED_NPY_SCHEME, staging)) => Ok(std::sync::Arc::new(staged::StagedNpy::open(staging)?)),
        Some((remote_zarr::REMOTE_SINK_SCHEME, json)) => Ok(std::sync::Arc::new(remote_zarr::open_sink(json)?)),
        _ => Err(TegulaError::Value(format!("not a sink URL tegula opens: {url:?}"))),
    }
}

/// An array being written region by region. Concurrent writes to different regions must be
/// safe; a writer must never give two tasks regions that share a stored chunk.
pub trait ChunkSink: Send + Sync {
    /// The array's path, shape, dtype, chunk shape and attributes.
    fn info(&self) -> &StoredInfo;
    /// Where region boundaries may fall along each axis without sharing a stored chunk:
    /// multiples of this length (and the array's end).
    fn write_grid(&self) -> &[usize] {
        &self.info().chunk_shape
    }
    /// Writes the region's elements (row-major, native byte order).
    fn write(&self, region: &[(usize, usize)], bytes: &[u8]) -> Result<()>;
    /// Makes the written array visible, once every region is written.
    fn finish(&self) -> Result<()>;
    /// Where another process opens this sink to write regions of it (`open_sink_url`); the
    /// sink's own process still finishes it. `None`: only this process writes it.
    fn url(&self) -> Option<String> {
        None
    }
}

/// An I/O error naming the stored array at `path`.
fn io_err(path: &str, what: impl std::fmt::Display) -> TegulaError {
    TegulaError::Io(format!("{path}: {what}"))
}

/// The most axes a stored array may have (NumPy's limit).
pub const MAX_NDIM: usize = 64;

/// The number of bytes of `shape`'s elements of `itemsize` bytes, if it fits in `isize` (as
/// every array and buffer must); `None` when the count overflows, whatever the order.
pub fn checked_bytes(shape: &[usize], itemsize: usize) -> Option<usize> {
    let bytes = shape.iter().try_fold(itemsize, |n, &d| n.checked_mul(d))?;
    // A zero-length axis makes any other length harmless only if each fits on its own.
    let each_fits = shape.iter().all(|&d| d <= isize::MAX as usize);
    (bytes <= isize::MAX as usize && each_fits).then_some(bytes)
}

/// The number of bytes of a whole array of `shape` and `dtype` (checked when opened or created).
fn array_bytes(shape: &[usize], dtype: DType) -> usize {
    checked_bytes(shape, dtype.itemsize()).unwrap_or(usize::MAX)
}

/// The number of bytes of a region of `dtype`.
pub fn region_bytes(region: &[(usize, usize)], dtype: DType) -> usize {
    region.iter().map(|(a, b)| b - a).product::<usize>() * dtype.itemsize()
}

/// Refuses byte ranges of a stored value of `size` bytes that end past its end (a shard index
/// that lies would otherwise have its range allocated before the read fails).
fn check_byte_ranges(key: &zarrs::storage::StoreKey, ranges: &[zarrs::storage::byte_range::ByteRange], size: u64) -> std::result::Result<(), zarrs::storage::StorageError> {
    use zarrs::storage::byte_range::ByteRange;
    for range in ranges {
        let end = match *range {
            ByteRange::FromStart(offset, Some(length)) => offset.checked_add(length),
            ByteRange::FromStart(offset, None) => Some(offset),
            ByteRange::Suffix(length) => Some(length),
        };
        if end.is_none_or(|end| end > size) {
            return Err(zarrs::storage::StorageError::Other(format!("{key}: byte range {range:?} is past the end of its {size} bytes")));
        }
    }
    Ok(())
}

/// Checks that `region` lies inside `shape` and `out` has its size.
fn check_region(info: &StoredInfo, region: &[(usize, usize)], len: usize) -> Result<()> {
    let inside = region.len() == info.shape.len()
        && region.iter().zip(&info.shape).all(|(&(a, b), &n)| a <= b && b <= n);
    if !inside || len != region_bytes(region, info.dtype) {
        return Err(tegula_core::internal_err!("region {region:?} of {} (shape {:?}) with {len} bytes", info.path, info.shape));
    }
    Ok(())
}
