//! Nodes that rearrange elements: transpose, basic indexing, rechunk.

use crate::node::{IndexAxis, Node, NodeKind, NodeRef, Window};
use tegula_core::shape::fmt_shape;
use tegula_core::grid::{locate, offsets};
use tegula_core::shape::normalize_axis;
use tegula_core::{index_err, value_err, Chunks, Result};

/// Permutes the axes (`None` reverses them, as `.T`).
pub fn transpose(x: &NodeRef, axes: Option<&[i64]>) -> Result<NodeRef> {
    let nd = x.ndim();
    let perm: Vec<usize> = match axes {
        None => (0..nd).rev().collect(),
        Some(axes) => {
            if axes.len() != nd {
                return Err(value_err!("axes don't match array"));
            }
            let perm = axes.iter().map(|&a| normalize_axis(a, nd)).collect::<Result<Vec<_>>>()?;
            let mut seen = vec![false; nd];
            if perm.iter().any(|&p| std::mem::replace(&mut seen[p], true)) {
                return Err(value_err!("repeated axis in transpose"));
            }
            perm
        }
    };
    permuted(x, perm)
}

/// `x` with axis `i` its axis `perm[i]`; a transpose of a transpose is one transpose of the
/// first one's input (none when they cancel: xarray moves axes out and back).
fn permuted(x: &NodeRef, perm: Vec<usize>) -> Result<NodeRef> {
    if perm.iter().enumerate().all(|(i, &p)| i == p) {
        return Ok(x.clone());
    }
    if let NodeKind::Transpose { perm: inner } = &x.kind {
        return permuted(&x.inputs[0], perm.iter().map(|&p| inner[p]).collect());
    }
    let chunks = x.chunks.select_axes(&perm);
    Node::checked(NodeKind::Transpose { perm }, vec![x.clone()], x.dtype, chunks)
}

/// One item of a Python basic index, before normalisation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum IndexItem {
    /// An integer: one element, the axis dropped (negative counts from the end).
    Int(i64),
    /// A slice `start:stop:step`, `None` where omitted.
    Slice {
        /// The first element.
        start: Option<i64>,
        /// The end (excluded).
        stop: Option<i64>,
        /// The step.
        step: Option<i64>,
    },
    /// `None`: a new axis of length one.
    NewAxis,
    /// `...`: as many full slices as the axes not indexed.
    Ellipsis,
}

/// `x[items]` with NumPy's basic-indexing rules.
pub fn index(x: &NodeRef, items: &[IndexItem]) -> Result<NodeRef> {
    index_axes(x, &normalize_index(items, &x.shape())?, PUSH_DEPTH)
}

/// How many operations an index is moved through towards the data it reads.
const PUSH_DEPTH: usize = 32;

/// `x[axes]`, moved through up to `depth` operations towards the data (see `pushed_down`).
fn index_axes(x: &NodeRef, axes: &[IndexAxis], depth: usize) -> Result<NodeRef> {
    let whole = axes.iter().zip(x.shape()).all(|(a, n)| matches!(a, IndexAxis::Range { start: 0, step: 1, len } if *len == n))
        && axes.len() == x.ndim();
    if whole {
        return Ok(x.clone());
    }
    if depth > 0 {
        if let Some(pushed) = pushed_down(x, axes, depth - 1) {
            return pushed;
        }
    }
    let chunks = index_chunks(x, axes)?;
    Node::checked(NodeKind::Index { axes: axes.to_vec() }, vec![x.clone()], x.dtype, chunks)
}

/// The chunks of `x[axes]`: one block per input block a range crosses.
pub(crate) fn index_chunks(x: &NodeRef, axes: &[IndexAxis]) -> Result<Chunks> {
    let mut sizes = Vec::new();
    let mut axis = 0;
    for item in axes {
        match *item {
            IndexAxis::Range { start, step, len } => {
                sizes.push(range_chunks(x.chunks.axis(axis), start, step, len).into_iter().map(|p| p.len).collect());
                axis += 1;
            }
            IndexAxis::Index(_) => axis += 1,
            IndexAxis::NewAxis => sizes.push(vec![1]),
        }
    }
    let shape: Vec<usize> = sizes.iter().map(|s| s.iter().sum()).collect();
    Chunks::new(sizes, &shape)
}

/// `x[axes]` computed from `x`'s inputs, where that is the same values: an element-wise
/// operation of its index's inputs (none broadcast), the input of a concatenation that the
/// index falls in, the input of a new axis that the index removes. So `stack([a, b])[0]` is
/// `a`, and `(u ** 2 + v ** 2)[0]` is `u[0] ** 2 + v[0] ** 2`: the selected values can be
/// fused with what consumes them instead of being held as whole blocks of the intermediate.
fn pushed_down(x: &NodeRef, axes: &[IndexAxis], depth: usize) -> Option<Result<NodeRef>> {
    if axes.iter().any(|a| matches!(a, IndexAxis::NewAxis)) {
        return None;
    }
    match &x.kind {
        NodeKind::Unary { .. } | NodeKind::Binary { .. } | NodeKind::Cast => {
            let shape = x.shape();
            if !x.inputs.iter().all(|i| i.shape() == shape || i.ndim() == 0) {
                return None;
            }
            let inputs = x.inputs.iter().map(|i| if i.ndim() == 0 { Ok(i.clone()) } else { index_axes(i, axes, depth) });
            let inputs = match inputs.collect::<Result<Vec<_>>>() {
                Ok(inputs) => inputs,
                Err(e) => return Some(Err(e)),
            };
            let chunks = inputs.iter().find(|i| i.ndim() > 0 || shape.is_empty())?.chunks.clone();
            Some(Node::checked(x.kind.clone(), inputs, x.dtype, chunks))
        }
        NodeKind::ExpandDims { axes: new } if new.len() == 1 && axes[new[0]] == IndexAxis::Index(0) => {
            let rest: Vec<IndexAxis> = axes.iter().enumerate().filter(|(a, _)| *a != new[0]).map(|(_, &i)| i).collect();
            Some(index_axes(&x.inputs[0], &rest, depth))
        }
        NodeKind::Concatenate { axis } => {
            let IndexAxis::Index(at) = axes[*axis] else { return None };
            let mut start = 0;
            for input in &x.inputs {
                let len = input.shape()[*axis];
                if at < start + len {
                    let mut within = axes.to_vec();
                    within[*axis] = IndexAxis::Index(at - start);
                    return Some(index_axes(input, &within, depth));
                }
                start += len;
            }
            None
        }
        NodeKind::Source(..) => windowed_source(x, axes, depth),
        _ => None,
    }
}

/// `x[axes]` of a source `x`, as the same index of a window of it: the box of `x` the index
/// selects from, in `x`'s block boundaries (so reads stay aligned with stored chunks). Only
/// the window's blocks are planned, so reading two elements of a huge array plans a task or
/// two, not one per block of the array. `None` when the box is all of `x`.
fn windowed_source(x: &NodeRef, axes: &[IndexAxis], depth: usize) -> Option<Result<NodeRef>> {
    let NodeKind::Source(kind, window) = &x.kind else { return None };
    let shape = x.shape();
    let bounds: Vec<(usize, usize)> = axes.iter().map(selected_bounds).collect::<Option<_>>()?;
    if bounds.iter().zip(&shape).all(|(&(lo, hi), &n)| lo == 0 && hi == n) {
        return None;
    }
    let sizes = bounds.iter().enumerate().map(|(a, &(lo, hi))| {
        range_chunks(x.chunks.axis(a), lo, 1, hi - lo).into_iter().map(|p| p.len).collect()
    });
    let within = Window {
        origin: bounds.iter().enumerate().map(|(a, &(lo, _))| window.start(a, lo)).collect(),
        whole: window.whole_shape(&shape).into(),
    };
    let chunks = Chunks::from_axes(sizes.collect());
    let part = Node::new(NodeKind::Source(kind.clone(), within), vec![], x.dtype, chunks);
    let relative: Vec<IndexAxis> = axes
        .iter()
        .zip(&bounds)
        .map(|(a, &(lo, _))| match *a {
            IndexAxis::Range { start, step, len } => IndexAxis::Range { start: if len == 0 { 0 } else { start - lo }, step, len },
            IndexAxis::Index(i) => IndexAxis::Index(i - lo),
            IndexAxis::NewAxis => IndexAxis::NewAxis,
        })
        .collect();
    Some(index_axes(&part, &relative, depth))
}

/// The half-open range of positions an axis's selection reads (`None` for a new axis).
fn selected_bounds(axis: &IndexAxis) -> Option<(usize, usize)> {
    match *axis {
        IndexAxis::Range { len: 0, .. } => Some((0, 0)),
        IndexAxis::Range { start, step, len } => {
            let last = (start as i64 + (len as i64 - 1) * step as i64) as usize;
            Some((start.min(last), start.max(last) + 1))
        }
        IndexAxis::Index(i) => Some((i, i + 1)),
        IndexAxis::NewAxis => None,
    }
}

/// Expands the ellipsis, checks the number of indices and every bound.
pub(crate) fn normalize_index(items: &[IndexItem], shape: &[usize]) -> Result<Vec<IndexAxis>> {
    let ellipses = items.iter().filter(|i| matches!(i, IndexItem::Ellipsis)).count();
    if ellipses > 1 {
        return Err(index_err!("an index can only have a single ellipsis ('...')"));
    }
    let consuming = items.iter().filter(|i| matches!(i, IndexItem::Int(_) | IndexItem::Slice { .. })).count();
    if consuming > shape.len() {
        return Err(index_err!(
            "too many indices for array: array is {}-dimensional, but {consuming} were indexed",
            shape.len()
        ));
    }
    let full = IndexItem::Slice { start: None, stop: None, step: None };
    let mut expanded = Vec::new();
    for item in items {
        if matches!(item, IndexItem::Ellipsis) {
            expanded.extend(std::iter::repeat_n(full, shape.len() - consuming));
        } else {
            expanded.push(*item);
        }
    }
    if ellipses == 0 {
        expanded.extend(std::iter::repeat_n(full, shape.len() - consuming));
    }
    let mut axis = 0;
    expanded
        .into_iter()
        .map(|item| {
            let out = match item {
                IndexItem::NewAxis => return Ok(IndexAxis::NewAxis),
                IndexItem::Int(i) => {
                    let n = shape[axis] as i64;
                    if i < -n || i >= n {
                        return Err(index_err!("index {i} is out of bounds for axis {axis} with size {n}"));
                    }
                    IndexAxis::Index(if i < 0 { i + n } else { i } as usize)
                }
                IndexItem::Slice { start, stop, step } => slice_indices(start, stop, step, shape[axis])?,
                IndexItem::Ellipsis => unreachable_ellipsis()?,
            };
            axis += 1;
            Ok(out)
        })
        .collect()
}

fn unreachable_ellipsis() -> Result<IndexAxis> {
    Err(tegula_core::internal_err!("ellipsis survived expansion"))
}

/// Python's `slice.indices(n)`, returning the first element, step and length.
fn slice_indices(start: Option<i64>, stop: Option<i64>, step: Option<i64>, n: usize) -> Result<IndexAxis> {
    let step = step.unwrap_or(1);
    if step == 0 {
        return Err(value_err!("slice step cannot be zero"));
    }
    let n = n as i64;
    let (lower, upper) = if step > 0 { (0, n) } else { (-1, n - 1) };
    let clamp = |v: Option<i64>, default: i64| match v {
        None => default,
        Some(v) if v < 0 => (v + n).max(lower),
        Some(v) => v.min(upper),
    };
    let first = clamp(start, if step > 0 { lower } else { upper });
    let stop = clamp(stop, if step > 0 { upper } else { lower });
    let len = if step > 0 && stop > first {
        (stop - first - 1) / step + 1
    } else if step < 0 && first > stop {
        (first - stop - 1) / (-step) + 1
    } else {
        0
    };
    Ok(IndexAxis::Range { start: first.max(0) as usize, step: step as isize, len: len as usize })
}

/// The part of one input block that a range selection takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RangePart {
    /// The input block's number along the axis.
    pub block: usize,
    /// First and last selected element, relative to the block start.
    pub first: usize,
    /// The last selected element, relative to the block start.
    pub last: usize,
    /// The number of elements selected.
    pub len: usize,
}

/// The output chunks of a range selection: one per input block it touches, in output order.
pub fn range_chunks(sizes: &[usize], start: usize, step: isize, len: usize) -> Vec<RangePart> {
    if len == 0 {
        return vec![RangePart { block: 0, first: 0, last: 0, len: 0 }];
    }
    let pos = |j: usize| (start as i64 + j as i64 * step as i64) as usize;
    let starts = offsets(sizes);
    let (mut parts, mut j) = (Vec::new(), 0);
    while j < len {
        let (block, _) = locate(sizes, pos(j));
        let (lo, hi) = (starts[block], starts[block] + sizes[block]);
        let s = step.unsigned_abs();
        // How many selected elements, from j on, stay inside [lo, hi).
        let room = if step > 0 { (hi - 1 - pos(j)) / s + 1 } else { (pos(j) - lo) / s + 1 };
        let count = room.min(len - j);
        parts.push(RangePart { block, first: pos(j) - lo, last: pos(j + count - 1) - lo, len: count });
        j += count;
    }
    parts
}

/// The same values with another chunking (`chunks` must have the same shape).
pub fn rechunk(x: &NodeRef, chunks: Chunks) -> Result<NodeRef> {
    if chunks.shape() != x.shape() {
        return Err(value_err!("rechunk to chunks of shape {} for an array of shape {}", fmt_shape(&chunks.shape()), fmt_shape(&x.shape())));
    }
    if chunks == x.chunks {
        return Ok(x.clone());
    }
    if let NodeKind::Transpose { perm } = &x.kind {
        // Rechunked first, then transposed (a view of each block): a rechunk of the source to
        // the same blocks is then planned once, so `x + x.T` makes each tile once and reads it
        // twice, where two rechunks would hold two copies of every tile waiting for its partner.
        let mut inverse = vec![0; perm.len()];
        perm.iter().enumerate().for_each(|(i, &p)| inverse[p] = i);
        let source = rechunk(&x.inputs[0], chunks.select_axes(&inverse))?;
        return Node::checked(NodeKind::Transpose { perm: perm.clone() }, vec![source], x.dtype, chunks);
    }
    Node::checked(NodeKind::Rechunk { copy: false }, vec![x.clone()], x.dtype, chunks)
}
