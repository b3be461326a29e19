//! Fusion through the plan: element-wise chains and the reductions they feed become one task
//! per input block plus the reduction tree.

use std::sync::Arc;
use tegula_core::program::Instr;
use tegula_core::{TaskOp, BinaryOp, Chunks, DType, Distribution, IoOp, KernelOp, ReduceOp, Scalar, SourceOp, UnaryOp};
use tegula_plan::construct::creation;
use tegula_plan::construct::elementwise::{binary, binary_scalar, unary};
use tegula_plan::construct::reduce::{reduce, ReduceSpec};
use tegula_plan::{lower, Fusion, NodeRef, TaskGraph};

fn stored(n: usize, block: usize) -> NodeRef {
    creation::stored(Arc::new(()), DType::Float64, Chunks::regular(&[n], &[block]))
}

fn count(g: &TaskGraph, pred: impl Fn(&TaskOp) -> bool) -> usize {
    g.tasks.iter().filter(|t| pred(&t.op)).count()
}

#[test]
fn elementwise_chain_into_a_sum_is_one_task_per_block_plus_the_tree() {
    let x = stored(100, 10); // 10 blocks
    let y = binary_scalar(BinaryOp::Add, &x, Scalar::Int(1), false).unwrap();
    let y = binary_scalar(BinaryOp::Multiply, &y, Scalar::Int(2), false).unwrap();
    let spec = ReduceSpec { split_every: 4, ..ReduceSpec::new(ReduceOp::Sum) };
    let g = lower(&[reduce(&y, &spec).unwrap()], Fusion::On).unwrap();
    // Loads are views that the fused tasks read; no element-wise task remains.
    assert_eq!(count(&g, |op| matches!(op, TaskOp::Io(IoOp::Load { .. }))), 10);
    assert_eq!(count(&g, |op| matches!(op, TaskOp::Kernel(KernelOp::FusedReduce { .. }))), 10);
    assert_eq!(count(&g, |op| matches!(op, TaskOp::Kernel(KernelOp::Binary { .. }) | TaskOp::Source(SourceOp::Full { .. }) | TaskOp::Kernel(KernelOp::Fused { .. }))), 0);
    // 10 partials -> 3 combines (4 + 4 + 2) -> 1 combine -> finish.
    assert_eq!(count(&g, |op| matches!(op, TaskOp::Kernel(KernelOp::ReduceCombine { .. }))), 3 + 1);
    assert_eq!(g.tasks.len(), 10 + 10 + 4 + 1);
    let TaskOp::Kernel(KernelOp::FusedReduce { block, .. }) = &g.tasks.iter().find(|t| matches!(t.op, TaskOp::Kernel(KernelOp::FusedReduce { .. }))).unwrap().op else {
        unreachable!()
    };
    assert_eq!(block.label(), "add,multiply");
}

#[test]
fn random_sources_are_generated_inside_the_fused_task() {
    let chunks = Chunks::regular(&[1000], &[100]);
    let uniform = Distribution::Uniform { low: 0.0, high: 1.0 };
    let x = creation::random(1, uniform, DType::Float64, chunks.clone()).unwrap();
    let y = creation::random(2, uniform, DType::Float64, chunks).unwrap();
    let r2 = binary(BinaryOp::Add, &binary(BinaryOp::Multiply, &x, &x).unwrap(), &binary(BinaryOp::Multiply, &y, &y).unwrap()).unwrap();
    let inside = binary_scalar(BinaryOp::Less, &r2, Scalar::Float(1.0), false).unwrap();
    let g = lower(&[reduce(&inside, &ReduceSpec::new(ReduceOp::Sum)).unwrap()], Fusion::On).unwrap();
    assert_eq!(count(&g, |op| matches!(op, TaskOp::Source(SourceOp::Random { .. }))), 0, "points are never materialised");
    for t in g.tasks.iter().filter(|t| matches!(t.op, TaskOp::Kernel(KernelOp::FusedReduce { .. }))) {
        assert!(t.inputs.is_empty());
        let TaskOp::Kernel(KernelOp::FusedReduce { block, .. }) = &t.op else { unreachable!() };
        // x and y are generated once each even though each is read twice.
        assert_eq!(block.program.steps.iter().filter(|s| matches!(s.instr, Instr::Source(_))).count(), 2);
        assert_eq!(block.sources.len(), 2);
    }
}

#[test]
fn shared_and_output_results_are_not_absorbed() {
    let x = stored(40, 10);
    let y = unary(UnaryOp::Exp, &x).unwrap();
    let a = binary_scalar(BinaryOp::Add, &y, Scalar::Int(1), false).unwrap();
    let b = binary_scalar(BinaryOp::Multiply, &y, Scalar::Int(2), false).unwrap();
    let g = lower(&[a, b, y.clone()], Fusion::On).unwrap();
    // y is read by two consumers and is itself an output: it stays one task per block.
    let exp_tasks = g
        .tasks
        .iter()
        .filter(|t| matches!(&t.op, TaskOp::Kernel(KernelOp::Fused(block)) if block.label() == "exp"))
        .count();
    assert_eq!(exp_tasks, 4);
    assert_eq!(g.outputs.len(), 3);
}

#[test]
fn every_block_shares_its_operations_program_and_long_chains_plan() {
    let x = stored(1000, 10);
    let mut y = x.clone();
    for _ in 0..20_000 {
        y = binary_scalar(BinaryOp::Add, &y, Scalar::Int(1), false).unwrap();
    }
    let g = lower(&[y], Fusion::On).unwrap();
    let blocks: Vec<_> = g.tasks.iter().filter_map(|t| if let TaskOp::Kernel(KernelOp::Fused(b)) = &t.op { Some(b) } else { None }).collect();
    assert_eq!(blocks.len(), 100);
    assert!(blocks.iter().all(|b| Arc::ptr_eq(&b.program, &blocks[0].program)));
    assert_eq!(blocks[0].program.steps.len(), 1 + 2 * 20_000);
}
