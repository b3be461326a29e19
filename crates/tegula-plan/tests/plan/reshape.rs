//! Reshape plans: every reshape task reads one block of the same size, an input already cut
//! into row-major runs is not rechunked, and blocks never grow past the input's chunk size.

use std::sync::Arc;
use tegula_core::{TaskOp, Chunks, DType, KernelOp};
use tegula_plan::construct::creation;
use tegula_plan::construct::reshape::reshape;
use tegula_plan::{lower, Fusion, NodeKind, NodeRef, TaskGraph};

fn source(sizes: Vec<Vec<usize>>) -> NodeRef {
    let shape: Vec<usize> = sizes.iter().map(|s| s.iter().sum()).collect();
    creation::stored(Arc::new(()), DType::Float64, Chunks::new(sizes, &shape).unwrap())
}

/// Checks that each reshape task takes one input of its own size and returns the graph.
fn planned(y: &NodeRef) -> TaskGraph {
    let g = lower(std::slice::from_ref(y), Fusion::On).unwrap();
    for t in g.tasks.iter().filter(|t| matches!(t.op, TaskOp::Kernel(KernelOp::Reshape { .. }))) {
        assert_eq!(t.inputs.len(), 1);
        assert_eq!(g.tasks[t.inputs[0]].size, t.size);
    }
    g
}

fn count(g: &TaskGraph, pred: impl Fn(&TaskOp) -> bool) -> usize {
    g.tasks.iter().filter(|t| pred(&t.op)).count()
}

#[test]
fn row_major_runs_are_reshaped_in_place() {
    let x = source(vec![vec![2, 2, 2], vec![4]]);
    let y = reshape(&x, &[-1]).unwrap();
    assert_eq!(y.chunks.sizes(), &[vec![8, 8, 8]]);
    assert!(Arc::ptr_eq(&y.inputs[0], &x));
    let g = planned(&y);
    assert_eq!(count(&g, |op| matches!(op, TaskOp::Kernel(KernelOp::Reshape { .. }))), 3);
    assert_eq!(count(&g, |op| matches!(op, TaskOp::Kernel(KernelOp::Assemble { .. }) | TaskOp::Kernel(KernelOp::Select { .. }))), 0);
    // And back: a split takes the same runs.
    let z = reshape(&y, &[3, 2, 4]).unwrap();
    assert_eq!(z.chunks.sizes(), &[vec![1, 1, 1], vec![2], vec![4]]);
    assert!(Arc::ptr_eq(&z.inputs[0], &y));
}

#[test]
fn a_merge_makes_trailing_axes_whole_within_the_block_size() {
    let x = source(vec![vec![3, 3], vec![2, 2]]);
    let y = reshape(&x, &[24]).unwrap();
    // Blocks of 3 x 2 become rows of 4 (the largest run of at most 6 elements).
    assert_eq!(y.inputs[0].chunks.sizes(), &[vec![1; 6], vec![4]]);
    assert_eq!(y.chunks.sizes(), &[vec![4; 6]]);
    planned(&y);
}

#[test]
fn many_to_many_without_common_runs_goes_through_one_axis() {
    let x = source(vec![vec![1, 1], vec![3]]);
    let y = reshape(&x, &[3, 2]).unwrap();
    assert_eq!(y.chunks.sizes(), &[vec![1, 1, 1], vec![2]]);
    let rechunked = &y.inputs[0];
    assert!(matches!(rechunked.kind, NodeKind::Rechunk { .. }));
    assert_eq!(rechunked.chunks.sizes(), &[vec![2, 2, 2]]);
    assert!(matches!(rechunked.inputs[0].kind, NodeKind::Reshape));
    assert_eq!(rechunked.inputs[0].chunks.sizes(), &[vec![3, 3]]);
    planned(&y);
}

#[test]
fn same_shape_zero_d_and_empty() {
    let x = source(vec![vec![2, 1], vec![3]]);
    assert!(Arc::ptr_eq(&reshape(&x, &[3, -1]).unwrap(), &x));
    let scalar = source(vec![]);
    let y = reshape(&scalar, &[1, -1, 1]).unwrap();
    assert_eq!(y.chunks.sizes(), &[vec![1], vec![1], vec![1]]);
    assert_eq!(reshape(&y, &[]).unwrap().shape(), Vec::<usize>::new());
    let empty = source(vec![vec![0], vec![2, 2]]);
    let y = reshape(&empty, &[2, 0, 2]).unwrap();
    assert_eq!(y.chunks.sizes(), &[vec![2], vec![0], vec![2]]);
    assert_eq!(planned(&y).outputs[0].blocks.len(), 1);
}
