//! Plan building: task counts, tree reductions, bounded contractions, indexing that touches only
//! the chunks it needs, serialisable graphs and a topological static order.

use std::sync::Arc;
use tegula_core::{TaskOp, AxisChunks, BinaryOp, ChunkSpec, Chunks, DType, IoOp, KernelOp, ReduceOp, Scalar, SourceOp, TegulaError};
use tegula_plan::construct::layout::{index, rechunk, transpose, IndexItem};
use tegula_plan::construct::reduce::{reduce, ReduceSpec};
use tegula_plan::construct::{creation, elementwise, matmul};
use tegula_plan::order::static_order;
use tegula_plan::{lower, Fusion, NodeRef, TaskGraph};

fn source(shape: &[usize], block: usize) -> NodeRef {
    let chunks = Chunks::regular(shape, &vec![block; shape.len()]);
    creation::stored(Arc::new(()), DType::Float64, chunks)
}

fn count(g: &TaskGraph, pred: impl Fn(&TaskOp) -> bool) -> usize {
    g.tasks.iter().filter(|t| pred(&t.op)).count()
}

#[test]
fn elementwise_is_one_task_per_block_and_scalars_are_shared() {
    let x = source(&[10, 10], 3); // 4 x 4 blocks
    let y = elementwise::binary_scalar(BinaryOp::Add, &x, Scalar::Int(1), false).unwrap();
    let g = lower(&[y], Fusion::Off).unwrap();
    assert_eq!(count(&g, |op| matches!(op, TaskOp::Io(IoOp::Load { .. }))), 16);
    assert_eq!(count(&g, |op| matches!(op, TaskOp::Kernel(KernelOp::Binary { .. }))), 16);
    assert_eq!(count(&g, |op| matches!(op, TaskOp::Source(SourceOp::Full { .. }))), 1);
}

#[test]
fn shared_subexpressions_are_lowered_once() {
    let x = source(&[8], 2);
    let y = elementwise::binary(BinaryOp::Multiply, &x, &x).unwrap();
    let a = reduce(&y, &ReduceSpec::new(ReduceOp::Sum)).unwrap();
    let b = reduce(&y, &ReduceSpec::new(ReduceOp::Max)).unwrap();
    let g = lower(&[a, b], Fusion::Off).unwrap();
    assert_eq!(count(&g, |op| matches!(op, TaskOp::Kernel(KernelOp::Binary { .. }))), 4);
    assert_eq!(g.outputs.len(), 2);
}

#[test]
fn reductions_are_trees_with_the_chosen_fan_in() {
    let x = source(&[100], 1); // 100 blocks
    let spec = ReduceSpec { split_every: 4, ..ReduceSpec::new(ReduceOp::Sum) };
    let g = lower(&[reduce(&x, &spec).unwrap()], Fusion::Off).unwrap();
    let combines: Vec<usize> = g
        .tasks
        .iter()
        .filter(|t| matches!(t.op, TaskOp::Kernel(KernelOp::ReduceCombine { .. })))
        .map(|t| t.inputs.len())
        .collect();
    assert!(combines.iter().all(|&n| (2..=4).contains(&n)));
    // 100 -> 25 -> 7 -> 2 -> 1; a group of one passes up without a task (25 = 6 * 4 + 1).
    assert_eq!(combines.len(), 25 + 6 + 2 + 1);
    assert_eq!(count(&g, |op| matches!(op, TaskOp::Kernel(KernelOp::ReducePartial { .. }))), 100);
}

#[test]
fn matmul_never_gathers_the_contracted_axis() {
    let a = source(&[12, 30], 4); // 3 x 8 blocks
    let b = source(&[30, 8], 4); // 8 x 2 blocks
    let g = lower(&[matmul::matmul(&a, &b, 3).unwrap()], Fusion::Off).unwrap();
    for t in &g.tasks {
        match &t.op {
            TaskOp::Kernel(KernelOp::Matmul { .. }) => {
                assert_eq!(t.inputs.len(), 2);
                assert!(t.size <= 4 * 4);
            }
            TaskOp::Kernel(KernelOp::ReduceCombine { .. }) => assert!(t.inputs.len() <= 3),
            TaskOp::Io(IoOp::Load { .. }) => {}
            other => panic!("unexpected task {other:?}"),
        }
    }
    assert_eq!(count(&g, |op| matches!(op, TaskOp::Kernel(KernelOp::Matmul { .. }))), 3 * 2 * 8);
}

fn stored(sizes: Vec<Vec<usize>>) -> NodeRef {
    creation::stored(Arc::new(()), DType::Float64, Chunks::from_axes(sizes))
}

fn matmul_tasks(a: &NodeRef, b: &NodeRef) -> usize {
    let g = lower(&[matmul::matmul(a, b, 8).unwrap()], Fusion::Off).unwrap();
    count(&g, |op| matches!(op, TaskOp::Kernel(KernelOp::Matmul { .. })))
}

#[test]
fn unrelated_contracted_chunkings_rechunk_the_cheaper_operand() {
    let small = stored(vec![vec![4], vec![3, 3, 3, 3]]); // 48 elements
    let big = stored(vec![vec![4, 4, 4], vec![40]]); // 480 elements
    // Cutting both at every boundary would make 6 products; the small operand takes the
    // big one's 3 blocks instead, whichever side it is on.
    assert_eq!(matmul_tasks(&small, &big), 3);
    let big_left = stored(vec![vec![40], vec![4, 4, 4]]);
    let small_right = stored(vec![vec![3, 3, 3, 3], vec![4]]);
    assert_eq!(matmul_tasks(&big_left, &small_right), 3);
    // When one chunking refines the other, both take the finer one (cuts are views).
    let coarse = stored(vec![vec![4], vec![6, 6]]);
    assert_eq!(matmul_tasks(&coarse, &stored(vec![vec![3, 3, 3, 3], vec![40]])), 4);
}

#[test]
fn a_matrix_times_its_transpose_computes_the_blocks_above_the_diagonal_only() {
    let a = source(&[12, 9], 4); // 3 x 3 blocks
    let at = transpose(&a, None).unwrap();
    for product in [matmul::matmul(&a, &at, 8).unwrap(), matmul::matmul(&at, &a, 8).unwrap()] {
        let g = lower(&[product], Fusion::Off).unwrap();
        // 6 of the 9 output blocks by 3 products each; the other 3 are transposed views.
        assert_eq!(count(&g, |op| matches!(op, TaskOp::Kernel(KernelOp::Matmul { .. }))), 6 * 3);
        assert_eq!(count(&g, |op| matches!(op, TaskOp::Kernel(KernelOp::Transpose { .. }))), 3 + 9);
    }
    let b = source(&[12, 9], 4);
    let g = lower(&[matmul::matmul(&a, &transpose(&b, None).unwrap(), 8).unwrap()], Fusion::Off).unwrap();
    assert_eq!(count(&g, |op| matches!(op, TaskOp::Kernel(KernelOp::Matmul { .. }))), 9 * 3);
}

#[test]
fn weights_scale_the_rows_of_the_right_operand_not_a_transposed_view() {
    let x = source(&[12, 3], 4);
    let w = creation::stored(Arc::new(()), DType::Float64, Chunks::regular(&[12], &[4]));
    let xt = transpose(&x, None).unwrap();
    let scaled = elementwise::binary(BinaryOp::Multiply, &xt, &w).unwrap();
    let hessian = matmul::matmul(&scaled, &x, 8).unwrap();
    // x.T @ (x * w[:, None]): the transposed view multiplies, the weights scale x's rows.
    assert_eq!(hessian.inputs[0].id, xt.id);
    let rows = &hessian.inputs[1];
    assert!(matches!(rows.kind, tegula_plan::NodeKind::Binary { op: BinaryOp::Multiply, .. }));
    assert_eq!((rows.inputs[0].id, rows.shape()), (x.id, vec![12, 3]));
    // A right operand larger than x is not scaled instead.
    let wide = source(&[12, 40], 4);
    assert_eq!(matmul::matmul(&scaled, &wide, 8).unwrap().inputs[0].id, scaled.id);
}

#[test]
fn indexing_touches_only_the_blocks_it_needs() {
    let x = source(&[100, 100], 10);
    let row = index(&x, &[IndexItem::Int(-1)]).unwrap();
    let g = lower(&[row], Fusion::Off).unwrap();
    // The last row lives in the last block row: 10 loads, of that row alone (a window of the
    // source in its blocks' boundaries).
    assert_eq!(count(&g, |op| matches!(op, TaskOp::Io(IoOp::Load { .. }))), 10);
    let loads: Vec<&Vec<(usize, usize)>> = g
        .tasks
        .iter()
        .filter_map(|t| match &t.op {
            TaskOp::Io(IoOp::Load { region, .. }) => Some(region),
            _ => None,
        })
        .collect();
    assert!(loads.iter().all(|r| r[0] == (99, 100)));
    assert_eq!(loads.iter().map(|r| r[1]).collect::<Vec<_>>(), (0..10).map(|b| (10 * b, 10 * b + 10)).collect::<Vec<_>>());
    let sliced = index(&x, &[IndexItem::Slice { start: Some(5), stop: Some(25), step: Some(-1) }]).unwrap();
    assert_eq!(sliced.shape(), vec![0, 100]);
    let rev = index(&x, &[IndexItem::Slice { start: Some(25), stop: Some(5), step: Some(-2) }]).unwrap();
    assert_eq!(rev.shape(), vec![10, 100]);
    assert_eq!(rev.chunks.axis(0).iter().sum::<usize>(), 10);
}

#[test]
fn rechunk_assembles_only_across_boundaries() {
    let x = source(&[12], 4); // 4 4 4
    let same_edges = rechunk(&x, Chunks::new(vec![vec![4, 8]], &[12]).unwrap()).unwrap();
    let g = lower(&[same_edges], Fusion::Off).unwrap();
    assert_eq!(count(&g, |op| matches!(op, TaskOp::Kernel(KernelOp::Assemble { .. }))), 1);
    let split = rechunk(&x, Chunks::new(vec![vec![2, 2, 4, 4]], &[12]).unwrap()).unwrap();
    let g = lower(&[split], Fusion::Off).unwrap();
    assert_eq!(count(&g, |op| matches!(op, TaskOp::Kernel(KernelOp::Select { .. }))), 2);
    assert_eq!(count(&g, |op| matches!(op, TaskOp::Kernel(KernelOp::Assemble { .. }))), 0);
}

#[test]
fn an_array_and_its_transpose_share_one_rechunk() {
    // Row strips of 3 × 12 meet their transpose: both are cut in 3 × 3 tiles, each tile made
    // once from its strip (the transpose's tiles are transposed views of the same tasks).
    let strips = creation::stored(Arc::new(()), DType::Float64, Chunks::regular(&[12, 12], &[3, 12]));
    let sum = elementwise::binary(BinaryOp::Add, &strips, &transpose(&strips, None).unwrap()).unwrap();
    assert_eq!(sum.chunks, Chunks::regular(&[12, 12], &[3, 3]));
    let g = lower(&[sum], Fusion::Off).unwrap();
    assert_eq!(count(&g, |op| matches!(op, TaskOp::Kernel(KernelOp::Select { .. }))), 16);
    assert_eq!(count(&g, |op| matches!(op, TaskOp::Kernel(KernelOp::Transpose { .. }))), 16);
    assert_eq!(count(&g, |op| matches!(op, TaskOp::Kernel(KernelOp::Binary { .. }))), 16);
}

#[test]
fn errors_are_raised_when_building() {
    let x = source(&[3, 4], 2);
    let y = source(&[5], 2);
    assert!(matches!(elementwise::binary(BinaryOp::Add, &x, &y), Err(TegulaError::Shape(_))));
    let bad_axis = ReduceSpec { axes: Some(vec![2]), ..ReduceSpec::new(ReduceOp::Sum) };
    assert!(matches!(reduce(&x, &bad_axis), Err(TegulaError::Axis { axis: 2, ndim: 2 })));
    assert!(matches!(index(&x, &[IndexItem::Int(3)]), Err(TegulaError::Index(_))));
    assert!(matches!(
        index(&x, &[IndexItem::Int(0), IndexItem::Int(0), IndexItem::Int(0)]),
        Err(TegulaError::Index(_))
    ));
    assert!(matches!(transpose(&x, Some(&[0, 0])), Err(TegulaError::Value(_))));
    assert!(matches!(matmul::matmul(&x, &x, 8), Err(TegulaError::Shape(_))));
    let empty = source(&[0, 3], 2);
    let min0 = ReduceSpec { axes: Some(vec![0]), ..ReduceSpec::new(ReduceOp::Min) };
    assert!(matches!(reduce(&empty, &min0), Err(TegulaError::Value(_))));
    let b = source(&[2], 1);
    let bools = elementwise::cast(&b, DType::Bool).unwrap();
    assert!(matches!(elementwise::binary(BinaryOp::Subtract, &bools, &bools), Err(TegulaError::DType(_))));
}

#[test]
fn graphs_serialise_and_order_is_topological() {
    let x = source(&[9, 9], 4);
    let t = transpose(&x, None).unwrap();
    let s = elementwise::binary(BinaryOp::Subtract, &x, &t).unwrap();
    let m = reduce(&s, &ReduceSpec { axes: Some(vec![0]), ..ReduceSpec::new(ReduceOp::Mean) }).unwrap();
    let g = lower(&[m], Fusion::Off).unwrap();
    let json = serde_json::to_string(&g).unwrap();
    assert!(json.contains("\"Load\"") && json.contains("\"ReduceFinish\""));
    let rank = static_order(&g, &g.consumers());
    let mut seen = rank.clone();
    seen.sort_unstable();
    assert_eq!(seen, (0..g.tasks.len()).collect::<Vec<_>>());
    for (id, task) in g.tasks.iter().enumerate() {
        assert!(task.inputs.iter().all(|&i| rank[i] < rank[id]));
    }
}

#[test]
fn chunk_specs_reach_the_nodes() {
    let spec = ChunkSpec::PerAxis(vec![AxisChunks::Size(2), AxisChunks::Full]);
    let chunks = tegula_core::normalize_chunks(&spec, &[5, 3], 8).unwrap();
    let x = creation::full(Scalar::Float(1.0), DType::Float64, chunks).unwrap();
    assert_eq!(x.chunks.sizes(), &[vec![2, 2, 1], vec![3]]);
    // Equal constant blocks share one task.
    let g = lower(&[x], Fusion::Off).unwrap();
    assert_eq!(g.tasks.len(), 2);
}
