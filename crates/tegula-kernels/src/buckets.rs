//! Kernels of the sample sort of an axis longer than one block (planned in the plan crate's
//! `lower/sample_sort.rs`): the splitters cutting a sample into equal buckets, how many elements
//! of a block fall in each bucket, and the merge of a bucket's sorted runs. Elements compare by
//! value (NumPy's order, reversed when descending), then by position: every element is
//! distinct, so buckets stay balanced even when all values are equal, and a stably sorted
//! block holds each bucket's elements as one contiguous run.

use crate::chunk::{Block, Chunk, Wrap};
use crate::order::SortOrder;
use crate::sort::directed;
use crate::with_chunk;
use ndarray::{ArrayD, IxDyn};
use std::cmp::Ordering;
use tegula_core::memory::big_vec;
use tegula_core::{internal_err, Result};

/// The order of `(value, position)` keys.
fn key_order<T: SortOrder>(a: (T, i64), b: (T, i64), descending: bool) -> Ordering {
    directed(a.0.order(b.0), descending).then(a.1.cmp(&b.1))
}

/// The `buckets - 1` splitters (values, and their int64 positions) that cut the sample
/// (`values` with their `positions`, both 1-D) into `buckets` parts of equal counts.
pub fn splitters(values: &Chunk, positions: &Chunk, buckets: usize, descending: bool) -> Result<(Chunk, Chunk)> {
    let positions = one_d(positions.typed::<i64>()?)?;
    with_chunk!(values, v => pick_splitters(v, &positions, buckets, descending))
}

fn pick_splitters<T: Wrap + SortOrder>(values: &Block<T>, positions: &[i64], buckets: usize, descending: bool) -> Result<(Chunk, Chunk)> {
    let mut keys: Vec<(T, i64)> = one_d(values)?.into_iter().zip(positions.iter().copied()).collect();
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
/// `every / 2`. The values are sorted unstably (no scratch memory; equal values are found
/// again below): the sample of rank `r` is the `r - first`-th occurrence, in the block's
/// order, of the value whose equals start at rank `first`.
pub fn sample_positions(block: &Chunk, every: usize, start: usize, descending: bool) -> Result<Chunk> {
    with_chunk!(block, b => sample_typed(b, every.max(1), start, descending))
}

fn sample_typed<T: Wrap + SortOrder>(block: &Block<T>, every: usize, start: usize, descending: bool) -> Result<Chunk> {
    let mut sorted = one_d(block)?;
    let order = |p: &T, q: &T| directed(p.order(*q), descending);
    sorted.sort_unstable_by(order);
    // Distinct sampled values, each with the occurrences wanted (ascending) and their samples.
    let mut wanted: Vec<(T, Vec<(usize, usize)>)> = Vec::new();
    for (i, r) in (every / 2..sorted.len()).step_by(every).enumerate() {
        let v = sorted[r];
        let first = sorted.partition_point(|x| order(x, &v) == Ordering::Less);
        match wanted.last_mut() {
            Some((w, occurrences)) if order(w, &v) == Ordering::Equal => occurrences.push((r - first, i)),
            _ => wanted.push((v, vec![(r - first, i)])),
        }
    }
    let samples = wanted.iter().map(|w| w.1.len()).sum();
    let mut positions = vec![0i64; samples];
    let (mut seen, mut next) = (vec![0usize; wanted.len()], vec![0usize; wanted.len()]);
    for (p, x) in block.iter().enumerate() {
        if let Ok(d) = wanted.binary_search_by(|w| order(&w.0, x)) {
            if let Some(&(occurrence, sample)) = wanted[d].1.get(next[d]) {
                if occurrence == seen[d] {
                    positions[sample] = (start + p) as i64;
                    next[d] += 1;
                }
            }
            seen[d] += 1;
        }
    }
    Ok(Chunk::Int64(vector(positions)?))
}

/// `KernelOp::BucketCounts`: how many elements of the 1-D `block` (whose first element is at
/// position `start`) fall in each of the buckets the splitters (sorted `values` at `positions`)
/// delimit; bucket `j` holds the keys from splitter `j - 1` (included) to splitter `j`.
pub fn bucket_counts(block: &Chunk, values: &Chunk, positions: &Chunk, start: usize, descending: bool) -> Result<Chunk> {
    let positions = one_d(positions.typed::<i64>()?)?;
    with_chunk!(block, b => count_buckets(b, values.typed()?, &positions, start, descending))
}

fn count_buckets<T: Wrap + SortOrder>(block: &Block<T>, values: &Block<T>, positions: &[i64], start: usize, descending: bool) -> Result<Chunk> {
    let splitters: Vec<(T, i64)> = one_d(values)?.into_iter().zip(positions.iter().copied()).collect();
    if splitters.len() != positions.len() || block.ndim() != 1 {
        return Err(internal_err!("bucket counts of a {}-d block by {} splitters", block.ndim(), positions.len()));
    }
    let mut counts = vec![0i64; splitters.len() + 1];
    for (i, &v) in block.iter().enumerate() {
        let key = (v, (start + i) as i64);
        counts[splitters.partition_point(|&s| key_order(s, key, descending) != Ordering::Greater)] += 1;
    }
    Ok(Chunk::Int64(vector(counts)?))
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
    runs.iter().for_each(|r| merged.extend(r.iter().copied()));
    // The stable sort finds the sorted runs and merges them.
    merged.sort_by(|p, q| directed(p.order(*q), descending));
    Ok(Wrap::wrap(vector(merged)?))
}

fn merge_positions<T: Wrap + SortOrder>(runs: &[&Block<T>], positions: &[Chunk], descending: bool) -> Result<Chunk> {
    let mut merged: Vec<(T, i64)> = big_vec(runs.iter().map(|r| r.len()).sum());
    for (r, p) in runs.iter().zip(positions) {
        let p = p.typed::<i64>()?;
        if p.len() != r.len() {
            return Err(internal_err!("merge of a run of {} values with {} positions", r.len(), p.len()));
        }
        merged.extend(r.iter().copied().zip(p.iter().copied()));
    }
    merged.sort_by(|a, b| directed(a.0.order(b.0), descending));
    Ok(Chunk::Int64(vector(merged.into_iter().map(|k| k.1).collect())?))
}

/// A 1-D block's elements in order.
fn one_d<T: Copy>(block: &Block<T>) -> Result<Vec<T>> {
    match block.ndim() {
        1 => Ok(block.iter().copied().collect()),
        n => Err(internal_err!("a {n}-d block where a 1-d one was expected")),
    }
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
