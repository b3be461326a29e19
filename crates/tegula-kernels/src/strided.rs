//! A float64 input of a fused program read where it lies when it is not a row-major block of
//! the program's shape: broadcast (`w[:, None]` against a matrix, a row of means against its
//! rows), transposed or reversed. Its row-major values are gathered one register-sized span at
//! a time instead of copying the whole broadcast block first (a fresh block-sized allocation
//! and a pass over memory per input). The input may be a window of a bigger array (a block of
//! an in-memory array is a view of it): only its elements are read.

use crate::chunk::Chunk;
use crate::lanes::LANES;
use ndarray::{ArrayRef, IxDyn};
use tegula_core::Result;

/// How the row-major positions of a block map to offsets in an input's memory.
#[derive(Debug)]
pub struct Strided {
    chunk: Chunk,
    /// The offset of the block's first element in the input's memory.
    first: usize,
    /// (extent, stride) per axis, outermost first, with length-one axes dropped and axes that
    /// continue each other merged (a broadcast axis has stride 0).
    axes: Vec<(usize, isize)>,
}

impl Strided {
    /// `chunk` (float64) seen as a block of `shape`, or `None` when it does not broadcast to
    /// `shape`.
    pub fn new(chunk: &Chunk, shape: &[usize]) -> Option<Strided> {
        let array = chunk.typed::<f64>().ok()?;
        let memory = extent(array);
        let view = array.broadcast(IxDyn(shape))?;
        // Offsets of elements from the first one stay inside `memory` by ndarray's invariants.
        let first = (view.as_ptr() as usize - memory.as_ptr() as usize) / std::mem::size_of::<f64>();
        let mut axes: Vec<(usize, isize)> = Vec::new();
        for (&n, &s) in shape.iter().zip(view.strides()).rev() {
            match axes.last_mut() {
                _ if n == 1 => {}
                Some((inner_n, inner_s)) if s == *inner_s * *inner_n as isize => *inner_n *= n,
                _ => axes.push((n, s)),
            }
        }
        axes.reverse();
        Some(Strided { chunk: chunk.clone(), first, axes })
    }

    /// The input's memory, to hand to `gather`.
    pub fn memory(&self) -> Result<&[f64]> {
        Ok(extent(self.chunk.typed::<f64>()?))
    }

    /// Writes the block's values at row-major positions `at .. at + out.len()` to `out`.
    pub fn gather(&self, memory: &[f64], at: usize, out: &mut [f64]) {
        let Some(&(_, inner_s)) = self.axes.last() else {
            return out.fill(memory[self.first]);
        };
        let mut done = 0;
        self.runs(at, out.len(), |start, run| {
            let dst = &mut out[done..done + run];
            match inner_s {
                0 => dst.fill(memory[start as usize]),
                1 => dst.copy_from_slice(&memory[start as usize..start as usize + run]),
                _ => dst.iter_mut().enumerate().for_each(|(j, d)| *d = memory[(start + j as isize * inner_s) as usize]),
            }
            done += run;
        });
    }

    /// Hands the block's values at row-major positions `at .. at + len` to `sink` in
    /// consecutive pieces, each but the last a multiple of eight long (as `LaneFold` takes
    /// them): where the innermost axis is contiguous, runs of the input's own memory (pieces
    /// of runs carried over in `buf` to keep that length), else a copy gathered in `buf`.
    pub fn spans(&self, memory: &[f64], at: usize, len: usize, buf: &mut Vec<f64>, sink: &mut dyn FnMut(&[f64])) {
        if !matches!(self.axes.last(), Some(&(_, 1))) {
            buf.resize(len, 0.0);
            self.gather(memory, at, buf);
            return sink(buf);
        }
        buf.clear();
        self.runs(at, len, |start, run| {
            let mut run = &memory[start as usize..start as usize + run];
            if !buf.is_empty() {
                let take = ((LANES - buf.len() % LANES) % LANES).min(run.len());
                buf.extend_from_slice(&run[..take]);
                run = &run[take..];
                if buf.len().is_multiple_of(LANES) {
                    sink(buf);
                    buf.clear();
                }
            }
            let body = run.len() / LANES * LANES;
            if body > 0 {
                sink(&run[..body]);
            }
            buf.extend_from_slice(&run[body..]);
        });
        if !buf.is_empty() {
            sink(buf);
        }
    }

    /// The input's memory holding row-major positions `at .. at + len` when they lie one after
    /// another in it.
    pub fn contiguous<'m>(&self, memory: &'m [f64], at: usize, len: usize) -> Option<&'m [f64]> {
        let &(inner_n, inner_s) = self.axes.last()?;
        if inner_s != 1 || at % inner_n + len > inner_n {
            return None;
        }
        let start = self.offset_of(at) as usize;
        Some(&memory[start..start + len])
    }

    /// The offset in memory of the element at row-major position `at`.
    fn offset_of(&self, at: usize) -> isize {
        let mut rest = at;
        let mut offset = self.first as isize;
        for &(n, s) in self.axes.iter().rev() {
            offset += (rest % n) as isize * s;
            rest /= n;
        }
        offset
    }

    /// Calls `f(offset, run)` for each run of the positions `at .. at + len` along the
    /// innermost axis, in order: the offset in memory of the run's first element and its
    /// length (the block has at least one axis longer than one).
    fn runs(&self, at: usize, len: usize, mut f: impl FnMut(isize, usize)) {
        let Some(&(inner_n, inner_s)) = self.axes.last() else { return };
        // The multi-index of `at` and the offset of its element.
        let outer = &self.axes[..self.axes.len() - 1];
        let mut index = vec![0; outer.len()];
        let mut rest = at / inner_n;
        let mut offset = self.first as isize;
        for (k, &(n, s)) in outer.iter().enumerate().rev() {
            index[k] = rest % n;
            rest /= n;
            offset += index[k] as isize * s;
        }
        let mut i = at % inner_n;
        let mut done = 0;
        while done < len {
            let run = (inner_n - i).min(len - done);
            f(offset + i as isize * inner_s, run);
            done += run;
            i = 0;
            // The next row: carry through the outer axes.
            for (k, &(n, s)) in outer.iter().enumerate().rev() {
                index[k] += 1;
                offset += s;
                if index[k] < n {
                    break;
                }
                index[k] = 0;
                offset -= n as isize * s;
            }
        }
    }
}

/// The memory from the lowest to the highest address of `array`'s elements (empty for an
/// empty array).
fn extent(array: &ArrayRef<f64, IxDyn>) -> &[f64] {
    if array.is_empty() {
        return &[];
    }
    let (mut low, mut high) = (0isize, 0isize);
    for (&n, &s) in array.shape().iter().zip(array.strides()) {
        let reach = (n as isize - 1) * s;
        if reach < 0 {
            low += reach;
        } else {
            high += reach;
        }
    }
    // SAFETY: an array's elements are views into one allocation its owner keeps alive for as
    // long as `array` is borrowed (`Block`s slice owned arrays or NumPy buffers, never join
    // two), so every address from its lowest element to its highest lies in that allocation;
    // blocks are never written while they are read.
    unsafe { std::slice::from_raw_parts(array.as_ptr().offset(low), (high - low) as usize + 1) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::Wrap;
    use ndarray::{ArcArray, Axis};

    fn chunk(shape: &[usize]) -> ArcArray<f64, IxDyn> {
        let n = shape.iter().product();
        ArcArray::from_shape_vec(IxDyn(shape), (0..n).map(|v| v as f64 * 1.5 - 7.0).collect()).unwrap()
    }

    /// Every span of every block layout gathers the values of the block copied to row-major order.
    #[test]
    fn gathered_spans_equal_the_row_major_copy() {
        let mut cases: Vec<(ArcArray<f64, IxDyn>, Vec<usize>)> = vec![
            (chunk(&[7, 1]), vec![7, 5]),
            (chunk(&[5]), vec![7, 5]),
            (chunk(&[1, 5]), vec![3, 7, 5]),
            (chunk(&[3, 1, 5]), vec![3, 4, 5]),
            (chunk(&[]), vec![4, 3]),
            (chunk(&[6, 4]).reversed_axes(), vec![4, 6]),
            (chunk(&[2, 3, 4]).permuted_axes(vec![2, 0, 1]), vec![4, 2, 3]),
        ];
        let mut flipped = chunk(&[5, 6]);
        flipped.invert_axis(Axis(1));
        cases.push((flipped, vec![5, 6]));
        // windows of a bigger array, forwards and reversed
        cases.push((chunk(&[6, 9]).slice_move(ndarray::s![1..5, 2..7]).into_dyn(), vec![4, 5]));
        cases.push((chunk(&[6, 9]).slice_move(ndarray::s![1..5;-1, 1..7;-2]).into_dyn(), vec![4, 3]));
        cases.push((chunk(&[4, 9]).slice_move(ndarray::s![.., 3..4]).into_dyn(), vec![4, 6]));
        for (array, shape) in cases {
            let expected: Vec<f64> = array.broadcast(IxDyn(&shape)).unwrap().iter().copied().collect();
            let strided = Strided::new(&Wrap::wrap(array.clone().into()), &shape).unwrap();
            let memory = strided.memory().unwrap();
            for at in 0..expected.len() {
                for len in [1, 2, 3, 7, expected.len() - at] {
                    let len = len.min(expected.len() - at);
                    let mut out = vec![f64::NAN; len];
                    strided.gather(memory, at, &mut out);
                    assert_eq!(out, expected[at..at + len], "{:?} as {shape:?} at {at}+{len}", array.shape());
                    let (mut pieces, mut buf) = (Vec::new(), Vec::new());
                    strided.spans(memory, at, len, &mut buf, &mut |p| pieces.push(p.to_vec()));
                    let (last, rest) = pieces.split_last().unwrap();
                    assert!(rest.iter().all(|p| p.len() % LANES == 0), "pieces of eight but the last");
                    assert_eq!([rest.concat(), last.clone()].concat(), expected[at..at + len]);
                    if let Some(run) = strided.contiguous(memory, at, len) {
                        assert_eq!(run, &expected[at..at + len]);
                    }
                }
            }
        }
    }

    #[test]
    fn a_shape_it_does_not_broadcast_to_is_refused() {
        assert!(Strided::new(&Wrap::wrap(chunk(&[3]).into()), &[2, 4]).is_none());
    }
}
