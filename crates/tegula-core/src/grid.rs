//! Grid math over a chunking: block numbering, block offsets, and how the blocks of one
//! chunking of an axis intersect the blocks of another.

use std::ops::Range;

/// Start offsets of the blocks along one axis (`[0, s0, s0+s1, ...]`, without the total).
pub fn offsets(sizes: &[usize]) -> Vec<usize> {
    sizes
        .iter()
        .scan(0, |acc, &s| {
            let start = *acc;
            *acc += s;
            Some(start)
        })
        .collect()
}

/// The element range of every block along one axis.
pub fn block_ranges(sizes: &[usize]) -> Vec<Range<usize>> {
    offsets(sizes).into_iter().zip(sizes).map(|(o, &s)| o..o + s).collect()
}

/// Row-major flat number of a block.
pub fn ravel(index: &[usize], numblocks: &[usize]) -> usize {
    index.iter().zip(numblocks).fold(0, |acc, (&i, &n)| acc * n + i)
}

/// Inverse of `ravel`.
pub fn unravel(mut flat: usize, numblocks: &[usize]) -> Vec<usize> {
    let mut out = vec![0; numblocks.len()];
    for (slot, &n) in out.iter_mut().zip(numblocks).rev() {
        *slot = flat % n.max(1);
        flat /= n.max(1);
    }
    out
}

/// Every block index of a grid in row-major order.
pub fn block_indices(numblocks: &[usize]) -> impl Iterator<Item = Vec<usize>> + '_ {
    let total: usize = numblocks.iter().product();
    (0..total).map(move |f| unravel(f, numblocks))
}

/// Calls `f` with every block index of the grid in row-major order, reusing one buffer (for
/// plans of millions of blocks, where `block_indices`' allocation per block shows).
pub fn for_each_block(numblocks: &[usize], mut f: impl FnMut(&[usize])) {
    if numblocks.contains(&0) {
        return;
    }
    let mut idx = vec![0; numblocks.len()];
    loop {
        f(&idx);
        // Advance the last axis, carrying into earlier ones.
        let mut axis = numblocks.len();
        loop {
            if axis == 0 {
                return;
            }
            axis -= 1;
            idx[axis] += 1;
            if idx[axis] < numblocks[axis] {
                break;
            }
            idx[axis] = 0;
        }
    }
}

/// `for_each_block` with a fallible `f`: stops at, and returns, the first error.
pub fn try_for_each_block<E>(numblocks: &[usize], mut f: impl FnMut(&[usize]) -> Result<(), E>) -> Result<(), E> {
    let mut result = Ok(());
    for_each_block(numblocks, |idx| {
        if result.is_ok() {
            result = f(idx);
        }
    });
    result
}

/// The block that holds element `index` along an axis, and the index inside that block.
pub fn locate(sizes: &[usize], index: usize) -> (usize, usize) {
    let mut start = 0;
    for (b, &s) in sizes.iter().enumerate() {
        if index < start + s {
            return (b, index - start);
        }
        start += s;
    }
    (sizes.len() - 1, index - start)
}

/// The coarsest chunking whose block boundaries include those of both `a` and `b`
/// (which must cover the same length).
pub fn common_refinement(a: &[usize], b: &[usize]) -> Vec<usize> {
    let mut cuts: Vec<usize> = offsets(a).into_iter().chain(offsets(b)).collect();
    let total: usize = a.iter().sum();
    cuts.push(total);
    cuts.sort_unstable();
    cuts.dedup();
    let sizes: Vec<usize> = cuts.windows(2).map(|w| w[1] - w[0]).collect();
    if sizes.is_empty() {
        vec![total]
    } else {
        sizes
    }
}

/// One piece of an intersection: block `block` of the old chunking, elements `local` inside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Overlap {
    /// The old block's number along the axis.
    pub block: usize,
    /// The elements inside that block, from its start.
    pub local: Range<usize>,
}

/// For every block of `new`, the pieces of `old` blocks it is made of, in order.
/// Empty blocks of `new` take an empty piece of the old block at their position.
pub fn intersect(old: &[usize], new: &[usize]) -> Vec<Vec<Overlap>> {
    let old_ranges = block_ranges(old);
    block_ranges(new)
        .into_iter()
        .map(|r| {
            if r.is_empty() {
                let (block, local) = locate(old, r.start.min(old.iter().sum::<usize>().saturating_sub(1)));
                let local = if old[block] == 0 { 0 } else { local.min(old[block]) };
                return vec![Overlap { block, local: local..local }];
            }
            old_ranges
                .iter()
                .enumerate()
                .filter(|(_, o)| o.start < r.end && r.start < o.end)
                .map(|(block, o)| Overlap {
                    block,
                    local: r.start.max(o.start) - o.start..r.end.min(o.end) - o.start,
                })
                .collect()
        })
        .collect()
}

/// Calls `f(offset_in_elements_of_array, offset_in_elements_of_region, len)` for each
/// contiguous run of `region` (a `(start, stop)` per axis, inside the array) in a row-major
/// array of `shape`, in row-major order.
pub fn for_each_run<E>(shape: &[usize], region: &[(usize, usize)], mut f: impl FnMut(usize, usize, usize) -> Result<(), E>) -> Result<(), E> {
    let n = shape.len();
    // Axes from `inner` on are read whole; the run is along axis `inner - 1` (or everything).
    let mut inner = n;
    while inner > 0 && region[inner - 1] == (0, shape[inner - 1]) {
        inner -= 1;
    }
    let tail: usize = shape[inner..].iter().product();
    let (run_axis, run) = if inner == 0 { (None, tail) } else { (Some(inner - 1), (region[inner - 1].1 - region[inner - 1].0) * tail) };
    if region.iter().any(|(a, b)| a == b) {
        return Ok(());
    }
    let outer = run_axis.unwrap_or(0);
    let mut idx: Vec<usize> = region[..outer].iter().map(|r| r.0).collect();
    let mut done = 0;
    loop {
        let mut offset = 0;
        for a in 0..n {
            let i = if a < outer { idx[a] } else { region[a].0 };
            offset = offset * shape[a] + i;
        }
        f(offset, done, run)?;
        done += run;
        // Next index of the outer axes, last axis fastest.
        let mut a = outer;
        loop {
            if a == 0 {
                return Ok(());
            }
            a -= 1;
            idx[a] += 1;
            if idx[a] < region[a].1 {
                break;
            }
            idx[a] = region[a].0;
        }
    }
}
