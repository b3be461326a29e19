//! `Array::map_blocks`: a user's function applied block by block.

use crate::Array;
use std::sync::Arc;
use tegula_core::{Chunks, DType, Result};
use tegula_exec::BlockFunction;
use tegula_plan::construct::map_blocks::map_blocks;
use tegula_plan::{next_id, NodeRef, ResourceKind, Resource};

impl Array {
    /// `function` of block `b` of every input gives block `b` of the result, which has the
    /// inputs' block grid with block lengths `chunks` and dtype `dtype`. The inputs must share
    /// one block grid; `name` labels the operation in plans and reports.
    pub fn map_blocks(
        inputs: &[&Array],
        function: Arc<dyn BlockFunction>,
        name: &str,
        chunks: Chunks,
        dtype: DType,
    ) -> Result<Array> {
        let stored = Arc::new(Resource::new(next_id(), ResourceKind::Function, Arc::new(function)));
        let nodes: Vec<NodeRef> = inputs.iter().map(|a| a.node.clone()).collect();
        Ok(Array::from_node(map_blocks(&nodes, stored, name, chunks, dtype)?))
    }
}
