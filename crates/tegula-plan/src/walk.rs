//! Walks over the expression graph.

use crate::node::{Node, NodeRef};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// Every node reachable from `roots`, inputs before the nodes that use them (iterative, so
/// long expression chains cannot overflow the stack).
pub fn topological(roots: &[NodeRef]) -> Vec<NodeRef> {
    topological_by(roots, |n| n.inputs.clone())
}

/// Like `topological`, with `deps` naming the nodes each node needs.
pub(crate) fn topological_by(roots: &[NodeRef], deps: impl Fn(&Node) -> Vec<NodeRef>) -> Vec<NodeRef> {
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
        for input in deps(&node).iter().rev() {
            if !seen.contains(&input.id) {
                stack.push((input.clone(), false));
            }
        }
    }
    order
}

/// The expressions `roots` with nodes replaced where `replace` says, given each node and its
/// inputs as already rewritten: `Some` is the node's replacement (keeping its id, so lowering
/// and `explain` still name it), `None` keeps it, rebuilt over the new inputs where they
/// changed. Nodes not above a replacement are the same nodes.
pub fn rewrite(roots: &[NodeRef], mut replace: impl FnMut(&Node, &[NodeRef]) -> Option<Node>) -> Vec<NodeRef> {
    let mut rebuilt: HashMap<u64, NodeRef> = HashMap::new();
    for node in topological(roots) {
        let inputs: Vec<NodeRef> = node.inputs.iter().map(|i| rebuilt.get(&i.id).unwrap_or(i).clone()).collect();
        if let Some(new) = replace(&node, &inputs) {
            rebuilt.insert(node.id, Arc::new(new));
        } else if inputs.iter().zip(&node.inputs).any(|(a, b)| !Arc::ptr_eq(a, b)) {
            let same = Node { id: node.id, kind: node.kind.clone(), inputs, dtype: node.dtype, chunks: node.chunks.clone(), device: node.device };
            rebuilt.insert(node.id, Arc::new(same));
        }
    }
    roots.iter().map(|r| rebuilt.get(&r.id).unwrap_or(r).clone()).collect()
}
