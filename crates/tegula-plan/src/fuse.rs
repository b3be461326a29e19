//! Fusion, decided on the expression graph before lowering: a chain of element-wise
//! operations, the sources feeding it (constants, ranges, random numbers) and a reduction
//! consuming it become one `Program`, compiled once per operation and shared by all its
//! blocks, so planning costs per operation, not per block, and absorbed operations never
//! become tasks. An operation is absorbed into its consumer only when nothing else reads it
//! (it is not an output either) and its blocks are the consumer's blocks, so no work is
//! repeated — except generated sources (ranges, random numbers), which a few consumers each
//! generate again rather than hold between them. A constant (`full`) read by a program is a
//! scalar step, whatever its shape.

use crate::walk::topological;
use crate::node::{Node, NodeKind, NodeRef, SourceKind};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use tegula_core::program::{Instr, Program};

/// The program of a fused operation and the nodes it reads from outside.
#[derive(Debug)]
pub struct Template {
    /// The fused element-wise program.
    pub program: Arc<Program>,
    /// Nodes whose blocks the fused tasks read: `Instr::Input(i)` is `reads[i]`'s block.
    pub reads: Vec<NodeRef>,
    /// Source nodes generated inside the fused tasks: `Instr::Source(i)` is `generated[i]`'s
    /// block (their blocks are the fused operation's blocks).
    pub generated: Vec<NodeRef>,
}

/// The templates of the operations that run fused, by node id: every element-wise operation
/// not absorbed into another, and every reduction whose input is absorbed.
pub fn plan_fusion(roots: &[NodeRef]) -> HashMap<u64, Template> {
    let nodes = topological(roots);
    let absorbed = absorbed(&nodes, roots);
    let mut templates = HashMap::new();
    for node in &nodes {
        if absorbed.contains(&node.id) {
            continue;
        }
        let top = match &node.kind {
            kind if is_elementwise(kind) => node,
            NodeKind::Reduce { .. } if absorbed.contains(&node.inputs[0].id) => &node.inputs[0],
            _ => continue,
        };
        templates.insert(node.id, template(top, &absorbed));
    }
    templates
}

fn is_elementwise(kind: &NodeKind) -> bool {
    matches!(kind, NodeKind::Unary { .. } | NodeKind::Binary { .. } | NodeKind::Where { .. } | NodeKind::Cast)
}

fn is_generated(kind: &NodeKind) -> bool {
    matches!(kind, NodeKind::Source(SourceKind::Arange { .. } | SourceKind::Linspace { .. } | SourceKind::Random { .. }, _))
}

/// The nodes computed inside their consumer's fused tasks: element-wise operations with one
/// consumer, and generated sources with up to `REGENERATED` (each consumer generates them).
fn absorbed(nodes: &[NodeRef], roots: &[NodeRef]) -> HashSet<u64> {
    let mut consumers: HashMap<u64, Vec<&Node>> = HashMap::new();
    for node in nodes {
        let mut seen = HashSet::new();
        for input in node.inputs.iter().filter(|i| seen.insert(i.id)) {
            consumers.entry(input.id).or_default().push(node);
        }
    }
    let outputs: HashSet<u64> = roots.iter().map(|r| r.id).collect();
    nodes
        .iter()
        .filter(|n| !outputs.contains(&n.id) && (is_elementwise(&n.kind) || is_generated(&n.kind)))
        .filter(|n| match consumers.get(&n.id).map(Vec::as_slice) {
            Some([c]) => fuses_into(n, c),
            Some(cs) if is_generated(&n.kind) && cs.len() <= REGENERATED => cs.iter().all(|c| fuses_into(n, c)),
            _ => false,
        })
        .map(|n| n.id)
        .collect()
}

/// The most consumers a generated source is computed again in, rather than stored once:
/// generating a value costs a few instructions, storing and reading it back costs memory
/// traffic and, above all, memory held between its consumers.
const REGENERATED: usize = 4;

/// Whether `consumer`'s fused tasks can compute `node` inside.
fn fuses_into(node: &Node, consumer: &Node) -> bool {
    match &consumer.kind {
        kind if is_elementwise(kind) => consumer.chunks == node.chunks,
        NodeKind::Reduce { axes, .. } => !axes.is_empty(),
        _ => false,
    }
}

/// The program computing `top` from the nodes it reads (iterative, so long chains cannot
/// overflow the stack).
fn template(top: &NodeRef, absorbed: &HashSet<u64>) -> Template {
    let mut program = Program::default();
    let (mut reads, mut generated) = (Vec::new(), Vec::new());
    let mut step_of: HashMap<u64, usize> = HashMap::new();
    let mut stack = vec![(top.clone(), false)];
    while let Some((node, expanded)) = stack.pop() {
        if step_of.contains_key(&node.id) {
            continue;
        }
        let inside = node.id == top.id || absorbed.contains(&node.id);
        if inside && is_elementwise(&node.kind) && !expanded {
            stack.push((node.clone(), true));
            stack.extend(node.inputs.iter().rev().map(|i| (i.clone(), false)));
            continue;
        }
        let arg = |k: usize| step_of[&node.inputs[k].id];
        let instr = match &node.kind {
            NodeKind::Source(SourceKind::Full(value), _) => Instr::Scalar(*value),
            kind if inside && is_generated(kind) => {
                generated.push(node.clone());
                Instr::Source(generated.len() - 1)
            }
            NodeKind::Unary { op, compute } if inside => Instr::Unary { op: *op, compute: *compute, arg: arg(0) },
            NodeKind::Binary { op, compute } if inside => Instr::Binary { op: *op, compute: *compute, args: [arg(0), arg(1)] },
            NodeKind::Where { compute } if inside => Instr::Where { compute: *compute, args: [arg(0), arg(1), arg(2)] },
            NodeKind::Cast if inside => Instr::Cast { arg: arg(0) },
            _ => {
                reads.push(node.clone());
                Instr::Input(reads.len() - 1)
            }
        };
        step_of.insert(node.id, program.push(instr, node.dtype));
    }
    Template { program: Arc::new(program), reads, generated }
}
