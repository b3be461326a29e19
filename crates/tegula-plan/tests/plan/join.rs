//! Joining arrays: concatenations emit no tasks (every block is an input's block), new axes are
//! one view task per block, inputs are promoted and their other axes' chunks unified, and bad
//! arguments fail when the expression is built.

use std::sync::Arc;
use tegula_core::{TaskOp, Chunks, DType, IoOp, KernelOp, TegulaError};
use tegula_plan::construct::creation;
use tegula_plan::construct::join::{concatenate, expand_dims, stack};
use tegula_plan::explain::explain;
use tegula_plan::{lower, Fusion, NodeRef, TaskGraph};

fn source(sizes: Vec<Vec<usize>>, dtype: DType) -> NodeRef {
    let shape: Vec<usize> = sizes.iter().map(|s| s.iter().sum()).collect();
    creation::stored(Arc::new(()), dtype, Chunks::new(sizes, &shape).unwrap())
}

fn count(g: &TaskGraph, pred: impl Fn(&TaskOp) -> bool) -> usize {
    g.tasks.iter().filter(|t| pred(&t.op)).count()
}

#[test]
fn concatenation_reuses_the_input_blocks() {
    let a = source(vec![vec![2, 2], vec![3, 3]], DType::Float64);
    let b = source(vec![vec![1, 4, 0], vec![3, 3]], DType::Float64);
    let c = concatenate(&[a.clone(), b, a], Some(0)).unwrap();
    assert_eq!(c.shape(), vec![13, 6]);
    // The empty block of `b` is dropped; every other input block is an output block.
    assert_eq!(c.chunks.sizes(), &[vec![2, 2, 1, 4, 2, 2], vec![3, 3]]);
    for fusion in [Fusion::On, Fusion::Off] {
        let g = lower(std::slice::from_ref(&c), fusion).unwrap();
        assert!(g.tasks.iter().all(|t| matches!(t.op, TaskOp::Io(IoOp::Load { .. }))));
        assert_eq!(g.tasks.len(), 4 + 4);
        assert_eq!(g.outputs[0].blocks.len(), 12);
        // `a` is read twice and loaded once.
        assert_eq!(g.outputs[0].blocks[..4], g.outputs[0].blocks[8..]);
    }
}

#[test]
fn other_axes_are_unified_and_dtypes_promoted() {
    let a = source(vec![vec![4], vec![2, 2, 2]], DType::Int8);
    let b = source(vec![vec![3], vec![3, 3]], DType::Float32);
    let c = concatenate(&[a, b], Some(-2)).unwrap();
    assert_eq!(c.dtype, DType::Float32);
    assert_eq!(c.chunks.sizes(), &[vec![4, 3], vec![2, 1, 1, 2]]);
    let g = lower(&[c], Fusion::Off).unwrap();
    assert_eq!(count(&g, |op| matches!(op, TaskOp::Kernel(KernelOp::Cast { dtype: DType::Float32 }))), 3);
    // Refining only splits blocks: views, no copies.
    assert_eq!(count(&g, |op| matches!(op, TaskOp::Kernel(KernelOp::Assemble { .. }))), 0);
    assert_eq!(count(&g, |op| matches!(op, TaskOp::Kernel(KernelOp::Select { .. }))), 2 + 4);
}

#[test]
fn a_new_axis_is_a_view_of_every_block() {
    let x = source(vec![vec![2, 3], vec![4, 4, 1]], DType::Int32);
    let y = expand_dims(&x, &[-1, 0]).unwrap();
    assert_eq!(y.shape(), vec![1, 5, 9, 1]);
    assert_eq!(y.chunks.sizes(), &[vec![1], vec![2, 3], vec![4, 4, 1], vec![1]]);
    let g = lower(&[y], Fusion::On).unwrap();
    assert_eq!(count(&g, |op| matches!(op, TaskOp::Kernel(KernelOp::ExpandDims { axes }) if axes[..] == [0, 3])), 6);
    assert_eq!(g.tasks.len(), 6 + 6);
    assert!(Arc::ptr_eq(&expand_dims(&x, &[]).unwrap(), &x));
}

#[test]
fn stacking_is_new_axes_then_a_concatenation() {
    let a = source(vec![vec![2, 2]], DType::Bool);
    let b = source(vec![vec![1, 3]], DType::Int16);
    let s = stack(&[a, b], 1).unwrap();
    assert_eq!(s.shape(), vec![4, 2]);
    assert_eq!(s.dtype, DType::Int16);
    let g = lower(std::slice::from_ref(&s), Fusion::Off).unwrap();
    assert_eq!(count(&g, |op| matches!(op, TaskOp::Kernel(KernelOp::ExpandDims { .. }))), 4);
    assert_eq!(count(&g, |op| matches!(op, TaskOp::Kernel(KernelOp::Select { .. }))), 4);
    assert_eq!(count(&g, |op| matches!(op, TaskOp::Kernel(KernelOp::Assemble { .. }))), 0);
    let plan = explain(std::slice::from_ref(&s), &g, usize::MAX, &[]);
    assert!(plan.contains("concatenate(axis=1)") && plan.contains("expand_dims(axis=[1])"), "{plan}");
}

#[test]
fn flattening_takes_any_input() {
    let v = source(vec![vec![2, 1]], DType::Float64);
    let s = source(vec![], DType::Float64);
    let c = concatenate(&[s.clone(), v.clone(), s], None).unwrap();
    assert_eq!(c.chunks.sizes(), &[vec![1, 2, 1, 1]]);
    let m = source(vec![vec![2], vec![2]], DType::Float64);
    assert_eq!(concatenate(&[m, v], None).unwrap().shape(), vec![7]);
}

#[test]
fn bad_joins_fail_when_built() {
    let m = source(vec![vec![2], vec![3]], DType::Float64);
    let n = source(vec![vec![2], vec![4]], DType::Float64);
    let v = source(vec![vec![3]], DType::Float64);
    let s = source(vec![], DType::Float64);
    assert!(matches!(concatenate(&[], Some(0)), Err(TegulaError::Value(_))));
    assert!(matches!(concatenate(&[s.clone(), s.clone()], Some(0)), Err(TegulaError::Value(_))));
    assert!(matches!(concatenate(&[m.clone(), n.clone()], Some(2)), Err(TegulaError::Axis { axis: 2, ndim: 2 })));
    assert!(matches!(concatenate(&[m.clone(), n.clone()], Some(0)), Err(TegulaError::Shape(_))));
    assert!(matches!(concatenate(&[m.clone(), v.clone()], Some(0)), Err(TegulaError::Shape(_))));
    assert!(concatenate(&[m.clone(), n.clone()], Some(-1)).is_ok());
    assert!(matches!(stack(&[], 0), Err(TegulaError::Value(_))));
    assert!(matches!(stack(&[m.clone(), n], 0), Err(TegulaError::Shape(_))));
    assert!(matches!(stack(std::slice::from_ref(&m), -4), Err(TegulaError::Axis { axis: -4, ndim: 3 })));
    assert!(matches!(expand_dims(&v, &[0, -3]), Err(TegulaError::Value(_))));
    assert!(matches!(expand_dims(&v, &[2]), Err(TegulaError::Axis { axis: 2, ndim: 2 })));
}
