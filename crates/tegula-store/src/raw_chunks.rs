//! The fast path for uncompressed arrays: a stored chunk holding only the array's raw
//! little-endian bytes is read straight into the block's buffer and written straight from it.
//! Going through the codec chain would copy every chunk through a new buffer, whose fresh
//! pages cost more than the copy, and which disk-speed reads cannot afford.

use crate::atomic::AtomicStore;
use crate::StoredInfo;
use serde_json::Value;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::Arc;
use tegula_core::{Result, TegulaError};
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

    /// The file of the stored chunk that `region` is exactly (a whole chunk inside the array).
    fn chunk_file(&self, array: &Array<AtomicStore>, info: &StoredInfo, region: &[(usize, usize)]) -> Option<PathBuf> {
        let mut indices = Vec::with_capacity(region.len());
        for ((&(a, b), &c), &n) in region.iter().zip(&info.chunk_shape).zip(&info.shape) {
            if a % c != 0 || b - a != c || b > n {
                return None;
            }
            indices.push((a / c) as u64);
        }
        Some(self.store.path_of(&array.chunk_key(&indices)))
    }

    /// Reads `region` when it is one whole stored chunk on disk; `None` when the slow path
    /// must (another region, or a chunk never written, which reads as the fill value).
    pub(crate) fn read(&self, array: &Array<AtomicStore>, info: &StoredInfo, region: &[(usize, usize)], out: &mut [u8]) -> Option<Result<()>> {
        let path = self.chunk_file(array, info, region)?;
        let file = std::fs::File::open(&path).ok()?;
        let fail = |what: String| Some(Err(TegulaError::Io(format!("{}: reading {}: {what}", info.path, path.display()))));
        match file.metadata() {
            Ok(m) if m.len() == out.len() as u64 => {}
            Ok(m) => return fail(format!("the chunk holds {} bytes, expected {}", m.len(), out.len())),
            Err(e) => return fail(e.to_string()),
        }
        match file.read_exact_at(out, 0) {
            Ok(()) => Some(Ok(())),
            Err(e) => fail(e.to_string()),
        }
    }

    /// Writes `region` when it is one whole stored chunk; `None` otherwise.
    pub(crate) fn write(&self, array: &Array<AtomicStore>, info: &StoredInfo, region: &[(usize, usize)], bytes: &[u8]) -> Option<Result<()>> {
        let path = self.chunk_file(array, info, region)?;
        Some(self.store.write_atomically(&path, bytes).map_err(|e| TegulaError::Io(format!("{}: writing {}: {e}", info.path, path.display()))))
    }
}
