//! Sorting an axis longer than one block: a sample sort, exact and stable, whose blocks stay
//! near the block limit. Each position along the other axes (a lane; there are no more lanes
//! than blocks) is sorted as a 1-D array in blocks of at most `most` elements:
//!
//! 1. when built, samples at random positions are taken; `k - 1` splitters cut the sorted
//!    samples into `k` equal parts;
//! 2. when built, each block counts its elements in each of the `k` buckets; a lane whose
//!    largest bucket holds over twice `most` is cut again from regularly spaced samples of
//!    each block sorted on its own, with their positions (`SamplePositions`), whose bound
//!    holds for any data;
//! 3. when computed, each block is grouped by bucket (`BucketPartition`), cut into its
//!    buckets' runs, and each bucket's runs, taken in block order, are sorted stably in one
//!    task.
//!
//! Elements compare by value, then by position, so all are distinct: equal values split
//! evenly, and a bucket's runs in block order hold its equal values in position order, which
//! the stable sort keeps. With `k = ceil(n / most)` and regular samples every
//! `g = ceil(m / 4k)` elements of a block of `m`, a bucket holds at most about
//! `n/k + n/4k + (B + 1)·g` elements (B blocks): below twice the limit. Steps 1 and 2 compute
//! the input each time (as a boolean mask's counts do): the price of known chunks.

use crate::array::{compute, Array};
use std::sync::Arc;
use tegula_core::{internal_err, Chunks, DType, Result};
use tegula_kernels::buckets::splitters;
use tegula_kernels::random::mix64;
use tegula_kernels::Chunk;
use tegula_plan::construct::layout::{index, rechunk, transpose, IndexItem};
use tegula_plan::construct::sample_sort::{bucket_counts, bucket_partition, merge_buckets, sample_positions, take_within_blocks};
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
    let sorted = sort_lanes(&lanes, k, most, descending, arg)?;
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

/// Samples per bucket taken at random positions: a bucket then holds its mean share give or
/// take about a tenth (a binomial count of 128 samples); twice its mean is out of reach but
/// for data built against the positions, which the sorted samples below then handle.
const RANDOM_SAMPLES_PER_BUCKET: usize = 128;

/// The 1-D `lanes` sorted, each cut into `k` buckets of about `most` elements: splitters
/// from samples at random positions, and bucket counts, computed once for all lanes together;
/// a lane with a bucket over twice `most` is cut again by regularly spaced samples of its
/// sorted blocks, whose bound holds for any data.
fn sort_lanes(lanes: &[NodeRef], k: usize, most: usize, descending: bool, arg: bool) -> Result<Vec<NodeRef>> {
    let mut cuts = cut_lanes(lanes, k, descending, true)?;
    let over: Vec<usize> = (0..lanes.len()).filter(|&i| largest_bucket(&cuts[i].table) > 2 * most).collect();
    if !over.is_empty() {
        let again = cut_lanes(&over.iter().map(|&i| lanes[i].clone()).collect::<Vec<_>>(), k, descending, false)?;
        over.into_iter().zip(again).for_each(|(i, cut)| cuts[i] = cut);
    }
    sort_cut(lanes, cuts, descending, arg)
}

/// The `lanes` sorted by their `cuts`: each block grouped by bucket, and each bucket's groups,
/// taken in block order, sorted stably in one task.
fn sort_cut(lanes: &[NodeRef], cuts: Vec<Cut>, descending: bool, arg: bool) -> Result<Vec<NodeRef>> {
    lanes
        .iter()
        .zip(cuts)
        .map(|(y, cut)| {
            let grouped = bucket_partition(y, &cut.values, &cut.positions, descending, arg)?;
            if arg {
                return merge_buckets(&take_within_blocks(y, &grouped)?, Some(&grouped), &cut.table, descending);
            }
            merge_buckets(&grouped, None, &cut.table, descending)
        })
        .collect()
}

/// A lane's splitters (their values and positions) and its table of bucket counts.
struct Cut {
    values: NodeRef,
    positions: NodeRef,
    table: Vec<Vec<usize>>,
}

/// Each lane's cut into `k` buckets, from samples at random positions (`random`) or at
/// regular ranks of its sorted blocks.
fn cut_lanes(lanes: &[NodeRef], k: usize, descending: bool, random: bool) -> Result<Vec<Cut>> {
    let mut samples = Vec::with_capacity(2 * lanes.len());
    for y in lanes {
        let positions = if random { random_positions(y, k)? } else { sample_positions(y, k, descending)? };
        samples.extend([take_within_blocks(y, &positions)?, positions]);
    }
    let sampled = compute_nodes(samples)?;
    let mut cut = Vec::with_capacity(lanes.len());
    let mut counts = Vec::with_capacity(lanes.len());
    for (y, pair) in lanes.iter().zip(sampled.chunks(2)) {
        let (values, positions) = splitters(&pair[0], &pair[1], k, descending)?;
        let values = creation::stored(Arc::new(values), y.dtype, Chunks::single(&[k - 1]));
        let positions = creation::stored(Arc::new(positions), DType::Int64, Chunks::single(&[k - 1]));
        counts.push(bucket_counts(y, &values, &positions, descending)?);
        cut.push((values, positions));
    }
    let counted = compute_nodes(counts)?;
    lanes
        .iter()
        .zip(cut)
        .zip(counted)
        .map(|((y, (values, positions)), c)| Ok(Cut { values, positions, table: count_table(&c, y.chunks.nblocks(), k)? }))
        .collect()
}

/// One position drawn at random (a hash of its stratum's start) in each stratum of the 1-D
/// `y`'s blocks, strata spaced for `RANDOM_SAMPLES_PER_BUCKET` samples per bucket: int64,
/// a block of positions per block of `y`.
fn random_positions(y: &NodeRef, buckets: usize) -> Result<NodeRef> {
    let spacing = (y.size() / (RANDOM_SAMPLES_PER_BUCKET * buckets).max(1)).max(1);
    let (mut positions, mut sizes) = (Vec::new(), Vec::new());
    let mut start = 0;
    for &m in y.chunks.axis(0) {
        let strata: Vec<i64> = (start..start + m)
            .step_by(spacing)
            .map(|low| {
                let len = spacing.min(start + m - low);
                (low + (mix64(low as u64) % len as u64) as usize) as i64
            })
            .collect();
        sizes.push(strata.len());
        positions.extend(strata);
        start += m;
    }
    let total = positions.len();
    let block = ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(&[total]), positions).map_err(|e| internal_err!("sample positions: {e}"))?;
    Ok(creation::stored(Arc::new(Chunk::Int64(block.into())), DType::Int64, Chunks::new(vec![sizes], &[total])?))
}

/// The most elements any bucket holds, over all blocks.
fn largest_bucket(table: &[Vec<usize>]) -> usize {
    let buckets = table.first().map_or(0, Vec::len);
    (0..buckets).map(|j| table.iter().map(|row| row[j]).sum()).max().unwrap_or(0)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AxisChunks, ChunkSpec};
    use ndarray::ArrayD;

    /// Samples at random positions (here every 7th element or so) cut data with runs of
    /// equal values into buckets within twice the limit, and the lane sorts as the stable sort.
    #[test]
    fn random_samples_cut_within_twice_the_limit() {
        let n = 200_000;
        let values: Vec<f64> = (0..n).map(|i| if i % 3 == 0 { 0.5 } else { ((i * 7919) % 100_003) as f64 }).collect();
        let x = Array::from_ndarray(ArrayD::from_shape_vec(vec![n], values.clone()).unwrap(), &ChunkSpec::All(AxisChunks::Size(1000))).unwrap();
        let (k, most) = (200, 1000);
        let cuts = cut_lanes(std::slice::from_ref(&x.node), k, false, true).unwrap();
        assert!(largest_bucket(&cuts[0].table) <= 2 * most, "{}", largest_bucket(&cuts[0].table));
        let sorted = sort_lanes(std::slice::from_ref(&x.node), k, most, false, false).unwrap();
        let mut want = values;
        want.sort_by(f64::total_cmp);
        assert_eq!(compute_nodes(sorted).unwrap()[0].typed::<f64>().unwrap().iter().copied().collect::<Vec<_>>(), want);
    }

    /// The regular samples, taken when random ones leave a bucket too big, cut any data
    /// within the bound and sort it as the stable sort does, duplicates and all.
    #[test]
    fn regular_samples_cut_and_sort_data_with_duplicates() {
        let n = 3000;
        let values: Vec<f64> = (0..n).map(|i| ((i * 7919) % 101) as f64).collect();
        let x = Array::from_ndarray(ArrayD::from_shape_vec(vec![n], values.clone()).unwrap(), &ChunkSpec::All(AxisChunks::Size(250))).unwrap();
        let (k, most) = (12, 250);
        for (descending, arg) in [(false, false), (true, false), (false, true), (true, true)] {
            let cuts = cut_lanes(std::slice::from_ref(&x.node), k, descending, false).unwrap();
            assert!(largest_bucket(&cuts[0].table) <= 2 * most);
            let sorted = sort_cut(std::slice::from_ref(&x.node), cuts, descending, arg).unwrap();
            let got = compute_nodes(sorted).unwrap();
            let mut order: Vec<usize> = (0..n).collect();
            order.sort_by(|&p, &q| if descending { values[q].total_cmp(&values[p]) } else { values[p].total_cmp(&values[q]) });
            if arg {
                let want: Vec<i64> = order.iter().map(|&p| p as i64).collect();
                assert_eq!(got[0].typed::<i64>().unwrap().iter().copied().collect::<Vec<_>>(), want);
            } else {
                let want: Vec<f64> = order.iter().map(|&p| values[p]).collect();
                assert_eq!(got[0].typed::<f64>().unwrap().iter().copied().collect::<Vec<_>>(), want);
            }
        }
    }
}
