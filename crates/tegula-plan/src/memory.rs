//! Projected memory: what each task holds while it runs, whether a plan can run within a
//! budget at all, and the peak of running it one task at a time in static order. Executors
//! account live chunks with the same `resident_bytes`, so what they measure is comparable.

use crate::graph::{Task, TaskGraph, TaskId};
use tegula_core::{TaskOp, IoOp, KernelOp, Result, TegulaError};

/// Working memory a kernel may take beside its inputs and its result: per-thread registers,
/// tiles and reduction bands, all far below this.
pub const KERNEL_SCRATCH: usize = 1 << 20;

/// Bytes task `id`'s result keeps alive. A load of an array the caller holds is a view of the
/// caller's memory and costs nothing new (as is a block given to a fragment, and a transpose
/// or new axes of either, views of the same memory: a persisted block read transposed is not
/// counted twice); every other result counts in full (a view of a computed chunk is counted
/// again: an over-estimate, never an under-estimate).
pub fn resident_bytes(graph: &TaskGraph, mut id: TaskId) -> usize {
    let own = graph.tasks[id].nbytes();
    loop {
        let task = &graph.tasks[id];
        match (&task.op, task.inputs.as_slice()) {
            (TaskOp::Io(IoOp::Load { .. } | IoOp::Input { .. }), _) => return 0,
            (TaskOp::Kernel(KernelOp::Transpose { .. } | KernelOp::ExpandDims { .. }), &[input]) => id = input,
            _ => return own,
        }
    }
}

/// Bytes a task adds while it runs, its inputs being already held: its result and scratch
/// (nothing for a view: a load, a transpose, new axes).
pub fn added_bytes(task: &Task) -> usize {
    match task.op {
        TaskOp::Io(IoOp::Load { .. } | IoOp::Input { .. }) => 0,
        TaskOp::Kernel(KernelOp::Transpose { .. } | KernelOp::ExpandDims { .. }) => 0,
        _ => task.nbytes() + KERNEL_SCRATCH + block_scratch(task),
    }
}

/// Working memory of kernels that allocate in proportion to their block, beside their result:
/// the radix sort's buffer (as long as what it sorts); an argsort's (key, position) pairs and
/// their buffer (32 bytes an element); a merge of argsort runs, which also holds the runs'
/// values; a bucket partition's bucket of each element (4 bytes); a sample of a block's
/// sorted order, an argsort of the whole block (its input is `every` times its result, give
/// or take one sample); a selection's copy of the lanes it works on (one lane, or lanes of
/// 1 MiB at most together); a factorisation with several results holds them all before packing
/// them.
fn block_scratch(task: &Task) -> usize {
    match task.op {
        TaskOp::Kernel(KernelOp::SamplePositions { every, .. }) => {
            every.saturating_mul(task.size + 1).saturating_mul(SAMPLED_ARGSORT_BYTES)
        }
        TaskOp::Kernel(KernelOp::Sort { .. } | KernelOp::MergeRuns { arg: false, .. }) => task.nbytes(),
        TaskOp::Kernel(KernelOp::ArgSort { .. }) => 4 * task.nbytes(),
        TaskOp::Kernel(KernelOp::MergeRuns { arg: true, .. }) => 5 * task.nbytes(),
        TaskOp::Kernel(KernelOp::BucketPartition { .. }) => 4 * task.size,
        TaskOp::Kernel(KernelOp::Factorise { .. }) => task.nbytes(),
        TaskOp::Kernel(KernelOp::SortedTake { n, .. }) => n.saturating_mul(task.dtype.itemsize()),
        _ => 0,
    }
}

/// Bytes an element of the block a `SamplePositions` task samples takes while it runs: a copy
/// of its value (16 bytes at most), its position (8) and the argsort's (key, position) pairs
/// and their buffer (32).
const SAMPLED_ARGSORT_BYTES: usize = 56;

/// Bytes task `id` needs while it runs: its inputs (each once), its result and scratch.
pub fn projected_bytes(graph: &TaskGraph, id: TaskId) -> usize {
    let task = &graph.tasks[id];
    let mut inputs = task.inputs.clone();
    inputs.sort_unstable();
    inputs.dedup();
    inputs.iter().map(|&i| resident_bytes(graph, i)).sum::<usize>() + added_bytes(task)
}

/// Refuses a plan one of whose tasks cannot run within `budget` bytes, naming the largest
/// such task's operation, before anything runs.
pub fn check_fits(graph: &TaskGraph, budget: usize) -> Result<()> {
    let worst = (0..graph.tasks.len()).map(|id| (projected_bytes(graph, id), id)).max();
    match worst {
        Some((need, id)) if need > budget => {
            let task = &graph.tasks[id];
            Err(TegulaError::Memory(format!(
                "one task of operation `{}` needs {} (its inputs and its {} result) but the memory budget is {}; \
                 use smaller chunks (e.g. rechunk its inputs) or raise the budget (tg.config.set(memory=...) or \
                 TEGULA_MEMORY)",
                task.op.label(),
                human_bytes(need),
                human_bytes(task.nbytes()),
                human_bytes(budget)
            )))
        }
        _ => Ok(()),
    }
}

/// Refuses a plan whose results (the arrays returned to the caller, which hold all their
/// blocks at once) are larger than `budget`, before anything runs. Writes to stores return
/// nothing, so they always pass.
pub fn check_results_fit(graph: &TaskGraph, budget: usize) -> Result<()> {
    // Every block counts, even one task shared by several (equal constant blocks): each is
    // copied into its place in the result.
    let blocks = graph.outputs.iter().flat_map(|o| o.blocks.iter());
    let bytes = blocks.fold(0usize, |sum, &b| sum.saturating_add(graph.tasks[b].nbytes()));
    if bytes <= budget {
        return Ok(());
    }
    Err(TegulaError::Memory(format!(
        "the result needs {} but the memory budget is {}; compute a reduction or a selection of it, write it to \
         a store (to_zarr), or raise the budget (tg.config.set(memory=...) or TEGULA_MEMORY)",
        human_bytes(bytes),
        human_bytes(budget)
    )))
}

/// The most bytes held at once when the tasks run one at a time in the order `rank`, each
/// result freed after its last consumer (outputs are kept to the end).
pub fn projected_peak(graph: &TaskGraph, rank: &[usize]) -> usize {
    held_while_running(graph, rank).into_iter().max().unwrap_or(0)
}

/// For every task, the bytes held while it runs when the tasks run one at a time in the order
/// `rank`: the results still needed, its own result and scratch.
pub fn held_while_running(graph: &TaskGraph, rank: &[usize]) -> Vec<usize> {
    let mut order: Vec<TaskId> = (0..graph.tasks.len()).collect();
    order.sort_unstable_by_key(|&t| rank[t]);
    let mut left = graph.uses();
    let mut live = 0usize;
    let mut held = vec![0; graph.tasks.len()];
    for id in order {
        let task = &graph.tasks[id];
        held[id] = live + added_bytes(task);
        live += resident_bytes(graph, id);
        for &i in &task.inputs {
            left[i] -= 1;
            if left[i] == 0 {
                live -= resident_bytes(graph, i);
            }
        }
    }
    held
}

/// A byte count for people: `512 B`, `1.5 MiB`.
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

#[cfg(test)]
mod tests {
    use super::*;
    use tegula_core::{DType, DeviceId};

    fn task(op: KernelOp, size: usize) -> Task {
        Task { op: TaskOp::Kernel(op), inputs: vec![], size, dtype: DType::Int64, node: 0, device: DeviceId::default() }
    }

    #[test]
    fn a_sample_of_a_sorted_block_projects_the_argsort_of_the_whole_block() {
        // 10 samples, one every 1000 elements: the block sorted is about 10,000 elements.
        let sample = task(KernelOp::SamplePositions { descending: false, every: 1000, start: 0 }, 10);
        assert!(added_bytes(&sample) >= 10_000 * SAMPLED_ARGSORT_BYTES);
        let counts = task(KernelOp::BucketCounts { descending: false, start: 0 }, 10);
        assert_eq!(added_bytes(&counts), 80 + KERNEL_SCRATCH);
    }
}
