//! NumPy's `reshape`, planned so that every task reshapes exactly one block and no block grows.
//!
//! The axes of the two shapes split into groups whose lengths have equal products (`groups`):
//! one axis to one, merges, splits, many to many, and length-one axes alone. A block of a
//! group's axes is one contiguous run of the group's row-major order exactly when it is
//! "row-major contiguous": whole along every axis after some axis `p`, one element long along
//! every axis before it (`contiguous`). When both sides' blocks are such, block for block with
//! the same runs, each output block is an input block with another shape. So each group's
//! input is rechunked, when it is not contiguous already, to whole trailing axes whose product
//! stays within the group's largest input block, part of the axis where that is exceeded, and
//! single elements before it (`contiguous_chunks`); the output side then takes the same runs.
//! A many-to-many group whose runs are not contiguous on the output side goes through one
//! axis: merged, its runs rechunked to contiguous ones of the output, then split.
//!
//! Bound: every block of every node made here holds at most as many elements as the input's
//! chunk size (the product of its largest block length along each axis), because each group's
//! blocks stay within the product of its axes' largest input block lengths.

use super::layout::rechunk;
use crate::node::{Node, NodeKind, NodeRef};
use std::ops::Range;
use tegula_core::grid::block_indices;
use tegula_core::{shape_err, value_err, Chunks, Result};

/// `x` with `shape`, NumPy's rules: one negative length is inferred, sizes must match.
pub fn reshape(x: &NodeRef, shape: &[i64]) -> Result<NodeRef> {
    reshape_to(x, &infer_shape(x.size(), shape)?)
}

fn reshape_to(x: &NodeRef, shape: &[usize]) -> Result<NodeRef> {
    if shape == x.shape() {
        return Ok(x.clone());
    }
    if x.size() == 0 {
        // No elements to arrange: one empty block on each side.
        return reshaped(&rechunk(x, Chunks::single(&x.shape()))?, Chunks::single(shape));
    }
    let groups = groups(&x.shape(), shape);
    let plans: Vec<GroupPlan> = groups.iter().map(|g| plan_group(x, shape, g)).collect();
    if plans.iter().any(|p| matches!(p, GroupPlan::ThroughOneAxis)) {
        let mut mid = Vec::new();
        for (g, p) in groups.iter().zip(&plans) {
            match p {
                GroupPlan::ThroughOneAxis => mid.push(g.input.clone().map(|a| x.shape()[a]).product()),
                GroupPlan::Direct { .. } => mid.extend(g.input.clone().map(|a| x.shape()[a])),
            }
        }
        return reshape_to(&reshape_to(x, &mid)?, shape);
    }
    let (mut input, mut output) = (Vec::new(), Vec::new());
    for p in plans {
        if let GroupPlan::Direct { input: i, output: o } = p {
            input.extend(i);
            output.extend(o);
        }
    }
    let x = rechunk(x, Chunks::new(input, &x.shape())?)?;
    reshaped(&x, Chunks::new(output, shape)?)
}

/// The reshape node of `x`, whose blocks match `chunks` one for one.
fn reshaped(x: &NodeRef, chunks: Chunks) -> Result<NodeRef> {
    Node::checked(NodeKind::Reshape, vec![x.clone()], x.dtype, chunks)
}

/// The requested shape with its unknown length filled in, or NumPy's error.
fn infer_shape(size: usize, shape: &[i64]) -> Result<Vec<usize>> {
    let unknown: Vec<usize> = (0..shape.len()).filter(|&a| shape[a] < 0).collect();
    if unknown.len() > 1 {
        return Err(value_err!("can only specify one unknown dimension"));
    }
    let mismatch = || shape_err!("cannot reshape array of size {size} into shape {}", numpy_shape(shape));
    let known = shape.iter().filter(|&&n| n >= 0).try_fold(1usize, |acc, &n| acc.checked_mul(n as usize));
    let known = known.ok_or_else(mismatch)?;
    let mut out: Vec<usize> = shape.iter().map(|&n| n.max(0) as usize).collect();
    match unknown.first() {
        Some(&a) if known > 0 && size.is_multiple_of(known) => out[a] = size / known,
        None if known == size => {}
        _ => return Err(mismatch()),
    }
    Ok(out)
}

/// A requested shape as NumPy's errors print it: unknown lengths as `newaxis`, leading ones
/// left out.
fn numpy_shape(shape: &[i64]) -> String {
    let start = shape.iter().position(|&n| n >= 0).unwrap_or(shape.len());
    let items: Vec<String> = shape[start..].iter().map(|&n| if n < 0 { "newaxis".into() } else { n.to_string() }).collect();
    match shape.len() {
        1 if start == 0 => format!("({},)", items[0]),
        _ => format!("({})", items.join(",")),
    }
}

/// Input axes and output axes holding the same elements.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Group {
    input: Range<usize>,
    output: Range<usize>,
}

/// The smallest groups (shapes of equal, nonzero size): a length-one axis on either side that
/// starts a group is a group alone; otherwise axes are added to the side with the smaller
/// product until the products match.
fn groups(input: &[usize], output: &[usize]) -> Vec<Group> {
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while i < input.len() || j < output.len() {
        let (i0, j0) = (i, j);
        if input.get(i) == Some(&1) {
            i += 1;
        } else if output.get(j) == Some(&1) {
            j += 1;
        } else {
            let (mut a, mut b) = (input[i], output[j]);
            (i, j) = (i + 1, j + 1);
            while a != b {
                if a < b {
                    a *= input[i];
                    i += 1;
                } else {
                    b *= output[j];
                    j += 1;
                }
            }
        }
        out.push(Group { input: i0..i, output: j0..j });
    }
    out
}

/// How one group is reshaped.
enum GroupPlan {
    /// Rechunk the group's input axes to `input`; the output axes get `output`, block for block.
    Direct { input: Vec<Vec<usize>>, output: Vec<Vec<usize>> },
    /// Merge the group into one axis first (a many-to-many group with no common runs).
    ThroughOneAxis,
}

fn plan_group(x: &Node, shape: &[usize], g: &Group) -> GroupPlan {
    let in_dims: Vec<usize> = g.input.clone().map(|a| x.shape()[a]).collect();
    let out_dims = &shape[g.output.clone()];
    let current = &x.chunks.sizes()[g.input.clone()];
    if g.input.len() + g.output.len() == 1 {
        // A length-one axis alone: one block.
        let whole = |dims: &[usize]| dims.iter().map(|&n| vec![n]).collect();
        return GroupPlan::Direct { input: whole(&in_dims), output: whole(out_dims) };
    }
    if g.input.len() == 1 && g.output.len() == 1 {
        // One axis to one of the same length keeps its chunks.
        return GroupPlan::Direct { input: current.to_vec(), output: current.to_vec() };
    }
    let max = x.chunks.max_block_shape();
    let target: usize = g.input.clone().map(|a| max[a]).product();
    let input = if contiguous(current) { current.to_vec() } else { contiguous_chunks(&in_dims, target) };
    if let Some(output) = chunks_of_runs(out_dims, &runs(&input)) {
        return GroupPlan::Direct { input, output };
    }
    if in_dims.len() > 1 {
        return GroupPlan::ThroughOneAxis;
    }
    // A split: its one input axis takes the runs of contiguous output blocks.
    let output = contiguous_chunks(out_dims, target);
    GroupPlan::Direct { input: vec![runs(&output)], output }
}

/// Whether every block of this chunking of a group's axes is one row-major run: each axis
/// after the first one not cut into single elements is one block (and no block is empty).
fn contiguous(sizes: &[Vec<usize>]) -> bool {
    let singles = sizes.iter().take_while(|s| s.iter().all(|&n| n == 1)).count();
    sizes.iter().flatten().all(|&n| n > 0) && sizes.iter().skip(singles + 1).all(|s| s.len() == 1)
}

/// Row-major contiguous chunks of `dims` whose blocks hold at most `target` elements: whole
/// trailing axes while their product fits, the next axis cut into even parts (each at most
/// `target` over that product; even rather than regular, so no row ends in a sliver), single
/// elements before it.
fn contiguous_chunks(dims: &[usize], target: usize) -> Vec<Vec<usize>> {
    let (mut inner, mut cut) = (1usize, false);
    let mut out: Vec<Vec<usize>> = dims
        .iter()
        .rev()
        .map(|&n| {
            if cut {
                vec![1; n]
            } else if inner * n <= target {
                inner *= n;
                vec![n]
            } else {
                cut = true;
                even_parts(n, (target / inner).max(1))
            }
        })
        .collect();
    out.reverse();
    out
}

/// `n` cut into as few parts of at most `most` as possible, their lengths differing by at most one.
fn even_parts(n: usize, most: usize) -> Vec<usize> {
    let count = n.div_ceil(most);
    (0..count).map(|i| n / count + usize::from(i < n % count)).collect()
}

/// The run lengths of a contiguous chunking's blocks, in row-major block order (which is the
/// order of the runs).
fn runs(sizes: &[Vec<usize>]) -> Vec<usize> {
    let numblocks: Vec<usize> = sizes.iter().map(|s| s.len()).collect();
    block_indices(&numblocks).map(|idx| idx.iter().zip(sizes).map(|(&b, s)| s[b]).product()).collect()
}

/// The contiguous chunking of `dims` whose blocks are exactly `runs`, if there is one: for
/// some axis `p`, every run a multiple of the product after `p`, the runs of each row of `p`
/// cutting it the same way.
fn chunks_of_runs(dims: &[usize], runs: &[usize]) -> Option<Vec<Vec<usize>>> {
    (0..dims.len()).find_map(|p| {
        let inner: usize = dims[p + 1..].iter().product();
        let rows: usize = dims[..p].iter().product();
        if runs.iter().any(|&r| r == 0 || !r.is_multiple_of(inner)) || !runs.len().is_multiple_of(rows) {
            return None;
        }
        let row: Vec<usize> = runs[..runs.len() / rows].iter().map(|&r| r / inner).collect();
        let same = runs.chunks(row.len()).all(|c| c.iter().zip(&row).all(|(&r, &n)| r == n * inner));
        if !same || row.iter().sum::<usize>() != dims[p] {
            return None;
        }
        let mut out: Vec<Vec<usize>> = dims[..p].iter().map(|&n| vec![1; n]).collect();
        out.push(row);
        out.extend(dims[p + 1..].iter().map(|&n| vec![n]));
        Some(out)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_match_products() {
        let g = |a: &[usize], b: &[usize]| groups(a, b).into_iter().map(|g| (g.input, g.output)).collect::<Vec<_>>();
        assert_eq!(g(&[2, 3, 4], &[6, 4]), vec![(0..2, 0..1), (2..3, 1..2)]);
        assert_eq!(g(&[6, 4], &[4, 6]), vec![(0..2, 0..2)]);
        assert_eq!(g(&[1, 6], &[2, 1, 3]), vec![(0..1, 0..0), (1..2, 0..3)]);
        assert_eq!(g(&[], &[1, 1]), vec![(0..0, 0..1), (0..0, 1..2)]);
    }

    #[test]
    fn contiguous_chunks_fill_the_target() {
        assert_eq!(contiguous_chunks(&[6, 4], 12), vec![vec![3, 3], vec![4]]);
        assert_eq!(contiguous_chunks(&[5, 10], 9), vec![vec![1; 5], vec![5, 5]]);
        assert_eq!(contiguous_chunks(&[2, 3], 100), vec![vec![2], vec![3]]);
        assert!(contiguous(&[vec![1, 1], vec![2, 1], vec![4]]));
        assert!(!contiguous(&[vec![2], vec![2, 2]]));
    }

    #[test]
    fn runs_round_trip() {
        let c = contiguous_chunks(&[4, 3, 5], 7);
        assert_eq!(chunks_of_runs(&[4, 3, 5], &runs(&c)), Some(c));
        assert_eq!(chunks_of_runs(&[4, 6], &[6; 4]), Some(vec![vec![1; 4], vec![6]]));
        assert_eq!(chunks_of_runs(&[4, 6], &[4; 6]), None);
        assert_eq!(chunks_of_runs(&[4, 6], &[12, 12]), Some(vec![vec![2, 2], vec![6]]));
    }

    #[test]
    fn numpy_messages() {
        assert_eq!(numpy_shape(&[4]), "(4,)");
        assert_eq!(numpy_shape(&[4, -1]), "(4,newaxis)");
        assert_eq!(numpy_shape(&[-1, 4]), "(4)");
        assert_eq!(numpy_shape(&[-1]), "()");
    }
}
