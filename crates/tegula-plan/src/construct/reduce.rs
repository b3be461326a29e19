//! Reduction nodes (`sum`, `mean`, `var`, ...): axes, keepdims and dtype are checked here.

use crate::node::{Node, NodeKind, NodeRef};
use tegula_core::shape::normalize_axes;
use tegula_core::{value_err, Chunks, DType, ReduceOp, Result};

/// The arguments of a reduction.
#[derive(Debug, Clone)]
pub struct ReduceSpec {
    /// The reduction.
    pub op: ReduceOp,
    /// `None` reduces every axis.
    pub axes: Option<Vec<i64>>,
    /// Keep the reduced axes with length one (NumPy's `keepdims`).
    pub keepdims: bool,
    /// Delta degrees of freedom for `var`/`std`.
    pub ddof: f64,
    /// The result dtype (NumPy's `dtype=`); `None` for NumPy's default.
    pub dtype: Option<DType>,
    /// The most partials one combining task takes (Dask's `split_every`).
    pub split_every: usize,
}

impl ReduceSpec {
    /// `op` over every axis with NumPy's defaults.
    pub fn new(op: ReduceOp) -> ReduceSpec {
        ReduceSpec { op, axes: None, keepdims: false, ddof: 0.0, dtype: None, split_every: super::DEFAULT_SPLIT_EVERY }
    }
}

/// The reduction `spec` of numbers `x`, its axes, `keepdims` and dtype checked.
pub fn reduce(x: &NodeRef, spec: &ReduceSpec) -> Result<NodeRef> {
    let axes = normalize_axes(spec.axes.as_deref(), x.ndim())?;
    let shape = x.shape();
    let reduced: usize = axes.iter().map(|&a| shape[a]).product();
    if spec.op.needs_elements() && reduced == 0 {
        return Err(value_err!("zero-size array to reduction operation {} which has no identity", spec.op.ufunc_name()));
    }
    if spec.split_every < 2 {
        return Err(value_err!("split_every must be at least 2, got {}", spec.split_every));
    }
    tegula_core::time::refuse_times(x.dtype, spec.op.name())?;
    if let Some(moving) = super::windows::moving_reduction(x, &axes, spec.op, spec.dtype, spec.keepdims)? {
        return Ok(moving);
    }
    let dtype = spec.dtype.unwrap_or_else(|| spec.op.output_dtype(x.dtype));
    // Like NumPy, a sum, product or mean with `dtype=` converts the elements to it first
    // (int32 elements overflow a float16 product even when float64 partials would not).
    let x = match spec.op {
        ReduceOp::Sum | ReduceOp::NanSum | ReduceOp::Prod | ReduceOp::Mean | ReduceOp::NanMean if spec.dtype.is_some() => super::elementwise::cast(x, dtype)?,
        _ => x.clone(),
    };
    let sizes = (0..x.ndim())
        .filter_map(|a| match (axes.contains(&a), spec.keepdims) {
            (false, _) => Some(x.chunks.axis(a).to_vec()),
            (true, true) => Some(vec![1]),
            (true, false) => None,
        })
        .collect();
    let kind = NodeKind::Reduce {
        op: spec.op,
        axes,
        keepdims: spec.keepdims,
        ddof: spec.ddof,
        split_every: spec.split_every,
    };
    Node::checked(kind, vec![x], dtype, Chunks::from_axes(sizes))
}
