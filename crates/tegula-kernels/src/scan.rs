//! Running sums and products of one block along an axis (the blocks of `cumulative_sum` and
//! `cumulative_prod`, before the totals of the blocks before them are added).

use crate::chunk::{Block, Chunk, Wrap};
use crate::element::Num;
use crate::with_chunk;
use ndarray::Axis;
use tegula_core::{internal_err, Result, ScanOp};

pub fn scan(op: ScanOp, axis: usize, a: &Chunk) -> Result<Chunk> {
    if axis >= a.ndim() {
        return Err(internal_err!("scan along axis {axis} of a {}-d block", a.ndim()));
    }
    Ok(with_chunk!(a, x => match op {
        ScanOp::Sum => running(x, axis, Num::add),
        ScanOp::Prod => running(x, axis, Num::mul),
    }))
}

/// `f` folded along `axis`, keeping every intermediate value (in order: as NumPy accumulates).
fn running<T: Num + Wrap>(a: &Block<T>, axis: usize, f: impl Fn(T, T) -> T) -> Chunk {
    let mut out = a.as_standard_layout().into_owned();
    out.accumulate_axis_inplace(Axis(axis), |&prev, cur| *cur = f(prev, *cur));
    T::wrap(out.into())
}
