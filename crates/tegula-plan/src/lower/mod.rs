//! Lowering: expression nodes → chunk tasks. Nodes are visited in topological order and each
//! node's blocks become tasks (or reuse their input's tasks when nothing changes); a node
//! shared by several outputs is lowered once; tasks no output needs are culled.

mod cull;
pub(crate) use cull::cull;
mod elementwise;
mod layout;
mod matmul;
mod reduce;
mod source;

use crate::graph::{Output, Task, TaskGraph, TaskId};
use crate::node::{Node, NodeKind, NodeRef};
use std::collections::{HashMap, HashSet};
use tegula_core::{DType, OpKind, Result};

/// Builds the task graph that computes every node of `roots`.
pub fn lower(roots: &[NodeRef]) -> Result<TaskGraph> {
    let mut l = Lowering::default();
    for node in topological(roots) {
        let inputs: Vec<Vec<TaskId>> = node.inputs.iter().map(|i| l.memo[&i.id].clone()).collect();
        let blocks = l.lower_node(&node, &inputs)?;
        l.memo.insert(node.id, blocks);
    }
    let outputs = roots
        .iter()
        .map(|n| Output { node: n.id, dtype: n.dtype, chunks: n.chunks.clone(), blocks: l.memo[&n.id].clone() })
        .collect();
    l.graph.outputs = outputs;
    Ok(cull::cull(l.graph))
}

/// Every node reachable from `roots`, inputs before the nodes that use them (iterative, so
/// long expression chains cannot overflow the stack).
pub fn topological(roots: &[NodeRef]) -> Vec<NodeRef> {
    let mut seen = HashSet::new();
    let mut order = Vec::new();
    let mut stack: Vec<(NodeRef, bool)> = roots.iter().rev().map(|r| (r.clone(), false)).collect();
    while let Some((node, expanded)) = stack.pop() {
        if expanded {
            order.push(node);
            continue;
        }
        if !seen.insert(node.id) {
            continue;
        }
        stack.push((node.clone(), true));
        for input in node.inputs.iter().rev() {
            if !seen.contains(&input.id) {
                stack.push((input.clone(), false));
            }
        }
    }
    order
}

#[derive(Default)]
pub(crate) struct Lowering {
    graph: TaskGraph,
    memo: HashMap<u64, Vec<TaskId>>,
    stored: HashSet<u64>,
}

impl Lowering {
    pub(crate) fn push(&mut self, node: &Node, op: OpKind, inputs: Vec<TaskId>, shape: Vec<usize>, dtype: DType) -> TaskId {
        self.graph.tasks.push(Task { op, inputs, shape, dtype, node: node.id });
        self.graph.tasks.len() - 1
    }

    pub(crate) fn task(&self, id: TaskId) -> &Task {
        &self.graph.tasks[id]
    }

    fn lower_node(&mut self, node: &Node, inputs: &[Vec<TaskId>]) -> Result<Vec<TaskId>> {
        match &node.kind {
            NodeKind::Source(kind) => source::lower(self, node, kind),
            NodeKind::Unary { op, compute } => {
                elementwise::lower(self, node, inputs, OpKind::Unary { op: *op, compute: *compute })
            }
            NodeKind::Binary { op, compute } => {
                elementwise::lower(self, node, inputs, OpKind::Binary { op: *op, compute: *compute })
            }
            NodeKind::Where { compute } => elementwise::lower(self, node, inputs, OpKind::Where { compute: *compute }),
            NodeKind::Cast => elementwise::lower(self, node, inputs, OpKind::Cast { dtype: node.dtype }),
            NodeKind::Reduce { .. } => reduce::lower(self, node, &inputs[0]),
            NodeKind::Matmul { split_every } => matmul::lower(self, node, inputs, *split_every),
            NodeKind::Transpose { perm } => Ok(layout::transpose(self, node, &inputs[0], perm)),
            NodeKind::Index { axes } => Ok(layout::index(self, node, &inputs[0], axes)),
            NodeKind::Rechunk => Ok(layout::rechunk(self, node, &inputs[0])),
        }
    }

    pub(crate) fn register_stored(&mut self, stored: &std::sync::Arc<crate::node::StoredArray>) {
        if self.stored.insert(stored.id) {
            self.graph.sources.push(stored.clone());
        }
    }
}
