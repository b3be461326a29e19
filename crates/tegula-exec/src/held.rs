//! An array in memory as the blocks a computation made (a persisted array's), kept as they are:
//! a load is a view of the block holding its region, so keeping them copies nothing; blocks a
//! device made stay in its memory, a load of a whole one handing it over as it is (a part of
//! one, or a region across several, is copied to the host). The data of an array resource is
//! a `Chunk` (an array the caller gave) or `HeldBlocks`.

use crate::assemble::assemble_output;
use std::any::Any;
use std::borrow::Cow;
use tegula_core::grid::{for_each_block, offsets, ravel};
use tegula_core::{internal_err, Chunks, DType, DeviceId, Piece, Result, Scalar};
use tegula_kernels::{with_chunk, Chunk, Wrap};

/// An array in memory as the blocks of its chunk grid, each owning exactly its elements.
pub struct HeldBlocks {
    chunks: Chunks,
    dtype: DType,
    /// The device holding the blocks that are not on the host.
    device: DeviceId,
    /// The first element of every block, per axis.
    starts: Vec<Vec<usize>>,
    /// In the grid's row-major order, each owning exactly its elements.
    blocks: Vec<Chunk>,
}

impl HeldBlocks {
    /// Keeps `blocks` (of `chunks`, in row-major block order; those not on the host on
    /// `device`); a host block that is a view of more memory than its own elements is copied,
    /// so the blocks hold no more than their bytes.
    pub fn new(chunks: Chunks, dtype: DType, device: DeviceId, blocks: Vec<Chunk>) -> Result<HeldBlocks> {
        if blocks.len() != chunks.nblocks() {
            return Err(internal_err!("{} blocks held for a grid of {}", blocks.len(), chunks.nblocks()));
        }
        let owning = |b: Chunk| {
            if b.is_on_device() {
                return if b.dtype() == dtype { Ok(b) } else { Err(internal_err!("a {} block held as {dtype}", b.dtype())) };
            }
            let b = if b.dtype() == dtype { b } else { b.cast(dtype) };
            Ok(with_chunk!(b, b => Wrap::wrap(b.into_owned().into())))
        };
        let blocks = blocks.into_iter().map(owning).collect::<Result<_>>()?;
        let starts = chunks.sizes().iter().map(|s| offsets(s)).collect();
        Ok(HeldBlocks { chunks, dtype, device, starts, blocks })
    }

    /// The bytes of all its blocks' elements.
    pub fn nbytes(&self) -> usize {
        self.blocks.iter().map(Chunk::nbytes).sum()
    }

    /// `region` of the array: a view of the block holding it, else a copy of the parts of
    /// the blocks it overlaps.
    pub fn load(&self, region: &[(usize, usize)]) -> Result<Chunk> {
        let shape = self.chunks.shape();
        if region.len() != shape.len() || region.iter().zip(&shape).any(|(&(lo, hi), &n)| lo > hi || hi > n) {
            return Err(internal_err!("region {region:?} outside an array of shape {shape:?}"));
        }
        let within: Option<Vec<usize>> = region.iter().enumerate().map(|(a, &r)| self.block_holding(a, r)).collect();
        if let Some(idx) = within {
            let block = &self.blocks[ravel(&idx, &self.chunks.numblocks())];
            let relative: Vec<(usize, usize)> = region.iter().zip(&idx).enumerate().map(|(a, (&(lo, hi), &b))| (lo - self.starts[a][b], hi - self.starts[a][b])).collect();
            if block.is_on_device() && relative.iter().zip(block.shape()).all(|(&r, &n)| r == (0, n)) {
                return Ok(block.clone());
            }
            return tegula_kernels::layout::load(&self.on_host(block)?, &relative);
        }
        let out_shape: Vec<usize> = region.iter().map(|(lo, hi)| hi - lo).collect();
        if out_shape.contains(&0) {
            return Ok(Chunk::full(self.dtype, &out_shape, Scalar::Bool(false)));
        }
        let (inputs, pieces) = self.pieces(region);
        let inputs = inputs.iter().map(|b| self.on_host(b)).collect::<Result<Vec<_>>>()?;
        tegula_kernels::assemble::assemble(&inputs, &out_shape, &pieces)
    }

    /// The whole array as one chunk in the host's memory (to send it to another process).
    pub fn whole(&self) -> Result<Chunk> {
        assemble_output(&self.chunks, self.dtype, self.blocks.iter().map(|b| self.on_host(b)).collect::<Result<_>>()?)
    }

    /// `block`, one of its blocks, in the host's memory.
    fn on_host(&self, block: &Chunk) -> Result<Chunk> {
        if block.is_on_device() {
            return crate::device::to_host(self.device, block.clone());
        }
        Ok(block.clone())
    }

    /// The block along `axis` holding all of `lo..hi`, if one does.
    fn block_holding(&self, axis: usize, (lo, hi): (usize, usize)) -> Option<usize> {
        let starts = &self.starts[axis];
        let b = starts.partition_point(|&s| s <= lo).checked_sub(1)?;
        (hi <= starts[b] + self.chunks.axis(axis)[b]).then_some(b)
    }

    /// The blocks `region` (with no empty axis) overlaps and the part of each it takes.
    fn pieces(&self, region: &[(usize, usize)]) -> (Vec<Chunk>, Vec<Piece>) {
        let per_axis: Vec<Vec<(usize, usize, usize)>> = region
            .iter()
            .enumerate()
            .map(|(a, &(lo, hi))| {
                let ends = self.starts[a].iter().zip(self.chunks.axis(a)).map(|(&s, &n)| (s, s + n));
                ends.enumerate().filter(|&(_, (s, e))| s < hi && e > lo).map(|(b, (s, e))| (b, s.max(lo), e.min(hi))).collect()
            })
            .collect();
        let (mut inputs, mut pieces) = (Vec::new(), Vec::new());
        let numblocks = self.chunks.numblocks();
        let counts: Vec<usize> = per_axis.iter().map(Vec::len).collect();
        for_each_block(&counts, |at| {
            let parts: Vec<(usize, usize, usize)> = at.iter().zip(&per_axis).map(|(&i, p)| p[i]).collect();
            let idx: Vec<usize> = parts.iter().map(|p| p.0).collect();
            pieces.push(Piece {
                input: inputs.len(),
                src: parts.iter().enumerate().map(|(a, &(b, lo, hi))| (lo - self.starts[a][b], hi - self.starts[a][b])).collect(),
                dst: parts.iter().zip(region).map(|(&(_, lo, _), &(start, _))| lo - start).collect(),
            });
            inputs.push(self.blocks[ravel(&idx, &numblocks)].clone());
        });
        (inputs, pieces)
    }
}

/// Whether a resource's data is an array in memory, in either form.
pub fn is_in_memory(data: &(dyn Any + Send + Sync)) -> bool {
    data.is::<Chunk>() || data.is::<HeldBlocks>()
}

/// `region` of an in-memory array resource's data, whichever form it has; `None` when the
/// data is not an array in memory.
pub fn load_in_memory(data: &(dyn Any + Send + Sync), region: &[(usize, usize)]) -> Option<Result<Chunk>> {
    if let Some(chunk) = data.downcast_ref::<Chunk>() {
        return Some(tegula_kernels::layout::load(chunk, region));
    }
    data.downcast_ref::<HeldBlocks>().map(|held| held.load(region))
}

/// The whole of an in-memory array resource's data as one chunk (borrowed when it is one);
/// `None` when the data is not an array in memory.
pub fn whole_in_memory(data: &(dyn Any + Send + Sync)) -> Option<Result<Cow<'_, Chunk>>> {
    if let Some(chunk) = data.downcast_ref::<Chunk>() {
        return Some(Ok(Cow::Borrowed(chunk)));
    }
    data.downcast_ref::<HeldBlocks>().map(|held| held.whole().map(Cow::Owned))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn held() -> (ndarray::ArrayD<f64>, HeldBlocks) {
        let whole = ndarray::ArrayD::from_shape_fn(vec![7, 5], |i| (i[0] * 10 + i[1]) as f64);
        let chunks = Chunks::new(vec![vec![3, 3, 1], vec![2, 3]], &[7, 5]).unwrap();
        let mut blocks = Vec::new();
        for (r0, r1) in [(0, 3), (3, 6), (6, 7)] {
            for (c0, c1) in [(0, 2), (2, 5)] {
                blocks.push(f64::wrap(whole.slice(ndarray::s![r0..r1, c0..c1]).to_owned().into_dyn().into()));
            }
        }
        (whole.clone(), HeldBlocks::new(chunks, DType::Float64, DeviceId::CPU, blocks).unwrap())
    }

    fn values(chunk: &Chunk) -> Vec<f64> {
        chunk.typed::<f64>().unwrap().iter().copied().collect()
    }

    #[test]
    fn regions_within_a_block_and_across_blocks_read_the_array() {
        let (whole, held) = held();
        for region in [[(3, 5), (2, 4)], [(1, 7), (1, 5)], [(0, 7), (0, 5)], [(6, 6), (0, 5)], [(2, 4), (1, 3)]] {
            let expected: Vec<f64> = whole.slice(ndarray::s![region[0].0..region[0].1, region[1].0..region[1].1]).iter().copied().collect();
            assert_eq!(values(&held.load(&region).unwrap()), expected, "{region:?}");
        }
        assert_eq!(values(&held.whole().unwrap()), whole.iter().copied().collect::<Vec<_>>());
        assert_eq!(held.nbytes(), 35 * 8);
        assert!(held.load(&[(0, 8), (0, 5)]).is_err());
    }
}
