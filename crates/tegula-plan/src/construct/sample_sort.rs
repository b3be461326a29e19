//! The nodes of a sample sort of a 1-D array longer than one block (the Rust API's
//! `sample_sort.rs` chains them; `lower/sample_sort.rs` plans the merge). Elements are ordered
//! by value (NumPy's order, reversed when descending), then by position: with that order,
//! each stably sorted block holds every bucket's elements as one contiguous run.

use crate::node::{Node, NodeKind, NodeRef};
use tegula_core::{internal_err, Chunks, DType, Result};

/// Samples per bucket in each block: with samples every `m / 4k` elements of a block of `m`,
/// a bucket exceeds `n / k` by about a quarter at most.
const SAMPLES_PER_BUCKET: usize = 4;

/// The spacing of the samples of a block of `m` elements cut into `buckets`.
pub fn sample_every(m: usize, buckets: usize) -> usize {
    m.div_ceil(SAMPLES_PER_BUCKET * buckets.max(1)).max(1)
}

/// The int64 positions in the 1-D `x` of every `sample_every`-th element of each block, in
/// the block's sorted order (one block of samples per block of `x`).
pub fn sample_positions(x: &NodeRef, buckets: usize, descending: bool) -> Result<NodeRef> {
    one_d(x, "sample positions")?;
    let sizes: Vec<usize> = x.chunks.axis(0).iter().map(|&m| (sample_every(m, buckets) / 2..m).step_by(sample_every(m, buckets)).len()).collect();
    let total = sizes.iter().sum();
    let chunks = Chunks::new(vec![sizes], &[total])?;
    Node::checked(NodeKind::SamplePositions { descending, buckets }, vec![x.clone()], DType::Int64, chunks)
}

/// The elements of the 1-D `x` at the int64 positions `at` (1-D, as many blocks as `x`),
/// whose block `b` holds positions inside block `b` of `x`.
pub fn take_within_blocks(x: &NodeRef, at: &NodeRef) -> Result<NodeRef> {
    one_d(x, "take within blocks")?;
    one_d(at, "take within blocks")?;
    if at.dtype != DType::Int64 || at.chunks.nblocks() != x.chunks.nblocks() {
        return Err(internal_err!("take within the blocks {:?} at {} positions chunked {:?}", x.chunks, at.dtype, at.chunks));
    }
    Node::checked(NodeKind::TakeWithinBlocks, vec![x.clone(), at.clone()], x.dtype, at.chunks.clone())
}

/// Each block of the 1-D `x` grouped by the buckets the splitters delimit (as
/// `bucket_counts`), or with `arg` the int64 positions in `x` that group it.
pub fn bucket_partition(x: &NodeRef, values: &NodeRef, positions: &NodeRef, descending: bool, arg: bool) -> Result<NodeRef> {
    splitters_fit(x, values, positions)?;
    let dtype = if arg { DType::Int64 } else { x.dtype };
    let inputs = vec![x.clone(), values.clone(), positions.clone()];
    Node::checked(NodeKind::BucketPartition { descending, arg }, inputs, dtype, x.chunks.clone())
}

/// How many elements of each block of the 1-D `x` fall in each of the buckets the splitters
/// delimit (`values`, of `x`'s dtype, at int64 `positions`, both 1-D and one block, sorted):
/// int64, one block of `splitters + 1` counts per block of `x`.
pub fn bucket_counts(x: &NodeRef, values: &NodeRef, positions: &NodeRef, descending: bool) -> Result<NodeRef> {
    splitters_fit(x, values, positions)?;
    let splitters = values.size();
    let blocks = x.chunks.nblocks();
    let chunks = Chunks::new(vec![vec![splitters + 1; blocks]], &[blocks * (splitters + 1)])?;
    Node::checked(NodeKind::BucketCounts { descending }, vec![x.clone(), values.clone(), positions.clone()], DType::Int64, chunks)
}

/// The sorted array from the blocks of `sorted` (each sorted on its own, or grouped by
/// bucket by `bucket_partition`) and, for argsort,
/// their `positions`; `counts[b][j]`: how many elements of block `b` fall in bucket `j`. Block
/// `j` of the result merges bucket `j`'s runs (empty buckets make no block).
pub fn merge_buckets(sorted: &NodeRef, positions: Option<&NodeRef>, counts: &[Vec<usize>], descending: bool) -> Result<NodeRef> {
    one_d(sorted, "merge buckets")?;
    let lens = sorted.chunks.axis(0);
    let buckets = counts.first().map_or(0, Vec::len);
    let matches = counts.len() == lens.len() && counts.iter().zip(lens).all(|(c, &n)| c.len() == buckets && c.iter().sum::<usize>() == n);
    let aligned = positions.is_none_or(|p| p.chunks == sorted.chunks && p.dtype == DType::Int64);
    if !matches || !aligned || buckets == 0 {
        return Err(internal_err!("merge of blocks {lens:?} by bucket counts {counts:?}"));
    }
    let totals: Vec<usize> = (0..buckets).map(|j| counts.iter().map(|c| c[j]).sum()).collect();
    let mut sizes: Vec<usize> = totals.into_iter().filter(|&t| t > 0).collect();
    if sizes.is_empty() {
        sizes.push(0);
    }
    let chunks = Chunks::new(vec![sizes], &[sorted.size()])?;
    let inputs: Vec<NodeRef> = std::iter::once(sorted.clone()).chain(positions.cloned()).collect();
    let dtype = if positions.is_some() { DType::Int64 } else { sorted.dtype };
    let counts = counts.iter().flatten().copied().collect();
    Node::checked(NodeKind::MergeBuckets { descending, counts }, inputs, dtype, chunks)
}

/// Checks that the 1-D `x` can be cut by splitters `values` (of its dtype) at int64
/// `positions`, both 1-D and one block.
fn splitters_fit(x: &NodeRef, values: &NodeRef, positions: &NodeRef) -> Result<()> {
    one_d(x, "buckets")?;
    let fits = values.dtype == x.dtype && positions.dtype == DType::Int64 && positions.shape() == values.shape();
    if !fits || values.chunks.nblocks() != 1 || positions.chunks.nblocks() != 1 {
        return Err(internal_err!("buckets by splitters {:?} at positions {:?}", values.chunks, positions.chunks));
    }
    Ok(())
}

fn one_d(x: &NodeRef, what: &str) -> Result<()> {
    match x.ndim() {
        1 => Ok(()),
        n => Err(internal_err!("{what} of a {n}-d array")),
    }
}
