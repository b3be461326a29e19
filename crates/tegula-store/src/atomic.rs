//! A Zarr filesystem store whose writes are atomic: every value is written to a temporary file
//! beside its key and renamed over it, so a process killed at any moment leaves each chunk (and
//! each metadata document) absent, old or new — never torn. Reads are the filesystem store's.
//! Files are not synced one by one (zarrs' own store does, which halves write throughput):
//! the guarantee is against a killed process, as for any file the page cache holds.

use crate::files::Root;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use zarrs::filesystem::FilesystemStore;
use zarrs::storage::byte_range::{ByteRange, ByteRangeIterator};
use zarrs::storage::{
    Bytes, MaybeBytes, MaybeBytesIterator, OffsetBytesIterator, ReadableStorageTraits, StorageError, StoreKey,
    StorePrefix, WritableStorageTraits,
};

/// The suffix of temporary files; a reader never asks for such a key.
pub(crate) const PARTIAL_SUFFIX: &str = ".tegula-partial";

pub(crate) struct AtomicStore {
    inner: FilesystemStore,
    root: Root,
    next_temp: AtomicU64,
}

impl AtomicStore {
    pub(crate) fn new(root: &Path) -> Result<AtomicStore, String> {
        let inner = FilesystemStore::new(root).map_err(|e| e.to_string())?;
        let root = Root::new(root).map_err(|e| e.to_string())?;
        Ok(AtomicStore { inner, root, next_temp: AtomicU64::new(0) })
    }

    /// The store's root, which checks the files read from it.
    pub(crate) fn root(&self) -> &Root {
        &self.root
    }

    /// Whether `key`'s file exists, refusing one that is not a regular file inside the root
    /// (a FIFO would block the read forever; a link out of the store is not its data).
    fn present(&self, key: &StoreKey) -> Result<bool, StorageError> {
        Ok(self.root.check(&self.inner.key_to_fspath(key))?)
    }

    fn temp_path(&self, path: &Path) -> PathBuf {
        let n = self.next_temp.fetch_add(1, Ordering::Relaxed);
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        path.with_file_name(format!(".{name}.{}.{n}{PARTIAL_SUFFIX}", std::process::id()))
    }

    /// The file of `key`.
    pub(crate) fn path_of(&self, key: &StoreKey) -> PathBuf {
        self.inner.key_to_fspath(key)
    }

    pub(crate) fn write_atomically(&self, path: &Path, value: &[u8]) -> std::io::Result<()> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let temp = self.temp_path(path);
        let written = std::fs::File::create(&temp).and_then(|mut f| f.write_all(value)).and_then(|_| std::fs::rename(&temp, path));
        if written.is_err() {
            let _ = std::fs::remove_file(&temp);
        }
        written
    }
}

impl ReadableStorageTraits for AtomicStore {
    fn get_partial_many<'a>(
        &'a self,
        key: &StoreKey,
        byte_ranges: ByteRangeIterator<'a>,
    ) -> Result<MaybeBytesIterator<'a>, StorageError> {
        if !self.present(key)? {
            self.root.still_same()?;
            return Ok(None);
        }
        let ranges: Vec<ByteRange> = byte_ranges.collect();
        let size = std::fs::metadata(self.inner.key_to_fspath(key))?.len();
        crate::check_byte_ranges(key, &ranges, size)?;
        let got = self.inner.get_partial_many(key, Box::new(ranges.into_iter()))?;
        self.root.still_same()?;
        Ok(got)
    }
    fn get(&self, key: &StoreKey) -> Result<MaybeBytes, StorageError> {
        let got = if self.present(key)? { self.inner.get(key)? } else { None };
        self.root.still_same()?;
        Ok(got)
    }
    fn size_key(&self, key: &StoreKey) -> Result<Option<u64>, StorageError> {
        let got = if self.present(key)? { self.inner.size_key(key)? } else { None };
        self.root.still_same()?;
        Ok(got)
    }
    fn supports_get_partial(&self) -> bool {
        true
    }
}

impl WritableStorageTraits for AtomicStore {
    fn set(&self, key: &StoreKey, value: Bytes) -> Result<(), StorageError> {
        Ok(self.write_atomically(&self.inner.key_to_fspath(key), &value)?)
    }

    /// Rewrites the whole value with the parts replaced (still atomically).
    fn set_partial_many(&self, key: &StoreKey, offset_values: OffsetBytesIterator) -> Result<(), StorageError> {
        let mut value = self.inner.get(key)?.map(|b| b.to_vec()).unwrap_or_default();
        for (offset, bytes) in offset_values {
            let start = usize::try_from(offset).map_err(|_| StorageError::Other("offset too large".into()))?;
            if value.len() < start + bytes.len() {
                value.resize(start + bytes.len(), 0);
            }
            value[start..start + bytes.len()].copy_from_slice(&bytes);
        }
        Ok(self.write_atomically(&self.inner.key_to_fspath(key), &value)?)
    }

    fn erase(&self, key: &StoreKey) -> Result<(), StorageError> {
        self.inner.erase(key)
    }

    fn erase_prefix(&self, prefix: &StorePrefix) -> Result<(), StorageError> {
        self.inner.erase_prefix(prefix)
    }

    fn supports_set_partial(&self) -> bool {
        false
    }
}
