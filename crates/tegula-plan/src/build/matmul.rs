//! Matrix products of 2-D nodes, planned as blockwise products plus a tree sum.

use super::layout::rechunk;
use crate::node::{Node, NodeKind, NodeRef};
use tegula_core::grid::common_refinement;
use tegula_core::{promote, shape_err, Chunks, Result};

pub fn matmul(a: &NodeRef, b: &NodeRef, split_every: usize) -> Result<NodeRef> {
    let (sa, sb) = (a.shape(), b.shape());
    if sa.len() != 2 || sb.len() != 2 {
        return Err(shape_err!("matmul of {}-d and {}-d operands is not supported yet (2-d only)", sa.len(), sb.len()));
    }
    if sa[1] != sb[0] {
        return Err(shape_err!(
            "matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature (n?,k),(k,m?)->(n?,m?) (size {} is different from {})",
            sb[0],
            sa[1]
        ));
    }
    let k = common_refinement(a.chunks.axis(1), b.chunks.axis(0));
    let a = rechunk(a, a.chunks.with_axis(1, k.clone()))?;
    let b = rechunk(b, b.chunks.with_axis(0, k))?;
    let chunks = Chunks::from_axes(vec![a.chunks.axis(0).to_vec(), b.chunks.axis(1).to_vec()]);
    let dtype = promote(a.dtype, b.dtype);
    Ok(Node::new(NodeKind::Matmul { split_every: split_every.max(2) }, vec![a, b], dtype, chunks))
}
