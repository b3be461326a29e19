//! Writing regions of an array that another process is building — a Zarr array or a `.npy`
//! file: a cluster's workers write the blocks they compute straight into the staging
//! directory of the caller's `ZarrSink`, or the temporary file of its `NpySink` (named by
//! the sink's `url`), and the caller alone switches the array in once every block is written.

pub use crate::npy::STAGED_NPY_SCHEME;
use crate::npy::read_header;
use crate::zarr::{describe, metadata, open_array, write_region, ZarrArray};
pub use crate::zarr::STAGED_SCHEME;
use crate::raw_chunks::RawChunks;
use crate::{io_err, ChunkSink, StoredInfo};
use std::fs::File;
use tegula_core::{value_err, Result};

/// The target path and the staging path a staged URL names (after its scheme).
fn staged_names(names: &str) -> Result<(String, String)> {
    serde_json::from_str(names).map_err(|e| value_err!("not an array being built: {names:?}: {e}"))
}

/// A Zarr array another process is building, whose regions this process writes (its creator
/// finishes it).
pub struct StagedZarr {
    info: StoredInfo,
    array: ZarrArray,
    raw: Option<RawChunks>,
}

impl StagedZarr {
    /// The array a `url` names (after the scheme), its metadata already written by its
    /// creator; errors name the path it will have.
    pub fn open(names: &str) -> Result<StagedZarr> {
        let (path, staging) = staged_names(names)?;
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

/// A `.npy` file another process is building, whose regions this process writes (its creator
/// finishes it).
pub struct StagedNpy {
    info: StoredInfo,
    file: File,
    data_offset: u64,
}

impl StagedNpy {
    /// The file a `url` names (after the scheme), its header already written by its creator;
    /// errors name the path it will have.
    pub fn open(names: &str) -> Result<StagedNpy> {
        let (path, temp) = staged_names(names)?;
        let file = std::fs::OpenOptions::new().read(true).write(true).open(&temp).map_err(|e| io_err(&path, e))?;
        let header = read_header(&path, &file)?;
        let chunk_shape = vec![1; header.shape.len()];
        let info = StoredInfo { path, shape: header.shape, dtype: header.dtype, chunk_shape, attributes: "{}".into() };
        Ok(StagedNpy { info, file, data_offset: header.data_offset })
    }
}

impl ChunkSink for StagedNpy {
    fn info(&self) -> &StoredInfo {
        &self.info
    }

    fn write(&self, region: &[(usize, usize)], bytes: &[u8]) -> Result<()> {
        crate::npy::write_region(&self.file, self.data_offset, &self.info, region, bytes)
    }

    fn finish(&self) -> Result<()> {
        Err(value_err!("{}: only the process that created the file renames it in", self.info.path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{open_sink_url, ChunkSource, NpySink, NpySource};
    use tegula_core::DType;

    #[test]
    fn another_writer_fills_a_npy_file_its_creator_renames_in() {
        let dir = std::env::temp_dir().join(format!("tegula-staged-npy-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("a.npy").to_str().unwrap().to_owned();
        let sink = NpySink::create(&path, &[5, 3], DType::Int32, true).unwrap();
        let url = sink.url().unwrap();
        let writer = open_sink_url(&url).unwrap();
        assert_eq!(writer.info().shape, [5, 3]);
        let values: Vec<i32> = (0..15).collect();
        let bytes = |v: &[i32]| v.iter().flat_map(|x| x.to_ne_bytes()).collect::<Vec<u8>>();
        // Rows 0..2 from the other writer, 2..5 from the creator, cut across columns too.
        writer.write(&[(0, 2), (0, 3)], &bytes(&values[..6])).unwrap();
        writer.write(&[(2, 5), (0, 1)], &bytes(&[6, 9, 12])).unwrap();
        sink.write(&[(2, 5), (1, 3)], &bytes(&[7, 8, 10, 11, 13, 14])).unwrap();
        assert!(writer.finish().is_err(), "only the creator renames the file in");
        assert!(!std::path::Path::new(&path).exists(), "nothing is visible before the creator finishes");
        sink.finish().unwrap();
        let mut out = vec![0u8; 60];
        NpySource::open(&path).unwrap().read_into(&[(0, 5), (0, 3)], &mut out).unwrap();
        assert_eq!(out, bytes(&values));
        assert!(open_sink_url(&url).is_err(), "the temporary file is gone once renamed");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
