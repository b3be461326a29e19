//! `cumulative_sum`, `cumulative_prod` and the forward fill: axis, dtype and
//! `include_initial` are checked and applied here; the scan itself is one node, lowered block by block (`lower/scan.rs`).

use super::creation::full;
use super::elementwise::cast;
use super::join::{concatenate, expand_dims};
use crate::node::{Node, NodeKind, NodeRef};
use tegula_core::shape::normalize_axis;
use tegula_core::{value_err, DType, Result, ScanOp};

/// The arguments of a cumulative operation.
#[derive(Debug, Clone)]
pub struct ScanSpec {
    /// The running operation.
    pub op: ScanOp,
    /// `None` only for 0-d and 1-d input.
    pub axis: Option<i64>,
    /// The result dtype; `None` for NumPy's default (sum's: small integers widen).
    pub dtype: Option<DType>,
    /// Start with the identity (0 or 1): one more element along the axis.
    pub include_initial: bool,
}

/// The cumulative operation `spec` of numbers `x`, its axis, dtype and `include_initial` applied.
pub fn cumulative(x: &NodeRef, spec: &ScanSpec) -> Result<NodeRef> {
    if x.ndim() > 1 && spec.axis.is_none() {
        return Err(value_err!("For arrays which have more than one dimension ``axis`` argument is required."));
    }
    // As NumPy, a 0-d input is a 1-d array of one element.
    tegula_core::time::refuse_times(x.dtype, spec.op.name())?;
    let x = if x.ndim() == 0 { expand_dims(x, &[0])? } else { x.clone() };
    let axis = normalize_axis(spec.axis.unwrap_or(0), x.ndim())?;
    let dtype = match spec.op {
        ScanOp::Fill => spec.dtype.unwrap_or(x.dtype),
        _ => spec.dtype.unwrap_or_else(|| x.dtype.sum_dtype()),
    };
    // Elements convert first, so the running values are in the result's dtype (NumPy's loop).
    let x = cast(&x, dtype)?;
    let scan = Node::new(NodeKind::Scan { op: spec.op, axis }, vec![x.clone()], dtype, x.chunks.clone());
    if !spec.include_initial {
        return Ok(scan);
    }
    let initial = full(spec.op.identity(), dtype, x.chunks.with_axis(axis, vec![1]))?;
    concatenate(&[initial, scan], Some(axis as i64))
}
