//! A factorisation with several results (`qr`, `svd`, `eigh`, `eig`, `slogdet`) of each matrix
//! of a block, every result from one factorisation: the kernel of a task with several outputs.

use crate::chunk::{Chunk, Wrap};
use crate::field::Field;
use crate::panel_lu::panel_lu;
use crate::linalg::{eig_pair, eigh_pair, qr_q, qr_r, slogdet, svd_factors, Pair, Stack};
use ndarray::ArrayD;
use tegula_core::{internal_err, DType, LinalgOp, Result};

/// The results of `op` (`LinalgOp::results`, in that order) for each matrix of `block`.
pub fn factorise(op: LinalgOp, block: &Chunk) -> Result<Vec<Chunk>> {
    crate::field::fixed_splits();
    match block.dtype() {
        DType::Float32 => typed::<f32>(op, block),
        DType::Float64 => typed::<f64>(op, block),
        DType::Complex64 => typed::<crate::element::C64>(op, block),
        DType::Complex128 => typed::<crate::element::C128>(op, block),
        d => Err(internal_err!("{} of a {d:?} block", op.name())),
    }
}

fn typed<T: Field>(op: LinalgOp, block: &Chunk) -> Result<Vec<Chunk>> {
    let a = Stack::<T>::new(block)?;
    let (_, m, n) = a.dim();
    let shapes: Vec<Vec<usize>> =
        op.results().into_iter().map(|r| a.stack.iter().copied().chain(r.result_shape(&[(m, n)])).collect()).collect();
    let x = |i: usize| a.matrix(i);
    match op {
        LinalgOp::Slogdet { .. } => two(&a, &shapes, |i| {
            let (sign, log) = slogdet(x(i).as_ref());
            Ok((vec![sign], vec![log]))
        }),
        LinalgOp::Qr { complete, .. } => two(&a, &shapes, |i| {
            let qr = x(i).qr();
            Ok((qr_q(&qr, complete), qr_r(&qr, (m, n), complete)))
        }),
        LinalgOp::Svd { full, .. } => {
            let mut values = Vec::new();
            let mut parts = two(&a, &[shapes[0].clone(), shapes[2].clone()], |i| {
                let (u, s, vh) = svd_factors(x(i).as_ref(), full)?;
                values.extend(s);
                Ok((u, vh))
            })?;
            parts.insert(1, gathered(&shapes[1], values)?);
            Ok(parts)
        }
        LinalgOp::Eigh { .. } => two(&a, &shapes, |i| eigh_pair(x(i).as_ref())),
        LinalgOp::Eig { .. } => two(&a, &shapes, |i| eig_pair(x(i).as_ref())),
        LinalgOp::PanelLu { refuse_singular, .. } => two(&a, &shapes, |i| panel_lu(x(i), refuse_singular)),
        _ => Err(internal_err!("{} has one result", op.name())),
    }
}

/// Two results of `f` for each matrix of `a` (by its index), one after another, as blocks of
/// `shapes[0]` and `shapes[1]`.
fn two<T, U: Wrap, V: Wrap>(
    a: &Stack<T>,
    shapes: &[Vec<usize>],
    mut f: impl FnMut(usize) -> Result<Pair<U, V>>,
) -> Result<Vec<Chunk>> {
    let (mut first, mut second) = (Vec::new(), Vec::new());
    for i in 0..a.dim().0 {
        let (u, v) = f(i)?;
        first.extend(u);
        second.extend(v);
    }
    Ok(vec![gathered(&shapes[0], first)?, gathered(&shapes[1], second)?])
}

fn gathered<U: Wrap>(shape: &[usize], elements: Vec<U>) -> Result<Chunk> {
    let array = ArrayD::from_shape_vec(shape, elements).map_err(|e| internal_err!("a factor's shape: {e}"))?;
    Ok(U::wrap(array.into()))
}
