//! A computation as fragments that leave the process: the plan of some arrays cut into
//! fragments (`tegula_plan::fragments`), each encoded to bytes with its resources by value,
//! to be run anywhere by `tegula_exec::run_fragment`. What a remote executor ships.

use crate::array::{plan_within, Array};
use tegula_core::{Result, Spec};
use tegula_exec::{Fragment, FunctionBytes};
use tegula_plan::fragments::{cut, sub_graph};
use tegula_plan::{NodeRef, TaskId};

/// One fragment as bytes, with the plan's tasks it is given and returns.
#[derive(Debug, Clone)]
pub struct EncodedFragment {
    /// The fragment, encoded (`Fragment::to_bytes`).
    pub bytes: Vec<u8>,
    /// The plan's tasks whose blocks it is given, in order.
    pub inputs: Vec<TaskId>,
    /// The plan's tasks whose blocks it returns, in order.
    pub outputs: Vec<TaskId>,
    /// The plan's tasks it runs, in topological order.
    pub tasks: Vec<TaskId>,
}

/// The fragments computing `arrays` (in an order where each one's inputs come from earlier
/// ones), and the tasks whose blocks make each array (row-major over its block grid).
pub fn plan_fragments(arrays: &[&Array], fuse: bool, spec: &Spec) -> Result<(Vec<EncodedFragment>, Vec<Vec<TaskId>>)> {
    let roots: Vec<NodeRef> = arrays.iter().map(|a| a.node().clone()).collect();
    let graph = plan_within(&roots, fuse, spec.memory)?;
    let functions = FunctionBytes::default();
    let fragments = cut(&graph)
        .into_iter()
        .map(|c| {
            let bytes = Fragment::encode_sharing(sub_graph(&graph, &c)?, None, &functions)?.to_bytes()?;
            Ok(EncodedFragment { bytes, inputs: c.inputs, outputs: c.outputs, tasks: c.tasks })
        })
        .collect::<Result<_>>()?;
    Ok((fragments, graph.outputs.into_iter().map(|o| o.blocks).collect()))
}
