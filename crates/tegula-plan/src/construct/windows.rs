//! Sliding windows along one axis (NumPy's `sliding_window_view`, an axis at a time) and the
//! reductions over them (xarray's rolling reductions): a sum, product, mean, extreme, `any` or
//! `all` over the window axis is planned as a moving reduction, which never builds the windows
//! (`width` times the data); other reductions build them block by block.

use super::elementwise::{binary_scalar, cast};
use super::join::expand_dims;
use crate::node::{Node, NodeKind, NodeRef};
use tegula_core::shape::normalize_axis;
use tegula_core::{value_err, BinaryOp, Chunks, DType, MovingOp, ReduceOp, Result, Scalar};

/// Every window of `width` consecutive elements of `x` along `axis`, as a new last axis.
pub fn sliding_windows(x: &NodeRef, axis: i64, width: usize) -> Result<NodeRef> {
    let axis = normalize_axis(axis, x.ndim())?;
    let n = x.shape()[axis];
    if width == 0 || width > n {
        return Err(value_err!("a window of {width} along an axis of length {n}: it must be between 1 and the axis' length"));
    }
    let mut sizes = window_chunks(x, axis, width).sizes().to_vec();
    sizes.push(vec![width]);
    Node::checked(NodeKind::Windows { axis, width }, vec![x.clone()], x.dtype, Chunks::from_axes(sizes))
}

/// `x`'s chunks with `axis` cut to its windows: each window in the block its first element is in.
fn window_chunks(x: &NodeRef, axis: usize, width: usize) -> Chunks {
    let mut left = x.shape()[axis] + 1 - width;
    let cut = x.chunks.axis(axis).iter().map(|&s| {
        let take = s.min(left);
        left -= take;
        take
    });
    let mut sizes: Vec<usize> = cut.collect();
    // Blocks past the last window start go (one block stays when every window starts in the first).
    while sizes.len() > 1 && sizes.last() == Some(&0) {
        sizes.pop();
    }
    x.chunks.with_axis(axis, sizes)
}

/// The reduction `op` over `axes` of `x` (with NumPy's `dtype=` and `keepdims`) as a moving
/// reduction, when `x` is a node of windows and `axes` its window axis alone; `None` otherwise.
pub(crate) fn moving_reduction(x: &NodeRef, axes: &[usize], op: ReduceOp, dtype: Option<DType>, keepdims: bool) -> Result<Option<NodeRef>> {
    let NodeKind::Windows { axis, width } = x.kind else { return Ok(None) };
    if axes != [x.ndim() - 1] {
        return Ok(None);
    }
    let (reduce, given) = (op, dtype);
    let dtype = given.unwrap_or_else(|| reduce.output_dtype(x.dtype));
    let (op, compute) = match reduce {
        // As NumPy's, a float16 mean adds in float32.
        ReduceOp::Mean if given.is_none() && dtype == DType::Float16 => (MovingOp::Sum, DType::Float32),
        // A count of true elements needs no more bits than the window's width: the counts are
        // made narrow and widened where they are used (fused there), not built at 8 bytes each.
        ReduceOp::Sum | ReduceOp::Mean if given.is_none() && x.dtype == DType::Bool => (MovingOp::Sum, count_dtype(width)),
        ReduceOp::Sum | ReduceOp::Mean => (MovingOp::Sum, dtype),
        ReduceOp::Prod => (MovingOp::Prod, dtype),
        ReduceOp::Min => (MovingOp::Min, x.dtype),
        ReduceOp::Max => (MovingOp::Max, x.dtype),
        ReduceOp::Any => (MovingOp::Max, DType::Bool),
        ReduceOp::All => (MovingOp::Min, DType::Bool),
        ReduceOp::Var | ReduceOp::Std => return Ok(None),
        ReduceOp::NanSum | ReduceOp::NanMin | ReduceOp::NanMax | ReduceOp::NanMean | ReduceOp::NanVar | ReduceOp::NanStd => return Ok(None),
    };
    let source = cast(&x.inputs[0], compute)?;
    // The windows' blocks without their window axis.
    let chunks = Chunks::from_axes(x.chunks.sizes()[..x.ndim() - 1].to_vec());
    let mut out = Node::checked(NodeKind::Moving { op, axis, width }, vec![source], compute, chunks)?;
    if reduce == ReduceOp::Mean {
        out = binary_scalar(BinaryOp::Divide, &out, Scalar::Int(width as i128), false)?;
    }
    out = cast(&out, dtype)?;
    if keepdims {
        out = expand_dims(&out, &[out.ndim() as i64])?;
    }
    Ok(Some(out))
}

/// The narrowest signed integer dtype that holds every count up to `width`.
fn count_dtype(width: usize) -> DType {
    [DType::Int8, DType::Int16, DType::Int32]
        .into_iter()
        .find(|d| d.integer_bounds().is_some_and(|(_, max)| width as i128 <= max))
        .unwrap_or(DType::Int64)
}
