//! A graph's resources as their types (arrays, stores, functions) and devices, and running one
//! task: a source or a kernel on its device (inputs from other devices moved to it), or I/O
//! through a resource, on the host.

use std::any::Any;
use std::borrow::Cow;
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use crate::device::{device, transfer, Device};
use crate::held::{is_in_memory, load_in_memory};
use crate::BlockFunction;
use tegula_core::{dtype_err, internal_err, value_err, DType, DeviceId, IoOp, Result, TaskOp};
use tegula_kernels::raw::{chunk_from_bytes, with_bytes};
use tegula_kernels::Chunk;
use tegula_plan::{TaskGraph, TaskId};
use tegula_store::{ChunkSink, ChunkSource};

/// A graph's resource: an array in memory (a `Chunk` or `HeldBlocks`), a store to read or to
/// write, a user's function.
enum Stored<'g> {
    Memory(&'g (dyn Any + Send + Sync)),
    Source(&'g Arc<dyn ChunkSource>),
    Sink(&'g Arc<dyn ChunkSink>),
    Function(&'g Arc<dyn BlockFunction>),
}

/// The stored arrays of a graph, by id.
pub struct Inputs<'g> {
    stored: HashMap<u64, Stored<'g>>,
    /// The blocks given to a fragment (`IoOp::Input`).
    given: &'g [Chunk],
    /// The devices of this process, up to the last one the graph names.
    devices: Vec<Arc<dyn Device>>,
}

impl<'g> Inputs<'g> {
    pub fn new(graph: &'g TaskGraph, given: &'g [Chunk]) -> Result<Inputs<'g>> {
        let stored = graph
            .resources
            .iter()
            .map(|s| {
                let data = &s.data;
                let stored = if is_in_memory(data.as_ref()) {
                    Stored::Memory(data.as_ref())
                } else if let Some(source) = data.downcast_ref::<Arc<dyn ChunkSource>>() {
                    Stored::Source(source)
                } else if let Some(sink) = data.downcast_ref::<Arc<dyn ChunkSink>>() {
                    Stored::Sink(sink)
                } else if let Some(function) = data.downcast_ref::<Arc<dyn BlockFunction>>() {
                    Stored::Function(function)
                } else {
                    return Err(internal_err!("stored array #{} holds neither a chunk nor a store", s.id));
                };
                Ok((s.id, stored))
            })
            .collect::<Result<_>>()?;
        let last = graph.tasks.iter().map(|t| t.device.0).max().unwrap_or(0);
        let devices = (0..=last).map(|d| device(DeviceId(d))).collect::<Result<_>>()?;
        Ok(Inputs { stored, given, devices })
    }

    /// The memory budget of each device: its own, else `memory`.
    pub fn budgets(&self, memory: usize) -> Vec<usize> {
        self.devices.iter().map(|d| d.memory().unwrap_or(memory)).collect()
    }

    /// The device task `id` runs on.
    pub fn device(&self, graph: &TaskGraph, id: TaskId) -> &dyn Device {
        self.devices[graph.tasks[id].device.index()].as_ref()
    }


    /// Runs task `id` given its inputs' chunks; a panic in a kernel becomes an internal error.
    pub fn run(&self, graph: &TaskGraph, id: TaskId, args: &[Chunk]) -> Result<Chunk> {
        let task = &graph.tasks[id];
        let here = self.device(graph, id);
        let args: Cow<[Chunk]> = if task.inputs.iter().all(|&i| graph.tasks[i].device == task.device) {
            Cow::Borrowed(args)
        } else {
            let moved = task.inputs.iter().zip(args).map(|(&i, chunk)| match graph.tasks[i].device == task.device {
                true => Ok(chunk.clone()),
                false => transfer(chunk, self.device(graph, i), here),
            });
            Cow::Owned(moved.collect::<Result<Vec<_>>>()?)
        };
        catch_unwind(AssertUnwindSafe(|| self.run_op(here, task.dtype, &task.op, &args)))
            .unwrap_or_else(|_| Err(internal_err!("kernel {} panicked", task.op.label())))
    }

    fn run_op(&self, device: &dyn Device, dtype: DType, op: &TaskOp, args: &[Chunk]) -> Result<Chunk> {
        match op {
            TaskOp::Source(op) => device.generate(op),
            TaskOp::Kernel(op) => device.run(op, args),
            TaskOp::Io(op) => self.run_io(dtype, op, args),
        }
    }

    fn run_io(&self, dtype: DType, op: &IoOp, args: &[Chunk]) -> Result<Chunk> {
        let Some(id) = op.resource() else {
            let IoOp::Input { index } = op else { return Err(internal_err!("{} reaches no resource", op.label())) };
            return self.given.get(*index).cloned().ok_or_else(|| internal_err!("fragment input {index} not given"));
        };
        let stored = self.stored.get(&id).ok_or_else(|| internal_err!("resource #{id} missing"))?;
        match (op, stored) {
            (IoOp::Load { region, .. }, Stored::Memory(data)) => {
                load_in_memory(*data, region).unwrap_or_else(|| Err(internal_err!("array #{id} is not in memory")))
            }
            (IoOp::Read { region, .. }, Stored::Source(source)) => {
                let shape: Vec<usize> = region.iter().map(|(a, b)| b - a).collect();
                chunk_from_bytes(source.info().dtype, &shape, |bytes| source.read_into(region, bytes))
            }
            (IoOp::Write { region, .. }, Stored::Sink(sink)) => {
                let block = args.first().ok_or_else(|| internal_err!("a write without its block"))?;
                with_bytes(block, |bytes| sink.write(region, bytes))?;
                chunk_from_bytes(dtype, &[0], |_| Ok(()))
            }
            (IoOp::CallBlock { block, shape, .. }, Stored::Function(function)) => {
                checked_block(function.call(block, args)?, dtype, shape, block)
            }
            _ => Err(internal_err!("{} names a resource of the wrong kind", op.label())),
        }
    }
}

/// A user function's result for `block`, refused unless it has the plan's dtype and shape.
fn checked_block(chunk: Chunk, dtype: DType, shape: &[usize], block: &[usize]) -> Result<Chunk> {
    if chunk.dtype() != dtype.storage() {
        return Err(dtype_err!("map_blocks: the function returned {} for block {block:?}, where {dtype} was declared", chunk.dtype()));
    }
    if chunk.shape() != shape {
        return Err(value_err!(
            "map_blocks: the function returned a block of shape {:?} for block {block:?}, where the chunks say {shape:?}",
            chunk.shape()
        ));
    }
    Ok(chunk)
}

pub fn take_result(results: &[Option<Chunk>], id: TaskId) -> Result<Chunk> {
    results[id].clone().ok_or_else(|| internal_err!("output task {id} has no result"))
}
