//! Zarr arrays (format 2 and 3, every codec) in object storage — `s3://`, `gs://`, `az://`,
//! `http(s)://` — read and written through `zarrs` over `object_storage.rs`.
//!
//! Reads: each region fetches the stored chunks it touches at once, then decodes them (a
//! sharded array reads each shard's index and inner chunks with ranged GETs instead).
//! Writes: each stored chunk (or shard) is one PUT, atomic on every object store; the metadata
//! document is put last, by `finish`, so a reader sees either no array or a complete one, and a
//! killed writer leaves no metadata — every chunk absent, old or new. Object stores have no
//! rename, so overwriting removes the old array when the write starts.

use crate::codecs::ZarrOptions;
use crate::object::{block_on, storage_error, Bucket, StorageOptions};
use crate::object_storage::{ObjectStorage, ObjectVersion};
use crate::zarr::{describe, metadata, read_with_zarrs, store_with_zarrs, METADATA_FILES};
use crate::{check_region, ChunkSink, ChunkSource, StoredInfo};
use futures::StreamExt;
use object_store::ObjectStoreExt;
use serde_json::Value;
use std::sync::Arc;
use tegula_core::{DType, Result, TegulaError};
use zarrs::array::{Array, ArrayCreateError, ArrayMetadata, ArrayMetadataOptions, ArraySubset};

/// The URL scheme of a remote array for another process: `zarr-remote:["URL", OPTIONS]`.
pub const REMOTE_SCHEME: &str = "zarr-remote";
/// The URL scheme of a remote array being written: `zarr-remote-sink:["URL", OPTIONS, METADATA]`.
pub const REMOTE_SINK_SCHEME: &str = "zarr-remote-sink";

/// A Zarr array in object storage, read region by region.
pub struct RemoteZarrSource {
    info: StoredInfo,
    array: Array<ObjectStorage>,
    storage: Arc<ObjectStorage>,
    options: StorageOptions,
    url: String,
    sharded: bool,
    metadata: Value,
    /// The metadata document's key and its version when opened: an array written over this
    /// one since is refused rather than read with this one's metadata.
    metadata_key: &'static str,
    version: Option<ObjectVersion>,
}

impl RemoteZarrSource {
    /// Opens the array at `url` (nothing but its metadata is read).
    pub fn open(url: &str, options: &[(String, String)]) -> Result<RemoteZarrSource> {
        let source = RemoteZarrSource::open_any(url, options)?;
        let version = source.storage.version_read(source.metadata_key)?;
        Ok(RemoteZarrSource { version, ..source })
    }

    /// Opens the array at `url` if its metadata is still the version `version`: one written
    /// over it since is an `Io` error, as reads of it would be.
    fn open_same(url: &str, options: &[(String, String)], version: Option<ObjectVersion>) -> Result<RemoteZarrSource> {
        let source = RemoteZarrSource { version, ..RemoteZarrSource::open_any(url, options)? };
        source.check_unchanged()?;
        Ok(source)
    }

    fn open_any(url: &str, options: &[(String, String)]) -> Result<RemoteZarrSource> {
        let storage = Arc::new(ObjectStorage::new(Bucket::open(url, options)?));
        let shown = storage.bucket.url.clone();
        let array = match Array::open(storage.clone(), "/") {
            Ok(array) => array,
            Err(ArrayCreateError::MissingMetadata) => {
                return Err(TegulaError::NotFound(format!("no Zarr array at {shown} (neither zarr.json nor .zarray)")))
            }
            Err(ArrayCreateError::StorageError(e)) => return Err(storage_error(&format!("{shown}: reading metadata"), &e)),
            Err(ArrayCreateError::DataTypeCreateError(e)) => return Err(tegula_core::dtype_err!("{shown}: {e}")),
            Err(e) => return Err(TegulaError::Io(format!("{shown}: invalid Zarr metadata: {e}"))),
        };
        let meta = metadata(&shown, &array)?;
        let info = describe(&shown, &array, &meta)?;
        storage.limit_chunks(object_limit(&info));
        let metadata_key = match array.metadata() {
            ArrayMetadata::V3(_) => "zarr.json",
            ArrayMetadata::V2(_) => ".zarray",
        };
        let array = crate::bounded::bounded(&array, &meta, storage.clone()).unwrap_or(array);
        let sharded = meta.to_string().contains("\"sharding_indexed\"");
        let options = storage.bucket.options.clone();
        Ok(RemoteZarrSource { info, array, storage, options, url: url.to_string(), sharded, metadata: meta, metadata_key, version: None })
    }

    /// Fails if the metadata document is no longer the one read when opened: an array was
    /// written over this one (whose chunks must not be read with this one's metadata).
    fn check_unchanged(&self) -> Result<()> {
        if self.storage.version(self.metadata_key)? != self.version {
            return Err(TegulaError::Io(format!("{}: {}", self.info.path, crate::files::REPLACED)));
        }
        Ok(())
    }

    /// The array's metadata document (Zarr's JSON, attributes included).
    pub fn metadata(&self) -> &Value {
        &self.metadata
    }

    /// The keys of the stored chunks `region` touches, when it covers at least half of their
    /// elements (whole GETs then beat ranged reads of their parts); else none.
    fn whole_chunks(&self, region: &[(usize, usize)]) -> Vec<zarrs::storage::StoreKey> {
        let subset = ArraySubset::new_with_ranges(&region.iter().map(|&(a, b)| a as u64..b as u64).collect::<Vec<_>>());
        let Ok(Some(chunks)) = self.array.chunks_in_array_subset(&subset) else { return Vec::new() };
        let chunk_elements: u128 = self.info.chunk_shape.iter().map(|&c| c as u128).product();
        let covered: u128 = chunks.shape().iter().map(|&n| n as u128).product::<u128>() * chunk_elements;
        let wanted: u128 = region.iter().map(|&(a, b)| (b - a) as u128).product();
        if wanted * 2 < covered {
            return Vec::new();
        }
        chunks.indices().into_iter().map(|index| self.array.chunk_key(&index)).collect()
    }
}

impl ChunkSource for RemoteZarrSource {
    fn info(&self) -> &StoredInfo {
        &self.info
    }

    fn read_unit(&self) -> Option<&[usize]> {
        Some(&self.info.chunk_shape)
    }

    fn url(&self) -> Option<String> {
        serde_json::to_string(&(&self.url, &self.options, &self.version)).ok().map(|json| format!("{REMOTE_SCHEME}:{json}"))
    }

    fn read_into(&self, region: &[(usize, usize)], out: &mut [u8]) -> Result<()> {
        check_region(&self.info, region, out.len())?;
        if out.is_empty() {
            return Ok(());
        }
        let read = if self.sharded {
            read_with_zarrs(&self.array, &self.info, region, out)
        } else {
            let keys = self.whole_chunks(region);
            self.storage.fetch(&keys);
            let read = read_with_zarrs(&self.array, &self.info, region, out);
            self.storage.forget(&keys);
            read
        };
        // Checked after the chunks are read: an overwrite removes the metadata before any
        // chunk, so chunks read while it is unchanged were this array's.
        self.check_unchanged()?;
        read
    }
}

/// A Zarr array in object storage being written region by region; its metadata is put by `finish`.
pub struct RemoteZarrSink {
    info: StoredInfo,
    array: Array<ObjectStorage>,
    options: StorageOptions,
    url: String,
    meta: Value,
}

impl RemoteZarrSink {
    /// Starts a new array at `url`: refuses one already there unless `zarr.overwrite`, then
    /// removes it. Nothing is visible at `url` until `finish`.
    pub fn create(url: &str, options: &[(String, String)], shape: &[usize], dtype: DType, zarr: &ZarrOptions) -> Result<RemoteZarrSink> {
        let meta = zarr.metadata(shape, dtype)?;
        let sink = RemoteZarrSink::for_writes(url, options, meta)?;
        sink.clear(zarr.overwrite)?;
        Ok(sink)
    }

    /// The array `meta` describes at `url`, to write chunks of (its creator finishes it).
    fn for_writes(url: &str, options: &[(String, String)], meta: Value) -> Result<RemoteZarrSink> {
        let storage = Arc::new(ObjectStorage::new(Bucket::open(url, options)?));
        let shown = storage.bucket.url.clone();
        let parsed: ArrayMetadata = serde_json::from_value(meta.clone()).map_err(|e| tegula_core::internal_err!("array metadata: {e}"))?;
        let array = Array::new_with_metadata(storage, "/", parsed).map_err(|e| tegula_core::value_err!("{shown}: {e}"))?;
        let info = describe(&shown, &array, &metadata(&shown, &array)?)?;
        let options = array.storage().bucket.options.clone();
        Ok(RemoteZarrSink { info, array, options, url: url.to_string(), meta })
    }

    /// Makes way for the new array: nothing there, the chunks a killed writer left, or (with
    /// `overwrite`) a Zarr array, which are deleted (metadata first, so no reader sees the old
    /// array torn). Other objects are never deleted.
    fn clear(&self, overwrite: bool) -> Result<()> {
        let storage = self.array.storage();
        let bucket = &storage.bucket;
        let shown = &self.info.path;
        let failed = |e: object_store::Error| {
            let e = zarrs::storage::StorageError::IOError(Arc::new(bucket.io_error("", e)));
            storage_error(&format!("{shown}: looking for an array there"), &e)
        };
        let listed: Vec<String> = block_on(bucket.store.list(None).take(1000).collect::<Vec<_>>())?
            .into_iter()
            .map(|meta| meta.map(|m| m.location.to_string()))
            .collect::<std::result::Result<_, _>>()
            .map_err(failed)?;
        if listed.is_empty() {
            return Ok(());
        }
        // Chunks without metadata are what a killed writer left: no array, so nothing to keep
        // (as `from_zarr` finds no array there) and no `overwrite` needed to clear them.
        let leftovers = listed.iter().all(|key| is_chunk_key(key));
        if !overwrite && !leftovers {
            return Err(TegulaError::Exists(format!("{shown} already exists; pass overwrite=True to replace it")));
        }
        let zarr_like = |key: &String| METADATA_FILES.contains(&key.as_str()) || is_chunk_key(key);
        if !listed.iter().all(zarr_like) {
            return Err(TegulaError::Exists(format!("{shown} holds objects that are not a Zarr array's; not replacing it")));
        }
        for name in METADATA_FILES {
            match block_on(bucket.store.delete(&object_store::path::Path::from(name)))? {
                Ok(()) | Err(object_store::Error::NotFound { .. }) => {}
                Err(e) => return Err(failed(e)),
            }
        }
        use zarrs::storage::WritableStorageTraits;
        storage.erase_prefix(&zarrs::storage::StorePrefix::root()).map_err(|e| storage_error(&format!("{shown}: removing the old array"), &e))
    }
}

/// Whether `key` names a stored chunk of a Zarr array (`c/0/1`, `c.0.1`, `0.1`, `0/1`; `c` alone
/// for a 0-d array).
fn is_chunk_key(key: &str) -> bool {
    let rest = key.strip_prefix("c/").or_else(|| key.strip_prefix("c.")).unwrap_or(key);
    key == "c" || (!rest.is_empty() && rest.split(['/', '.']).all(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit())))
}

impl ChunkSink for RemoteZarrSink {
    fn info(&self) -> &StoredInfo {
        &self.info
    }

    fn write(&self, region: &[(usize, usize)], bytes: &[u8]) -> Result<()> {
        check_region(&self.info, region, bytes.len())?;
        if bytes.is_empty() {
            return Ok(());
        }
        store_with_zarrs(&self.array, &self.info, region, bytes)
    }

    fn url(&self) -> Option<String> {
        serde_json::to_string(&(&self.url, &self.options, &self.meta)).ok().map(|json| format!("{REMOTE_SINK_SCHEME}:{json}"))
    }

    /// Puts the metadata document: the array appears, complete.
    fn finish(&self) -> Result<()> {
        let written = ArrayMetadataOptions::default().with_include_zarrs_metadata(false);
        self.array.store_metadata_opt(&written).map_err(|e| TegulaError::Io(format!("{}: writing metadata: {e}", self.info.path)))
    }
}

/// Opens a source or sink URL of this module's schemes (see `ChunkSource::url`).
pub(crate) fn open_source(json: &str) -> Result<RemoteZarrSource> {
    let (url, options, version): (String, StorageOptions, Option<ObjectVersion>) =
        serde_json::from_str(json).map_err(|_| tegula_core::value_err!("not a remote store URL tegula opens"))?;
    RemoteZarrSource::open_same(&url, &options, version)
}

/// The most bytes one stored chunk (or shard) of the array `info` describes may take in any
/// encoding: twice its raw bytes (no codec tegula reads grows data by more), a shard index's
/// 16 bytes per element at most, and a megabyte for headers.
fn object_limit(info: &StoredInfo) -> u64 {
    let elements = info.chunk_shape.iter().fold(1u64, |n, &c| n.saturating_mul(c as u64));
    elements.saturating_mul(2 * info.dtype.itemsize() as u64 + 16).saturating_add(1 << 20)
}

pub(crate) fn open_sink(json: &str) -> Result<RemoteZarrSink> {
    let (url, options, meta): (String, StorageOptions, Value) =
        serde_json::from_str(json).map_err(|_| tegula_core::value_err!("not a remote sink URL tegula opens"))?;
    RemoteZarrSink::for_writes(&url, &options, meta)
}

#[cfg(test)]
mod tests {
    use super::is_chunk_key;

    #[test]
    fn chunk_keys_are_told_from_other_objects() {
        for key in ["c/0/1", "c.0.1", "0.1", "0/1", "c", "c/12"] {
            assert!(is_chunk_key(key), "{key}");
        }
        for key in ["notes.txt", "c/", "c/a", "data/0", "0..1", ""] {
            assert!(!is_chunk_key(key), "{key}");
        }
    }
}
