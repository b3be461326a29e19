//! Order statistics without a sort: the elements a lane would hold at given positions once
//! sorted in NumPy's order (NaN last), found by selection (`select_nth_unstable`, linear in
//! the lane's length) — what quantiles and medians read of a sorted lane.

use crate::chunk::{Block, Chunk, Wrap};
use crate::element::Elem;
use crate::order::SortOrder;
use crate::with_chunk;
use ndarray::{ArrayD, ArrayView1, ArrayViewMut1, Axis, IxDyn};
use rayon::prelude::*;
use tegula_core::{index_err, internal_err, Result};

/// Lanes copied and selected together: adjacent in memory when the lane axis is not, so each
/// row of a group's copy reads whole cache lines...
const GROUP: usize = 16;
/// ...while the group's copy stays within this (a longer lane is copied alone).
const GROUP_BYTES: usize = 1 << 20;

/// `KernelOp::SortedTake`: element `[.., j, ..]` of the result is the element of `a`'s lane
/// through it (along `axis`) at position `idx[.., j, ..]` of that lane sorted in NumPy's
/// order. `idx` (int64) has `a`'s ndim; along the other axes `a`'s length or one (the same
/// positions for every lane); every position is in `[0, n)`, `n` the lanes' length.
pub fn sorted_take(a: &Chunk, idx: &Chunk, axis: usize, n: usize) -> Result<Chunk> {
    let idx = idx.typed::<i64>()?;
    let (shape, ishape) = (a.shape(), idx.shape());
    let fits = axis < shape.len()
        && shape[axis] == n
        && ishape.len() == shape.len()
        && (0..shape.len()).all(|d| d == axis || ishape[d] == shape[d] || ishape[d] == 1);
    if !fits {
        return Err(internal_err!("sorted take along axis {axis} of {shape:?} at positions {ishape:?}"));
    }
    with_chunk!(a, x => take_typed(x, idx, axis).map(Wrap::wrap))
}

fn take_typed<T: Elem + SortOrder>(a: &Block<T>, idx: &Block<i64>, axis: usize) -> Result<Block<T>> {
    let n = a.len_of(Axis(axis));
    let k = idx.len_of(Axis(axis));
    // Lanes last, the other axis nearest in memory just before them, so neighbouring lanes
    // are neighbours in memory.
    let perm = lane_order(a, axis);
    let lanes = a.view().permuted_axes(IxDyn(&perm));
    let mut out_shape = lanes.shape().to_vec();
    *out_shape.last_mut().expect("a lane axis") = k;
    let positions = idx.view().permuted_axes(IxDyn(&perm));
    let positions = positions.broadcast(IxDyn(&out_shape)).ok_or_else(|| internal_err!("sorted take positions {:?} for {out_shape:?}", idx.shape()))?;
    let mut out = ArrayD::from_elem(IxDyn(&out_shape), T::from_bool(false));
    let last = Axis(out_shape.len() - 1);
    let src: Vec<ArrayView1<T>> = lanes.lanes(last).into_iter().collect();
    let at: Vec<ArrayView1<i64>> = positions.lanes(last).into_iter().collect();
    let mut dst: Vec<ArrayViewMut1<T>> = out.lanes_mut(last).into_iter().collect();
    let group = (GROUP_BYTES / (n * std::mem::size_of::<T>()).max(1)).clamp(1, GROUP);
    dst.par_chunks_mut(group)
        .zip(src.par_chunks(group))
        .zip(at.par_chunks(group))
        .try_for_each_init(Scratch::default, |scratch, ((dst, src), at)| select_group(src, at, dst, n, axis, scratch))?;
    // The result's axes back in `a`'s order.
    let mut back = vec![0; perm.len()];
    for (i, &p) in perm.iter().enumerate() {
        back[p] = i;
    }
    Ok(out.permuted_axes(IxDyn(&back)).as_standard_layout().into_owned().into())
}

/// The axes of `a` in the order lanes are visited: the others by decreasing stride, then
/// `axis`.
fn lane_order<T>(a: &Block<T>, axis: usize) -> Vec<usize> {
    let strides = a.strides();
    let mut others: Vec<usize> = (0..a.ndim()).filter(|&d| d != axis).collect();
    others.sort_by_key(|&d| std::cmp::Reverse(strides[d].unsigned_abs()));
    others.push(axis);
    others
}

/// What a thread reuses from one group of lanes to the next: the group's lanes, copied, and
/// a lane's positions in increasing order.
struct Scratch<T> {
    lanes: Vec<T>,
    wanted: Vec<(usize, usize)>,
}

impl<T> Default for Scratch<T> {
    fn default() -> Self {
        Scratch { lanes: Vec::new(), wanted: Vec::new() }
    }
}

/// One group of lanes: copied together into the scratch, each then selected at its positions.
fn select_group<T: Elem + SortOrder>(
    src: &[ArrayView1<T>],
    at: &[ArrayView1<i64>],
    dst: &mut [ArrayViewMut1<T>],
    n: usize,
    axis: usize,
    scratch: &mut Scratch<T>,
) -> Result<()> {
    let lanes = &mut scratch.lanes;
    lanes.clear();
    lanes.resize(src.len() * n, T::from_bool(false));
    let mut readers: Vec<_> = src.iter().map(|lane| lane.iter()).collect();
    for t in 0..n {
        for (j, reader) in readers.iter_mut().enumerate() {
            lanes[j * n + t] = *reader.next().expect("a lane of n elements");
        }
    }
    for ((lane, at), dst) in lanes.chunks_mut(n.max(1)).zip(at).zip(dst) {
        select_lane(lane, at, dst, axis, &mut scratch.wanted)?;
    }
    Ok(())
}

/// `dst[j]` = the element at position `at[j]` of `lane` sorted; `lane` is reordered. Positions
/// are visited in increasing order (sorted in `wanted`), each selected among the elements
/// after the one before.
fn select_lane<T: SortOrder>(lane: &mut [T], at: &ArrayView1<i64>, dst: &mut ArrayViewMut1<T>, axis: usize, wanted: &mut Vec<(usize, usize)>) -> Result<()> {
    let n = lane.len();
    wanted.clear();
    for (slot, &p) in at.iter().enumerate() {
        if p < 0 || p as u64 >= n as u64 {
            return Err(index_err!("index {p} is out of bounds for axis {axis} with size {n}"));
        }
        wanted.push((p as usize, slot));
    }
    wanted.sort_unstable();
    let mut settled = 0;
    for &(p, slot) in wanted.iter() {
        if p >= settled {
            lane[settled..].select_nth_unstable_by(p - settled, |x, y| x.order(*y));
            settled = p + 1;
        }
        dst[slot] = lane[p];
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::Chunk;
    use ndarray::{ArrayD, IxDyn};

    fn sorted_lane(v: &[f64]) -> Vec<f64> {
        let mut s = v.to_vec();
        s.sort_by(|a, b| a.order(*b));
        s
    }

    #[test]
    fn matches_a_sort_on_every_axis_and_layout() {
        let data: Vec<f64> = (0..4 * 5 * 6).map(|i| ((i * 37 % 23) as f64) - 7.0).map(|v| if v == 3.0 { f64::NAN } else { v }).collect();
        let a = ArrayD::from_shape_vec(IxDyn(&[4, 5, 6]), data).unwrap();
        // The same values as a row-major block and as the transposed view of one.
        let reversed = a.view().reversed_axes().as_standard_layout().into_owned();
        let cases = [(Block::from(a.clone()), a.view()), (Block::from(reversed).map_view(|v| v.reversed_axes()), a.view())];
        for (block, logical) in cases {
            for axis in 0..3 {
                let n = a.shape()[axis];
                let mut ishape = vec![1; 3];
                ishape[axis] = 3;
                let idx = ArrayD::from_shape_vec(IxDyn(&ishape), vec![n as i64 - 1, 0, (n / 2) as i64]).unwrap();
                let got = sorted_take(&Chunk::Float64(block.clone()), &Chunk::Int64(idx.into()), axis, n).unwrap();
                let got = got.typed::<f64>().unwrap();
                for (lane, out) in logical.lanes(Axis(axis)).into_iter().zip(got.lanes(Axis(axis))) {
                    let s = sorted_lane(&lane.to_vec());
                    for (j, &p) in [n - 1, 0, n / 2].iter().enumerate() {
                        assert!(s[p] == out[j] || (s[p].is_nan() && out[j].is_nan()), "axis {axis}: {s:?} at {p}: {}", out[j]);
                    }
                }
            }
        }
    }

    #[test]
    fn a_position_outside_the_lane_is_an_index_error() {
        let a = Chunk::Float32(ArrayD::from_elem(IxDyn(&[2, 3]), 1.0f32).into());
        let idx = Chunk::Int64(ArrayD::from_elem(IxDyn(&[1, 1]), 3i64).into());
        assert!(matches!(sorted_take(&a, &idx, 1, 3), Err(tegula_core::TegulaError::Index(_))));
    }
}
