//! Source nodes: one task per block (equal constant blocks share one task). `SourceBlocks`
//! also gives fused tasks the op of a source block they generate in place.

use super::Lowering;
use crate::graph::TaskId;
use crate::node::{Node, NodeKind, Residence, SourceKind};
use std::collections::HashMap;
use tegula_core::grid::{for_each_block, offsets};
use tegula_core::{internal_err, OpKind, Result};

pub(super) fn lower(l: &mut Lowering, node: &Node, kind: &SourceKind) -> Result<Vec<TaskId>> {
    if let SourceKind::Stored(stored) = kind {
        l.register_stored(stored);
    }
    let blocks = SourceBlocks::new(node)?;
    let mut constant_blocks: HashMap<Vec<usize>, TaskId> = HashMap::new();
    let mut out = Vec::with_capacity(node.chunks.nblocks());
    for_each_block(&node.chunks.numblocks(), |idx| {
        let shape = node.chunks.block_shape(idx);
        let size = shape.iter().product();
        if !matches!(kind, SourceKind::Full(_)) {
            out.push(l.push(node, blocks.op(idx, &shape), vec![], size, node.dtype));
            return;
        }
        let id = *constant_blocks
            .entry(shape.clone())
            .or_insert_with(|| l.push(node, blocks.op(idx, &shape), vec![], size, node.dtype));
        out.push(id);
    });
    Ok(out)
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
    pub(super) fn op(&self, idx: &[usize], shape: &[usize]) -> OpKind {
        let dtype = self.node.dtype;
        let start = |a: usize| self.starts[a][idx[a]];
        match self.kind {
            SourceKind::Stored(stored) => {
                let region = shape.iter().enumerate().map(|(a, &n)| (start(a), start(a) + n)).collect();
                match stored.residence {
                    Residence::Memory => OpKind::Load { source: stored.id, region },
                    Residence::Disk => OpKind::Read { source: stored.id, region },
                }
            }
            SourceKind::Full(value) => OpKind::Full { value: *value, dtype, shape: shape.to_vec() },
            SourceKind::Arange { first, second } => {
                OpKind::Arange { first: *first, second: *second, dtype, offset: start(0), len: shape[0] }
            }
            SourceKind::Linspace { start: s, stop, endpoint } => OpKind::Linspace {
                start: *s,
                stop: *stop,
                num: self.whole[0],
                endpoint: *endpoint,
                dtype,
                offset: start(0),
                len: shape[0],
            },
            SourceKind::Random { key, dist } => OpKind::Random {
                key: *key,
                dist: *dist,
                dtype,
                array_shape: self.whole.clone(),
                start: (0..shape.len()).map(start).collect(),
                shape: shape.to_vec(),
            },
        }
    }
}
