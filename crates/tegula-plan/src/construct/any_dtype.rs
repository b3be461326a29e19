//! The constructors of operations on arrays of any dtype, as the API offers them: times go to
//! `time`, which builds them from operations on their counts; numbers to `elementwise`,
//! `reduce`, `scan`, `join` and `sort` directly.

use super::creation::full;
use super::reduce::ReduceSpec;
use super::scan::{self, ScanSpec};
use super::{elementwise as ew, join, reduce as numeric, sort, time};
use crate::node::NodeRef;
use tegula_core::{result_type, BinaryOp, Chunks, DType, Result, Scalar, UnaryOp};

/// `op(x)`: element-wise on numbers, through their counts for times.
pub fn unary(op: UnaryOp, x: &NodeRef) -> Result<NodeRef> {
    if x.dtype.is_time() {
        return time::time_unary(op, x);
    }
    ew::unary(op, x)
}

/// `op(a, b)`, broadcast: element-wise on numbers, through their counts for times.
pub fn binary(op: BinaryOp, a: &NodeRef, b: &NodeRef) -> Result<NodeRef> {
    if a.dtype.is_time() || b.dtype.is_time() {
        return time::time_binary(op, a, b);
    }
    ew::binary(op, a, b)
}

/// `op(a, s)` (or `op(s, a)` when `reflected`) with a Python scalar. Next to a time, the
/// number is an array of its own dtype (a count of the time's unit, or a float scale):
/// NumPy's datetime loops take no weak scalars.
pub fn binary_scalar(op: BinaryOp, a: &NodeRef, s: Scalar, reflected: bool) -> Result<NodeRef> {
    if !a.dtype.is_time() {
        return ew::binary_scalar(op, a, s, reflected);
    }
    let scalar = full(s, s.default_dtype(), Chunks::single(&[]))?;
    if reflected {
        time::time_binary(op, &scalar, a)
    } else {
        time::time_binary(op, a, &scalar)
    }
}

/// `where(cond, a, b)`; times of different units are converted to the finer first.
pub fn where_(cond: &NodeRef, a: &NodeRef, b: &NodeRef) -> Result<NodeRef> {
    let compute = result_type(&[a.dtype, b.dtype])?;
    if compute.is_time() {
        return ew::where_(cond, &cast(a, compute)?, &cast(b, compute)?);
    }
    ew::where_(cond, a, b)
}

/// `x.astype(dtype)`, times converted between units and to and from numbers as NumPy does.
pub fn cast(x: &NodeRef, dtype: DType) -> Result<NodeRef> {
    if x.dtype != dtype && (x.dtype.is_time() || dtype.is_time()) {
        return time::time_cast(x, dtype);
    }
    ew::cast(x, dtype)
}

/// The reduction `spec` of `x`, of numbers or times.
pub fn reduce(x: &NodeRef, spec: &ReduceSpec) -> Result<NodeRef> {
    if x.dtype.is_time() {
        return time::time_reduce(x, spec);
    }
    numeric::reduce(x, spec)
}

/// The cumulative operation `spec` of `x`, of numbers or times.
pub fn cumulative(x: &NodeRef, spec: &ScanSpec) -> Result<NodeRef> {
    if x.dtype.is_time() {
        return time::time_cumulative(x, spec);
    }
    scan::cumulative(x, spec)
}

/// The arrays in their common dtype: times converted to the finer unit (numbers are
/// converted by the joins themselves).
fn common(arrays: &[NodeRef]) -> Result<Vec<NodeRef>> {
    let dtypes: Vec<DType> = arrays.iter().map(|a| a.dtype).collect();
    if !dtypes.iter().any(|d| d.is_time()) {
        return Ok(arrays.to_vec());
    }
    let dtype = result_type(&dtypes)?;
    arrays.iter().map(|a| cast(a, dtype)).collect()
}

/// NumPy's `concatenate` (`axis=None`: of the arrays flattened), times first in a common unit.
pub fn concatenate(arrays: &[NodeRef], axis: Option<i64>) -> Result<NodeRef> {
    join::concatenate(&common(arrays)?, axis)
}

/// NumPy's `stack` along a new `axis`, times first in a common unit.
pub fn stack(arrays: &[NodeRef], axis: i64) -> Result<NodeRef> {
    join::stack(&common(arrays)?, axis)
}

/// `sort::searchsorted`, times compared by the keys they sort by (NaT last).
pub fn searchsorted(sorted: &NodeRef, v: &NodeRef, right: bool, sorter: Option<&NodeRef>) -> Result<NodeRef> {
    match common(&[sorted.clone(), v.clone()])?.as_slice() {
        [s, w] if s.dtype.is_time() => sort::searchsorted(&time::sort_keys(s)?, &time::sort_keys(w)?, right, sorter),
        _ => sort::searchsorted(sorted, v, right, sorter),
    }
}
