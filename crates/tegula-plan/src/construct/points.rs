//! Point-wise indexing by coordinates known when planned (`x[rows, cols]` with NumPy index
//! arrays, Dask's `vindex`, xarray's vectorised `sel`/`isel`): only the blocks holding a point
//! are read. Each output block is assembled from one small piece per block of `x` its points
//! fall in (`lower/points.rs`), never from a flattened or rechunked copy of `x`.

use crate::node::{Node, NodeKind, NodeRef};
use std::collections::HashMap;
use tegula_core::chunks::split_axis;
use tegula_core::grid::offsets;
use tegula_core::{index_err, internal_err, Result};

/// More points than this are gathered instead: each point is a piece of the plan.
const MAX_POINTS: usize = 1 << 16;
/// Picking stops paying when the output blocks' pieces outnumber the blocks of `x` (along the
/// indexed axes) this many times: every block would be read again for several output blocks.
const MAX_READS_PER_BLOCK: usize = 2;

/// The points of one output block that fall in one block of `x`.
#[derive(Debug, PartialEq)]
pub(crate) struct Group {
    /// The block of `x` holding them: its index along each indexed axis.
    pub block: Vec<usize>,
    /// Each point: its row in the output block, then its coordinates within the block.
    pub points: Vec<(usize, Vec<usize>)>,
}

/// The points of `x` at `coords` along `axes` (point `p`'s coordinates are
/// `coords[p * k..(p + 1) * k]` for `k` axes, each within its axis), as an array of `x`'s ndim
/// whose `axes[0]` runs over the points, whose other indexed axes have length one, and whose
/// remaining axes are `x`'s. `None` where there are no points, or so many or so scattered
/// ones that a gather reads less.
pub fn pick_points(x: &NodeRef, axes: &[usize], coords: &[usize]) -> Result<Option<NodeRef>> {
    check(x, axes, coords)?;
    let points = coords.len() / axes.len();
    if points == 0 || points > MAX_POINTS {
        return Ok(None);
    }
    let sizes = point_blocks(x, axes, points);
    let grid: usize = axes.iter().map(|&a| x.chunks.axis(a).len()).product();
    let pieces: usize = groups(x, axes, coords, &sizes).iter().map(Vec::len).sum();
    if pieces > MAX_READS_PER_BLOCK * grid {
        return Ok(None);
    }
    let mut chunks = x.chunks.with_axis(axes[0], sizes);
    for &a in &axes[1..] {
        chunks = chunks.with_axis(a, vec![1]);
    }
    let kind = NodeKind::PickPoints { axes: axes.into(), coords: coords.into() };
    Node::checked(kind, vec![x.clone()], x.dtype, chunks).map(Some)
}

fn check(x: &Node, axes: &[usize], coords: &[usize]) -> Result<()> {
    let shape = x.shape();
    let distinct = axes.iter().enumerate().all(|(i, a)| !axes[..i].contains(a));
    if axes.is_empty() || !distinct || axes.iter().any(|&a| a >= shape.len()) || !coords.len().is_multiple_of(axes.len()) {
        return Err(internal_err!("points along axes {axes:?} of an array of {} axes", shape.len()));
    }
    for (i, &c) in coords.iter().enumerate() {
        let axis = axes[i % axes.len()];
        if c >= shape[axis] {
            return Err(index_err!("index {c} is out of bounds for axis {axis} with size {}", shape[axis]));
        }
    }
    Ok(())
}

/// The output's blocks along the point axis: each holds as many points as one block of `x`
/// holds elements along the indexed axes, so no output block outgrows a block of `x`.
fn point_blocks(x: &Node, axes: &[usize], points: usize) -> Vec<usize> {
    let per_block: usize = axes.iter().map(|&a| x.chunks.axis(a).iter().copied().max().unwrap_or(1)).product();
    split_axis(points, per_block.max(1))
}

/// For each output block along the point axis (`sizes`), its points grouped by the block of
/// `x` they fall in, groups in the order of their first point.
pub(crate) fn groups(x: &Node, axes: &[usize], coords: &[usize], sizes: &[usize]) -> Vec<Vec<Group>> {
    let k = axes.len();
    let starts: Vec<Vec<usize>> = axes.iter().map(|&a| offsets(x.chunks.axis(a))).collect();
    let mut out = Vec::with_capacity(sizes.len());
    let mut point = 0;
    for &size in sizes {
        let mut groups: Vec<Group> = Vec::new();
        let mut by_block: HashMap<Vec<usize>, usize> = HashMap::new();
        for row in 0..size {
            let at = &coords[point * k..(point + 1) * k];
            point += 1;
            let block: Vec<usize> = at.iter().zip(&starts).map(|(&c, s)| s.partition_point(|&o| o <= c) - 1).collect();
            let local = at.iter().zip(&block).zip(&starts).map(|((&c, &b), s)| c - s[b]).collect();
            let g = *by_block.entry(block.clone()).or_insert_with(|| {
                groups.push(Group { block, points: Vec::new() });
                groups.len() - 1
            });
            groups[g].points.push((row, local));
        }
        out.push(groups);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::construct::creation::full;
    use tegula_core::{Chunks, DType, Scalar, TegulaError};

    fn array(shape: &[usize], block: &[usize]) -> NodeRef {
        full(Scalar::Float(1.0), DType::Float64, Chunks::regular(shape, block)).unwrap()
    }

    #[test]
    fn points_are_grouped_by_the_block_holding_them() {
        let x = array(&[10, 10], &[4, 5]);
        // (1, 1) and (2, 3) in block (0, 0); (9, 9) in block (2, 1).
        let g = groups(&x, &[0, 1], &[1, 1, 9, 9, 2, 3], &[3]);
        let expected = vec![
            Group { block: vec![0, 0], points: vec![(0, vec![1, 1]), (2, vec![2, 3])] },
            Group { block: vec![2, 1], points: vec![(1, vec![1, 4])] },
        ];
        assert_eq!(g, vec![expected]);
    }

    #[test]
    fn output_blocks_hold_at_most_one_block_of_points() {
        let x = array(&[10, 10, 3], &[4, 5, 2]);
        let coords: Vec<usize> = (0..25).flat_map(|i| [i % 10, (i * 3) % 10]).collect();
        let node = pick_points(&x, &[0, 1], &coords).unwrap().unwrap();
        assert_eq!(node.chunks.sizes(), &[vec![20, 5], vec![1], vec![2, 1]]);
    }

    #[test]
    fn a_coordinate_outside_is_an_index_error() {
        let x = array(&[10, 10], &[4, 5]);
        assert!(matches!(pick_points(&x, &[0, 1], &[1, 10]), Err(TegulaError::Index(_))));
        assert!(pick_points(&x, &[0, 0], &[1, 1]).is_err());
    }

    #[test]
    fn points_spread_over_every_block_many_times_are_left_to_a_gather() {
        let x = array(&[8, 8], &[1, 1]);
        let coords: Vec<usize> = (0..640).flat_map(|i| [i % 8, (i / 8) % 8]).collect();
        assert!(pick_points(&x, &[0, 1], &coords).unwrap().is_none());
        assert!(pick_points(&x, &[0, 1], &[]).unwrap().is_none());
    }
}
