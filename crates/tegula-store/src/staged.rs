//! Writing regions of a Zarr array that another process is building: a cluster's workers
//! write the blocks they compute straight into the staging directory of the caller's
//! `ZarrSink` (named by its `url`), and the caller alone switches the array in once every
//! block is written.

use crate::zarr::{describe, metadata, open_array, write_region, ZarrArray};
pub use crate::zarr::STAGED_SCHEME;
use crate::raw_chunks::RawChunks;
use crate::{ChunkSink, StoredInfo};
use tegula_core::{value_err, Result};

pub struct StagedZarr {
    info: StoredInfo,
    array: ZarrArray,
    raw: Option<RawChunks>,
}

impl StagedZarr {
    /// The array a `url` names (after the scheme), its metadata already written by its
    /// creator; errors name the path it will have.
    pub fn open(names: &str) -> Result<StagedZarr> {
        let (path, staging): (String, String) =
            serde_json::from_str(names).map_err(|e| value_err!("not an array being built: {names:?}: {e}"))?;
        let (array, store) = open_array(&staging)?;
        let meta = metadata(&path, &array)?;
        let info = describe(&path, &array, &meta)?;
        let raw = RawChunks::new(&meta, &store);
        Ok(StagedZarr { info, array, raw })
    }
}

impl ChunkSink for StagedZarr {
    fn info(&self) -> &StoredInfo {
        &self.info
    }

    fn write(&self, region: &[(usize, usize)], bytes: &[u8]) -> Result<()> {
        write_region(&self.array, self.raw.as_ref(), &self.info, region, bytes)
    }

    fn finish(&self) -> Result<()> {
        Err(value_err!("{}: only the process that created the array switches it in", self.info.path))
    }
}
