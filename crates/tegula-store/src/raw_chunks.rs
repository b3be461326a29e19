//! The fast path for uncompressed arrays: a stored chunk holding only the array's raw
//! little-endian bytes is read straight into the block's buffer (from the disk itself where it
//! can, `direct.rs`) and written straight from it.
//! Going through the codec chain would copy every chunk through a new buffer, whose fresh
//! pages cost more than the copy, and which disk-speed reads cannot afford.

use crate::atomic::AtomicStore;
use crate::{io_err, StoredInfo};
use serde_json::Value;
use std::path::PathBuf;
use std::sync::Arc;
use tegula_core::Result;
use zarrs::array::Array;

pub(crate) struct RawChunks {
    store: Arc<AtomicStore>,
}

impl RawChunks {
    /// Whether chunks described by `meta` (the array's metadata document) are raw bytes.
    pub(crate) fn new(meta: &Value, store: &Arc<AtomicStore>) -> Option<RawChunks> {
        let little = |order: &str| order == "little" || order.is_empty();
        let raw = match meta["zarr_format"].as_u64() {
            Some(3) => match meta["codecs"].as_array().map(Vec::as_slice) {
                Some([codec]) => {
                    codec["name"] == "bytes" && little(codec["configuration"]["endian"].as_str().unwrap_or(""))
                        && meta["storage_transformers"].as_array().is_none_or(|t| t.is_empty())
                }
                _ => false,
            },
            Some(2) => {
                meta["compressor"].is_null()
                    && meta["filters"].as_array().is_none_or(|f| f.is_empty())
                    && meta["order"] == "C"
                    && meta["dtype"].as_str().is_some_and(|d| d.starts_with('<') || d.starts_with('|'))
            }
            _ => false,
        };
        raw.then(|| RawChunks { store: store.clone() })
    }

    /// The files of the stored chunks that make up `region`, in order, when they lie one
    /// after another in the region's bytes: whole chunks inside the array, one chunk across
    /// every axis but the first.
    fn chunk_files(&self, array: &Array<AtomicStore>, info: &StoredInfo, region: &[(usize, usize)]) -> Option<Vec<(String, PathBuf)>> {
        let mut first = Vec::with_capacity(region.len());
        for (axis, ((&(a, b), &c), &n)) in region.iter().zip(&info.chunk_shape).zip(&info.shape).enumerate() {
            let whole = a % c == 0 && b > a && (b - a) % c == 0 && b <= n;
            if !whole || (axis > 0 && b - a != c) {
                return None;
            }
            first.push((a / c) as u64);
        }
        let count = region.first().map_or(1, |&(a, b)| (b - a) / info.chunk_shape[0]);
        let files = (0..count as u64).map(|k| {
            let mut index = first.clone();
            if let Some(i) = index.first_mut() {
                *i += k;
            }
            let key = array.chunk_key(&index);
            (format!("chunk {index:?} ({key})"), self.store.path_of(&key))
        });
        Some(files.collect())
    }

    /// Reads `region` when it is made of whole stored chunks on disk laid out one after
    /// another; `None` when the slow path must (another region, or a chunk never written,
    /// which reads as the fill value).
    pub(crate) fn read(&self, array: &Array<AtomicStore>, info: &StoredInfo, region: &[(usize, usize)], out: &mut [u8]) -> Option<Result<()>> {
        let paths = self.chunk_files(array, info, region)?;
        let mut files = Vec::with_capacity(paths.len());
        for (name, path) in &paths {
            // A chunk never written reads as the fill value, on the slow path.
            match self.store.root().open(path) {
                Ok(Some(file)) => files.push(file),
                Ok(None) => return None,
                Err(e) => return Some(Err(io_err(&info.path, format!("reading {name}: {e}")))),
            }
        }
        let each = out.len() / files.len();
        for ((file, (name, path)), part) in files.iter().zip(&paths).zip(out.chunks_mut(each)) {
            let fail = |what: String| Some(Err(io_err(&info.path, format!("reading {name}: {what}"))));
            match file.metadata() {
                Ok(m) if m.len() == part.len() as u64 => {}
                Ok(m) => return fail(format!("the chunk holds {} bytes, expected {}", m.len(), part.len())),
                Err(e) => return fail(e.to_string()),
            }
            if let Err(e) = crate::direct::read_file_into(file, path, part) {
                return fail(e.to_string());
            }
        }
        Some(Ok(()))
    }

    /// Writes `region` when it is made of whole stored chunks laid out one after another.
    pub(crate) fn write(&self, array: &Array<AtomicStore>, info: &StoredInfo, region: &[(usize, usize)], bytes: &[u8]) -> Option<Result<()>> {
        let paths = self.chunk_files(array, info, region)?;
        let each = bytes.len() / paths.len();
        for ((name, path), part) in paths.iter().zip(bytes.chunks(each)) {
            if let Err(e) = self.store.write_atomically(path, part) {
                return Some(Err(io_err(&info.path, format!("writing {name}: {e}"))));
            }
        }
        Some(Ok(()))
    }
}
