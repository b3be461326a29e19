//! The store `zarrs` reads and writes object storage through: each call one request (a GET,
//! ranged GETs, a HEAD, a PUT — atomic per object — or a DELETE) on the I/O runtime. A region
//! covering most of its stored chunks first fetches them whole, all at once (`fetch`, up to
//! `REQUESTS_IN_FLIGHT` requests in flight), so the decoding that follows finds their bytes here
//! rather than asking for each (or for each row of each) in turn.

use crate::object::{block_on, Bucket};
use futures::{StreamExt, TryStreamExt};
use object_store::{ObjectStoreExt, PutPayload};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use zarrs::storage::byte_range::{ByteRange, ByteRangeIterator};
use zarrs::storage::{
    Bytes, MaybeBytes, MaybeBytesIterator, OffsetBytesIterator, ReadableStorageTraits, StorageError, StoreKey,
    StorePrefix, WritableStorageTraits,
};

/// How many requests one region's read keeps in flight.
pub(crate) const REQUESTS_IN_FLIGHT: usize = 32;

/// An object's ETag, version, last modification (µs) and size.
pub(crate) type ObjectVersion = (Option<String>, Option<String>, i64, u64);

pub(crate) struct ObjectStorage {
    pub(crate) bucket: Bucket,
    /// Values fetched ahead of `zarrs` asking for them, each taken by its first `get`.
    fetched: Mutex<HashMap<StoreKey, MaybeBytes>>,
    /// The server answered a ranged GET with the whole object: ask for whole objects.
    ranges_refused: AtomicBool,
    /// The most bytes a stored chunk (or shard) of the array may take, once its metadata is
    /// known: a server answering with more is refused before it fills memory.
    chunk_limit: AtomicU64,
    /// The version of each metadata document as read (see `version_read`).
    metadata_read: Mutex<HashMap<String, ObjectVersion>>,
}

/// The most bytes a metadata document (`zarr.json`, `.zarray`, ...) may take.
pub(crate) const METADATA_LIMIT: u64 = 32 << 20;

fn path(key: &StoreKey) -> object_store::path::Path {
    object_store::path::Path::from(key.as_str())
}

impl ObjectStorage {
    pub(crate) fn new(bucket: Bucket) -> ObjectStorage {
        ObjectStorage {
            bucket,
            fetched: Mutex::new(HashMap::new()),
            ranges_refused: AtomicBool::new(false),
            chunk_limit: AtomicU64::new(METADATA_LIMIT),
            metadata_read: Mutex::new(HashMap::new()),
        }
    }

    /// Bounds every chunk's object to `bytes` (see `chunk_limit`).
    pub(crate) fn limit_chunks(&self, bytes: u64) {
        self.chunk_limit.store(bytes, Ordering::Relaxed);
    }

    /// Whether `key` names a metadata document (`zarr.json`, `.zarray`, ...).
    fn is_metadata(key: &StoreKey) -> bool {
        crate::zarr::METADATA_FILES.contains(&key.as_str().rsplit('/').next().unwrap_or_default())
    }

    /// The most bytes the object at `key` may hold.
    fn limit_of(&self, key: &StoreKey) -> u64 {
        if Self::is_metadata(key) { METADATA_LIMIT } else { self.chunk_limit.load(Ordering::Relaxed) }
    }

    /// The version of the metadata document at `key` that was read (from its GET's headers, so
    /// it is that document's even if another was put since); else asked for now.
    pub(crate) fn version_read(&self, key: &str) -> tegula_core::Result<Option<ObjectVersion>> {
        match self.metadata_read.lock().unwrap_or_else(|e| e.into_inner()).get(key) {
            Some(version) => Ok(Some(version.clone())),
            None => self.version(key),
        }
    }

    fn error(&self, key: &str, e: object_store::Error) -> StorageError {
        StorageError::IOError(std::sync::Arc::new(self.bucket.io_error(key, e)))
    }

    fn runtime_error(e: tegula_core::TegulaError) -> StorageError {
        StorageError::Other(e.to_string())
    }

    /// The value of `key`, `None` when absent. Read as it arrives, and refused once it holds
    /// more than an object of this array can (`limit_of`), so that a server answering with a
    /// huge body costs no more memory than that.
    async fn get_async(&self, key: &StoreKey) -> Result<MaybeBytes, StorageError> {
        let got = match self.bucket.store.get(&path(key)).await {
            Ok(got) => got,
            Err(object_store::Error::NotFound { .. }) => return Ok(None),
            Err(e) => return Err(self.error(key.as_str(), e)),
        };
        let limit = self.limit_of(key);
        let too_big = |bytes: u64| {
            let url = &self.bucket.url;
            StorageError::Other(format!("{url}/{key}: the server sent {bytes} bytes or more, more than the {limit} an object of this array may hold; refused"))
        };
        if got.meta.size > limit {
            return Err(too_big(got.meta.size));
        }
        if Self::is_metadata(key) {
            let meta = &got.meta;
            let version = (meta.e_tag.clone(), meta.version.clone(), meta.last_modified.timestamp_micros(), meta.size);
            self.metadata_read.lock().unwrap_or_else(|e| e.into_inner()).insert(key.as_str().to_string(), version);
        }
        let mut value = Vec::with_capacity(got.meta.size as usize);
        let mut pieces = got.into_stream();
        while let Some(piece) = pieces.next().await {
            let piece = piece.map_err(|e| self.error(key.as_str(), e))?;
            if (value.len() + piece.len()) as u64 > limit {
                return Err(too_big((value.len() + piece.len()) as u64));
            }
            value.extend_from_slice(&piece);
        }
        Ok(Some(Bytes::from(value)))
    }

    /// What tells one version of the object at `key` from another (its ETag, version, time
    /// and size); `None` when absent.
    pub(crate) fn version(&self, key: &str) -> tegula_core::Result<Option<ObjectVersion>> {
        match block_on(self.bucket.store.head(&object_store::path::Path::from(key)))? {
            Ok(meta) => Ok(Some((meta.e_tag, meta.version, meta.last_modified.timestamp_micros(), meta.size))),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(crate::object::storage_error(key, &StorageError::IOError(std::sync::Arc::new(self.bucket.io_error(key, e))))),
        }
    }

    /// What `fetch` kept of `key`: `Some(None)` for a key found absent.
    fn fetched(&self, key: &StoreKey) -> Option<MaybeBytes> {
        self.fetched.lock().unwrap_or_else(|e| e.into_inner()).get(key).cloned()
    }

    /// Fetches `keys` concurrently and keeps their values for the reads that follow, until
    /// `forget`. Errors are left for those reads to meet (and report) again.
    pub(crate) fn fetch(&self, keys: &[StoreKey]) {
        let values = block_on(
            futures::stream::iter(keys)
                .map(|key| async move {
                    let value = self.get_async(key).await;
                    (key.clone(), value)
                })
                .buffer_unordered(REQUESTS_IN_FLIGHT)
                .filter_map(|(key, value)| async move { value.ok().map(|v| (key, v)) })
                .collect::<Vec<_>>(),
        );
        if let Ok(values) = values {
            self.fetched.lock().unwrap_or_else(|e| e.into_inner()).extend(values);
        }
    }

    /// `ranges` of the whole value of `key`, fetched in one GET.
    fn slices_of_whole<'a>(&self, key: &StoreKey, ranges: &[std::ops::Range<u64>]) -> Result<MaybeBytesIterator<'a>, StorageError> {
        let Some(whole) = self.get(key)? else { return Ok(None) };
        let mut slices = Vec::with_capacity(ranges.len());
        for range in ranges {
            if range.end > whole.len() as u64 {
                return Err(StorageError::Other(format!("{key}: byte range {range:?} is past the end of its {} bytes", whole.len())));
            }
            slices.push(Ok(whole.slice(range.start as usize..range.end as usize)));
        }
        Ok(Some(Box::new(slices.into_iter())))
    }

    /// Drops what `fetch` kept of `keys`.
    pub(crate) fn forget(&self, keys: &[StoreKey]) {
        let mut fetched = self.fetched.lock().unwrap_or_else(|e| e.into_inner());
        for key in keys {
            fetched.remove(key);
        }
    }
}

impl ReadableStorageTraits for ObjectStorage {
    fn get(&self, key: &StoreKey) -> Result<MaybeBytes, StorageError> {
        if let Some(value) = self.fetched(key) {
            return Ok(value);
        }
        block_on(self.get_async(key)).map_err(Self::runtime_error)?
    }

    /// Ranged GETs (a shard's index, then its inner chunks).
    fn get_partial_many<'a>(&'a self, key: &StoreKey, byte_ranges: ByteRangeIterator<'a>) -> Result<MaybeBytesIterator<'a>, StorageError> {
        let ranges: Vec<ByteRange> = byte_ranges.collect();
        let Some(size) = self.size_key(key)? else { return Ok(None) };
        let fetched = self.fetched(key).is_some();
        crate::check_byte_ranges(key, &ranges, size)?;
        let wanted: Vec<_> = ranges.iter().map(|range| range.to_range(size)).collect();
        if fetched || self.ranges_refused.load(Ordering::Relaxed) {
            return self.slices_of_whole(key, &wanted);
        }
        match block_on(self.bucket.store.get_ranges(&path(key), &wanted)).map_err(Self::runtime_error)? {
            Ok(got) => Ok(Some(Box::new(got.into_iter().map(Ok)))),
            Err(e @ (object_store::Error::NotFound { .. } | object_store::Error::PermissionDenied { .. } | object_store::Error::Unauthenticated { .. })) => {
                Err(self.error(key.as_str(), e))
            }
            // A server that answers a ranged GET with the whole object (Python's http.server,
            // some S3 gateways): whole GETs from now on.
            Err(_) => {
                self.ranges_refused.store(true, Ordering::Relaxed);
                self.slices_of_whole(key, &wanted)
            }
        }
    }

    fn size_key(&self, key: &StoreKey) -> Result<Option<u64>, StorageError> {
        if let Some(value) = self.fetched(key) {
            return Ok(value.map(|v| v.len() as u64));
        }
        match block_on(self.bucket.store.head(&path(key))).map_err(Self::runtime_error)? {
            Ok(meta) => Ok(Some(meta.size)),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(self.error(key.as_str(), e)),
        }
    }

    fn supports_get_partial(&self) -> bool {
        true
    }
}

impl WritableStorageTraits for ObjectStorage {
    /// One PUT: the object appears whole or not at all.
    fn set(&self, key: &StoreKey, value: Bytes) -> Result<(), StorageError> {
        let put = block_on(self.bucket.store.put(&path(key), PutPayload::from(value))).map_err(Self::runtime_error)?;
        put.map(|_| ()).map_err(|e| self.error(key.as_str(), e))
    }

    /// The whole value read, changed and put again (objects cannot be written in part).
    fn set_partial_many(&self, key: &StoreKey, offset_values: OffsetBytesIterator) -> Result<(), StorageError> {
        let mut value = self.get(key)?.map(|b| b.to_vec()).unwrap_or_default();
        for (offset, bytes) in offset_values {
            let start = usize::try_from(offset).map_err(|_| StorageError::Other("offset too large".into()))?;
            if value.len() < start + bytes.len() {
                value.resize(start + bytes.len(), 0);
            }
            value[start..start + bytes.len()].copy_from_slice(&bytes);
        }
        self.set(key, Bytes::from(value))
    }

    fn erase(&self, key: &StoreKey) -> Result<(), StorageError> {
        match block_on(self.bucket.store.delete(&path(key))).map_err(Self::runtime_error)? {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(self.error(key.as_str(), e)),
        }
    }

    fn erase_prefix(&self, prefix: &StorePrefix) -> Result<(), StorageError> {
        let store = &self.bucket.store;
        let listed = object_store::path::Path::from(prefix.as_str());
        let deleted = block_on(async {
            let locations = store.list(Some(&listed)).map_ok(|meta| meta.location).boxed();
            store.delete_stream(locations).try_collect::<Vec<_>>().await
        })
        .map_err(Self::runtime_error)?;
        deleted.map(|_| ()).map_err(|e| self.error(prefix.as_str(), e))
    }

    fn supports_set_partial(&self) -> bool {
        false
    }
}
