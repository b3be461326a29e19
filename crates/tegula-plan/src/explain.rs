//! A readable, stable description of a plan: one line per operation with its shape, dtype,
//! chunking and number of tasks; operations computed inside another's fused tasks show
//! `tasks=0`, and the fusing operation names the chain (`fused[add,multiply,sum]`). A
//! concatenation shows `tasks=0` too: its blocks are its inputs' blocks. Then the plan's size
//! and projected peak memory.

use crate::graph::TaskGraph;
use crate::lower::topological;
use crate::memory::projected_peak;
use crate::order::static_order;
use crate::node::NodeRef;
use std::collections::HashMap;
use std::fmt::Write;
use tegula_core::shape::fmt_shape;
use tegula_core::OpKind;

pub fn explain(roots: &[NodeRef], graph: &TaskGraph, budget: usize) -> String {
    let mut tasks_of: HashMap<u64, usize> = HashMap::new();
    let mut fused_of: HashMap<u64, String> = HashMap::new();
    for t in &graph.tasks {
        *tasks_of.entry(t.node).or_default() += 1;
        if matches!(t.op, OpKind::Fused { .. } | OpKind::FusedReduce { .. }) {
            fused_of.entry(t.node).or_insert_with(|| t.op.label());
        }
    }
    let nodes = topological(roots);
    let number: HashMap<u64, usize> = nodes.iter().enumerate().map(|(i, n)| (n.id, i)).collect();
    let mut out = String::new();
    for (i, n) in nodes.iter().enumerate() {
        let inputs: Vec<String> = n.inputs.iter().map(|x| format!("%{}", number[&x.id])).collect();
        let _ = writeln!(
            out,
            "%{i} = {}({})  shape={} dtype={} chunks={} blocks={} tasks={}{}",
            n.label(),
            inputs.join(", "),
            fmt_shape(&n.shape()),
            n.dtype,
            fmt_shape(&n.chunks.max_block_shape()),
            n.chunks.nblocks(),
            tasks_of.get(&n.id).copied().unwrap_or(0),
            fused_of.get(&n.id).map(|l| format!("  {l}")).unwrap_or_default()
        );
    }
    let largest = graph.tasks.iter().map(|t| t.nbytes()).max().unwrap_or(0);
    let _ = writeln!(
        out,
        "{} tasks in total; the largest block a task produces is {}",
        graph.tasks.len(),
        human_bytes(largest)
    );
    let _ = writeln!(
        out,
        "projected peak memory {} (one task at a time, in static order); memory budget {}",
        human_bytes(projected_peak(graph, &static_order(graph, &graph.consumers()))),
        human_bytes(budget)
    );
    out
}

pub fn human_bytes(n: usize) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < units.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{n} B")
    } else {
        format!("{v:.1} {}", units[u])
    }
}
