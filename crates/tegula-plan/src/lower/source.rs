//! Source nodes: one task per block (equal constant blocks share one task).

use super::Lowering;
use crate::graph::TaskId;
use crate::node::{Node, SourceKind};
use std::collections::HashMap;
use tegula_core::grid::{block_indices, offsets};
use tegula_core::{OpKind, Result};

pub(super) fn lower(l: &mut Lowering, node: &Node, kind: &SourceKind) -> Result<Vec<TaskId>> {
    let chunks = &node.chunks;
    let starts: Vec<Vec<usize>> = chunks.sizes().iter().map(|s| offsets(s)).collect();
    let mut constant_blocks: HashMap<Vec<usize>, TaskId> = HashMap::new();
    let numblocks = chunks.numblocks();
    let mut out = Vec::with_capacity(chunks.nblocks());
    for idx in block_indices(&numblocks) {
        let shape = chunks.block_shape(&idx);
        let start: Vec<usize> = idx.iter().enumerate().map(|(a, &b)| starts[a][b]).collect();
        let op = match kind {
            SourceKind::Stored(stored) => {
                l.register_stored(stored);
                let region = start.iter().zip(&shape).map(|(&s, &n)| (s, s + n)).collect();
                OpKind::Load { source: stored.id, region }
            }
            SourceKind::Full(value) => {
                if let Some(&t) = constant_blocks.get(&shape) {
                    out.push(t);
                    continue;
                }
                OpKind::Full { value: *value, dtype: node.dtype, shape: shape.clone() }
            }
            SourceKind::Arange { first, second } => {
                OpKind::Arange { first: *first, second: *second, dtype: node.dtype, offset: start[0], len: shape[0] }
            }
            SourceKind::Linspace { start: s, stop, endpoint } => OpKind::Linspace {
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
                start: start.clone(),
                shape: shape.clone(),
            },
        };
        let id = l.push(node, op, vec![], shape.clone(), node.dtype);
        if matches!(kind, SourceKind::Full(_)) {
            constant_blocks.insert(shape, id);
        }
        out.push(id);
    }
    Ok(out)
}
