//! Plans of the ordering operations: cumulative sums are chunked along their axis (no task
//! holds more than one input block of it), searchsorted is a contraction over the sorted
//! array's blocks, and sorting makes the sorted axis (only) one block.

use std::sync::Arc;
use tegula_core::{TaskOp, Chunks, DType, IoOp, KernelOp, ScanOp};
use tegula_plan::construct::creation;
use tegula_plan::construct::scan::{cumulative, ScanSpec};
use tegula_plan::construct::sort::{searchsorted, sort};
use tegula_plan::{lower, Fusion, NodeRef, TaskGraph};

fn source(shape: &[usize], block: &[usize]) -> NodeRef {
    creation::stored(Arc::new(()), DType::Float64, Chunks::regular(shape, block))
}

fn positions(n: usize, block: usize) -> NodeRef {
    creation::stored(Arc::new(()), DType::Int64, Chunks::regular(&[n], &[block]))
}

fn count(g: &TaskGraph, pred: impl Fn(&TaskOp) -> bool) -> usize {
    g.tasks.iter().filter(|t| pred(&t.op)).count()
}

/// For every task, the input blocks (`Load` tasks) its result depends on.
fn blocks_read(g: &TaskGraph) -> Vec<Vec<usize>> {
    let mut read: Vec<Vec<usize>> = Vec::with_capacity(g.tasks.len());
    for (id, t) in g.tasks.iter().enumerate() {
        let mut r: Vec<usize> = if matches!(t.op, TaskOp::Io(IoOp::Load { .. })) { vec![id] } else { vec![] };
        t.inputs.iter().for_each(|&i| r.extend(&read[i]));
        r.sort_unstable();
        r.dedup();
        read.push(r);
    }
    read
}

#[test]
fn cumulative_sum_holds_one_block_of_the_axis_per_task() {
    let k = 6;
    let x = source(&[4, 60], &[2, 10]); // 2 x 6 blocks, the scanned axis split into k = 6
    for include_initial in [false, true] {
        let spec = ScanSpec { op: ScanOp::Sum, axis: Some(-1), dtype: None, include_initial };
        let g = lower(&[cumulative(&x, &spec).unwrap()], Fusion::Off).unwrap();
        assert!(g.tasks.iter().all(|t| t.size <= 2 * 10), "a task gathers the axis");
        assert_eq!(count(&g, |op| matches!(op, TaskOp::Kernel(KernelOp::Assemble { .. }))), 0);
        assert_eq!(count(&g, |op| matches!(op, TaskOp::Kernel(KernelOp::Scan { .. }))), 2 * k);
        // Running totals: a chain of k - 2 combines per row of blocks (block 1 adds block 0's).
        assert_eq!(count(&g, |op| matches!(op, TaskOp::Kernel(KernelOp::ReduceCombine { .. }))), 2 * (k - 2));
        // Only a block's own scan reads its data: the prefixes are sums of one-row totals.
        let read = blocks_read(&g);
        for (t, r) in g.tasks.iter().zip(&read) {
            if matches!(t.op, TaskOp::Kernel(KernelOp::Scan { .. }) | TaskOp::Io(IoOp::Load { .. })) {
                assert_eq!(r.len(), 1, "{} reads {} input blocks", t.op.label(), r.len());
            }
        }
        let direct = |t: &tegula_plan::graph::Task| t.inputs.iter().filter(|&&i| matches!(g.tasks[i].op, TaskOp::Io(IoOp::Load { .. }))).count();
        assert!(g.tasks.iter().all(|t| direct(t) <= 1));
    }
}

#[test]
fn cumulative_of_one_block_along_the_axis_is_one_scan_per_block() {
    let x = source(&[6, 5], &[2, 5]);
    let spec = ScanSpec { op: ScanOp::Prod, axis: Some(1), dtype: None, include_initial: false };
    let g = lower(&[cumulative(&x, &spec).unwrap()], Fusion::Off).unwrap();
    assert_eq!(count(&g, |op| matches!(op, TaskOp::Kernel(KernelOp::Scan { .. }))), 3);
    assert_eq!(count(&g, |op| matches!(op, TaskOp::Kernel(KernelOp::Binary { .. }) | TaskOp::Kernel(KernelOp::ReduceCombine { .. }))), 0);
}

#[test]
fn searchsorted_is_a_contraction_over_the_sorted_blocks() {
    let sorted = source(&[40], &[10]); // 4 blocks
    let v = source(&[6, 6], &[3, 3]); // 4 blocks
    let g = lower(&[searchsorted(&sorted, &v, false, None).unwrap()], Fusion::Off).unwrap();
    assert_eq!(count(&g, |op| matches!(op, TaskOp::Kernel(KernelOp::SearchCount { .. }))), 16);
    assert!(g.tasks.iter().all(|t| t.size <= 10));
    assert_eq!(count(&g, |op| matches!(op, TaskOp::Kernel(KernelOp::Sort { .. }))), 0);
    // With a sorter, each block of the sorted array is sorted on its own, once.
    let g = lower(&[searchsorted(&sorted, &v, true, Some(&positions(40, 10))).unwrap()], Fusion::Off).unwrap();
    assert_eq!(count(&g, |op| matches!(op, TaskOp::Kernel(KernelOp::Sort { .. }))), 4);
}

#[test]
fn sort_makes_only_the_sorted_axis_one_block() {
    let x = source(&[6, 8], &[2, 3]);
    let s = sort(&x, 0, false, false).unwrap();
    assert_eq!(s.chunks.axis(0), &[6]);
    assert_eq!(s.chunks.axis(1), &[3, 3, 2]);
    let a = sort(&x, -1, true, true).unwrap();
    assert_eq!((a.dtype, a.chunks.axis(0), a.chunks.axis(1)), (DType::Int64, &[2, 2, 2][..], &[8][..]));
}

#[test]
fn ordering_errors_are_numpys() {
    let x = source(&[3, 4], &[2, 2]);
    let spec = ScanSpec { op: ScanOp::Sum, axis: None, dtype: None, include_initial: false };
    assert!(matches!(cumulative(&x, &spec), Err(tegula_core::TegulaError::Value(_))));
    let spec = ScanSpec { axis: Some(2), ..spec };
    assert!(matches!(cumulative(&x, &spec), Err(tegula_core::TegulaError::Axis { axis: 2, ndim: 2 })));
    assert!(matches!(sort(&x, -3, false, false), Err(tegula_core::TegulaError::Axis { .. })));
    assert!(matches!(searchsorted(&x, &x, false, None), Err(tegula_core::TegulaError::Value(_))));
    let sorted = source(&[4], &[2]);
    assert!(matches!(searchsorted(&sorted, &x, false, Some(&sorted)), Err(tegula_core::TegulaError::DType(_))));
    assert!(matches!(searchsorted(&sorted, &x, false, Some(&positions(5, 2))), Err(tegula_core::TegulaError::Value(_))));
}
