//! Reads of a store that decodes whole units (compressed chunks): selections inside one unit
//! read that unit once, shared, and a store without units is read region by region.

use std::sync::Arc;
use tegula_core::{Chunks, DType, IoOp, TaskOp};
use tegula_plan::construct::layout::{index, IndexItem};
use tegula_plan::construct::{creation, join};
use tegula_plan::{lower, next_id, Fusion, NodeRef, ReadUnit, Resource, ResourceKind, TaskGraph};

/// A stored 100 × 6 array in blocks of `block` rows, read by units of `unit` rows when given.
fn stored(block: usize, unit: Option<usize>) -> NodeRef {
    let read_unit = unit.map(|u| ReadUnit { unit: vec![u, 6].into(), shape: vec![100, 6].into() });
    let resource = Resource { read_unit, ..Resource::new(next_id(), ResourceKind::Source, Arc::new(())) };
    creation::from_resource(Arc::new(resource), DType::Float32, Chunks::regular(&[100, 6], &[block, 6]))
}

fn rows(x: &NodeRef, start: i64, stop: i64) -> NodeRef {
    index(x, &[IndexItem::Slice { start: Some(start), stop: Some(stop), step: None }]).unwrap()
}

/// The regions of every read task, in plan order.
fn reads(g: &TaskGraph) -> Vec<Vec<(usize, usize)>> {
    g.tasks.iter().filter_map(|t| if let TaskOp::Io(IoOp::Read { region, .. }) = &t.op { Some(region.clone()) } else { None }).collect()
}

/// Twelve "months" of 8 rows (the last 12), as xarray's resample slices them.
fn months(x: &NodeRef) -> NodeRef {
    let parts: Vec<NodeRef> = (0..12).map(|m| rows(x, m * 8, m * 8 + 8 + if m == 11 { 4 } else { 0 })).collect();
    join::concatenate(&parts, Some(0)).unwrap()
}

#[test]
fn selections_inside_a_unit_read_it_once() {
    let g = lower(&[months(&stored(50, Some(50)))], Fusion::Off).unwrap();
    let mut regions = reads(&g);
    regions.sort();
    assert_eq!(regions, vec![vec![(0, 50), (0, 6)], vec![(50, 100), (0, 6)]]);
}

#[test]
fn without_units_each_selection_reads_its_own_region() {
    let g = lower(&[months(&stored(50, None))], Fusion::Off).unwrap();
    // Month 6 (rows 48..56) crosses the block boundary: two reads.
    assert_eq!(reads(&g).len(), 13);
    assert!(reads(&g).iter().all(|r| r[0].1 - r[0].0 <= 12));
}

#[test]
fn a_selection_across_units_reads_just_its_rows() {
    // Units of 10 rows, blocks of 50: rows 15..35 span three units, so the read takes the
    // region itself (the same units are decoded either way) from the block's read.
    let g = lower(&[rows(&stored(50, Some(10)), 15, 35)], Fusion::Off).unwrap();
    assert_eq!(reads(&g), vec![vec![(15, 35), (0, 6)]]);
    let g = lower(&[rows(&stored(50, Some(10)), 12, 18)], Fusion::Off).unwrap();
    assert_eq!(reads(&g), vec![vec![(10, 20), (0, 6)]]);
}
