//! Kernels that move elements without computing: a region of a stored array, basic-index
//! selection, transposition, new axes and reshapes of row-major blocks (zero-copy views);
//! assembling a block from pieces is `assemble`.

use crate::chunk::{Block, Chunk, Wrap};
use crate::with_chunk;
use ndarray::{ArrayD, Axis, Slice, SliceInfoElem};
use tegula_core::{Result, Select, TegulaError};

/// The elements `region` (a range per axis) of `source`, sharing its data.
pub fn load(source: &Chunk, region: &[(usize, usize)]) -> Result<Chunk> {
    if region.len() != source.ndim() || region.iter().zip(source.shape()).any(|(r, &n)| r.0 > r.1 || r.1 > n) {
        return Err(TegulaError::Internal(format!("region {region:?} outside {:?}", source.shape())));
    }
    Ok(with_chunk!(source.clone(), a => Wrap::wrap(a.map_view(|mut a| {
        for (axis, &(lo, hi)) in region.iter().enumerate() {
            a.slice_axis_inplace(Axis(axis), Slice::from(lo..hi));
        }
        a
    }))))
}

/// Basic indexing of one block: ranges (possibly reversed), single indices, new axes; a view
/// of its data, or a copy when the selection is a small part of a big allocation.
pub fn select(source: &Chunk, axes: &[Select]) -> Result<Chunk> {
    let info = slice_info(source, axes)?;
    with_chunk!(source, a => {
        let view = a.clone().map_view(|a| a.slice_move(info.as_ref()));
        Ok(Wrap::wrap(if pins_much_more(&view) { view.to_owned().into() } else { view }))
    })
}

/// A selection more than this many times smaller than the allocation it reads is copied out.
const NARROW: usize = 2;

/// Whether `view` would keep alive an allocation of more than twice its own size: a task's
/// result is counted at its own size, so a small view held while its source block is freed
/// (a tile of a strip, waiting for its partner; a tile of `U` cut from the top of a column
/// block, held until the substitution at the end of a solve) would hold memory nothing
/// accounts for. (At four times, the tiles of `U` of the last steps of an out-of-core LU held
/// half a gigabyte beyond the ledger.)
fn pins_much_more<T: Clone + Send + Sync + 'static>(view: &Block<T>) -> bool {
    view.pinned_len().is_some_and(|pinned| view.len().saturating_mul(NARROW) < pinned)
}

/// A copy of `source` with its selection `axes` replaced by `values` (of the selection's shape
/// and `source`'s dtype).
pub fn set_select(source: &Chunk, values: &Chunk, axes: &[Select]) -> Result<Chunk> {
    let info = slice_info(source, axes)?;
    let values = values.cast(source.dtype());
    with_chunk!(source, a => {
        let mut out = a.to_owned();
        let mut target = out.slice_mut(info.as_ref());
        let v = values.typed()?;
        if v.shape() != target.shape() {
            return Err(TegulaError::Internal(format!("values {:?} for a selection {:?}", v.shape(), target.shape())));
        }
        target.assign(v);
        Ok(Wrap::wrap(out.into()))
    })
}

type BlockSlice = ndarray::SliceInfo<Vec<SliceInfoElem>, ndarray::IxDyn, ndarray::IxDyn>;

fn slice_info(source: &Chunk, axes: &[Select]) -> Result<BlockSlice> {
    let consumed = axes.iter().filter(|s| !matches!(s, Select::NewAxis)).count();
    if consumed != source.ndim() {
        return Err(TegulaError::Internal(format!("selection {axes:?} of a {}-d block", source.ndim())));
    }
    let info: Vec<SliceInfoElem> = axes
        .iter()
        .map(|s| match *s {
            Select::Range { start, stop, step } => SliceInfoElem::Slice {
                start: start as isize,
                end: Some(stop as isize),
                step,
            },
            Select::Index(i) => SliceInfoElem::Index(i as isize),
            Select::NewAxis => SliceInfoElem::NewAxis,
        })
        .collect();
    BlockSlice::try_from(info).map_err(|e| TegulaError::Internal(format!("selection: {e}")))
}

/// `KernelOp::Transpose`: a view of `source` whose axis `i` is its axis `perm[i]`.
pub fn transpose(source: &Chunk, perm: &[usize]) -> Result<Chunk> {
    let mut seen = vec![false; source.ndim()];
    if perm.len() != source.ndim() || perm.iter().any(|&p| p >= seen.len() || std::mem::replace(&mut seen[p], true)) {
        return Err(TegulaError::Internal(format!("bad permutation {perm:?}")));
    }
    Ok(with_chunk!(source.clone(), a => Wrap::wrap(a.map_view(|a| a.permuted_axes(perm.to_vec())))))
}

/// The order of `block`'s axes, outermost first in memory, and the block in that order (a
/// view), when the order differs from the block's own and puts the block in row-major layout;
/// `None` otherwise (row-major already, a reversed or broadcast axis, a window with gaps).
pub fn memory_order(block: &Chunk) -> Option<(Vec<usize>, Chunk)> {
    if block.ndim() < 2 || block.len() <= 1 {
        return None;
    }
    let (standard, strides) = with_chunk!(block, a => (a.is_standard_layout(), a.strides().to_vec()));
    if standard || strides.iter().any(|&s| s < 0) {
        return None;
    }
    let shape = block.shape();
    // Axes of length one may have any stride: they go first, where they cost nothing.
    let key = |axis: usize| if shape[axis] <= 1 { isize::MAX } else { strides[axis] };
    let mut perm: Vec<usize> = (0..block.ndim()).collect();
    perm.sort_by_key(|&axis| std::cmp::Reverse(key(axis)));
    if perm.iter().enumerate().all(|(i, &p)| i == p) {
        return None;
    }
    let ordered = transpose(block, &perm).ok()?;
    with_chunk!(&ordered, a => a.is_standard_layout()).then_some((perm, ordered))
}

/// The block with length-one axes at `axes` (ascending positions in the result), sharing its data.
pub fn expand_dims(source: &Chunk, axes: &[usize]) -> Result<Chunk> {
    if axes.iter().enumerate().any(|(i, &a)| a > source.ndim() + i || i > 0 && a <= axes[i - 1]) {
        return Err(TegulaError::Internal(format!("new axes {axes:?} for a {}-d block", source.ndim())));
    }
    Ok(with_chunk!(source.clone(), a => Wrap::wrap(a.map_view(|mut a| {
        axes.iter().for_each(|&axis| a.insert_axis_inplace(Axis(axis)));
        a
    }))))
}

/// The block's elements in row-major order as a block of `shape`: a view of a row-major block
/// (what a reshape plan's blocks usually are), a copy of any other.
pub fn reshape(source: &Chunk, shape: &[usize]) -> Result<Chunk> {
    if shape.iter().product::<usize>() != source.len() {
        return Err(TegulaError::Internal(format!("reshape of a {:?} block into {shape:?}", source.shape())));
    }
    with_chunk!(source, a => {
        let a = if a.is_standard_layout() {
            a.clone()
        } else {
            let mut data = tegula_core::memory::big_vec(a.len());
            data.extend(a.iter().copied());
            ArrayD::from_shape_vec(a.shape(), data).map_err(|e| TegulaError::Internal(format!("reshape: {e}")))?.into()
        };
        let a = a.try_map_view(|a| a.into_shape_with_order(shape)).map_err(|e| TegulaError::Internal(format!("reshape: {e}")))?;
        Ok(Wrap::wrap(a))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strip() -> Chunk {
        Chunk::Float64(ArrayD::from_shape_fn(vec![4, 64], |i| (i[0] * 64 + i[1]) as f64).into())
    }

    fn range(start: usize, stop: usize) -> Select {
        Select::Range { start, stop, step: 1 }
    }

    #[test]
    fn a_small_selection_owns_its_elements_and_a_large_one_shares_them() {
        let source = strip();
        let tile = select(&source, &[range(0, 4), range(8, 12)]).unwrap();
        let half = select(&source, &[range(0, 4), range(0, 32)]).unwrap();
        let (source, tile, half) = (source.typed::<f64>().unwrap(), tile.typed::<f64>().unwrap(), half.typed::<f64>().unwrap());
        assert_eq!(tile.pinned_len(), Some(16));
        assert!(!tile.shares_owner(source));
        assert!(half.shares_owner(source));
        assert_eq!(half.pinned_len(), Some(256));
        assert_eq!(tile.to_owned(), source.to_owned().slice(ndarray::s![.., 8..12]).into_dyn());
    }
}
