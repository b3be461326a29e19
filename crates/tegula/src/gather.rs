//! Integer-array and boolean-mask indexing: NumPy's `take`, `take_along_axis`, `x[mask]` and
//! `nonzero`, built on the gather and compress plan nodes. A mask's per-block counts are
//! computed here, when the expression is built, so every result has known chunks.

use crate::array::Array;
use tegula_core::shape::normalize_axis;
use tegula_core::{index_err, value_err, AxisChunks, BinaryOp, ChunkSpec, DType, Result, Scalar, TegulaError};
use tegula_plan::construct::layout::IndexItem;
use tegula_plan::construct::{gather, mask, points};

impl Array {
    /// NumPy's `take`: the elements at `indices` (any shape, negative ones counting from the
    /// end) along `axis`, whose place the indices' axes take; `None` takes from the flattened
    /// array. An index outside is an `IndexError` when computed.
    pub fn take(&self, indices: &Array, axis: Option<i64>) -> Result<Array> {
        gather::check_integer(&indices.node)?;
        let (x, axis) = match axis {
            None => (self.reshape(&[-1])?, 0),
            Some(a) => (self.clone(), normalize_axis(a, self.ndim())?),
        };
        let mut along = vec![1i64; x.ndim()];
        along[axis] = -1;
        let idx = indices.reshape(&along)?;
        let taken = Array::from_node(gather::gather(&x.node, &idx.node, axis)?);
        let shape = x.shape();
        let out: Vec<i64> = shape[..axis].iter().chain(&indices.shape()).chain(&shape[axis + 1..]).map(|&n| n as i64).collect();
        taken.reshape(&out)
    }

    /// NumPy's `take` of positions known now (negative ones counting from the end, each
    /// checked: an `IndexError` names the first outside) along `axis`: long ascending runs of
    /// them are slices joined, anything else a gather.
    pub fn take_positions(&self, positions: &[i64], axis: i64) -> Result<Array> {
        let axis = normalize_axis(axis, self.ndim())?;
        let wrapped = positions.iter().map(|&p| wrap_position(p, self.shape()[axis], axis)).collect::<Result<Vec<usize>>>()?;
        if let Some(taken) = gather::take_runs(&self.node, &wrapped, axis)? {
            return Ok(Array::from_node(taken));
        }
        let values = ndarray::ArrayD::from_shape_vec(vec![wrapped.len()], wrapped.iter().map(|&p| p as i64).collect())
            .map_err(|e| TegulaError::Internal(e.to_string()))?;
        self.take(&Array::from_ndarray(values, &ChunkSpec::All(AxisChunks::Auto))?, Some(axis as i64))
    }

    /// The points at coordinates known now: point `p` is the element (or, where axes are
    /// left, the sub-array) at `coords[i][p]` along `axes[i]` (negative coordinates counting
    /// from the end; one outside is an `IndexError` naming it). The points run along the
    /// first indexed axis, the other indexed axes dropped (NumPy's layout for adjacent index
    /// arrays). Only the blocks holding a point are read. `None` where there are no points or
    /// so many scattered ones that flattening and gathering reads less.
    pub fn take_points(&self, coords: &[&[i64]], axes: &[i64]) -> Result<Option<Array>> {
        let axes = axes.iter().map(|&a| normalize_axis(a, self.ndim())).collect::<Result<Vec<usize>>>()?;
        let points = coords.first().map_or(0, |c| c.len());
        if coords.len() != axes.len() || coords.iter().any(|c| c.len() != points) {
            return Err(value_err!("take_points needs one coordinate array per axis, all of one length"));
        }
        let mut order: Vec<usize> = (0..axes.len()).collect();
        order.sort_by_key(|&i| axes[i]);
        let shape = self.shape();
        let flat = (0..points)
            .flat_map(|p| order.iter().map(move |&i| (p, i)))
            .map(|(p, i)| wrap_position(coords[i][p], shape[axes[i]], axes[i]))
            .collect::<Result<Vec<usize>>>()?;
        let sorted: Vec<usize> = order.iter().map(|&i| axes[i]).collect();
        let Some(picked) = points::pick_points(&self.node, &sorted, &flat)? else { return Ok(None) };
        let items: Vec<IndexItem> = (0..self.ndim())
            .map(|a| match sorted[1..].contains(&a) {
                true => IndexItem::Int(0),
                false => IndexItem::Slice { start: None, stop: None, step: None },
            })
            .collect();
        Array::from_node(picked).index(&items).map(Some)
    }

    /// NumPy's `take_along_axis`: `indices` has this array's ndim and is broadcast against it
    /// along the other axes; element `[.., j, ..]` of the result is this array's element at
    /// `indices[.., j, ..]` along `axis`.
    pub fn take_along_axis(&self, indices: &Array, axis: i64) -> Result<Array> {
        gather::check_integer(&indices.node)?;
        if indices.ndim() != self.ndim() {
            return Err(value_err!("`indices` and `arr` must have the same number of dimensions"));
        }
        let axis = normalize_axis(axis, self.ndim())?;
        let (xs, is) = (self.shape(), indices.shape());
        let mut target = xs.clone();
        for a in (0..xs.len()).filter(|&a| a != axis) {
            target[a] = match (xs[a], is[a]) {
                (x, i) if x == i || i == 1 => x,
                (1, i) => i,
                _ => return Err(TegulaError::Shape(format!("shape mismatch: indices {is:?} cannot be broadcast with {xs:?}"))),
            };
        }
        // The repeated axes in one block each: gathers read whole lanes.
        gather::gather(&self.broadcast_with(&target, AxisChunks::Full)?.node, &indices.node, axis).map(Array::from_node)
    }

    /// `indices` checked against an axis of length `n` and wrapped to int64 in `[0, n)`; an
    /// index outside is an `IndexError` naming it and `axis`, when computed.
    pub fn wrap_index(&self, n: usize, axis: usize) -> Result<Array> {
        gather::wrap_index(&self.node, n, axis).map(Array::from_node)
    }

    /// `self[mask]` for a boolean `mask` of this array's leading axes: the selected elements
    /// (or sub-arrays) in row-major order, along one new first axis. The mask's per-block
    /// counts are computed now (the mask expression runs twice: here and with the result).
    /// A mask axis of length zero matches any length and selects nothing (the array API's
    /// rule; NumPy raises there).
    pub fn masked(&self, mask: &Array) -> Result<Array> {
        if mask.dtype() != DType::Bool {
            return Err(index_err!("a mask must be a boolean array, not {}", mask.dtype()));
        }
        let (xs, ms) = (self.shape(), mask.shape());
        if ms.len() > xs.len() {
            return Err(index_err!("too many indices for array: array is {}-dimensional, but {} were indexed", xs.len(), ms.len()));
        }
        if let Some(a) = (0..ms.len()).find(|&a| ms[a] != xs[a] && ms[a] != 0) {
            return Err(index_err!(
                "boolean index did not match indexed array along axis {a}; size of axis is {} but size of corresponding boolean axis is {}",
                xs[a],
                ms[a]
            ));
        }
        let lead: usize = ms.iter().product();
        if lead == 0 {
            let shape: Vec<usize> = std::iter::once(0).chain(xs[ms.len()..].iter().copied()).collect();
            let trailing = self.chunks().sizes()[ms.len()..].iter().map(|s| AxisChunks::Explicit(s.clone()));
            let spec = ChunkSpec::PerAxis(std::iter::once(AxisChunks::Auto).chain(trailing).collect());
            return Array::zeros(&shape, self.dtype(), &spec);
        }
        let rows: Vec<i64> = std::iter::once(lead).chain(xs[ms.len()..].iter().copied()).map(|n| n as i64).collect();
        self.reshape(&rows)?.compress(&mask.reshape(&[-1])?)
    }

    /// The rows (entries along axis 0) where the 1-D boolean `mask` is true.
    fn compress(&self, mask: &Array) -> Result<Array> {
        let spec = ChunkSpec::PerAxis(vec![AxisChunks::Explicit(self.chunks().axis(0).to_vec())]);
        let mask = mask.rechunk(&spec)?;
        let counts = Array::from_node(mask::block_counts(&mask.node)?).compute()?;
        let counts: Vec<usize> = counts.typed::<i64>()?.iter().map(|&c| c as usize).collect();
        mask::compress(&self.node, &mask.node, &counts).map(Array::from_node)
    }

    /// NumPy's `nonzero`: one int64 array per axis with the coordinates of the non-zero
    /// elements, in row-major order (their count computed now, their values with the result).
    pub fn nonzero(&self) -> Result<Vec<Array>> {
        if self.ndim() == 0 {
            return Err(value_err!("nonzero of 0d arrays is not defined: make the array 1-d first (atleast_1d)"));
        }
        let flat = self.reshape(&[-1])?;
        let hit = flat.binary_scalar(BinaryOp::NotEqual, Scalar::Int(0), false)?;
        let spec = ChunkSpec::PerAxis(vec![AxisChunks::Explicit(flat.chunks().axis(0).to_vec())]);
        let n = flat.size() as i128;
        let positions = Array::arange(Scalar::Int(0), Scalar::Int(n), Scalar::Int(1), Some(DType::Int64), &spec)?.compress(&hit)?;
        let shape = self.shape();
        let mut stride = 1i128;
        let mut out = Vec::with_capacity(shape.len());
        for &len in shape.iter().rev() {
            let c = positions.binary_scalar(BinaryOp::FloorDivide, Scalar::Int(stride), false)?;
            out.push(c.binary_scalar(BinaryOp::Remainder, Scalar::Int(len as i128), false)?);
            stride *= len as i128;
        }
        out.reverse();
        Ok(out)
    }
}

/// Position `p` along an axis of length `n`, negative ones counting from the end; one outside
/// is NumPy's `IndexError`.
fn wrap_position(p: i64, n: usize, axis: usize) -> Result<usize> {
    match p {
        p if p >= 0 && (p as u64) < n as u64 => Ok(p as usize),
        p if p < 0 && p.unsigned_abs() <= n as u64 => Ok(n - p.unsigned_abs() as usize),
        p => Err(index_err!("index {p} is out of bounds for axis {axis} with size {n}")),
    }
}
