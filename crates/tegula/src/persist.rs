//! Persisting arrays: computing them once and keeping their blocks, so that later plans read
//! the kept blocks instead of computing them again (Dask's `persist`). Blocks are kept in memory,
//! as the executor made them (`HeldBlocks`), while the arrays kept by the process stay within a
//! share of the budget, and beyond it on disk, in an uncompressed Zarr array under the spill
//! directory. Both are released when the last array
//! reading them is dropped; until then, the bytes kept in memory count against the budget of
//! every computation (`budget::budget_left`).

use crate::array::{plan_within, Array, ComputeOptions};
use crate::budget::budget_left;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use tegula_core::kept::{kept_bytes, KeptBytes};
use tegula_core::{Chunks, Result, TegulaError};
use tegula_exec::{HeldBlocks, Observer, Report};
use tegula_plan::construct::layout::{self, IndexItem};
use tegula_plan::construct::{creation, device, join, store};
use tegula_plan::describe::{describe_in, Detail, PlanDescription};
use tegula_plan::{next_id, NodeRef, Resource, ResourceKind};
use tegula_store::{ChunkSink, ChunkSource, Codec, ZarrOptions, ZarrSink, ZarrSource};

/// Persisted arrays, all together, keep blocks in memory up to this share of the budget, so
/// that later computations always have the rest.
const KEPT_SHARE: usize = 2;

/// Computes `arrays` once and returns arrays of the same values that read the kept blocks.
pub fn persist(arrays: &[&Array], options: impl Into<ComputeOptions>) -> Result<Vec<Array>> {
    persist_observed(arrays, options, None, false).map(|(kept, _, _)| kept)
}

/// `persist`, telling `observer` about each task (see `compute_observed`).
pub fn persist_observed(
    arrays: &[&Array],
    options: impl Into<ComputeOptions>,
    observer: Option<&dyn Observer>,
    describe_plan: impl Into<Detail>,
) -> Result<(Vec<Array>, Report, Option<Arc<PlanDescription>>)> {
    let options = options.into();
    let whole = options.spec()?;
    let cap = whole.memory / KEPT_SHARE;
    let spec = budget_left(whole)?;
    let mut disk: Option<Arc<KeptDir>> = None;
    let mut parts = Vec::with_capacity(arrays.len());
    for (i, array) in arrays.iter().enumerate() {
        let Some(&blocks) = array.chunks().numblocks().first() else {
            parts.push(Part { memory: Some(array.node.clone()), disk: None, charge: KeptBytes::charge(array.dtype().itemsize()) });
            continue;
        };
        let (split, charge) = reserve_rows(array, cap);
        let memory = (split.rows > 0 || blocks == 0).then(|| memory_part(array, &split)).transpose()?;
        let disk = (split.rows < blocks).then(|| disk_part(array, &split, &mut disk, &spec.spill_dir, i)).transpose()?;
        parts.push(Part { memory, disk, charge });
    }
    let roots: Vec<NodeRef> = parts.iter().flat_map(|p| p.memory.iter().chain(p.disk.iter().map(|d| &d.write)).cloned()).collect();
    let graph = plan_within(&roots, options.fuse, spec.memory)?;
    let description = describe_in(&roots, &graph, describe_plan.into()).map(Arc::new);
    if let (Some(observer), Some(plan)) = (observer, &description) {
        observer.planned(plan);
    }
    let (blocks, report) = options.executor.execute_in_place(&graph, &spec, observer)?;
    let mut results = graph.outputs.iter().zip(blocks);
    let mut kept = Vec::with_capacity(parts.len());
    for (part, array) in parts.into_iter().zip(arrays) {
        let array_device = array.node.device;
        let memory = match &part.memory {
            Some(node) => {
                let (output, blocks) = results.next().ok_or_else(|| tegula_core::internal_err!("persist: a result is missing"))?;
                Some(kept_in_memory(HeldBlocks::new(output.chunks.clone(), output.dtype, node.device, blocks)?, node, part.charge))
            }
            None => None,
        };
        let disk = match part.disk {
            Some(d) => {
                results.next();
                Some(d.finish()?)
            }
            None => None,
        };
        // Read back on the array's device: its blocks kept there are handed over as they are.
        let on_device = |kept: NodeRef| device::to_device(&kept, array_device);
        let (memory, disk) = (memory.map(on_device), disk.map(on_device));
        kept.push(Array::from_node(match (memory, disk) {
            (Some(m), Some(d)) => join::concatenate(&[m, d], Some(0))?,
            (Some(only), None) | (None, Some(only)) => only,
            (None, None) => return Err(tegula_core::internal_err!("persist: an array with no part")),
        }));
    }
    Ok((kept, report, description))
}

/// How one array is kept: its leading rows of blocks in memory, charged from the start, the
/// rest on disk.
struct Part {
    memory: Option<NodeRef>,
    disk: Option<DiskPart>,
    charge: KeptBytes,
}

/// The rows of blocks of an array kept on disk: the plan writing them and where.
struct DiskPart {
    write: NodeRef,
    sink: Arc<ZarrSink>,
    path: String,
    chunks: Chunks,
    dir: Arc<KeptDir>,
}

impl DiskPart {
    /// The written array, read back in the blocks it was computed in.
    fn finish(self) -> Result<NodeRef> {
        self.sink.finish()?;
        let source: Arc<dyn ChunkSource> = Arc::new(ZarrSource::open_complete(&self.path)?);
        let dtype = source.info().dtype;
        let resource = Resource { guard: Some(self.dir), ..Resource::new(next_id(), ResourceKind::Source, Arc::new(source)) };
        Ok(creation::from_resource(Arc::new(resource), dtype, self.chunks))
    }
}

/// The blocks computed for `node`, charged (`charge`) against the budget while an array reads
/// them.
fn kept_in_memory(held: HeldBlocks, node: &NodeRef, charge: KeptBytes) -> NodeRef {
    let resource = Resource { guard: Some(Arc::new(charge)), ..Resource::new(next_id(), ResourceKind::Array, Arc::new(held)) };
    creation::from_resource(Arc::new(resource), node.dtype, node.chunks.clone())
}

/// Where an array is cut between memory and disk: after its first `rows` rows of blocks along
/// the first axis, which end at element `at` and hold `bytes`.
struct Split {
    rows: usize,
    at: usize,
    bytes: usize,
}

/// The most leading rows of blocks of `array` that fit beside the bytes persisted arrays keep,
/// all within `cap`, and their charge.
fn reserve_rows(array: &Array, cap: usize) -> (Split, KeptBytes) {
    loop {
        let split = split_in_memory(array, cap.saturating_sub(kept_bytes()));
        if split.bytes == 0 {
            // Nothing kept in memory (the other persisted arrays may hold more than `cap`).
            return (split, KeptBytes::charge(0));
        }
        // Another thread may have kept bytes since: then try again with what is left.
        if let Some(charge) = KeptBytes::within(split.bytes, cap) {
            return (split, charge);
        }
    }
}

/// The most leading rows of blocks of `array` that fit in `share` bytes.
fn split_in_memory(array: &Array, share: usize) -> Split {
    let row_bytes = array.shape()[1..].iter().product::<usize>() * array.dtype().itemsize();
    let mut split = Split { rows: 0, at: 0, bytes: 0 };
    for &len in array.chunks().axis(0) {
        if split.bytes + len * row_bytes > share {
            break;
        }
        split = Split { rows: split.rows + 1, at: split.at + len, bytes: split.bytes + len * row_bytes };
    }
    split
}

/// The array's rows of blocks before `split`.
fn memory_part(array: &Array, split: &Split) -> Result<NodeRef> {
    if split.rows == array.chunks().numblocks()[0] {
        return Ok(array.node.clone());
    }
    layout::index(&array.node, &[IndexItem::Slice { start: None, stop: Some(split.at as i64), step: None }])
}

/// The plan writing the array's rows of blocks after `split` to a new Zarr array in the
/// persist's directory (made by the first array that needs it).
fn disk_part(array: &Array, split: &Split, dir: &mut Option<Arc<KeptDir>>, spill_dir: &Path, i: usize) -> Result<DiskPart> {
    let dir = match dir {
        Some(dir) => dir.clone(),
        None => dir.insert(Arc::new(KeptDir::create(spill_dir)?)).clone(),
    };
    let rest = layout::index(&array.node, &[IndexItem::Slice { start: Some(split.at as i64), stop: None, step: None }])?;
    let path = dir.path.join(format!("{i}.zarr")).to_string_lossy().into_owned();
    let chunk_shape: Vec<usize> = rest.chunks.max_block_shape().iter().map(|&n| n.max(1)).collect();
    let options = ZarrOptions {
        format: 3,
        chunk_shape: chunk_shape.clone(),
        codec: Codec::None,
        shard_shape: None,
        fill_value: None,
        attributes: "{}".into(),
        overwrite: false,
    };
    let sink = Arc::new(ZarrSink::create(&path, &rest.shape(), rest.dtype, &options)?);
    let data: Arc<dyn ChunkSink> = sink.clone();
    let resource = Arc::new(Resource::new(next_id(), ResourceKind::Sink, Arc::new(data)));
    let write = store::store(&rest, resource, &chunk_shape)?;
    Ok(DiskPart { write, sink, path, chunks: rest.chunks.clone(), dir })
}

/// The directory of a persist's arrays on disk, removed when the last array reading it goes.
struct KeptDir {
    path: PathBuf,
}

impl KeptDir {
    fn create(spill_dir: &Path) -> Result<KeptDir> {
        static MADE: AtomicUsize = AtomicUsize::new(0);
        let name = format!("tegula-kept-{}-{}", std::process::id(), MADE.fetch_add(1, Ordering::Relaxed));
        tegula_exec::leftovers::remove_dead_owners(spill_dir);
        let path = spill_dir.join(name);
        std::fs::create_dir_all(&path)
            .map_err(|e| TegulaError::Io(format!("making {} for persisted blocks: {e}", path.display())))?;
        Ok(KeptDir { path })
    }
}

impl Drop for KeptDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}
