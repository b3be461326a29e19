//! A readable, stable description of a plan: one line per operation with its shape, dtype,
//! chunking and number of tasks, and for those with tasks the bytes they read and write and the
//! projected memory held while one of them runs; operations computed inside another's fused tasks show
//! `tasks=0`, and the fusing operation names the chain (`fused[add,multiply,sum]`). A
//! concatenation shows `tasks=0` too: its blocks are its inputs' blocks. Then the plan's size
//! and projected peak memory.

use crate::describe::describe;
use crate::memory::human_bytes;
use crate::graph::TaskGraph;
use crate::node::NodeRef;
use std::fmt::Write;
use tegula_core::shape::fmt_shape;

/// The plan `graph` of `roots` as text, one line per operation, then its size, projected peak
/// and the memory `budget`. `made_on_host` says, per task (or is empty), which tasks placed on
/// a device run on the host instead, their blocks copied there and back.
pub fn explain(roots: &[NodeRef], graph: &TaskGraph, budget: usize, made_on_host: &[bool]) -> String {
    let plan = describe(roots, graph);
    let mut on_host = vec![0; plan.operations.len()];
    for (task, _) in made_on_host.iter().enumerate().filter(|(_, &m)| m) {
        on_host[plan.task_operation[task]] += 1;
    }
    let mut out = String::new();
    for (i, op) in plan.operations.iter().enumerate() {
        let inputs: Vec<String> = op.inputs.iter().map(|x| format!("%{x}")).collect();
        let _ = write!(
            out,
            "%{i} = {}({})  shape={} dtype={} chunks={} blocks={} tasks={}",
            op.label,
            inputs.join(", "),
            fmt_shape(&op.shape),
            op.dtype,
            fmt_shape(&op.chunk_shape),
            op.blocks,
            op.tasks,
        );
        if op.tasks > 0 {
            let _ = write!(
                out,
                "  read={} written={} peak={}",
                human_bytes(op.bytes_read),
                human_bytes(op.bytes_written),
                human_bytes(op.peak)
            );
        }
        let _ = write!(out, "{}", op.fused.as_ref().map(|l| format!("  {l}")).unwrap_or_default());
        if on_host[i] > 0 {
            let _ = write!(out, "  on the host, copied there and back: {} of {} tasks", on_host[i], op.tasks);
        }
        let _ = writeln!(out);
    }
    let _ = writeln!(
        out,
        "{} tasks in total; the largest block a task produces is {}",
        graph.tasks.len(),
        human_bytes(plan.largest_block)
    );
    let _ = writeln!(
        out,
        "projected peak memory {} (one task at a time, in static order); memory budget {}",
        human_bytes(plan.projected_peak),
        human_bytes(budget)
    );
    out
}
