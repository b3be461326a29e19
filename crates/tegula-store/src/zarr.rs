//! Zarr arrays (format 2 and 3) through `zarrs`: a source reads any region (only the chunks
//! it touches), a sink writes regions made of whole stored chunks (or shards), through the
//! atomic store.

use crate::atomic::{AtomicStore, PARTIAL_SUFFIX};
use crate::codecs::{parse_dtype, parse_v3_extension, ZarrOptions};
use crate::compressed::Compressed;
use crate::raw_chunks::RawChunks;
use crate::replace;
use crate::{check_region, io_err as io, ChunkSink, ChunkSource, StoredInfo};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use tegula_core::{DType, Result, TegulaError};
use unsafe_cell_slice::UnsafeCellSlice;
use zarrs::array::{
    Array, ArrayBytes, ArrayBytesFixedDisjointView, ArrayCreateError, ArrayError, ArrayMetadata, ArrayMetadataOptions, ArraySubset,
};
use zarrs::storage::{ReadableStorageTraits, ReadableWritableStorageTraits};

pub(crate) type ZarrArray = Array<AtomicStore>;

fn ranges(region: &[(usize, usize)]) -> Vec<std::ops::Range<u64>> {
    region.iter().map(|&(a, b)| a as u64..b as u64).collect()
}

/// Opens the array at `path` (its root, `/`).
pub(crate) fn open_array(path: &str) -> Result<(ZarrArray, Arc<AtomicStore>)> {
    // A writer killed while switching a new array in may have left the old one aside.
    replace::recover(Path::new(path));
    if !Path::new(path).exists() {
        return Err(TegulaError::NotFound(format!("no such file or directory: {path}")));
    }
    let store = Arc::new(AtomicStore::new(Path::new(path)).map_err(|e| io(path, e))?);
    match Array::open(store.clone(), "/") {
        Ok(array) => Ok((array, store)),
        Err(ArrayCreateError::MissingMetadata) => {
            Err(TegulaError::NotFound(format!("no Zarr array at {path} (neither zarr.json nor .zarray)")))
        }
        Err(ArrayCreateError::DataTypeCreateError(e)) => Err(tegula_core::dtype_err!("{path}: {e}")),
        Err(e) => Err(io(path, format!("invalid Zarr metadata: {e}"))),
    }
}

/// The array's metadata document.
pub(crate) fn metadata<S: ?Sized>(path: &str, array: &Array<S>) -> Result<Value> {
    serde_json::to_value(array.metadata()).map_err(|e| io(path, e))
}

/// What tegula needs from an array's metadata (`meta`, its document).
pub(crate) fn describe<S: ?Sized>(path: &str, array: &Array<S>, meta: &Value) -> Result<StoredInfo> {
    let (dtype, chunks) = match array.metadata() {
        ArrayMetadata::V3(_) => (&meta["data_type"], &meta["chunk_grid"]["configuration"]["chunk_shape"]),
        ArrayMetadata::V2(_) => (&meta["dtype"], &meta["chunks"]),
    };
    let dtype = match dtype {
        Value::String(name) => parse_dtype(name).map_err(|e| tegula_core::dtype_err!("{path}: {e}"))?,
        other => parse_v3_extension(other)
            .ok_or_else(|| tegula_core::dtype_err!("{path}: data type {other} is not supported by tegula"))?,
    };
    let shape: Vec<usize> = array.shape().iter().map(|&n| usize::try_from(n).unwrap_or(usize::MAX)).collect();
    let chunk_shape: Vec<usize> = serde_json::from_value(chunks.clone())
        .map_err(|_| io(path, format!("tegula reads regular chunk grids only, not {chunks}")))?;
    if chunk_shape.len() != shape.len() || chunk_shape.contains(&0) {
        return Err(io(path, format!("chunk shape {chunk_shape:?} does not fit shape {shape:?}")));
    }
    check_sizes(path, &shape, &chunk_shape, dtype)?;
    let attributes = serde_json::to_string(array.attributes()).map_err(|e| io(path, e))?;
    Ok(StoredInfo { path: path.to_string(), shape, dtype, chunk_shape, attributes })
}

/// Refuses arrays no buffer could hold: more than `MAX_NDIM` axes, or a shape or chunk whose
/// bytes overflow `isize` (whose arithmetic would otherwise wrap or abort later).
pub(crate) fn check_sizes(path: &str, shape: &[usize], chunk_shape: &[usize], dtype: DType) -> Result<()> {
    if shape.len() > crate::MAX_NDIM {
        return Err(tegula_core::value_err!("{path}: {} dimensions, more than the {} tegula (and NumPy) allow", shape.len(), crate::MAX_NDIM));
    }
    for (what, dims) in [("shape", shape), ("chunk shape", chunk_shape)] {
        if crate::checked_bytes(dims, dtype.itemsize()).is_none() {
            return Err(tegula_core::value_err!("{path}: {what} {dims:?} of {dtype} is too large (more than isize::MAX bytes)"));
        }
    }
    Ok(())
}

/// The stored chunks a region touches, for messages: `(0, 1)` or `(0..2, 1)`.
pub(crate) fn chunk_names(info: &StoredInfo, region: &[(usize, usize)]) -> String {
    let axes: Vec<String> = region
        .iter()
        .zip(&info.chunk_shape)
        .map(|(&(a, b), &c)| {
            let (first, last) = (a / c, b.saturating_sub(1).max(a) / c);
            if first == last { format!("{first}") } else { format!("{first}..{}", last + 1) }
        })
        .collect();
    format!("chunk ({})", axes.join(", "))
}

/// A local Zarr array (v2 or v3), read region by region.
pub struct ZarrSource {
    info: StoredInfo,
    array: ZarrArray,
    store: Arc<AtomicStore>,
    raw: Option<RawChunks>,
    compressed: Option<Compressed>,
    /// Every chunk was written (a persisted array's): a missing one was removed since, an
    /// error rather than the fill value.
    complete: bool,
}

impl ZarrSource {
    /// Opens the Zarr array at `path`; chunks never written read as the fill value.
    pub fn open(path: &str) -> Result<ZarrSource> {
        // An array switched in while its metadata was read: open the new one.
        let mut tries = 0;
        let (array, store) = loop {
            match open_array(path) {
                Err(e) if tries < 3 && e.to_string().contains(crate::files::REPLACED) => tries += 1,
                opened => break opened?,
            }
        };
        let meta = metadata(path, &array)?;
        let info = describe(path, &array, &meta)?;
        // Chains compressed.rs does not decode itself: zarrs' decoding, bounded.
        let array = crate::bounded::bounded(&array, &meta, store.clone()).unwrap_or(array);
        let raw = RawChunks::new(&meta, &store);
        let compressed = Compressed::new(&meta, &store, array.fill_value().as_ne_bytes());
        Ok(ZarrSource { info, array, store, raw, compressed, complete: false })
    }

    /// Opens an array every chunk of which was written (tegula's own, such as a persisted
    /// array's): reading a chunk removed since (by a cleaner of temporary files) is an error.
    pub fn open_complete(path: &str) -> Result<ZarrSource> {
        Ok(ZarrSource::open(path)?.completed())
    }

    pub(crate) fn completed(self) -> ZarrSource {
        ZarrSource { complete: true, ..self }
    }

    /// Fails if a stored chunk `region` touches is missing (see `complete`).
    fn check_present(&self, region: &[(usize, usize)]) -> Result<()> {
        let gone = |what: String| removed_in_use(&self.info.path, &what);
        if !Path::new(&self.info.path).is_dir() {
            return Err(gone("the array's directory".into()));
        }
        let missing = each_chunk(&self.info, region, |index| {
            let key = self.array.chunk_key(index);
            (!self.store.path_of(&key).is_file()).then(|| format!("chunk {index:?} ({key})"))
        });
        missing.map_or(Ok(()), |chunk| Err(gone(chunk)))
    }

    /// Opens the array at `path` if it is still the directory `identity` (device, inode) names:
    /// an array that replaced it since is an `Io` error, as its reads would be.
    pub fn open_same(path: &str, identity: (u64, u64)) -> Result<ZarrSource> {
        let source = ZarrSource::open(path)?;
        if source.store.root().identity() != identity {
            return Err(io(path, crate::files::REPLACED));
        }
        Ok(source)
    }
}

impl ChunkSource for ZarrSource {
    fn info(&self) -> &StoredInfo {
        &self.info
    }

    fn read_unit(&self) -> Option<&[usize]> {
        Some(&self.info.chunk_shape)
    }

    /// `zarr:DEV.INODE:PATH`: opened again only while the path holds the same directory, so
    /// another process never reads an array that replaced this one.
    fn url(&self) -> Option<String> {
        let (dev, ino) = self.store.root().identity();
        let scheme = if self.complete { COMPLETE_SCHEME } else { "zarr" };
        Some(format!("{scheme}:{dev}.{ino}:{}", self.info.path))
    }

    fn read_into(&self, region: &[(usize, usize)], out: &mut [u8]) -> Result<()> {
        check_region(&self.info, region, out.len())?;
        if out.is_empty() {
            return Ok(());
        }
        if self.complete {
            self.check_present(region)?;
        }
        // Raw chunks are read straight from the disk into the block; compressed ones are
        // decoded as they are read. Neither asks for chunks ahead of need: the kernel's own
        // read-ahead of each file did better than asking for the next files too (a cold `max`
        // over a 1.7 GB zstd store: 0.9 s against 1.2 s with one chunk asked for ahead).
        if let Some(done) = self.raw.as_ref().and_then(|raw| raw.read(&self.array, &self.info, region, out)) {
            return done;
        }
        if let Some(compressed) = &self.compressed {
            return compressed.read(&self.array, &self.info, region, out);
        }
        read_with_zarrs(&self.array, &self.info, region, out)
    }
}

/// Reads `region` of `array` into `out` through `zarrs` (every codec and chunk layout).
pub(crate) fn read_with_zarrs<S: ?Sized + ReadableStorageTraits + 'static>(
    array: &Array<S>,
    info: &StoredInfo,
    region: &[(usize, usize)],
    out: &mut [u8],
) -> Result<()> {
    let shape: Vec<u64> = region.iter().map(|&(a, b)| (b - a) as u64).collect();
    let whole = ArraySubset::new_with_shape(shape.clone());
    let failed = |e: &dyn std::fmt::Display| io(&info.path, format!("reading {}: {e}", chunk_names(info, region)));
    // SAFETY: the view covers all of `out`, and no other view of `out` exists.
    let mut view = unsafe { ArrayBytesFixedDisjointView::new(UnsafeCellSlice::new(out), info.dtype.itemsize(), &shape, whole) }
        .map_err(|e| failed(&e))?;
    let subset = ArraySubset::new_with_ranges(&ranges(region));
    match array.retrieve_array_subset_into(&subset, (&mut view).into()) {
        Ok(()) => Ok(()),
        Err(e) => Err(failed_chunk(array, info, region).unwrap_or_else(|| failed(&e))),
    }
}

/// The URL scheme of an array every chunk of which was written (`ZarrSource::open_complete`).
pub const COMPLETE_SCHEME: &str = "zarr-complete";

/// The error of a complete array at `path` whose file or directory `what` was removed.
pub(crate) fn removed_in_use(path: &str, what: &str) -> TegulaError {
    TegulaError::NotFound(format!("{path}: {what} was removed while the array was in use (by a cleaner of temporary files?); compute it again"))
}

/// Calls `f` with the grid index of each stored chunk `region` touches, in row-major order,
/// until it returns something.
fn each_chunk<T>(info: &StoredInfo, region: &[(usize, usize)], mut f: impl FnMut(&[u64]) -> Option<T>) -> Option<T> {
    let c = &info.chunk_shape;
    let first: Vec<u64> = region.iter().zip(c).map(|(&(a, _), &c)| (a / c) as u64).collect();
    let last: Vec<u64> = region.iter().zip(c).map(|(&(a, b), &c)| ((b - 1).max(a) / c) as u64).collect();
    let mut index = first.clone();
    loop {
        if let Some(found) = f(&index) {
            return Some(found);
        }
        let mut axis = index.len();
        loop {
            if axis == 0 {
                return None;
            }
            axis -= 1;
            index[axis] += 1;
            if index[axis] <= last[axis] {
                break;
            }
            index[axis] = first[axis];
        }
    }
}

/// The error of the first stored chunk (or shard) of `region` that cannot be read, found by
/// reading them one by one once a read of the region failed, so the message names the broken
/// chunk itself rather than the block's range of chunks.
fn failed_chunk<S: ?Sized + ReadableStorageTraits + 'static>(array: &Array<S>, info: &StoredInfo, region: &[(usize, usize)]) -> Option<TegulaError> {
    let c = &info.chunk_shape;
    each_chunk(info, region, |index| {
        // Only the chunk's part of the region: its metadata may declare a chunk larger than
        // memory.
        let part: Vec<std::ops::Range<u64>> = region
            .iter()
            .zip(c)
            .zip(index)
            .map(|((&(a, b), &c), &i)| {
                let start = i * c as u64;
                (a as u64).max(start) - start..(b as u64).min(start + c as u64) - start
            })
            .collect();
        let part = ArraySubset::new_with_ranges(&part);
        let e = array.retrieve_chunk_subset::<ArrayBytes<'static>>(index, &part).err()?;
        let key = array.chunk_key(index);
        let what = format!("reading chunk {index:?} ({key})");
        Some(match e {
            ArrayError::StorageError(e) => crate::object::storage_error(&format!("{}: {what}", info.path), &e),
            e => io(&info.path, format!("{what}: {e}")),
        })
    })
}

/// A local Zarr array being written region by region, in a directory beside its path until
/// `finish`.
pub struct ZarrSink {
    info: StoredInfo,
    array: ZarrArray,
    raw: Option<RawChunks>,
    /// Where the array goes once complete.
    target: PathBuf,
    /// Where it is built (a hidden sibling of `target`, see `replace.rs`).
    staging: PathBuf,
    overwrite: bool,
    finished: AtomicBool,
}

impl ZarrSink {
    /// Creates the array in a directory of its own beside `path` (metadata first), which
    /// `finish` switches in: until then the path keeps what it held (an old array when
    /// overwriting), and a failed or killed writer leaves it untouched.
    pub fn create(path: &str, shape: &[usize], dtype: DType, options: &ZarrOptions) -> Result<ZarrSink> {
        let meta = options.metadata(shape, dtype)?;
        let meta: ArrayMetadata =
            serde_json::from_value(meta).map_err(|e| tegula_core::internal_err!("array metadata: {e}"))?;
        let target = PathBuf::from(path);
        {
            // Under the writers' lock: unlocked, the directory read could be another writer's
            // old array that it is deleting after switching its new one in, half gone (a
            // `c/` without `zarr.json`) and so refused as not a Zarr array. A directory that
            // cannot be locked (its parent is missing) has no writer to race with.
            let _lock = replace::lock(&target).ok();
            check_target(path, options.overwrite)?;
        }
        replace::clean_leftovers(&target);
        let staging = replace::make_staging(&target).map_err(|e| io(path, format!("making a directory beside it: {e}")))?;
        let sink = ZarrSink::build(path, meta, &staging);
        if sink.is_err() {
            let _ = std::fs::remove_dir_all(&staging);
        }
        let (array, raw) = sink?;
        let attributes = options.attributes.clone();
        let info = StoredInfo { path: path.into(), shape: shape.to_vec(), dtype, chunk_shape: grid(options), attributes };
        Ok(ZarrSink { info, array, raw, target, staging, overwrite: options.overwrite, finished: AtomicBool::new(false) })
    }

    fn build(path: &str, meta: ArrayMetadata, staging: &Path) -> Result<(ZarrArray, Option<RawChunks>)> {
        let store = Arc::new(AtomicStore::new(staging).map_err(|e| io(path, e))?);
        let array = Array::new_with_metadata(store.clone(), "/", meta).map_err(|e| tegula_core::value_err!("{path}: {e}"))?;
        // The metadata says what the user asked for, without a note naming the library.
        let written = ArrayMetadataOptions::default().with_include_zarrs_metadata(false);
        array.store_metadata_opt(&written).map_err(|e| io(path, format!("writing metadata: {e}")))?;
        let raw = RawChunks::new(&metadata(path, &array)?, &store);
        Ok((array, raw))
    }
}

impl Drop for ZarrSink {
    /// An unfinished array (a failed compute) is removed; the target is untouched.
    fn drop(&mut self) {
        if !self.finished.load(Ordering::Acquire) {
            let _ = std::fs::remove_dir_all(&self.staging);
        }
    }
}

/// The URL scheme of an array being built: `zarr-staging:["PATH","STAGING DIRECTORY"]`
/// (JSON, so any path goes through).
pub const STAGED_SCHEME: &str = "zarr-staging";

/// The URL of the array to be switched in at `path`, being built in `staging`.
fn staged_url(path: &str, staging: &Path) -> Option<String> {
    let names = (path, staging.to_str()?);
    serde_json::to_string(&names).ok().map(|json| format!("{STAGED_SCHEME}:{json}"))
}

/// Writes `region`'s elements into `array` (straight into the chunk files when `raw`).
pub(crate) fn write_region(array: &ZarrArray, raw: Option<&RawChunks>, info: &StoredInfo, region: &[(usize, usize)], bytes: &[u8]) -> Result<()> {
    check_region(info, region, bytes.len())?;
    if bytes.is_empty() {
        return Ok(());
    }
    if let Some(done) = raw.and_then(|raw| raw.write(array, info, region, bytes)) {
        return done;
    }
    store_with_zarrs(array, info, region, bytes)
}

/// Writes `region` of `array` through `zarrs` (encoding each whole chunk it covers).
pub(crate) fn store_with_zarrs<S: ?Sized + ReadableWritableStorageTraits + 'static>(
    array: &Array<S>,
    info: &StoredInfo,
    region: &[(usize, usize)],
    bytes: &[u8],
) -> Result<()> {
    let subset = ArraySubset::new_with_ranges(&ranges(region));
    array.store_array_subset(&subset, ArrayBytes::new_flen(bytes)).map_err(|e| {
        let what = format!("{}: writing {}", info.path, chunk_names(info, region));
        match e {
            ArrayError::StorageError(e) => crate::object::storage_error(&what, &e),
            e => TegulaError::Io(format!("{what}: {e}")),
        }
    })
}

/// The stored chunk grid: the shards when sharded.
fn grid(options: &ZarrOptions) -> Vec<usize> {
    options.shard_shape.clone().unwrap_or_else(|| options.chunk_shape.clone())
}

/// Whether `path` may take a new array: absent or an empty directory, or, with `overwrite`,
/// a Zarr array or group (or leftovers of one), never other files. `Ok(true)`: something is
/// there to replace.
fn check_target(path: &str, overwrite: bool) -> Result<bool> {
    let entries: Vec<String> = match std::fs::read_dir(path) {
        Ok(entries) => entries.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => {
            return Err(TegulaError::Exists(format!("{path} exists and is not a directory")))
        }
        Err(e) => return Err(io(path, e)),
    };
    if !entries.is_empty() {
        let is_zarr = entries.iter().any(|e| METADATA_FILES[..].contains(&e.as_str()));
        if !overwrite {
            return Err(TegulaError::Exists(format!("{path} already exists; pass overwrite=True to replace it")));
        }
        if !is_zarr && !entries.iter().all(|e| e.ends_with(PARTIAL_SUFFIX)) {
            return Err(TegulaError::Exists(format!("{path} exists and is not a Zarr array; not replacing it")));
        }
    }
    Ok(true)
}

pub(crate) const METADATA_FILES: [&str; 4] = ["zarr.json", ".zarray", ".zattrs", ".zgroup"];

impl ChunkSink for ZarrSink {
    fn info(&self) -> &StoredInfo {
        &self.info
    }

    fn write(&self, region: &[(usize, usize)], bytes: &[u8]) -> Result<()> {
        write_region(&self.array, self.raw.as_ref(), &self.info, region, bytes)
    }

    fn url(&self) -> Option<String> {
        staged_url(&self.info.path, &self.staging)
    }

    /// Switches the complete array in (see `replace.rs`), checking again, under the lock that
    /// serialises writers of the path, that what is there now may be replaced.
    fn finish(&self) -> Result<()> {
        let path = &self.info.path;
        let old = {
            let _lock = replace::lock(&self.target).map_err(|e| io(path, format!("locking its directory: {e}")))?;
            let old = if check_target(path, self.overwrite)? {
                Some(replace::switch(&self.staging, &self.target).map_err(|e| io(path, format!("switching the new array in: {e}")))?)
            } else {
                std::fs::rename(&self.staging, &self.target).map_err(|e| io(path, format!("moving the new array in: {e}")))?;
                None
            };
            self.finished.store(true, Ordering::Release);
            old
        };
        if let Some(old) = old {
            // Not an error when it fails: the new array is in place; a leftover goes later.
            let _ = std::fs::remove_dir_all(old);
        }
        Ok(())
    }
}
