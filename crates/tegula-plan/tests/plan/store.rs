//! Plans over stored arrays: an index reads only the region it selects, and a store's writes
//! align with its grid so no two tasks write one stored chunk.

use std::sync::Arc;
use tegula_core::{TaskOp, BinaryOp, Chunks, DType, IoOp, Scalar};
use tegula_plan::construct::layout::{index, IndexItem};
use tegula_plan::construct::{creation, elementwise, store};
use tegula_plan::{lower, next_id, Fusion, NodeRef, ResourceKind, Resource, TaskGraph};

fn on_disk(shape: &[usize], block: &[usize]) -> NodeRef {
    creation::from_store(Arc::new(()), ResourceKind::Source, DType::Float64, Chunks::regular(shape, block))
}

fn regions(g: &TaskGraph, read: bool) -> Vec<Vec<(usize, usize)>> {
    let mut out: Vec<_> = g
        .tasks
        .iter()
        .filter_map(|t| match &t.op {
            TaskOp::Io(IoOp::Read { region, .. }) if read => Some(region.clone()),
            TaskOp::Io(IoOp::Write { region, .. }) if !read => Some(region.clone()),
            _ => None,
        })
        .collect();
    out.sort();
    out
}

fn slice(start: i64, stop: i64, step: i64) -> IndexItem {
    IndexItem::Slice { start: Some(start), stop: Some(stop), step: Some(step) }
}

#[test]
fn reads_cover_the_blocks_and_cost_memory() {
    let x = on_disk(&[10, 4], &[4, 4]);
    let g = lower(&[x], Fusion::On).unwrap();
    assert_eq!(regions(&g, true), vec![vec![(0, 4), (0, 4)], vec![(4, 8), (0, 4)], vec![(8, 10), (0, 4)]]);
    assert!((0..g.tasks.len()).all(|t| tegula_plan::memory::resident_bytes(&g, t) == g.tasks[t].nbytes()));
}

#[test]
fn an_index_reads_only_its_bounding_box() {
    let x = on_disk(&[100, 50], &[100, 50]); // one big block
    let y = index(&x, &[slice(10, 30, 3), IndexItem::Int(7)]).unwrap();
    let g = lower(&[y], Fusion::On).unwrap();
    assert_eq!(regions(&g, true), vec![vec![(10, 29), (7, 8)]]);
    // through element-wise operations too, and with a negative step
    let z = elementwise::binary_scalar(BinaryOp::Multiply, &x, Scalar::Float(2.0), false).unwrap();
    let w = index(&z, &[slice(40, 5, -10), slice(0, 3, 1)]).unwrap();
    let g = lower(&[w], Fusion::On).unwrap();
    assert_eq!(regions(&g, true), vec![vec![(10, 41), (0, 3)]]);
}

#[test]
fn writes_align_with_the_store_grid() {
    let x = creation::stored(Arc::new(()), DType::Float64, Chunks::new(vec![vec![13, 29, 3, 40, 15], vec![7]], &[100, 7]).unwrap());
    let sink = Arc::new(Resource::new(next_id(), ResourceKind::Sink, Arc::new(())));
    let s = store::store(&x, sink, &[10, 5]).unwrap();
    let g = lower(&[s], Fusion::On).unwrap();
    let writes = regions(&g, false);
    assert_eq!(writes.iter().map(|r| r[0]).collect::<Vec<_>>(), vec![(0, 10), (10, 40), (40, 50), (50, 90), (90, 100)]);
    assert!(writes.iter().all(|r| r[1] == (0, 7)));
    assert!(g.tasks.iter().all(|t| !matches!(t.op, TaskOp::Io(IoOp::Write { .. })) || t.size == 0));
    assert!(store::store(&x, Arc::new(Resource::new(next_id(), ResourceKind::Sink, Arc::new(()))), &[0, 5]).is_err());
}
