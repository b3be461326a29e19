//! Element-wise maps over one, two or three broadcast inputs into a new chunk.

use crate::chunk::{Block, Chunk, Wrap};
use crate::element::Elem;
use ndarray::{IxDyn, Zip};
use tegula_core::shape::broadcast_all;
use tegula_core::{Result, TegulaError};

fn broadcast_to<'a, T>(a: &'a Block<T>, shape: &[usize]) -> Result<ndarray::ArrayViewD<'a, T>> {
    a.broadcast(IxDyn(shape)).ok_or_else(|| {
        TegulaError::Internal(format!("cannot broadcast block {:?} to {:?}", a.shape(), shape))
    })
}

pub fn map1<A: Elem, O: Wrap>(a: &Block<A>, f: impl Fn(A) -> O + Sync) -> Chunk {
    O::wrap(a.map(|&x| f(x)).into())
}

pub fn map2<A: Elem, B: Elem, O: Wrap>(a: &Block<A>, b: &Block<B>, f: impl Fn(A, B) -> O) -> Result<Chunk> {
    let shape = broadcast_all(&[a.shape(), b.shape()])?;
    // A one-element operand (a Python scalar) is read once, so the loop over the other operand
    // runs over contiguous memory and vectorises; a stride-0 broadcast would not.
    if let (Some(&y), true) = (b.first().filter(|_| b.len() == 1), shape == a.shape()) {
        return Ok(O::wrap(a.map(|&x| f(x, y)).into()));
    }
    if let (Some(&x), true) = (a.first().filter(|_| a.len() == 1), shape == b.shape()) {
        return Ok(O::wrap(b.map(|&y| f(x, y)).into()));
    }
    let (va, vb) = (broadcast_to(a, &shape)?, broadcast_to(b, &shape)?);
    Ok(O::wrap(Zip::from(&va).and(&vb).map_collect(|&x, &y| f(x, y)).into()))
}

pub fn map3<A: Elem, B: Elem, C: Elem, O: Wrap>(
    a: &Block<A>,
    b: &Block<B>,
    c: &Block<C>,
    f: impl Fn(A, B, C) -> O,
) -> Result<Chunk> {
    let shape = broadcast_all(&[a.shape(), b.shape(), c.shape()])?;
    let (va, vb, vc) = (broadcast_to(a, &shape)?, broadcast_to(b, &shape)?, broadcast_to(c, &shape)?);
    Ok(O::wrap(Zip::from(&va).and(&vb).and(&vc).map_collect(|&x, &y, &z| f(x, y, z)).into()))
}
