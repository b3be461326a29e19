//! Matrix products of stacks of matrices (the last two axes), planned as blockwise products
//! plus a tree sum over the contracted axis's blocks.

use super::creation::full;
use super::elementwise::{binary, where_};
use super::join::expand_dims;
use super::layout::{rechunk, transpose};
use crate::node::{Node, NodeKind, NodeRef};
use tegula_core::grid::common_refinement;
use tegula_core::shape::broadcast_shapes;
use tegula_core::{promote, shape_err, BinaryOp, Chunks, Result, Scalar};

/// `a @ b` for operands of at least two axes; their stack axes broadcast as NumPy's.
pub fn matmul(a: &NodeRef, b: &NodeRef, split_every: usize) -> Result<NodeRef> {
    tegula_core::time::refuse_times(a.dtype, "matmul")?;
    tegula_core::time::refuse_times(b.dtype, "matmul")?;
    let (sa, sb) = (a.shape(), b.shape());
    if sa.len() < 2 || sb.len() < 2 {
        return Err(shape_err!("matmul of {}-d and {}-d operands needs two axes each (vectors: add one)", sa.len(), sb.len()));
    }
    let (ka, kb) = (sa[sa.len() - 1], sb[sb.len() - 2]);
    if ka != kb {
        return Err(shape_err!(
            "matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature (n?,k),(k,m?)->(n?,m?) (size {kb} is different from {ka})"
        ));
    }
    if let Some((xt, scaled)) = scaled_columns(a, b)? {
        return matmul(&xt, &scaled, split_every);
    }
    let stack = broadcast_shapes(&sa[..sa.len() - 2], &sb[..sb.len() - 2])?;
    let (a, b) = (broadcast_stack(a, &stack, b)?, broadcast_stack(b, &stack, a)?);
    let nd = stack.len() + 2;
    // Each stack axis and the contracted axis take the common refinement of both operands'.
    let mut a_sizes = a.chunks.sizes().to_vec();
    let mut b_sizes = b.chunks.sizes().to_vec();
    for axis in 0..stack.len() {
        let common = common_refinement(&a_sizes[axis], &b_sizes[axis]);
        (a_sizes[axis], b_sizes[axis]) = (common.clone(), common);
    }
    let k = contracted_chunks(&a_sizes[nd - 1], &b_sizes[nd - 2], a.nbytes() <= b.nbytes());
    (a_sizes[nd - 1], b_sizes[nd - 2]) = (k.clone(), k);
    let a = rechunk(&a, Chunks::from_axes(a_sizes.clone()))?;
    let b = rechunk(&b, Chunks::from_axes(b_sizes.clone()))?;
    let mut sizes = a_sizes[..nd - 1].to_vec();
    sizes.push(b_sizes[nd - 1].clone());
    let dtype = promote(a.dtype, b.dtype);
    Node::checked(NodeKind::Matmul { split_every: split_every.max(2) }, vec![a, b], dtype, Chunks::from_axes(sizes))
}

/// `(x.T * w) @ b` (`w` a vector along the contracted axis, everything of one float dtype) as
/// `x.T @ (b * w[:, None])` where `b` is no larger than `x`: the weights scale the rows of `b` in place instead of the
/// columns of a transposed view of `x`, which would write every block of `x` transposed
/// (the Hessian of logistic regression as users write it). The product of the transposed
/// view is then one block product per block pair, the view read where it lies.
fn scaled_columns(a: &NodeRef, b: &NodeRef) -> Result<Option<(NodeRef, NodeRef)>> {
    let NodeKind::Binary { op: BinaryOp::Multiply, .. } = a.kind else { return Ok(None) };
    if a.ndim() != 2 || b.ndim() != 2 || !a.dtype.is_float() {
        return Ok(None);
    }
    let is_xt = |n: &NodeRef| matches!(&n.kind, NodeKind::Transpose { perm } if *perm == [1, 0]);
    let (xt, w) = match a.inputs.as_slice() {
        [p, q] if is_xt(p) => (p, q),
        [p, q] if is_xt(q) => (q, p),
        _ => return Ok(None),
    };
    // Scaling `b` instead of `a` must not cost more, nor change a dtype.
    if b.size() > a.size() || [xt.dtype, w.dtype, b.dtype].iter().any(|&d| d != a.dtype) {
        return Ok(None);
    }
    let n = a.shape()[1];
    let column = match w.shape().as_slice() {
        [len] if *len == n => expand_dims(w, &[1])?,
        [1, len] if *len == n => transpose(w, None)?,
        _ => return Ok(None),
    };
    Ok(Some((xt.clone(), binary(BinaryOp::Multiply, b, &column)?)))
}

/// The blocks of the contracted axis: the common refinement of both operands' when one's
/// boundaries include the other's (cutting blocks is free: views), else the blocks of the
/// operand not rechunked, the cheaper one (`a_is_cheaper`) being rechunked to them; a
/// refinement of two unrelated chunkings would make many small products.
fn contracted_chunks(a: &[usize], b: &[usize], a_is_cheaper: bool) -> Vec<usize> {
    let common = common_refinement(a, b);
    if common.len() == a.len().max(b.len()) {
        common
    } else if a_is_cheaper {
        b.to_vec()
    } else {
        a.to_vec()
    }
}

/// `x` with its stack axes broadcast to `stack` (its matrix axes kept): a selection of `x`
/// against a constant, nothing stored per broadcast element. Broadcast axes take `other`'s
/// chunks where it spans them.
fn broadcast_stack(x: &NodeRef, stack: &[usize], other: &NodeRef) -> Result<NodeRef> {
    let shape = x.shape();
    let lead = stack.len() + 2 - shape.len();
    if lead == 0 && shape[..stack.len()] == *stack {
        return Ok(x.clone());
    }
    let other_lead = stack.len() + 2 - other.ndim();
    let sizes: Vec<Vec<usize>> = (0..stack.len() + 2)
        .map(|axis| {
            if axis >= stack.len() || (axis >= lead && shape[axis - lead] == stack[axis]) {
                x.chunks.axis(axis - lead).to_vec()
            } else if axis >= other_lead && other.shape()[axis - other_lead] == stack[axis] {
                other.chunks.axis(axis - other_lead).to_vec()
            } else {
                vec![stack[axis]]
            }
        })
        .collect();
    let everywhere = full(Scalar::Bool(true), tegula_core::DType::Bool, Chunks::from_axes(sizes))?;
    where_(&everywhere, x, x)
}
