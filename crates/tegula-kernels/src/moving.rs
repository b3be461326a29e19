//! Reductions over every window of consecutive elements along an axis, and the windows
//! themselves (NumPy's `sliding_window_view`). A task's windows run over consecutive input
//! blocks along the axis, read where they lie: no block is joined to make them.

use crate::chunk::{Block, Chunk, Wrap};
use crate::element::{Num, Ordered};
use crate::with_chunk;
use ndarray::{Array, ArrayViewD, Axis, Slice};
use tegula_core::{internal_err, MovingOp, Result};

/// Where a task's windows lie: `count` windows of `width` along `axis`, the first starting at
/// element `start` of the first input.
#[derive(Debug, Clone, Copy)]
pub struct Span {
    /// The axis the windows run along.
    pub axis: usize,
    /// The number of elements in each window.
    pub width: usize,
    /// Where the first window starts in the first input.
    pub start: usize,
    /// The number of windows.
    pub count: usize,
}

/// `op` over every window of the span.
pub fn moving(op: MovingOp, span: Span, inputs: &[Chunk]) -> Result<Chunk> {
    let first = inputs.first().ok_or_else(|| internal_err!("a moving reduction without inputs"))?;
    with_chunk!(first, proto => {
        let parts = parts(proto, inputs, span)?;
        Ok(match op {
            MovingOp::Sum => folded(&parts, span, Num::add),
            MovingOp::Prod => folded(&parts, span, Num::mul),
            MovingOp::Min => folded(&parts, span, Ordered::min_nan),
            MovingOp::Max => folded(&parts, span, Ordered::max_nan),
        })
    })
}

/// Every window of the span, as a new last axis.
pub fn windows(span: Span, inputs: &[Chunk]) -> Result<Chunk> {
    let first = inputs.first().ok_or_else(|| internal_err!("sliding windows without inputs"))?;
    with_chunk!(first, proto => Ok(stacked(&parts(proto, inputs, span)?, span)))
}

/// The views of the inputs the span's windows read, in order along the axis.
fn parts<'a, T: Wrap>(_proto: &Block<T>, inputs: &'a [Chunk], span: Span) -> Result<Vec<ArrayViewD<'a, T>>> {
    let (mut skip, mut left) = (span.start, span.count + span.width - 1);
    let mut out = Vec::new();
    for input in inputs {
        let block = input.typed::<T>()?;
        let n = *block.shape().get(span.axis).ok_or_else(|| internal_err!("windows along axis {} of a {}-d block", span.axis, block.ndim()))?;
        let (from, take) = (skip.min(n), (n - skip.min(n)).min(left));
        skip -= from;
        left -= take;
        if take > 0 || out.is_empty() {
            out.push(block.slice_axis(Axis(span.axis), Slice::from(from..from + take)));
        }
    }
    if left > 0 || span.width == 0 {
        return Err(internal_err!("{} windows of {} from element {} of blocks too short", span.count, span.width, span.start));
    }
    Ok(out)
}

/// Each window folded by `f` from its first element on, in order (as NumPy reduces the windows
/// of a strided view). When the axis has contiguous elements after it, one result row at a
/// time, reading the window's rows where they lie (they stay in cache from one result row to
/// the next); otherwise shifted copies of the joined parts.
fn folded<T: Num + Ordered + Wrap>(parts: &[ArrayViewD<T>], span: Span, f: impl Fn(T, T) -> T) -> Chunk {
    let Span { axis, width, count, .. } = span;
    let row: usize = parts[0].shape()[axis + 1..].iter().product();
    if row < 16 {
        let joined = ndarray::concatenate(Axis(axis), parts).expect("parts of one array's blocks");
        let shifted = |k: usize| joined.slice_axis(Axis(axis), Slice::from(k..k + count));
        let mut out = shifted(0).to_owned();
        for k in 1..width {
            out.zip_mut_with(&shifted(k), |o, &v| *o = f(*o, v));
        }
        return T::wrap(out.into());
    }
    let rows: Vec<_> = parts.iter().flat_map(|p| p.axis_iter(Axis(axis))).collect();
    let mut shape = parts[0].shape().to_vec();
    shape[axis] = count;
    let mut out = Array::from_elem(shape, T::zero());
    for (j, mut acc) in out.axis_iter_mut(Axis(axis)).enumerate() {
        acc.assign(&rows[j]);
        for r in &rows[j + 1..j + width] {
            acc.zip_mut_with(r, |o, &v| *o = f(*o, v));
        }
    }
    T::wrap(out.into())
}

/// The shifted windows stacked along a new first axis (whole contiguous copies), that axis
/// then moved last as a view.
fn stacked<T: Wrap>(parts: &[ArrayViewD<T>], span: Span) -> Chunk {
    let Span { axis, width, count, .. } = span;
    let joined = ndarray::concatenate(Axis(axis), parts).expect("parts of one array's blocks");
    let views: Vec<_> = (0..width).map(|k| joined.slice_axis(Axis(axis), Slice::from(k..k + count))).collect();
    let out = ndarray::stack(Axis(0), &views).expect("slices of one block have one shape");
    let perm: Vec<usize> = (1..out.ndim()).chain([0]).collect();
    T::wrap(out.permuted_axes(perm).into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{ArrayD, IxDyn};

    fn block(shape: &[usize], v: Vec<f64>) -> Chunk {
        Chunk::Float64(ArrayD::from_shape_vec(IxDyn(shape), v).unwrap().into())
    }

    fn values(c: &Chunk) -> Vec<f64> {
        c.typed::<f64>().unwrap().iter().copied().collect()
    }

    fn span(axis: usize, width: usize, start: usize, count: usize) -> Span {
        Span { axis, width, start, count }
    }

    #[test]
    fn sums_each_window_along_either_axis() {
        // Rows of 16, so the first axis takes the row-by-row path and the second the shifted one.
        let v: Vec<f64> = (0..48).map(f64::from).collect();
        let a = block(&[3, 16], v.clone());
        let down = moving(MovingOp::Sum, span(0, 2, 0, 2), std::slice::from_ref(&a)).unwrap();
        assert_eq!(down.shape(), &[2, 16]);
        assert_eq!(values(&down), (0..32).map(|i| v[i] + v[i + 16]).collect::<Vec<_>>());
        let across = moving(MovingOp::Sum, span(1, 3, 0, 14), &[a]).unwrap();
        assert_eq!(across.shape(), &[3, 14]);
        let expect: Vec<f64> = (0..3).flat_map(|r| (0..14).map(move |c| (r * 16 + c) as f64 * 3.0 + 3.0)).collect();
        assert_eq!(values(&across), expect);
    }

    #[test]
    fn windows_run_across_blocks_from_their_start() {
        // 1..=7 in blocks of 3, 1 and 3; windows of 3 starting at the second element.
        let parts = [block(&[3], vec![1.0, 2.0, 3.0]), block(&[1], vec![4.0]), block(&[3], vec![5.0, 6.0, 7.0])];
        let sums = moving(MovingOp::Sum, span(0, 3, 1, 4), &parts).unwrap();
        assert_eq!(values(&sums), vec![9.0, 12.0, 15.0, 18.0]);
        let w = windows(span(0, 3, 1, 2), &parts).unwrap();
        assert_eq!(w.shape(), &[2, 3]);
        assert_eq!(values(&w), vec![2.0, 3.0, 4.0, 3.0, 4.0, 5.0]);
    }

    #[test]
    fn extremes_propagate_nan() {
        let a = block(&[5], vec![1.0, f64::NAN, 3.0, 0.0, 2.0]);
        let max = values(&moving(MovingOp::Max, span(0, 2, 0, 4), std::slice::from_ref(&a)).unwrap());
        assert!(max[0].is_nan() && max[1].is_nan());
        assert_eq!(&max[2..], &[3.0, 2.0]);
        assert_eq!(values(&moving(MovingOp::Min, span(0, 3, 2, 1), &[a]).unwrap()), vec![0.0]);
    }

    #[test]
    fn blocks_too_short_for_the_windows_are_an_error() {
        let a = block(&[2], vec![1.0, 2.0]);
        assert!(moving(MovingOp::Sum, span(0, 3, 0, 1), std::slice::from_ref(&a)).is_err());
        assert!(windows(span(1, 1, 0, 1), std::slice::from_ref(&a)).is_err());
        assert!(windows(span(0, 0, 0, 1), &[a]).is_err());
    }
}
