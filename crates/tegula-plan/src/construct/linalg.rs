//! Linear algebra of stacks of matrices, the simple way: each input's last two axes are
//! rechunked into one block (a whole matrix per block, however big), its stack axes keep
//! input 0's chunks, and each stack block is one task that factorises its matrices.

use super::elementwise::cast;
use super::layout::rechunk;
use crate::node::{Node, NodeKind, NodeRef};
use tegula_core::shape::fmt_shape;
use tegula_core::{linalg_err, promote, shape_err, Chunks, DType, LinalgOp, Result};

/// The result `op` names of each matrix of `inputs`, a whole matrix per task.
pub fn linalg(op: LinalgOp, inputs: &[NodeRef]) -> Result<NodeRef> {
    result(op, &prepared(op, inputs)?)
}

/// Every result of the factorisation `op` (`LinalgOp::results`) of the same prepared inputs,
/// so a plan asking for several of them factorises each matrix once.
pub fn linalg_results(op: LinalgOp, inputs: &[NodeRef]) -> Result<Vec<NodeRef>> {
    let prepared = prepared(op, inputs)?;
    op.results().into_iter().map(|r| result(r, &prepared)).collect()
}

/// The inputs of a factorisation, checked, cast to the dtype it runs in and rechunked to
/// whole matrices.
struct Prepared {
    inputs: Vec<NodeRef>,
    /// Each input's matrix shape.
    matrices: Vec<(usize, usize)>,
    compute: DType,
}

fn prepared(op: LinalgOp, inputs: &[NodeRef]) -> Result<Prepared> {
    check_arity(op, inputs)?;
    for x in inputs {
        tegula_core::time::refuse_times(x.dtype, op.name())?;
    }
    if let Some(x) = inputs.iter().find(|x| x.ndim() < 2) {
        return Err(linalg_err!("{}-dimensional array given. Array must be at least two-dimensional", x.ndim()));
    }
    let stack = &inputs[0].shape()[..inputs[0].ndim() - 2];
    if let Some(x) = inputs.iter().find(|x| &x.shape()[..x.ndim() - 2] != stack) {
        return Err(shape_err!("{}: stack shapes {} and {} differ", op.name(), fmt_shape(stack), fmt_shape(&x.shape()[..x.ndim() - 2])));
    }
    let matrices: Vec<(usize, usize)> = inputs.iter().map(matrix_shape).collect();
    op.check(&matrices)?;
    let compute = op.compute_dtype(inputs.iter().map(|x| x.dtype).reduce(promote).unwrap_or(inputs[0].dtype))?;
    let stack_chunks = &inputs[0].chunks.sizes()[..stack.len()];
    let inputs = inputs
        .iter()
        .zip(&matrices)
        .map(|(x, &(m, n))| rechunk(&cast(x, compute)?, Chunks::from_axes(with_tail(stack_chunks, &[m, n]))))
        .collect::<Result<Vec<_>>>()?;
    Ok(Prepared { inputs, matrices, compute })
}

/// `op` of prepared inputs.
fn result(op: LinalgOp, p: &Prepared) -> Result<NodeRef> {
    let stack_chunks = &p.inputs[0].chunks.sizes()[..p.inputs[0].ndim() - 2];
    let chunks = Chunks::from_axes(with_tail(stack_chunks, &op.result_shape(&p.matrices)));
    Node::checked(NodeKind::Linalg { op }, p.inputs.clone(), op.output_dtype(p.compute), chunks)
}

fn check_arity(op: LinalgOp, inputs: &[NodeRef]) -> Result<()> {
    if inputs.len() != op.arity() {
        return Err(tegula_core::internal_err!("{} takes {} inputs, got {}", op.name(), op.arity(), inputs.len()));
    }
    Ok(())
}

fn matrix_shape(x: &NodeRef) -> (usize, usize) {
    let s = x.shape();
    (s[s.len() - 2], s[s.len() - 1])
}

/// The stack axes' chunks followed by one block for each trailing length.
fn with_tail(stack: &[Vec<usize>], tail: &[usize]) -> Vec<Vec<usize>> {
    stack.iter().cloned().chain(tail.iter().map(|&n| vec![n])).collect()
}

/// `op` of each row block of a matrix as a matrix of its own: the pieces of a tall-skinny QR
/// (`Qr` → each block's `R`, stacked; `QrApply` → each block's `Q` times the rows of input 1
/// that belong to it). Input 0 keeps its row chunks (its columns become one block); input 1's
/// rows are cut as the per-block results' rows, its columns one block. The result's row
/// chunks are those of the per-block results, its columns one block.
pub fn linalg_row_blocks(op: LinalgOp, inputs: &[NodeRef]) -> Result<NodeRef> {
    check_arity(op, inputs)?;
    if let Some(x) = inputs.iter().find(|x| x.ndim() != 2) {
        return Err(linalg_err!("{}-dimensional array given. Row blocks need a two-dimensional array", x.ndim()));
    }
    let (rows, n) = (inputs[0].chunks.sizes()[0].clone(), inputs[0].shape()[1]);
    let heights: Vec<usize> = rows.iter().map(|&b| b.min(n)).collect();
    let compute = op.compute_dtype(inputs.iter().map(|x| x.dtype).reduce(promote).unwrap_or(inputs[0].dtype))?;
    let mut cut = vec![Chunks::from_axes(vec![rows.clone(), vec![n]])];
    if let Some(b) = inputs.get(1) {
        if b.shape()[0] != heights.iter().sum::<usize>() {
            return Err(shape_err!("{}: the right factor has {} rows, not {}", op.name(), b.shape()[0], heights.iter().sum::<usize>()));
        }
        cut.push(Chunks::from_axes(vec![heights.clone(), vec![b.shape()[1]]]));
    }
    let mut result_rows = Vec::with_capacity(rows.len());
    let mut result_cols = 0;
    for (&m, &h) in rows.iter().zip(&heights) {
        let matrices: Vec<(usize, usize)> = std::iter::once((m, n)).chain(inputs.get(1).map(|b| (h, b.shape()[1]))).collect();
        op.check(&matrices)?;
        match op.result_shape(&matrices)[..] {
            [r, c] => (result_rows.push(r), result_cols = c),
            _ => return Err(tegula_core::internal_err!("{} of row blocks needs a matrix result", op.name())),
        };
    }
    let inputs = inputs.iter().zip(cut).map(|(x, c)| rechunk(&cast(x, compute)?, c)).collect::<Result<Vec<_>>>()?;
    let chunks = Chunks::from_axes(vec![result_rows, vec![result_cols]]);
    Node::checked(NodeKind::Linalg { op }, inputs, op.output_dtype(compute), chunks)
}
