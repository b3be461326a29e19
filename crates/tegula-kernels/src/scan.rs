//! Running sums, products and forward fills of one block along an axis (the blocks of
//! `cumulative_sum`, `cumulative_prod` and `push`, before what the blocks before them come to
//! is added, multiplied or filled in).

use crate::chunk::{Block, Chunk, Wrap};
use crate::element::{Num, Ordered};
use crate::with_chunk;
use crate::zip::map2;
use ndarray::Axis;
use tegula_core::{internal_err, Result, ScanOp};

/// `KernelOp::Scan`: the running `op` of `a` along `axis`.
pub fn scan(op: ScanOp, axis: usize, a: &Chunk) -> Result<Chunk> {
    if axis >= a.ndim() {
        return Err(internal_err!("scan along axis {axis} of a {}-d block", a.ndim()));
    }
    Ok(with_chunk!(a, x => match op {
        ScanOp::Sum => running(x, axis, Num::add),
        ScanOp::Prod => running(x, axis, Num::mul),
        ScanOp::Fill => running(x, axis, |prev, cur| if cur.is_nan_value() { prev } else { cur }),
    }))
}

/// `a` with each NaN replaced by `b`'s element, `b` broadcast to `a`'s shape.
pub fn fill_nan(a: &Chunk, b: &Chunk) -> Result<Chunk> {
    with_chunk!(a, x => map2(x, b.typed()?, |p, q| if p.is_nan_value() { q } else { p }))
}

/// `f` folded along `axis`, keeping every intermediate value (in order: as NumPy accumulates).
fn running<T: Num + Ordered + Wrap>(a: &Block<T>, axis: usize, f: impl Fn(T, T) -> T) -> Chunk {
    let mut out = a.as_standard_layout().into_owned();
    out.accumulate_axis_inplace(Axis(axis), |&prev, cur| *cur = f(prev, *cur));
    T::wrap(out.into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{array, ArrayD};

    fn block(a: ArrayD<f64>) -> Chunk {
        Chunk::Float64(a.into())
    }

    fn values(c: &Chunk) -> Vec<f64> {
        c.typed::<f64>().unwrap().iter().copied().collect()
    }

    fn same(a: &[f64], b: &[f64]) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
    }

    #[test]
    fn a_forward_fill_carries_the_last_value_along_its_axis_only() {
        let nan = f64::NAN;
        let a = block(array![[nan, 1.0, nan, nan], [2.0, nan, 3.0, nan]].into_dyn());
        assert!(same(&values(&scan(ScanOp::Fill, 1, &a).unwrap()), &[nan, 1.0, 1.0, 1.0, 2.0, 2.0, 3.0, 3.0]));
        assert!(same(&values(&scan(ScanOp::Fill, 0, &a).unwrap()), &[nan, 1.0, nan, nan, 2.0, 1.0, 3.0, nan]));
    }

    #[test]
    fn nans_are_filled_from_a_broadcast_prefix() {
        let nan = f64::NAN;
        let running = block(array![[nan, 1.0], [nan, nan]].into_dyn());
        let prefix = block(array![[7.0], [nan]].into_dyn());
        assert!(same(&values(&fill_nan(&running, &prefix).unwrap()), &[7.0, 1.0, nan, nan]));
        assert!(fill_nan(&running, &block(array![[1.0, 2.0, 3.0]].into_dyn())).is_err());
    }
}
