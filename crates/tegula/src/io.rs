//! Arrays in storage: reading Zarr (local, S3, GCS, Azure, HTTP) and `.npy` lazily, region by
//! region, and writing an array to them as it is computed (each block written, then freed).
//! [`ChunkSource`] and [`ChunkSink`] are the seams a new store implements.

use crate::array::{plan_within, Array, ComputeOptions};
use crate::budget::budget_left;
use std::any::Any;
use std::sync::Arc;
use tegula_core::{normalize_chunks, ChunkSpec, Chunks, Result};
use tegula_exec::Report;
use tegula_plan::construct::{creation, store};
use tegula_plan::{next_id, ReadUnit, Resource, ResourceKind};
pub use tegula_store::{ChunkSink, ChunkSource, Codec, StoredInfo, ZarrOptions};
use tegula_store::{
    is_remote, NpySink, NpySource, RemoteZarrSink, RemoteZarrSource, ZarrSink,
    ZarrSource,
};

/// Blocks read from a store by default grow to about this size, in whole stored chunks.
pub const STORE_BLOCK_BYTES: usize = 16 << 20;

/// Opens the Zarr array (format 2 or 3) at `path`; nothing is read but its metadata.
pub fn open_zarr(path: &str) -> Result<Arc<dyn ChunkSource>> {
    open_zarr_at(path, &[])
}

/// Opens the Zarr array at a local path or an object storage URL (`s3://`, `gs://`, `az://`,
/// `http(s)://`) with `storage` options (see `tegula_store::StorageOptions`).
pub fn open_zarr_at(url: &str, storage: &[(String, String)]) -> Result<Arc<dyn ChunkSource>> {
    if is_remote(url) {
        return Ok(Arc::new(RemoteZarrSource::open(url, storage)?));
    }
    local_only(url, storage)?;
    Ok(Arc::new(ZarrSource::open(url)?))
}

/// The metadata document (JSON) of the Zarr array at an object storage URL.
pub fn remote_zarr_metadata(url: &str, storage: &[(String, String)]) -> Result<String> {
    Ok(RemoteZarrSource::open(url, storage)?.metadata().to_string())
}

/// Refuses storage options for a local path, which would silently mean nothing.
fn local_only(path: &str, storage: &[(String, String)]) -> Result<()> {
    match storage.first() {
        Some((key, _)) => Err(tegula_core::value_err!("{path} is a local path: storage option {key:?} applies to object storage URLs only")),
        None => Ok(()),
    }
}

/// Opens the `.npy` file at `path`; nothing is read but its header.
pub fn open_npy(path: &str) -> Result<Arc<dyn ChunkSource>> {
    Ok(Arc::new(NpySource::open(path)?))
}

impl Array {
    /// An array read lazily from `source`: each block is read by its own task when needed.
    /// `chunks`: `None` for whole stored chunks (several per block while a block is below
    /// `STORE_BLOCK_BYTES`).
    pub fn from_source(source: Arc<dyn ChunkSource>, chunks: Option<&ChunkSpec>) -> Result<Array> {
        let info = source.info().clone();
        let chunks = match chunks {
            Some(spec) => normalize_chunks(spec, &info.shape, info.dtype.itemsize())?,
            None => stored_multiple(&info),
        };
        let read_unit = source.read_unit().map(|unit| ReadUnit { unit: unit.into(), shape: info.shape.clone().into() });
        let resource = Resource { read_unit, ..Resource::new(next_id(), ResourceKind::Source, Arc::new(source)) };
        Ok(Array::from_node(creation::from_resource(Arc::new(resource), info.dtype, chunks)))
    }

    /// Computes the array into `sink`, block by block: each block is written as soon as it is
    /// computed and then freed. Blocks are first aligned with the sink's chunks (moving block
    /// boundaries, which may merge blocks), so no two tasks write one stored chunk.
    pub fn store(&self, sink: Arc<dyn ChunkSink>, options: impl Into<ComputeOptions>) -> Result<Report> {
        let options = options.into();
        let spec = budget_left(options.spec()?)?;
        let grid: Vec<usize> = sink.write_grid().to_vec();
        let data: Arc<dyn Any + Send + Sync> = Arc::new(sink.clone());
        let stored = Arc::new(Resource::new(next_id(), ResourceKind::Sink, data));
        let root = store::store(&self.node, stored, &grid)?;
        let graph = plan_within(&[root], options.fuse, spec.memory)?;
        let (_, report) = tegula_exec::execute(&graph, options.executor.as_ref(), &spec)?;
        sink.finish()?;
        Ok(report)
    }

    /// Writes the array as a new Zarr array at `path` (see `ZarrOptions`).
    pub fn to_zarr(&self, path: &str, zarr: &ZarrOptions, options: impl Into<ComputeOptions>) -> Result<Report> {
        self.to_zarr_at(path, &[], zarr, options)
    }

    /// Writes the array as a new Zarr array at a local path or an object storage URL, with
    /// `storage` options (see `open_zarr_at`).
    pub fn to_zarr_at(&self, url: &str, storage: &[(String, String)], zarr: &ZarrOptions, options: impl Into<ComputeOptions>) -> Result<Report> {
        let sink: Arc<dyn ChunkSink> = if is_remote(url) {
            Arc::new(RemoteZarrSink::create(url, storage, &self.shape(), self.dtype(), zarr)?)
        } else {
            local_only(url, storage)?;
            Arc::new(ZarrSink::create(url, &self.shape(), self.dtype(), zarr)?)
        };
        self.store(sink, options)
    }

    /// Writes the array as a `.npy` file at `path`, which appears only once complete.
    pub fn to_npy(&self, path: &str, overwrite: bool, options: impl Into<ComputeOptions>) -> Result<Report> {
        let sink = NpySink::create(path, &self.shape(), self.dtype(), overwrite)?;
        self.store(Arc::new(sink), options)
    }

    /// The chunk shape a new Zarr array of this array gets by default: its largest block.
    pub fn default_store_chunks(&self) -> Vec<usize> {
        self.chunks().max_block_shape().iter().map(|&n| n.max(1)).collect()
    }
}

/// Blocks of whole stored chunks, grown along the first axes up to `STORE_BLOCK_BYTES`.
fn stored_multiple(info: &StoredInfo) -> Chunks {
    let mut block: Vec<usize> = info.chunk_shape.iter().zip(&info.shape).map(|(&c, &n)| c.min(n).max(1)).collect();
    for a in 0..block.len() {
        let bytes = block.iter().product::<usize>() * info.dtype.itemsize();
        if bytes >= STORE_BLOCK_BYTES {
            break;
        }
        let grown = block[a] * (STORE_BLOCK_BYTES / bytes).max(1);
        block[a] = if grown >= info.shape[a] { info.shape[a].max(1) } else { grown };
    }
    Chunks::regular(&info.shape, &block)
}
