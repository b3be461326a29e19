//! Sorting an axis longer than one block: a sample sort, exact and stable, whose blocks stay
//! near the block limit. Each position along the other axes (a lane; there are no more lanes
//! than blocks) is sorted as a 1-D array in blocks of at most `most` elements:
//!
//! 1. when built, each block is sorted on its own and regularly spaced samples of it are kept,
//!    with their positions (`SamplePositions`); `k - 1` splitters cut the sorted samples into `k` equal parts;
//! 2. when built, each block counts its elements in each of the `k` buckets;
//! 3. when computed, each block is sorted on its own, cut into its buckets' runs, and each
//!    bucket's runs are merged in one task.
//!
//! Elements compare by value, then by position, so all are distinct: a stably sorted block
//! holds each bucket as one run, and equal values split evenly. With `k = ceil(n / most)` and
//! samples every `g = ceil(m / 4k)` elements of a block of `m`, a bucket holds at most about
//! `n/k + n/4k + (B + 1)·g` elements (B blocks): below twice the limit. Steps 1 and 2 compute
//! the input each time (as a boolean mask's counts do): the price of known chunks.

use crate::array::{compute, Array};
use std::sync::Arc;
use tegula_core::{internal_err, Chunks, Result};
use tegula_kernels::buckets::splitters;
use tegula_kernels::Chunk;
use tegula_plan::construct::layout::{index, rechunk, transpose, IndexItem};
use tegula_plan::construct::sample_sort::{bucket_counts, merge_buckets, sample_positions, sort_blocks, take_within_blocks};
use tegula_plan::construct::{creation, join};
use tegula_plan::NodeRef;

/// `x` sorted (or argsorted, `arg`) along `axis`, longer than `most` elements, in blocks of
/// at most `most` elements along it; the result has `x`'s chunks.
pub(crate) fn sort_long_axis(x: &Array, axis: usize, descending: bool, arg: bool, most: usize) -> Result<Array> {
    let shape = x.shape();
    let lens = axis_blocks(x.chunks().axis(axis), most);
    // Lanes of one block along every other axis: each lane's blocks are whole blocks.
    // (The sorted axis's own list is never built one per element: it may be 10⁹ long.)
    let sizes: Vec<Vec<usize>> =
        shape.iter().enumerate().map(|(a, &n)| if a == axis { lens.clone() } else { vec![1; n] }).collect();
    let lanes_x = rechunk(&x.node, Chunks::new(sizes, &shape)?)?;
    let others: Vec<usize> = (0..shape.len()).filter(|&a| a != axis).collect();
    let lanes = lane_indices(&others.iter().map(|&a| shape[a]).collect::<Vec<_>>())
        .map(|at| {
            let mut items: Vec<IndexItem> = at.into_iter().map(|i| IndexItem::Int(i as i64)).collect();
            items.insert(axis, IndexItem::Slice { start: None, stop: None, step: None });
            index(&lanes_x, &items)
        })
        .collect::<Result<Vec<_>>>()?;
    let k = shape[axis].div_ceil(most);
    let sorted = sort_lanes(&lanes, k, descending, arg)?;
    let axis_chunks = Chunks::from_axes(vec![x.chunks().axis(axis).to_vec()]);
    let sorted = sorted.iter().map(|s| rechunk(s, axis_chunks.clone())).collect::<Result<Vec<_>>>()?;
    let dims: Vec<usize> = others.iter().map(|&a| shape[a]).collect();
    let stacked = restack(&sorted, &dims)?;
    // The sorted axis is last: move it back.
    let last = shape.len() - 1;
    let perm: Vec<i64> = (0..last).take(axis).chain([last]).chain(axis..last).map(|a| a as i64).collect();
    let moved = if axis == last { stacked } else { transpose(&stacked, Some(&perm))? };
    rechunk(&moved, x.chunks().clone()).map(Array::from_node)
}

/// The axis's blocks for the sort: the input's when none exceeds `most` and they are not
/// much smaller (merges read one run of every block), else even blocks of at most `most`.
fn axis_blocks(input: &[usize], most: usize) -> Vec<usize> {
    let n: usize = input.iter().sum();
    let fewest = n.div_ceil(most);
    if input.iter().all(|&b| b <= most) && input.len() <= 2 * fewest {
        return input.to_vec();
    }
    (0..fewest).map(|i| n / fewest + usize::from(i < n % fewest)).collect()
}

/// Every position over axes of lengths `dims`, in row-major order.
fn lane_indices(dims: &[usize]) -> impl Iterator<Item = Vec<usize>> + '_ {
    let count: usize = dims.iter().product();
    (0..count).map(move |mut flat| {
        let mut at = vec![0; dims.len()];
        for (a, &d) in dims.iter().enumerate().rev() {
            at[a] = flat % d;
            flat /= d;
        }
        at
    })
}

/// The 1-D `lanes` sorted, each cut into `k` buckets: samples, then counts, computed once for
/// all lanes together; the input is computed again by each.
fn sort_lanes(lanes: &[NodeRef], k: usize, descending: bool, arg: bool) -> Result<Vec<NodeRef>> {
    let mut samples = Vec::with_capacity(2 * lanes.len());
    for y in lanes {
        let positions = sample_positions(y, k, descending)?;
        samples.extend([take_within_blocks(y, &positions)?, positions]);
    }
    let sampled = compute_nodes(samples)?;
    let mut counts = Vec::with_capacity(lanes.len());
    for (y, pair) in lanes.iter().zip(sampled.chunks(2)) {
        let (values, positions) = splitters(&pair[0], &pair[1], k, descending)?;
        let values = creation::stored(Arc::new(values), y.dtype, Chunks::single(&[k - 1]));
        let positions = creation::stored(Arc::new(positions), tegula_core::DType::Int64, Chunks::single(&[k - 1]));
        counts.push(bucket_counts(y, &values, &positions, descending)?);
    }
    let counted = compute_nodes(counts)?;
    lanes
        .iter()
        .zip(counted)
        .map(|(y, c)| {
            let table = count_table(&c, y.chunks.nblocks(), k)?;
            if arg {
                let order = sort_blocks(y, descending, true)?;
                return merge_buckets(&take_within_blocks(y, &order)?, Some(&order), &table, descending);
            }
            merge_buckets(&sort_blocks(y, descending, false)?, None, &table, descending)
        })
        .collect()
}

/// The computed per-block bucket counts as a table: `blocks` rows of `k`.
fn count_table(counts: &Chunk, blocks: usize, k: usize) -> Result<Vec<Vec<usize>>> {
    let flat: Vec<usize> = counts.typed::<i64>()?.iter().map(|&c| c as usize).collect();
    if flat.len() != blocks * k {
        return Err(internal_err!("{} bucket counts for {blocks} blocks of {k} buckets", flat.len()));
    }
    Ok(flat.chunks(k).map(<[usize]>::to_vec).collect())
}

fn compute_nodes(nodes: Vec<NodeRef>) -> Result<Vec<Chunk>> {
    let arrays: Vec<Array> = nodes.into_iter().map(Array::from_node).collect();
    let refs: Vec<&Array> = arrays.iter().collect();
    compute(&refs, crate::ComputeOptions::default()).map(|(chunks, _)| chunks)
}

/// The 1-D `lanes` (row-major over `dims`) stacked into an array of shape `dims + [n]`.
fn restack(lanes: &[NodeRef], dims: &[usize]) -> Result<NodeRef> {
    let Some((_, inner)) = dims.split_first() else {
        return lanes.first().cloned().ok_or_else(|| internal_err!("no lane to stack"));
    };
    let per: usize = inner.iter().product();
    let parts = lanes.chunks(per).map(|group| restack(group, inner)).collect::<Result<Vec<_>>>()?;
    join::stack(&parts, 0)
}
