//! Reductions of blocks whose axes are a row-major block's in another order (a transpose, or
//! a slice of one: xarray moves a grouped axis last before flox reduces along it). Such a
//! block is reduced with its axes put back in memory order and the reduced axes renumbered,
//! then the partial is given the block's axis order again (a view): the same values as
//! reducing the block as it stands, without first copying it to row-major order (a pass over
//! the whole block) and then folding lanes whose elements lie far apart in memory.

use crate::chunk::Chunk;
use crate::layout::{memory_order, transpose};
use tegula_core::{internal_err, PartialReduce, Result};

/// `reduce(op, axes, block)`, run on `block`'s axes in memory order when they are a
/// permutation of a row-major block's.
pub fn in_memory_order(
    op: PartialReduce,
    axes: &[usize],
    block: &Chunk,
    reduce: impl Fn(PartialReduce, &[usize], &Chunk) -> Result<Chunk>,
) -> Result<Chunk> {
    let Some((perm, ordered)) = memory_order(block) else {
        return reduce(op, axes, block);
    };
    // Where each of the block's axes lies in memory order.
    let mut place = vec![0; perm.len()];
    perm.iter().enumerate().for_each(|(i, &axis)| place[axis] = i);
    let mut moved = axes.iter().map(|&a| place.get(a).copied().ok_or_else(|| internal_err!("axis {a} of a {}-d block", place.len()))).collect::<Result<Vec<usize>>>()?;
    moved.sort_unstable();
    let partial = reduce(op, &moved, &ordered)?;
    // Partials keep every axis (reduced ones with length one), after a new leading axis for
    // stacked partials (moments, sum and count).
    let lead = usize::from(op.stacked().is_some());
    let back: Vec<usize> = (0..lead).chain(place.iter().map(|&i| lead + i)).collect();
    transpose(&partial, &back)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::with_chunk;
    use crate::reduce::reduce_partial;
    use ndarray::{ArrayD, IxDyn};
    use tegula_core::DType;

    fn block(shape: &[usize]) -> Chunk {
        let n: usize = shape.iter().product();
        // NaNs at some places, so the NaN-skipping reductions skip something.
        let values = (0..n).map(|i| if i % 7 == 3 { f64::NAN } else { ((i * 37) % 101) as f64 - 50.0 }).collect();
        Chunk::Float64(ArrayD::from_shape_vec(IxDyn(shape), values).unwrap().into())
    }

    fn values(c: &Chunk) -> (Vec<usize>, Vec<f64>) {
        let c = c.cast(DType::Float64);
        let t = c.typed::<f64>().unwrap();
        (t.shape().to_vec(), t.iter().copied().collect())
    }

    #[test]
    fn a_transposed_block_reduces_to_the_partial_of_its_row_major_copy() {
        let ops = [
            PartialReduce::Sum { acc: DType::Float64 },
            PartialReduce::NanSum { acc: DType::Float64 },
            PartialReduce::NanSumCount { acc: DType::Float64 },
            PartialReduce::NanMax,
            PartialReduce::Moments,
        ];
        let source = block(&[5, 4, 6]);
        for perm in [[1, 2, 0], [2, 0, 1], [0, 2, 1], [2, 1, 0]] {
            let permuted = transpose(&source, &perm).unwrap();
            let copied = with_chunk!(&permuted, a => crate::chunk::Wrap::wrap(a.as_standard_layout().into_owned().into()));
            assert!(memory_order(&permuted).is_some());
            for op in ops {
                for axes in [vec![0], vec![2], vec![0, 1], vec![1, 2]] {
                    let fast = in_memory_order(op, &axes, &permuted, reduce_partial).unwrap();
                    let plain = reduce_partial(op, &axes, &copied).unwrap();
                    let ((fs, fv), (ps, pv)) = (values(&fast), values(&plain));
                    assert_eq!(fs, ps, "{op:?} {perm:?} {axes:?}");
                    for (f, p) in fv.iter().zip(&pv) {
                        assert!(f == p || (f.is_nan() && p.is_nan()) || (f - p).abs() <= 1e-9 * p.abs(), "{op:?} {perm:?} {axes:?}: {f} {p}");
                    }
                }
            }
        }
    }

    #[test]
    fn blocks_in_row_major_order_or_with_gaps_are_left_as_they_are() {
        let source = block(&[4, 6]);
        assert!(memory_order(&source).is_none());
        let window = with_chunk!(&source, a => crate::chunk::Wrap::wrap(a.clone().map_view(|v| v.slice_move(ndarray::s![.., 1..4]).into_dyn())));
        assert!(memory_order(&window).is_none());
    }
}
