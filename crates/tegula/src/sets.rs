//! Set functions: NumPy's `unique` (and the array API's `unique_*`), `union1d`,
//! `intersect1d` and `setdiff1d`, from a stable sort of the flattened array, where equal
//! neighbours mark where a new value starts. NaNs are never equal, so each is its own value
//! (the array API's rule), unless `equal_nan` makes them one (NumPy's `unique` by default).
//! Their lengths depend on the data: boolean selection resolves them when the expression is
//! built (the selection's input is computed then).

use crate::array::Array;
use crate::constant::{all, constant, head, positions, same_chunks, tail, whole};
use crate::ops::{IndexItem, ReduceSpec, ScanSpec};
use tegula_core::shape::normalize_axis;
use tegula_core::{BinaryOp, DType, ReduceOp, Result, Scalar, ScanOp, UnaryOp};

/// What `unique` returns besides the distinct values, and how values compare.
#[derive(Debug, Clone, Copy, Default)]
pub struct UniqueSpec {
    /// All NaNs (complex: a NaN in either part; NaT) are one value, sorted last.
    pub equal_nan: bool,
    /// The flat position of each value's first occurrence.
    pub index: bool,
    /// Each element's index among the distinct values, in the input's shape (1-d with `axis`).
    pub inverse: bool,
    /// How often each value occurs.
    pub counts: bool,
    /// The distinct slices along this axis instead of distinct elements (in lexicographic
    /// order; slices holding NaN are never equal, as in NumPy).
    pub axis: Option<i64>,
}

/// The distinct values, and what `UniqueSpec` asked for besides (`None` where it did not).
#[derive(Debug, Clone)]
pub struct Unique {
    /// The distinct values (or slices), sorted.
    pub values: Array,
    /// The flat position of each value's first occurrence (int64).
    pub index: Option<Array>,
    /// Each element's index among the distinct values (int64).
    pub inverse: Option<Array>,
    /// How often each value occurs (int64).
    pub counts: Option<Array>,
}

/// A flattened array sorted stably, and where each new value starts in sorted order.
struct SortedRuns {
    length: usize,
    order: Array,
    ordered: Array,
    starts: Array,
}

impl SortedRuns {
    fn of(x: &Array, equal_nan: bool) -> Result<SortedRuns> {
        let flat = x.reshape(&[-1])?;
        let length = flat.size();
        let order = flat.argsort(0, false)?;
        let ordered = flat.take(&order, Some(0))?;
        if length == 0 {
            let starts = Array::zeros(&[0], DType::Bool, &whole())?;
            return Ok(SortedRuns { length, order, ordered, starts });
        }
        let mut differs = tail(&ordered)?.binary(BinaryOp::NotEqual, &head(&ordered)?)?;
        let dtype = ordered.dtype();
        if equal_nan && (dtype.is_float() || dtype.is_complex() || dtype.is_time()) {
            // NaNs sort last: only the first of them starts a value.
            let nan = ordered.unary(UnaryOp::Isnan)?;
            let both = tail(&nan)?.binary(BinaryOp::LogicalAnd, &head(&nan)?)?;
            differs = differs.binary(BinaryOp::LogicalAnd, &both.unary(UnaryOp::LogicalNot)?)?;
        }
        let starts = first_then(&differs)?;
        Ok(SortedRuns { length, order, ordered, starts })
    }

    fn counts(&self) -> Result<Array> {
        counts(&self.starts, self.length)
    }
}

impl Array {
    /// The sorted distinct values of the flattened array (or its distinct slices along
    /// `spec.axis`), with what `spec` asks for besides.
    pub fn unique(&self, spec: &UniqueSpec) -> Result<Unique> {
        if let Some(axis) = spec.axis {
            return self.unique_slices(axis, spec);
        }
        let runs = SortedRuns::of(self, spec.equal_nan)?;
        Ok(Unique {
            values: runs.ordered.masked(&runs.starts)?,
            index: spec.index.then(|| runs.order.masked(&runs.starts)).transpose()?,
            inverse: spec.inverse.then(|| inverse(&runs.order, &runs.starts)?.reshape(&signed(&self.shape()))).transpose()?,
            counts: spec.counts.then(|| runs.counts()).transpose()?,
        })
    }

    /// NumPy's `unique` along `axis`: the slices as rows, sorted lexicographically by a stable
    /// sort per column from the last (so equal rows keep their order and the first occurrence
    /// leads), a new row starting wherever one differs from the row before it.
    fn unique_slices(&self, axis: i64, spec: &UniqueSpec) -> Result<Unique> {
        let axis = normalize_axis(axis, self.ndim())?;
        let moved = self.moveaxis(&[axis as i64], &[0])?;
        let shape = moved.shape();
        let (n, rest) = (shape[0], &shape[1..]);
        let width: usize = rest.iter().product();
        let rows = moved.reshape(&[n as i64, width as i64])?;
        let mut order = positions(n)?;
        for column in (0..width).rev() {
            let values = rows.index(&[all(), IndexItem::Int(column as i64)])?.take(&order, Some(0))?;
            order = order.take(&values.argsort(0, false)?, Some(0))?;
        }
        let ordered = rows.take(&order, Some(0))?;
        let starts = if n == 0 {
            Array::zeros(&[0], DType::Bool, &whole())?
        } else {
            let differs = tail(&ordered)?.binary(BinaryOp::NotEqual, &head(&ordered)?)?;
            first_then(&differs.reduce(&ReduceSpec { axes: Some(vec![1]), ..ReduceSpec::new(ReduceOp::Any) })?)?
        };
        let distinct = ordered.masked(&starts)?;
        let mut dims = vec![distinct.shape()[0] as i64];
        dims.extend(signed(rest));
        Ok(Unique {
            values: distinct.reshape(&dims)?.moveaxis(&[0], &[axis as i64])?,
            index: spec.index.then(|| order.masked(&starts)).transpose()?,
            inverse: spec.inverse.then(|| inverse(&order, &starts)).transpose()?,
            counts: spec.counts.then(|| counts(&starts, n)).transpose()?,
        })
    }

    /// NumPy's `union1d`: the sorted distinct values of both arrays, flattened (NaNs as one).
    pub fn union1d(&self, other: &Array) -> Result<Array> {
        let both = Array::concatenate(&[&self.reshape(&[-1])?, &other.reshape(&[-1])?], Some(0))?;
        Ok(both.unique(&UniqueSpec { equal_nan: true, ..UniqueSpec::default() })?.values)
    }

    /// NumPy's `intersect1d`: the sorted values found in both arrays (never NaN) and, with
    /// `return_indices`, the flat position of each in `self` and in `other` (its first
    /// occurrence unless `assume_unique`).
    pub fn intersect1d(&self, other: &Array, assume_unique: bool, return_indices: bool) -> Result<(Array, Option<[Array; 2]>)> {
        let (mut a, mut b) = (self.reshape(&[-1])?, other.reshape(&[-1])?);
        let mut firsts = None;
        if !assume_unique {
            let spec = UniqueSpec { equal_nan: true, index: true, ..UniqueSpec::default() };
            let (ua, ub) = (a.unique(&spec)?, b.unique(&spec)?);
            firsts = Some((ua.index.expect("asked for"), ub.index.expect("asked for")));
            (a, b) = (ua.values, ub.values);
        }
        let both = Array::concatenate(&[&a, &b], Some(0))?;
        let order = both.argsort(0, false)?;
        let ordered = both.take(&order, Some(0))?;
        if ordered.size() == 0 {
            return Ok((ordered, return_indices.then(|| [order.clone(), order.clone()])));
        }
        let pairs = tail(&ordered)?.binary(BinaryOp::Equal, &head(&ordered)?)?;
        let common = head(&ordered)?.masked(&pairs)?;
        if !return_indices {
            return Ok((common, None));
        }
        let mut in_a = head(&order)?.masked(&pairs)?;
        let mut in_b = tail(&order)?.masked(&pairs)?.binary_scalar(BinaryOp::Subtract, Scalar::Int(a.size() as i128), false)?;
        if let Some((first_a, first_b)) = firsts {
            (in_a, in_b) = (first_a.take(&in_a, Some(0))?, first_b.take(&in_b, Some(0))?);
        }
        Ok((common, Some([in_a, in_b])))
    }

    /// NumPy's `setdiff1d`: the sorted distinct values of `self` not in `other` (`self`
    /// flattened as it is when `assume_unique`).
    pub fn setdiff1d(&self, other: &Array, assume_unique: bool) -> Result<Array> {
        let distinct = |x: &Array| -> Result<Array> { Ok(x.unique(&UniqueSpec { equal_nan: true, ..UniqueSpec::default() })?.values) };
        let (a, b) = if assume_unique { (self.reshape(&[-1])?, other.clone()) } else { (distinct(self)?, distinct(other)?) };
        a.masked(&a.isin(&b, true)?)
    }

    /// Whether each element is among the elements of `test` (NaN is in nothing, as in NumPy):
    /// a comparison against every element of `test` along a new axis, reduced by `any`; each
    /// task holds one block of each. `invert`: whether it is not.
    pub fn isin(&self, test: &Array, invert: bool) -> Result<Array> {
        let flat = test.reshape(&[-1])?;
        let found = if flat.size() == 0 {
            Array::full(&self.shape(), Scalar::Bool(false), Some(DType::Bool), &same_chunks(self))?
        } else {
            let key = [IndexItem::Ellipsis, IndexItem::NewAxis];
            let mut leading = vec![IndexItem::NewAxis; self.ndim()];
            leading.push(all());
            let pairs = self.index(&key)?.binary(BinaryOp::Equal, &flat.index(&leading)?)?;
            pairs.reduce(&ReduceSpec { axes: Some(vec![-1]), ..ReduceSpec::new(ReduceOp::Any) })?
        };
        if invert {
            found.unary(UnaryOp::LogicalNot)
        } else {
            Ok(found)
        }
    }

    /// The number of non-zero elements along `axes` (all when `None`), int64.
    pub fn count_nonzero(&self, axes: Option<&[i64]>, keepdims: bool) -> Result<Array> {
        let nonzero = self.binary_scalar(BinaryOp::NotEqual, Scalar::Int(0), false)?;
        nonzero.reduce(&ReduceSpec { axes: axes.map(<[i64]>::to_vec), keepdims, dtype: Some(DType::Int64), ..ReduceSpec::new(ReduceOp::Sum) })
    }
}

/// Each run's length: the distance from its start to the next start (or the end).
fn counts(starts: &Array, n: usize) -> Result<Array> {
    let positions = positions(n)?.masked(starts)?;
    let end = constant(Scalar::Int(n as i128), DType::Int64)?.reshape(&[1])?;
    Array::concatenate(&[&tail(&positions)?, &end], Some(0))?.sub(&positions)
}

/// The index of each element's value among the distinct values: the running count of starts,
/// read back through the inverse of the sorting permutation `order`.
fn inverse(order: &Array, starts: &Array) -> Result<Array> {
    let scan = ScanSpec { op: ScanOp::Sum, axis: Some(0), dtype: None, include_initial: false };
    let group = starts.astype(DType::Int64)?.cumulative(&scan)?.binary_scalar(BinaryOp::Subtract, Scalar::Int(1), false)?;
    group.take(&order.argsort(0, false)?, Some(0))
}

/// `[True] + differs`: the first sorted element starts a value.
fn first_then(differs: &Array) -> Result<Array> {
    let first = Array::full(&[1], Scalar::Bool(true), Some(DType::Bool), &whole())?;
    Array::concatenate(&[&first, differs], Some(0))
}

fn signed(shape: &[usize]) -> Vec<i64> {
    shape.iter().map(|&d| d as i64).collect()
}
