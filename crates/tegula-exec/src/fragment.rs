//! A plan (or a fragment of one, `tegula_plan::fragments`) as bytes, and running it where the
//! bytes arrive. The task graph is plain data; its resources are encoded here, where their
//! types are known: an in-memory array by value (its bytes) or by reference (a `.npy` file in a
//! directory the processes share, read region by region), a store by its URL (one being
//! written by its staging directory's, so other processes write regions of it), a user's
//! function by the bytes its own codec makes (the Python layer pickles). The wire format is
//! postcard: compact (varints, no field names) and serde's own.

use crate::caller_memory::CallerArray;
use crate::function::BlockFunction;
use crate::held::whole_in_memory;
use crate::inline::InlineBlock;
use crate::shared::SharedArrays;
use crate::state::{take_result, Inputs};
use crate::{threaded, Observer, Report};
use serde::{Deserialize, Serialize};
use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use tegula_core::{internal_err, value_err, DeviceId, IoOp, ResourceId, Result, Spec, TaskOp};
use tegula_kernels::raw::chunk_from_bytes;
use tegula_kernels::Chunk;
use tegula_plan::{Resource, ResourceKind, TaskGraph};
use tegula_store::{open_sink_url, open_url, ChunkSink, ChunkSource};

/// A self-contained plan: its tasks and outputs, and every resource they reach, encoded.
#[derive(Debug, Serialize, Deserialize)]
pub struct Fragment {
    /// The tasks and outputs, without resources (those are in `resources`).
    pub graph: TaskGraph,
    /// Every resource the tasks name, encoded.
    pub resources: Vec<EncodedResource>,
}

/// One resource of a fragment, as bytes that travel to another process.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EncodedResource {
    /// The number the graph's tasks name it by.
    pub id: ResourceId,
    /// What it was in the plan (an array, a source, a sink or a function).
    pub kind: ResourceKind,
    /// Its contents, or where another process finds them.
    pub payload: Payload,
}

/// How a resource travels: by value, or by a path or URL another process opens.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Payload {
    /// An array by value: row-major bytes in native order.
    Array(InlineBlock),
    /// An array by reference: read region by region out of the memory of the process that
    /// sent it (a worker on the same machine that may).
    CallerArray(CallerArray),
    /// An array by reference: a `.npy` file whose regions are read where needed.
    ArrayFile {
        /// The `.npy` file, in a directory the processes share.
        path: String,
    },
    /// A stored array, opened again from its URL (`tegula_store::open_url`).
    Store {
        /// The source's URL.
        url: String,
    },
    /// A user's function, as its codec's bytes.
    Function {
        /// What the function's codec made (`BlockFunction::encode`).
        bytes: Vec<u8>,
    },
    /// A store being written, where other processes write regions of it
    /// (`tegula_store::open_sink_url`); the process that made the plan finishes it.
    Sink {
        /// The sink's URL.
        url: String,
    },
}

/// Turns a function's bytes back into a function; registered once by the layer that encodes
/// them (the Python module unpickles).
pub type FunctionDecoder = fn(&[u8]) -> Result<Arc<dyn BlockFunction>>;

static FUNCTION_DECODER: OnceLock<FunctionDecoder> = OnceLock::new();

/// Registers how functions' bytes are decoded in this process (the first registration holds).
pub fn set_function_decoder(decoder: FunctionDecoder) {
    let _ = FUNCTION_DECODER.set(decoder);
}

/// The bytes of each function the fragments of one computation carry, made once for all of
/// them (a closure is pickled once per computation, with the values it holds when the
/// computation starts, as if the whole plan were sent at once).
#[derive(Default)]
pub struct FunctionBytes(Mutex<HashMap<ResourceId, Vec<u8>>>);

impl FunctionBytes {
    /// Function `id`'s bytes, encoded by `function` the first time they are asked for.
    fn of(&self, id: ResourceId, function: &dyn BlockFunction) -> Result<Vec<u8>> {
        let mut known = self.0.lock().map_err(|_| internal_err!("function bytes poisoned"))?;
        if let Some(bytes) = known.get(&id) {
            return Ok(bytes.clone());
        }
        let bytes = function.encode()?;
        known.insert(id, bytes.clone());
        Ok(bytes)
    }
}

impl Fragment {
    /// Encodes `graph`'s resources: in-memory arrays by value, or in `shared`'s files when
    /// given. Fails for what cannot leave the process (a sink being written, a source or a
    /// function without a codec); such work runs where it is.
    pub fn encode(graph: &TaskGraph, shared: Option<&SharedArrays>) -> Result<Fragment> {
        Fragment::encode_sharing(graph.clone(), shared, &FunctionBytes::default())
    }

    /// `encode`, one of a computation's fragments: its functions' bytes come from `functions`,
    /// made once for all the fragments.
    pub fn encode_sharing(graph: TaskGraph, shared: Option<&SharedArrays>, functions: &FunctionBytes) -> Result<Fragment> {
        let resources = Fragment::resources_of(&graph, shared, functions)?;
        Ok(Fragment::with_resources(graph, resources))
    }

    /// `graph` with `resources` (from `resources_of`) in place of its own.
    pub fn with_resources(graph: TaskGraph, resources: Vec<EncodedResource>) -> Fragment {
        Fragment { graph: TaskGraph { resources: vec![], ..graph }, resources }
    }

    /// The resources `encode_sharing` gives `graph`'s fragment, encoded; the `Value` error it
    /// gives where the graph cannot leave the process.
    pub fn resources_of(graph: &TaskGraph, shared: Option<&SharedArrays>, functions: &FunctionBytes) -> Result<Vec<EncodedResource>> {
        // Devices are numbered per process: a task on one other than the CPU stays in its own.
        if let Some(task) = graph.tasks.iter().find(|t| t.device != DeviceId::CPU) {
            return Err(value_err!("a task on {} cannot leave the process that has that device", task.device));
        }
        graph.resources.iter().map(|r| encode_resource(r, shared, functions)).collect()
    }

    /// The fragment as bytes (postcard), to send to another process.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        postcard::to_stdvec(self).map_err(|e| internal_err!("encoding a plan: {e}"))
    }

    /// The fragment `to_bytes` made, read back; other bytes are a `Value` error.
    pub fn from_bytes(bytes: &[u8]) -> Result<Fragment> {
        postcard::from_bytes(bytes).map_err(|e| value_err!("not a tegula plan fragment: {e}"))
    }

    /// The runnable graph, its resources decoded. An array shipped as a file is read region
    /// by region: its loads become reads.
    pub fn decode(self) -> Result<TaskGraph> {
        let mut graph = self.graph;
        let mut files = Vec::new();
        for r in &self.resources {
            let (kind, data) = match &r.payload {
                Payload::CallerArray(array) => caller_array(&mut graph, r.id, array)?,
                _ => decode_resource(r)?,
            };
            if r.kind == ResourceKind::Array && kind == ResourceKind::Source {
                files.push(r.id);
            }
            graph.resources.push(Arc::new(Resource::new(r.id, kind, data)));
        }
        for task in &mut graph.tasks {
            if let TaskOp::Io(IoOp::Load { resource, region }) = &task.op {
                if files.contains(resource) {
                    task.op = IoOp::Read { resource: *resource, region: region.clone() }.into();
                }
            }
        }
        Ok(graph)
    }
}

/// The most bytes of an array in the caller's memory a fragment reads at once, before its tasks.
const PREFETCHED_BYTES: usize = 8 << 20;

/// Array `id` in the caller's memory, as the fragment's tasks reach it: the box holding all
/// their loads read at once and the loads made views of it where the box is small and not
/// much larger than they are (many small blocks cost one system call, not one each); else a
/// source each load reads its region of.
fn caller_array(graph: &mut TaskGraph, id: ResourceId, array: &CallerArray) -> Result<(ResourceKind, Arc<dyn Any + Send + Sync>)> {
    let source = array.clone().open()?;
    let (dtype, ndim) = (source.info().dtype, source.info().shape.len());
    let regions = graph.tasks.iter().filter_map(|t| match &t.op {
        TaskOp::Io(IoOp::Load { resource, region }) if *resource == id && region.len() == ndim => Some(region),
        _ => None,
    });
    let mut bounds: Option<Vec<(usize, usize)>> = None;
    let mut loaded = 0usize;
    for region in regions {
        loaded += region.iter().map(|&(a, b)| b - a).product::<usize>();
        let b = bounds.get_or_insert_with(|| region.clone());
        b.iter_mut().zip(region).for_each(|(b, r)| *b = (b.0.min(r.0), b.1.max(r.1)));
    }
    // Held for the whole fragment, outside its budget: only boxes of small blocks.
    let small = |b: &Vec<(usize, usize)>| {
        let elements = b.iter().map(|&(a, z)| z - a).product::<usize>();
        elements <= 2 * loaded && elements * dtype.itemsize() <= PREFETCHED_BYTES
    };
    let Some(bounds) = bounds.filter(small) else {
        return Ok((ResourceKind::Source, Arc::new(Arc::new(source) as Arc<dyn ChunkSource>)));
    };
    let extent: Vec<usize> = bounds.iter().map(|&(a, b)| b - a).collect();
    let held = chunk_from_bytes(dtype, &extent, |out| source.read_into(&bounds, out))?;
    for task in &mut graph.tasks {
        if let TaskOp::Io(IoOp::Load { resource, region }) = &mut task.op {
            if *resource == id {
                region.iter_mut().zip(&bounds).for_each(|(r, b)| *r = (r.0 - b.0, r.1 - b.0));
            }
        }
    }
    Ok((ResourceKind::Array, Arc::new(held)))
}

fn encode_resource(r: &Resource, shared: Option<&SharedArrays>, functions: &FunctionBytes) -> Result<EncodedResource> {
    let refuse = |what: &str| value_err!("resource #{} ({what}) cannot leave this process", r.id);
    let payload = match r.kind {
        ResourceKind::Array => {
            let whole = || whole_in_memory(r.data.as_ref()).unwrap_or_else(|| Err(refuse("not an array")));
            // An array of this process's own, where the workers read this process's memory.
            let in_place = r.data.downcast_ref::<Chunk>().and_then(CallerArray::describe);
            match (shared, in_place) {
                (Some(files), Some(array)) if files.reads_caller() => Payload::CallerArray(array),
                (Some(files), _) => Payload::ArrayFile { path: files.path_of(r.id, whole)? },
                (None, _) => Payload::Array(InlineBlock::new(whole()?.as_ref())),
            }
        }
        ResourceKind::Source => {
            let source = r.data.downcast_ref::<Arc<dyn ChunkSource>>().ok_or_else(|| refuse("not a store"))?;
            Payload::Store { url: source.url().ok_or_else(|| refuse("a source without a URL"))? }
        }
        ResourceKind::Function => {
            let function = r.data.downcast_ref::<Arc<dyn BlockFunction>>().ok_or_else(|| refuse("not a function"))?;
            Payload::Function { bytes: functions.of(r.id, function.as_ref())? }
        }
        ResourceKind::Sink => {
            let sink = r.data.downcast_ref::<Arc<dyn ChunkSink>>().ok_or_else(|| refuse("not a store being written"))?;
            Payload::Sink { url: sink.url().ok_or_else(|| refuse("a store only this process writes"))? }
        }
    };
    Ok(EncodedResource { id: r.id, kind: r.kind, payload })
}

fn decode_resource(r: &EncodedResource) -> Result<(ResourceKind, Arc<dyn Any + Send + Sync>)> {
    Ok(match &r.payload {
        Payload::Array(block) => (ResourceKind::Array, Arc::new(block.to_chunk()?)),
        Payload::CallerArray(_) => return Err(internal_err!("array resource #{} decoded apart from its fragment", r.id)),
        Payload::ArrayFile { path } => match crate::mapped::map_npy(path)? {
            Some(chunk) => (ResourceKind::Array, Arc::new(chunk)),
            None => (ResourceKind::Source, Arc::new(open_url(&format!("npy:{path}"))?)),
        },
        Payload::Store { url } => (r.kind, Arc::new(open_url(url)?)),
        Payload::Sink { url } => (r.kind, Arc::new(open_sink_url(url)?)),
        Payload::Function { bytes } => {
            let decode = FUNCTION_DECODER.get().ok_or_else(|| value_err!("no decoder of functions is registered in this process"))?;
            (r.kind, Arc::new(decode(bytes)?))
        }
    })
}

/// How long the memory a fragment freed stays kept for the next fragment to reuse: longer
/// than a cluster takes between two fragments of a computation, or two computations of a loop.
#[cfg(target_os = "linux")]
const FRAGMENT_REUSE_LINGER: std::time::Duration = std::time::Duration::from_secs(2);

/// Runs `graph` (a fragment's, decoded) given the blocks its `IoOp::Input` tasks name, on
/// `threads` threads within `spec`'s budget; returns its outputs' blocks, in order.
pub fn run_fragment(
    graph: &TaskGraph,
    given: &[Chunk],
    threads: usize,
    spec: &Spec,
    observer: Option<&dyn Observer>,
) -> Result<(Vec<Chunk>, Report)> {
    // A worker runs a computation's fragments one after another: each reuses the memory the
    // one before it freed instead of fresh pages.
    #[cfg(target_os = "linux")]
    let _reuse = tegula_core::reuse::reuse_lingering(spec.memory, FRAGMENT_REUSE_LINGER);
    let inputs = Inputs::new(graph, given)?;
    let (results, report) = threaded::run(graph, &inputs, threads, spec, observer, None)?;
    let blocks = graph.outputs.iter().flat_map(|o| o.blocks.iter()).map(|&t| take_result(&results, t)).collect::<Result<_>>()?;
    Ok((blocks, report))
}
