//! Walks over the expression graph.

use crate::node::{Node, NodeRef};
use std::collections::HashSet;

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
