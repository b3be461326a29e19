//! Element-wise nodes: unary and binary ufuncs, `where`, casts. Inputs broadcast as in NumPy;
//! inputs whose chunks disagree along an axis are rechunked to a common chunking first.

use super::layout::rechunk;
use tegula_core::time::refuse_times;
use crate::node::{Node, NodeKind, NodeRef};
use tegula_core::grid::common_refinement;
use tegula_core::shape::broadcast_all;
use tegula_core::{result_type, value_err, BinaryOp, Chunks, DType, Rejection, Result, Scalar, UnaryOp};

/// Element-wise constructors take numbers; `any_dtype` hands times to `time`, which builds
/// their operations from these on the times' counts.
fn numbers_only(dtypes: &[DType], what: &str) -> Result<()> {
    dtypes.iter().try_for_each(|&d| refuse_times(d, what))
}

/// `op(x)` on numbers, in the dtype NumPy's loop selection gives.
pub fn unary(op: UnaryOp, x: &NodeRef) -> Result<NodeRef> {
    numbers_only(&[x.dtype], op.name())?;
    let sig = op.signature(x.dtype)?;
    Node::checked(NodeKind::Unary { op, compute: sig.compute }, vec![x.clone()], sig.output, x.chunks.clone())
}

/// `op(a, b)` on numbers, broadcast and rechunked to a common chunking.
pub fn binary(op: BinaryOp, a: &NodeRef, b: &NodeRef) -> Result<NodeRef> {
    numbers_only(&[a.dtype, b.dtype], op.name())?;
    let sig = op.signature(a.dtype, b.dtype)?;
    let (inputs, chunks) = unify(&[a.clone(), b.clone()])?;
    Node::checked(NodeKind::Binary { op, compute: sig.compute }, inputs, sig.output, chunks)
}

/// `op(a, s)` (or `op(s, a)` when `reflected`) with a Python scalar, promoted weakly. As in
/// NumPy, the scalar must fit the dtype the ufunc computes in (`int8 + 1000` overflows,
/// `int8 / 1000` computes in float64, a logical op converts through a C long), comparisons
/// with an out-of-range int are constant, and an integer raised to a negative int fails here,
/// when the expression is written.
pub fn binary_scalar(op: BinaryOp, a: &NodeRef, s: Scalar, reflected: bool) -> Result<NodeRef> {
    if let Some(value) = op.out_of_range_comparison(a.dtype, &s, reflected) {
        return super::creation::full(Scalar::Bool(value), DType::Bool, a.chunks.clone());
    }
    let weak = s.weak_promotion(a.dtype);
    let sig = if reflected { op.signature(weak, a.dtype)? } else { op.signature(a.dtype, weak)? };
    s.check_fits(sig.compute)?;
    // NumPy converts the scalar for the loop it selected: straight to bool for the logical
    // ufuncs (so a tiny float is true), to float64 for `int8 / 1000`.
    let (value, dtype) = if sig.compute == DType::Bool {
        (Scalar::Bool(s.is_truthy()), DType::Bool)
    } else if s.check_fits(weak).is_ok() {
        (s, weak)
    } else {
        (s, sig.compute)
    };
    // `x ** 2` is `x * x`, as NumPy computes it (its fast path for a scalar exponent of 2):
    // the same correctly rounded value, without a call to `pow` per element.
    let real_two = matches!(s, Scalar::Int(2)) || matches!(s, Scalar::Float(v) if v == 2.0);
    if op == BinaryOp::Power && !reflected && real_two && sig.compute.is_float() && sig.output == a.dtype {
        return unary(UnaryOp::Square, a);
    }
    let scalar = super::creation::full(value, dtype, Chunks::single(&[]))?;
    let negative_power = op == BinaryOp::Power && !reflected && s.as_f64() < 0.0;
    if negative_power && sig.compute.is_integer() && a.size() > 0 {
        return Err(value_err!("Integers to negative integer powers are not allowed."));
    }
    if reflected {
        binary(op, &scalar, a)
    } else {
        binary(op, a, &scalar)
    }
}

/// `where(cond, a, b)`: `cond` is converted to bool; the choices promote together.
pub fn where_(cond: &NodeRef, a: &NodeRef, b: &NodeRef) -> Result<NodeRef> {
    let compute = result_type(&[a.dtype, b.dtype])?;
    // The kernel converts numbers to `compute` itself, but not times to another unit.
    if compute.is_time() && (a.dtype != compute || b.dtype != compute) {
        return Err(tegula_core::internal_err!("where of {} and {}: times are converted first", a.dtype, b.dtype));
    }
    let (inputs, chunks) = unify(&[cond.clone(), a.clone(), b.clone()])?;
    Node::checked(NodeKind::Where { compute }, inputs, compute, chunks)
}

/// Values of `dist` drawn at each of `words`' elements (`Distribution::Words`) with the
/// parameters `a` and `b` there: both broadcast to the words' shape (NumPy's rule when a
/// size is given); the kernel reads them as float64.
pub fn drawn(dist: Rejection, words: &NodeRef, a: &NodeRef, b: &NodeRef) -> Result<NodeRef> {
    if words.dtype != DType::UInt64 {
        return Err(tegula_core::dtype_err!("random words are uint64, not {}", words.dtype));
    }
    let shape = words.shape();
    for p in [a, b] {
        if broadcast_all(&[&shape, &p.shape()]).ok().as_ref() != Some(&shape) {
            return Err(value_err!("shape mismatch: parameters of shape {:?} cannot be broadcast to size {:?}", p.shape(), shape));
        }
    }
    let (inputs, chunks) = unify(&[words.clone(), a.clone(), b.clone()])?;
    Node::checked(NodeKind::Drawn { dist }, inputs, dist.dtype(), chunks)
}

/// `x.astype(dtype)` between numbers (`time::time_cast` converts times).
pub fn cast(x: &NodeRef, dtype: DType) -> Result<NodeRef> {
    if x.dtype == dtype {
        return Ok(x.clone());
    }
    numbers_only(&[x.dtype, dtype], "astype")?;
    Ok(Node::new(NodeKind::Cast, vec![x.clone()], dtype, x.chunks.clone()))
}

/// NumPy's `x.view(dtype)`: each block's bytes, row-major, read as `dtype`. With another
/// itemsize the last axis scales by the ratio of the itemsizes (NumPy's rule: a 0-d array keeps
/// its itemsize, the last axis' bytes must divide into the new itemsize); its blocks are
/// rechunked first where one would split an element of either dtype. Booleans are left to
/// value casts: not every byte is a valid boolean.
pub fn bitcast(x: &NodeRef, dtype: DType) -> Result<NodeRef> {
    if x.dtype == dtype {
        return Ok(x.clone());
    }
    if x.dtype == DType::Bool || dtype == DType::Bool {
        return Err(value_err!("a view of {} as {dtype}: booleans are cast by value, not read from bytes", x.dtype));
    }
    let (old, new) = (x.dtype.itemsize(), dtype.itemsize());
    if old == new {
        return Ok(Node::new(NodeKind::Bitcast, vec![x.clone()], dtype, x.chunks.clone()));
    }
    let shape = x.shape();
    let Some(&last) = shape.last() else {
        return Err(value_err!("changing the dtype of a 0d array is only supported if the itemsize is unchanged"));
    };
    if last * old % new != 0 {
        return Err(value_err!(
            "when changing to a {} dtype, its size must be a divisor of the total size in bytes of the last axis of the array",
            if new > old { "larger" } else { "smaller" }
        ));
    }
    // Each block's last axis must hold whole elements of both dtypes: a multiple of `step`.
    let step = new / gcd(old, new);
    let axis = shape.len() - 1;
    let sizes = x.chunks.axis(axis);
    let x = if sizes.iter().all(|c| c % step == 0) {
        x.clone()
    } else {
        let block = (sizes.iter().copied().max().unwrap_or(step) / step).max(1) * step;
        let mut wanted = x.chunks.sizes().to_vec();
        wanted[axis] = (0..last).step_by(block).map(|start| block.min(last - start)).collect();
        rechunk(x, Chunks::new(wanted, &shape)?)?
    };
    let mut sizes = x.chunks.sizes().to_vec();
    sizes[axis] = sizes[axis].iter().map(|c| c * old / new).collect();
    let mut out_shape = shape;
    out_shape[axis] = last * old / new;
    let chunks = Chunks::new(sizes, &out_shape)?;
    Ok(Node::new(NodeKind::Bitcast, vec![x], dtype, chunks))
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// Broadcasts the inputs' shapes and gives every output axis one chunking; inputs that span
/// an axis with other chunks are rechunked to it.
fn unify(inputs: &[NodeRef]) -> Result<(Vec<NodeRef>, Chunks)> {
    let shapes: Vec<Vec<usize>> = inputs.iter().map(|n| n.shape()).collect();
    let shape = broadcast_all(&shapes.iter().map(|s| s.as_slice()).collect::<Vec<_>>())?;
    let nd = shape.len();
    let spans = |n: &NodeRef, axis: usize| -> Option<usize> {
        let offset = nd - n.ndim();
        (axis >= offset && n.shape()[axis - offset] == shape[axis]).then(|| axis - offset)
    };
    let sizes: Vec<Vec<usize>> = (0..nd)
        .map(|axis| {
            refine_all(inputs.iter().filter_map(|n| spans(n, axis).map(|a| n.chunks.axis(a))))
                .unwrap_or_else(|| vec![shape[axis]])
        })
        .collect();
    let chunks = Chunks::new(sizes, &shape)?;
    let aligned = inputs
        .iter()
        .map(|n| {
            let offset = nd - n.ndim();
            let wanted: Vec<Vec<usize>> = (0..n.ndim())
                .map(|a| match spans(n, a + offset) {
                    Some(_) => chunks.axis(a + offset).to_vec(),
                    None => n.chunks.axis(a).to_vec(),
                })
                .collect();
            rechunk(n, Chunks::new(wanted, &n.shape())?)
        })
        .collect::<Result<Vec<_>>>()?;
    Ok((aligned, chunks))
}

/// The common refinement of several chunkings of one axis (`None` when there are none).
pub(crate) fn refine_all<'a>(chunkings: impl IntoIterator<Item = &'a [usize]>) -> Option<Vec<usize>> {
    chunkings.into_iter().map(<[usize]>::to_vec).reduce(|acc, c| if acc == c { acc } else { common_refinement(&acc, &c) })
}
