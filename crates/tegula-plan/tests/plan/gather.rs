//! Gather plans: a take along an axis split into k blocks is a chain of k tasks per output
//! block, and no task holds more than one block of x and one block of the indices.

use std::sync::Arc;
use tegula_core::{TaskOp, Chunks, DType, KernelOp};
use tegula_plan::construct::{creation, gather, layout, points};
use tegula_plan::memory::{projected_bytes, KERNEL_SCRATCH};
use tegula_plan::{lower, Fusion, NodeKind, NodeRef};

fn source(sizes: Vec<Vec<usize>>, dtype: DType) -> NodeRef {
    let shape: Vec<usize> = sizes.iter().map(|s| s.iter().sum()).collect();
    creation::stored(Arc::new(()), dtype, Chunks::new(sizes, &shape).unwrap())
}

#[test]
fn a_take_task_holds_one_x_block_and_one_index_block() {
    let k = 7;
    let x = source(vec![vec![10; k], vec![3, 3]], DType::Float64);
    // 30 indices (lazy: their values are never read when planning), in blocks of 12.
    let idx = source(vec![vec![12, 12, 6], vec![1]], DType::Int64);
    let y = gather::gather(&x, &idx, 0).unwrap();
    assert_eq!(y.chunks.sizes(), &[vec![10, 2, 10, 2, 6], vec![3, 3]]);
    let g = lower(std::slice::from_ref(&y), Fusion::On).unwrap();
    let gathers: Vec<usize> = (0..g.tasks.len()).filter(|&t| matches!(g.tasks[t].op, TaskOp::Kernel(KernelOp::Gather { .. }))).collect();
    assert_eq!(gathers.len(), k * y.chunks.nblocks());
    let x_block = 10 * 3 * 8;
    for &t in &gathers {
        let task = &g.tasks[t];
        let of = |node: u64| task.inputs.iter().filter(|&&i| g.tasks[i].node == node).count();
        assert_eq!(of(x.id), 1, "one x block");
        // The indices are rechunked (cut to x's blocks) by the gather's second input.
        assert_eq!(of(idx.id) + of(y.inputs[1].id), 1, "one index block");
        assert!(of(y.id) <= 1, "the result so far");
        assert!(task.nbytes() <= x_block);
        assert!(projected_bytes(&g, t) <= 3 * x_block + 12 * 8 + KERNEL_SCRATCH);
    }
    // Every task of the plan, not only the gathers, reads at most one block of x.
    for task in &g.tasks {
        assert!(task.inputs.iter().filter(|&&i| g.tasks[i].node == x.id).count() <= 1);
    }
}

#[test]
fn indices_not_integers_are_refused() {
    let x = source(vec![vec![4]], DType::Float64);
    let idx = source(vec![vec![2]], DType::Float32);
    assert!(matches!(gather::gather(&x, &idx, 0), Err(tegula_core::TegulaError::Index(_))));
}

#[test]
fn picked_points_read_only_the_blocks_holding_them_one_block_per_task() {
    // 4 × 3 blocks of 10 × 10 along the indexed axes, 2 along the axis left.
    let x = source(vec![vec![10; 4], vec![10; 3], vec![5, 5]], DType::Float32);
    // (1, 2) and (3, 4) in block (0, 0); (35, 29) in block (3, 2); (12, 0) in block (1, 0).
    let coords = [1, 2, 35, 29, 3, 4, 12, 0];
    let y = points::pick_points(&x, &[0, 1], &coords).unwrap().unwrap();
    assert_eq!(y.chunks.sizes(), &[vec![4], vec![1], vec![5, 5]]);
    let g = lower(std::slice::from_ref(&y), Fusion::On).unwrap();
    let reads: Vec<usize> = (0..g.tasks.len()).filter(|&t| g.tasks[t].node == x.id).collect();
    assert_eq!(reads.len(), 3 * 2, "three blocks along the indexed axes, both along the other");
    for task in g.tasks.iter().filter(|t| t.node == y.id) {
        assert!(task.inputs.iter().filter(|&&i| g.tasks[i].node == x.id).count() <= 1, "one block of x at a time");
        assert!(task.size <= 4 * 5);
    }
}

#[test]
fn a_transpose_of_a_transpose_is_one_or_none() {
    let x = source(vec![vec![2, 2], vec![3], vec![5]], DType::Float64);
    let t = layout::transpose(&x, Some(&[1, 2, 0])).unwrap();
    assert_eq!(layout::transpose(&t, Some(&[2, 0, 1])).unwrap().id, x.id);
    let twice = layout::transpose(&t, Some(&[1, 0, 2])).unwrap();
    assert!(matches!(&twice.kind, NodeKind::Transpose { perm } if *perm == vec![2, 1, 0]));
    assert_eq!(twice.inputs[0].id, x.id);
}
