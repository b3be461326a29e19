//! Source nodes: one task per block (equal constant blocks share one task). `SourceBlocks`
//! also gives fused tasks the op of a source block they generate in place.

use super::Lowering;
use crate::graph::TaskId;
use crate::node::{Node, NodeKind, SourceKind};
use crate::resource::{ReadUnit, ResourceKind};
use std::collections::HashMap;
use tegula_core::grid::{block_indices, offsets, try_for_each_block};
use tegula_core::{internal_err, IoOp, KernelOp, ResourceId, Result, Select, SourceOp};
use tegula_core::TaskOp;

pub(super) fn lower(l: &mut Lowering, node: &Node, kind: &SourceKind) -> Result<Vec<TaskId>> {
    if let SourceKind::Stored(stored) = kind {
        l.register_resource(stored);
    }
    let blocks = SourceBlocks::new(node)?;
    if let SourceKind::Stored(stored) = kind {
        if let (ResourceKind::Source, Some(unit)) = (stored.kind, &stored.read_unit) {
            return Ok(by_units(l, node, &blocks, stored.id, unit));
        }
    }
    let mut constant_blocks: HashMap<Vec<usize>, TaskId> = HashMap::new();
    let mut out = Vec::with_capacity(node.chunks.nblocks());
    try_for_each_block(&node.chunks.numblocks(), |idx| {
        let shape = node.chunks.block_shape(idx);
        let size = shape.iter().product();
        if !matches!(kind, SourceKind::Full(_)) {
            out.push(l.push(node, blocks.op(idx, &shape)?, vec![], size, node.dtype));
            return Ok(());
        }
        let id = match constant_blocks.get(&shape) {
            Some(&id) => id,
            None => l.push(node, blocks.op(idx, &shape)?, vec![], size, node.dtype),
        };
        constant_blocks.insert(shape, id);
        out.push(id);
        Ok(())
    })?;
    Ok(out)
}

/// The blocks of a stored array read by whole units: each block is the units around it, read
/// once for every block (of any node) that needs them, or a view of them.
fn by_units(l: &mut Lowering, node: &Node, blocks: &SourceBlocks, resource: ResourceId, unit: &ReadUnit) -> Vec<TaskId> {
    block_indices(&node.chunks.numblocks())
        .map(|idx| {
            let shape = node.chunks.block_shape(&idx);
            let region = blocks.region(&idx, &shape);
            let around = unit.around(&region);
            let read = l.read(node, resource, around.clone(), node.dtype);
            if around == region {
                return read;
            }
            let axes = region.iter().zip(&around).map(|(r, a)| Select::Range { start: r.0 - a.0, stop: r.1 - a.0, step: 1 }).collect();
            l.push(node, KernelOp::Select { axes }, vec![read], shape.iter().product(), node.dtype)
        })
        .collect()
}

/// The per-block ops of a source node.
pub(super) struct SourceBlocks<'n> {
    node: &'n Node,
    kind: &'n SourceKind,
    /// The first element of every block in the whole source, per axis.
    starts: Vec<Vec<usize>>,
    /// The whole source's shape (the node's, unless it is a window of it).
    whole: Vec<usize>,
}

impl<'n> SourceBlocks<'n> {
    pub(super) fn new(node: &'n Node) -> Result<SourceBlocks<'n>> {
        let NodeKind::Source(kind, window) = &node.kind else {
            return Err(internal_err!("{} is not a source", node.label()));
        };
        let starts = node.chunks.sizes().iter().enumerate();
        let starts = starts.map(|(a, s)| offsets(s).into_iter().map(|o| window.start(a, o)).collect()).collect();
        Ok(SourceBlocks { node, kind, starts, whole: window.whole_shape(&node.shape()) })
    }

    /// The op producing block `idx` (one block number per axis), of `shape`.
    pub(super) fn op(&self, idx: &[usize], shape: &[usize]) -> Result<TaskOp> {
        let SourceKind::Stored(stored) = self.kind else {
            return self.generated(idx, shape).map(TaskOp::Source);
        };
        let region = self.region(idx, shape);
        Ok(TaskOp::Io(match stored.kind {
            ResourceKind::Array => IoOp::Load { resource: stored.id, region },
            ResourceKind::Source => IoOp::Read { resource: stored.id, region },
            kind => return Err(internal_err!("a source node reads a resource of kind {kind:?}")),
        }))
    }

    /// Where block `idx`, of `shape`, lies in the whole source.
    pub(super) fn region(&self, idx: &[usize], shape: &[usize]) -> Vec<(usize, usize)> {
        shape.iter().enumerate().map(|(a, &n)| (self.starts[a][idx[a]], self.starts[a][idx[a]] + n)).collect()
    }

    /// The op generating block `idx` of `shape` from its position alone.
    pub(super) fn generated(&self, idx: &[usize], shape: &[usize]) -> Result<SourceOp> {
        let dtype = self.node.dtype;
        let start = |a: usize| self.starts[a][idx[a]];
        Ok(match self.kind {
            SourceKind::Stored(stored) => return Err(internal_err!("stored array #{} is not generated", stored.id)),
            SourceKind::Full(value) => SourceOp::Full { value: *value, dtype, shape: shape.to_vec() },
            SourceKind::Arange { first, second } => {
                SourceOp::Arange { first: *first, second: *second, dtype, offset: start(0), len: shape[0] }
            }
            SourceKind::Linspace { start: s, stop, endpoint } => SourceOp::Linspace {
                start: *s,
                stop: *stop,
                num: self.whole[0],
                endpoint: *endpoint,
                dtype,
                offset: start(0),
                len: shape[0],
            },
            SourceKind::Random { key, dist } => SourceOp::Random {
                key: *key,
                dist: *dist,
                dtype,
                array_shape: self.whole.clone(),
                start: (0..shape.len()).map(start).collect(),
                shape: shape.to_vec(),
            },
        })
    }
}
