//! Cutting plans into fragments for worker processes: enough fragments for every worker to
//! take several, and no large one left to run alone at the end.

use std::sync::Arc;
use tegula_core::{Chunks, DType, IoOp, ReduceOp, TaskOp};
use tegula_plan::construct::creation;
use tegula_plan::construct::reduce::{reduce, ReduceSpec};
use tegula_plan::fragments::{cut, cut_for_workers, work_bytes, FragmentCut, FRAGMENTS_PER_WORKER};
use tegula_plan::{lower, Fusion, TaskGraph};

/// The sum of `blocks` in-memory blocks of 100 float64 values, eight partials per combine.
fn sum_of_small_blocks(blocks: usize) -> TaskGraph {
    let x = creation::stored(Arc::new(()), DType::Float64, Chunks::regular(&[100 * blocks], &[100]));
    let spec = ReduceSpec { split_every: 8, ..ReduceSpec::new(ReduceOp::Sum) };
    lower(&[reduce(&x, &spec).unwrap()], Fusion::On).unwrap()
}

fn work(graph: &TaskGraph, cut: &FragmentCut) -> usize {
    cut.tasks.iter().filter(|&&t| !matches!(graph.tasks[t].op, TaskOp::Io(IoOp::Load { .. }))).map(|&t| work_bytes(graph, t)).sum()
}

/// Every task but the copied loads is in exactly one fragment.
fn assert_a_partition(graph: &TaskGraph, cuts: &[FragmentCut]) {
    let mut owners = vec![0; graph.tasks.len()];
    cuts.iter().flat_map(|c| &c.tasks).for_each(|&t| owners[t] += 1);
    for (t, task) in graph.tasks.iter().enumerate() {
        let load = matches!(task.op, TaskOp::Io(IoOp::Load { .. }));
        assert!(if load { owners[t] >= 1 } else { owners[t] == 1 }, "task {t} is in {} fragments", owners[t]);
    }
}

#[test]
fn each_worker_gets_several_fragments_of_a_reduction_over_small_blocks() {
    for (blocks, workers) in [(20_000, 2), (5_000, 3), (3_000, 8)] {
        let graph = sum_of_small_blocks(blocks);
        let cuts = cut_for_workers(&graph, &graph.consumers(), workers);
        assert_a_partition(&graph, &cuts);
        assert!(cuts.len() >= FRAGMENTS_PER_WORKER * workers, "{blocks} blocks, {workers} workers: {} fragments", cuts.len());
        let total: usize = cuts.iter().map(|c| work(&graph, c)).sum();
        let largest = cuts.iter().map(|c| work(&graph, c)).max().unwrap();
        assert!(largest <= total / (FRAGMENTS_PER_WORKER * workers) + 1, "{largest} of {total} bytes of work in one fragment");
    }
}

#[test]
fn the_fragment_that_ends_a_reduction_takes_in_no_large_subtree() {
    // 16 MB of blocks: what reads the last subtrees waits for all of them, so on worker
    // processes it should not carry work of its own that could have run beside them.
    let graph = sum_of_small_blocks(20_000);
    for workers in [1, 2, 3] {
        let cuts = cut_for_workers(&graph, &graph.consumers(), workers);
        assert_a_partition(&graph, &cuts);
        let output = graph.outputs[0].blocks[0];
        let last = cuts.iter().find(|c| c.tasks.contains(&output)).unwrap();
        let total: usize = cuts.iter().map(|c| work(&graph, c)).sum();
        assert!(work(&graph, last) * 16 < total, "the last fragment holds {} of {total} bytes of work", work(&graph, last));
    }
    // `cut` (plans for clusters, placed afterwards) gathers small inputs as before.
    assert_a_partition(&graph, &cut(&graph));
}
