//! Kernels of the sample sort of an axis longer than one block (planned in the plan crate's
//! `lower/sample_sort.rs`): the splitters cutting a sample into equal buckets, how many elements
//! of a block fall in each bucket, and the merge of a bucket's sorted runs. Elements compare by
//! value (NumPy's order, reversed when descending), then by position: every element is
//! distinct, so buckets stay balanced even when all values are equal, and a stably sorted
//! block holds each bucket's elements as one contiguous run.

use crate::chunk::{Block, Chunk, Wrap};
use crate::order::{directed, SortOrder};
use crate::bucket_search::KeyedSplitters;
use crate::radix::{sort_positions, sort_values};
use crate::with_chunk;
use ndarray::{ArrayD, IxDyn};
use std::borrow::Cow;
use std::cmp::Ordering;
use tegula_core::memory::big_vec;
use tegula_core::{internal_err, Result};

/// The order of `(value, position)` keys.
pub(crate) fn key_order<T: SortOrder>(a: (T, i64), b: (T, i64), descending: bool) -> Ordering {
    directed(a.0.order(b.0), descending).then(a.1.cmp(&b.1))
}

/// The `buckets - 1` splitters (values, and their int64 positions) that cut the sample
/// (`values` with their `positions`, both 1-D) into `buckets` parts of equal counts.
pub fn splitters(values: &Chunk, positions: &Chunk, buckets: usize, descending: bool) -> Result<(Chunk, Chunk)> {
    let positions = in_order(positions.typed::<i64>()?)?;
    with_chunk!(values, v => pick_splitters(v, &positions, buckets, descending))
}

fn pick_splitters<T: Wrap + SortOrder>(values: &Block<T>, positions: &[i64], buckets: usize, descending: bool) -> Result<(Chunk, Chunk)> {
    let mut keys: Vec<(T, i64)> = in_order(values)?.iter().copied().zip(positions.iter().copied()).collect();
    if keys.len() != positions.len() || keys.len() < buckets {
        return Err(internal_err!("{} splitters from {} samples with {} positions", buckets.saturating_sub(1), keys.len(), positions.len()));
    }
    // Positions are distinct, so the unstable sort is deterministic.
    keys.sort_unstable_by(|&a, &b| key_order(a, b, descending));
    let picked: Vec<(T, i64)> = (1..buckets).map(|j| keys[j * keys.len() / buckets]).collect();
    let values = picked.iter().map(|k| k.0).collect();
    let positions = picked.iter().map(|k| k.1).collect();
    Ok((Wrap::wrap(vector(values)?), Chunk::Int64(vector(positions)?)))
}

/// `KernelOp::SamplePositions`: the positions (counted from `start`) of every `every`-th
/// element of the 1-D `block` in sorted order (by value, then position), from rank
/// `every / 2`: the block's stable argsort, sampled.
pub fn sample_positions(block: &Chunk, every: usize, start: usize, descending: bool) -> Result<Chunk> {
    with_chunk!(block, b => sample_typed(b, every.max(1), start, descending))
}

fn sample_typed<T: Wrap + SortOrder>(block: &Block<T>, every: usize, start: usize, descending: bool) -> Result<Chunk> {
    let values = in_order(block)?;
    let mut order: Vec<i64> = big_vec(values.len());
    order.extend((start..start + values.len()).map(|p| p as i64));
    sort_positions(&values, &mut order, descending);
    let samples = (every / 2..order.len()).step_by(every).map(|r| order[r]).collect();
    Ok(Chunk::Int64(vector(samples)?))
}

/// `KernelOp::BucketCounts`: how many elements of the 1-D `block` (whose first element is at
/// position `start`) fall in each of the buckets the splitters (sorted `values` at `positions`)
/// delimit; bucket `j` holds the keys from splitter `j - 1` (included) to splitter `j`.
pub fn bucket_counts(block: &Chunk, values: &Chunk, positions: &Chunk, start: usize, descending: bool) -> Result<Chunk> {
    let positions = in_order(positions.typed::<i64>()?)?;
    let mut counts = vec![0i64; positions.len() + 1];
    let count = |found: &[u32]| found.iter().for_each(|&j| counts[j as usize] += 1);
    with_chunk!(block, b => each_bucket(&in_order(b)?, values.typed()?, &positions, start, descending, count))?;
    Ok(Chunk::Int64(vector(counts)?))
}

/// `KernelOp::BucketPartition`: the 1-D `block`'s elements (with `arg`, their int64 positions,
/// counted from `start`) grouped by bucket as `bucket_counts` counts them, in bucket order,
/// each bucket's elements in their order in the block.
pub fn bucket_partition(block: &Chunk, values: &Chunk, positions: &Chunk, start: usize, descending: bool, arg: bool) -> Result<Chunk> {
    let positions = in_order(positions.typed::<i64>()?)?;
    with_chunk!(block, b => {
        let elements = in_order(b)?;
        let splitters = values.typed()?;
        // Bucket numbers in two bytes where they fit: half the fresh memory of four.
        if positions.len() < 1 << 16 {
            partition_by::<_, u16>(&elements, splitters, &positions, start, descending, arg)
        } else {
            partition_by::<_, u32>(&elements, splitters, &positions, start, descending, arg)
        }
    })
}

/// `bucket_partition` of `elements` with bucket numbers kept as `B`.
fn partition_by<T: Wrap + SortOrder, B: BucketNumber>(elements: &[T], splitters: &Block<T>, positions: &[i64], start: usize, descending: bool, arg: bool) -> Result<Chunk> {
    let mut buckets: Vec<B> = big_vec(elements.len());
    // Where each bucket's first element goes, counted as the buckets are found.
    let mut slots = vec![0usize; positions.len() + 2];
    each_bucket(elements, splitters, positions, start, descending, |found| {
        found.iter().for_each(|&j| slots[j as usize + 1] += 1);
        buckets.extend(found.iter().map(|&j| B::from_u32(j)));
    })?;
    (1..slots.len()).for_each(|j| slots[j] += slots[j - 1]);
    if arg {
        Ok(Chunk::Int64(vector(grouped((start as i64).., &buckets, slots))?))
    } else {
        Ok(Wrap::wrap(vector(grouped(elements.iter().copied(), &buckets, slots))?))
    }
}

/// An unsigned integer holding bucket numbers.
trait BucketNumber: Copy {
    /// `j`, which the caller knows fits.
    fn from_u32(j: u32) -> Self;
    fn index(self) -> usize;
}

impl BucketNumber for u16 {
    fn from_u32(j: u32) -> u16 {
        j as u16
    }
    fn index(self) -> usize {
        self as usize
    }
}

impl BucketNumber for u32 {
    fn from_u32(j: u32) -> u32 {
        j
    }
    fn index(self) -> usize {
        self as usize
    }
}

/// `items` (one per bucket in `buckets`) grouped by bucket, in order within each; `slots`
/// holds where each bucket's first item goes.
fn grouped<E: Copy, B: BucketNumber>(items: impl Iterator<Item = E>, buckets: &[B], mut slots: Vec<usize>) -> Vec<E> {
    let mut out: Vec<E> = big_vec(buckets.len());
    let room = &mut out.spare_capacity_mut()[..buckets.len()];
    let mut written = 0;
    for (item, &j) in items.zip(buckets) {
        room[slots[j.index()]].write(item);
        slots[j.index()] += 1;
        written += 1;
    }
    // The slots of bucket j run from the count of the buckets before it to that plus its
    // own count, so each of the `buckets.len()` places is written exactly once.
    assert_eq!(written, buckets.len(), "one item per bucket entry");
    // SAFETY: every element up to the length was written just above.
    unsafe { out.set_len(written) };
    out
}

/// The elements of the 1-D `block` in order: borrowed when it is contiguous.
fn in_order<T: Copy>(block: &Block<T>) -> Result<Cow<'_, [T]>> {
    match (block.ndim(), block.as_slice()) {
        (1, Some(elements)) => Ok(Cow::Borrowed(elements)),
        (1, None) => Ok(Cow::Owned(block.iter().copied().collect())),
        (n, _) => Err(internal_err!("a {n}-d block where a 1-d one was expected")),
    }
}

/// Calls `found` with the buckets of `elements` (the first at position `start`) among the
/// splitters (sorted `values` at `positions`), a batch at a time, in order.
fn each_bucket<T: Wrap + SortOrder>(elements: &[T], values: &Block<T>, positions: &[i64], start: usize, descending: bool, mut found: impl FnMut(&[u32])) -> Result<()> {
    let splitters: Vec<(T, i64)> = in_order(values)?.iter().copied().zip(positions.iter().copied()).collect();
    if splitters.len() != positions.len() || splitters.len() >= u32::MAX as usize {
        return Err(internal_err!("buckets by {} splitters with {} positions", splitters.len(), positions.len()));
    }
    if T::KEY_BYTES == 0 {
        let bucket = |v: T, p: i64| splitters.partition_point(|&s| key_order(s, (v, p), descending) != Ordering::Greater) as u32;
        // A batch at a time, as the keyed search hands them, not one list for the block.
        for (b, part) in elements.chunks(1 << 12).enumerate() {
            let batch: Vec<u32> = part.iter().zip((start + (b << 12)) as i64..).map(|(&v, p)| bucket(v, p)).collect();
            found(&batch);
        }
    } else {
        KeyedSplitters::new(&splitters, descending).buckets_in_batches(elements, start, descending, found);
    }
    Ok(())
}

/// `KernelOp::MergeRuns`: the runs (1-D, each sorted) merged stably in input order; with `arg`,
/// the second half of `inputs` holds the runs' positions, and the merged positions come out.
pub fn merge_runs(inputs: &[Chunk], descending: bool, arg: bool) -> Result<Chunk> {
    let runs = if arg { inputs.len() / 2 } else { inputs.len() };
    if runs == 0 || (arg && !inputs.len().is_multiple_of(2)) {
        return Err(internal_err!("merge of {} inputs (arg: {arg})", inputs.len()));
    }
    let (values, positions) = inputs.split_at(runs);
    with_chunk!(&values[0], first => {
        let values = typed_like(first, values)?;
        if arg { merge_positions(&values, positions, descending) } else { merge_values(&values, descending) }
    })
}

/// `chunks` as blocks of the element type of `_first` (the first of them).
fn typed_like<'a, T: Wrap>(_first: &Block<T>, chunks: &'a [Chunk]) -> Result<Vec<&'a Block<T>>> {
    chunks.iter().map(|c| c.typed::<T>()).collect()
}

fn merge_values<T: Wrap + SortOrder>(runs: &[&Block<T>], descending: bool) -> Result<Chunk> {
    let mut merged: Vec<T> = big_vec(runs.iter().map(|r| r.len()).sum());
    for r in runs {
        merged.extend_from_slice(&in_order(r)?);
    }
    // Runs come in block order, so a stable sort keeps equal values in position order.
    sort_values(&mut merged, descending);
    Ok(Wrap::wrap(vector(merged)?))
}

fn merge_positions<T: Wrap + SortOrder>(runs: &[&Block<T>], positions: &[Chunk], descending: bool) -> Result<Chunk> {
    let total = runs.iter().map(|r| r.len()).sum();
    let (mut values, mut at): (Vec<T>, Vec<i64>) = (big_vec(total), big_vec(total));
    for (r, p) in runs.iter().zip(positions) {
        let p = p.typed::<i64>()?;
        if p.len() != r.len() {
            return Err(internal_err!("merge of a run of {} values with {} positions", r.len(), p.len()));
        }
        values.extend_from_slice(&in_order(r)?);
        at.extend_from_slice(&in_order(p)?);
    }
    sort_positions(&values, &mut at, descending);
    Ok(Chunk::Int64(vector(at)?))
}

fn vector<T: crate::element::Elem>(data: Vec<T>) -> Result<Block<T>> {
    let n = data.len();
    Ok(ArrayD::from_shape_vec(IxDyn(&[n]), data).map_err(|e| internal_err!("vector: {e}"))?.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The positions of every `every`-th element of the stable (value, position) order.
    fn by_stable_sort(values: &[f64], every: usize, descending: bool) -> Vec<i64> {
        let mut order: Vec<usize> = (0..values.len()).collect();
        order.sort_by(|&p, &q| directed(values[p].order(values[q]), descending));
        (every / 2..values.len()).step_by(every).map(|r| order[r] as i64 + 100).collect()
    }

    #[test]
    fn samples_are_those_of_the_stable_order() {
        let values: Vec<f64> = (0..500).map(|i| [f64::NAN, -0.0, 0.0, 1.0, -2.0][(i * 7 + i / 3) % 5]).collect();
        let block = Chunk::Float64(vector(values.clone()).unwrap());
        for (every, descending) in [(1, false), (3, true), (7, false), (64, true)] {
            let got = sample_positions(&block, every, 100, descending).unwrap();
            let got: Vec<i64> = got.typed::<i64>().unwrap().iter().copied().collect();
            assert_eq!(got, by_stable_sort(&values, every, descending));
        }
    }
}
