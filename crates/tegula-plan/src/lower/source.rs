//! Source nodes: one task per block (equal constant blocks share one task). `SourceBlocks`
//! also gives fused tasks the op of a source block they generate in place.

use super::Lowering;
use crate::graph::TaskId;
use crate::node::{Node, NodeKind, SourceKind};
use std::collections::HashMap;
use tegula_core::grid::{block_indices, offsets};
use tegula_core::{internal_err, OpKind, Result};

pub(super) fn lower(l: &mut Lowering, node: &Node, kind: &SourceKind) -> Result<Vec<TaskId>> {
    if let SourceKind::Stored(stored) = kind {
        l.register_stored(stored);
    }
    let blocks = SourceBlocks::new(node)?;
    let mut constant_blocks: HashMap<Vec<usize>, TaskId> = HashMap::new();
    let mut out = Vec::with_capacity(node.chunks.nblocks());
    for idx in block_indices(&node.chunks.numblocks()) {
        let shape = node.chunks.block_shape(&idx);
        if let Some(&t) = constant_blocks.get(&shape) {
            out.push(t);
            continue;
        }
        let id = l.push(node, blocks.op(&idx), vec![], shape.clone(), node.dtype);
        if matches!(kind, SourceKind::Full(_)) {
            constant_blocks.insert(shape, id);
        }
        out.push(id);
    }
    Ok(out)
}

/// The per-block ops of a source node.
pub(super) struct SourceBlocks<'n> {
    node: &'n Node,
    kind: &'n SourceKind,
    /// The first element of every block, per axis.
    starts: Vec<Vec<usize>>,
}

impl<'n> SourceBlocks<'n> {
    pub(super) fn new(node: &'n Node) -> Result<SourceBlocks<'n>> {
        let NodeKind::Source(kind) = &node.kind else {
            return Err(internal_err!("{} is not a source", node.label()));
        };
        Ok(SourceBlocks {
            node,
            kind,
            starts: node.chunks.sizes().iter().map(|s| offsets(s)).collect(),
        })
    }

    /// The op producing block `idx` (one block number per axis).
    pub(super) fn op(&self, idx: &[usize]) -> OpKind {
        let node = self.node;
        let shape = node.chunks.block_shape(idx);
        let start: Vec<usize> = idx.iter().zip(&self.starts).map(|(&b, s)| s[b]).collect();
        match self.kind {
            SourceKind::Stored(stored) => {
                let region = start
                    .iter()
                    .zip(&shape)
                    .map(|(&s, &n)| (s, s + n))
                    .collect();
                OpKind::Load {
                    source: stored.id,
                    region,
                }
            }
            SourceKind::Full(value) => OpKind::Full {
                value: *value,
                dtype: node.dtype,
                shape,
            },
            SourceKind::Arange { first, second } => OpKind::Arange {
                first: *first,
                second: *second,
                dtype: node.dtype,
                offset: start[0],
                len: shape[0],
            },
            SourceKind::Linspace {
                start: s,
                stop,
                endpoint,
            } => OpKind::Linspace {
                start: *s,
                stop: *stop,
                num: node.shape()[0],
                endpoint: *endpoint,
                dtype: node.dtype,
                offset: start[0],
                len: shape[0],
            },
            SourceKind::Random { key, dist } => OpKind::Random {
                key: *key,
                dist: *dist,
                dtype: node.dtype,
                array_shape: node.shape(),
                start,
                shape,
            },
        }
    }
}
