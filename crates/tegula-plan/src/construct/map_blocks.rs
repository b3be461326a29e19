//! `map_blocks`: a user's function of the same block of every input. The inputs must have one
//! block grid (the caller broadcasts and rechunks them); the result has that grid with block
//! lengths `chunks` (a function may change a block's size, never the number of blocks).

use crate::node::{Node, NodeKind, NodeRef};
use crate::resource::Resource;
use std::sync::Arc;
use tegula_core::shape::fmt_shape;
use tegula_core::{shape_err, value_err, Chunks, DType, Result};

/// A user's `function` of the same block of every input, with block lengths `chunks` and
/// dtype `dtype`; `name` labels it in plans.
pub fn map_blocks(inputs: &[NodeRef], function: Arc<Resource>, name: &str, chunks: Chunks, dtype: DType) -> Result<NodeRef> {
    let grid = chunks.numblocks();
    if inputs.is_empty() {
        return Err(value_err!("map_blocks needs at least one array"));
    }
    for (i, x) in inputs.iter().enumerate() {
        if x.chunks.numblocks() != grid {
            return Err(shape_err!(
                "map_blocks: input {i} has {} blocks per axis, the result {}; inputs must share one block grid",
                fmt_shape(&x.chunks.numblocks()),
                fmt_shape(&grid)
            ));
        }
    }
    let kind = NodeKind::MapBlocks { function, name: name.to_string() };
    Node::checked(kind, inputs.to_vec(), dtype, chunks)
}
