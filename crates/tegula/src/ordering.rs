//! Ordering operations: cumulative sums and products, sliding windows, sorting and searching a
//! sorted array.

use crate::array::Array;
use crate::sample_sort::sort_long_axis;
use tegula_core::chunks::AUTO_CHUNK_BYTES;
use tegula_core::shape::normalize_axis;
use tegula_core::spec::default_memory;
use tegula_core::{Chunks, Result, Spec};
use tegula_plan::construct::layout::rechunk;
use tegula_plan::construct::scan::ScanSpec;
use tegula_plan::construct::{any_dtype, sort, time};

/// What `Array::sorted` computes, and the largest block it may make.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SortSpec {
    /// The axis sorted (negative counts from the end).
    pub axis: i64,
    /// The reversed order (NaN first); equal elements still keep their order.
    pub descending: bool,
    /// The int64 positions that sort, rather than the sorted values.
    pub arg: bool,
    /// The bytes a block of the sort may hold: an axis that fits is sorted one block per lane,
    /// a longer one by a sample sort.
    pub block_bytes: usize,
}

impl SortSpec {
    /// Blocks up to the `chunks="auto"` target, or smaller where the memory budget
    /// (`Spec::from_env`) needs them smaller (`sort_block_bytes`).
    pub fn new(axis: i64, descending: bool, arg: bool) -> SortSpec {
        let memory = Spec::from_env().map_or_else(|_| default_memory(), |spec| spec.memory);
        SortSpec { axis, descending, arg, block_bytes: sort_block_bytes(memory, arg) }
    }
}

/// The largest block of a sort under a memory budget of `memory` bytes: the `chunks="auto"`
/// target, or less where the budget leaves no room for it. A bucket of the sample sort holds
/// up to twice a block, and its merge holds the bucket about three times (its runs, the
/// result and the radix sort's scratch; an argsort's keys and positions take three times
/// that again), with room left for blocks partitioned meanwhile.
pub fn sort_block_bytes(memory: usize, arg: bool) -> usize {
    AUTO_CHUNK_BYTES.min(memory / if arg { 24 } else { 8 }).max(1)
}

impl Array {
    /// Every window of `width` consecutive elements along `axis`, as a new last axis (NumPy's
    /// `sliding_window_view` along one axis). A sum, product, mean, extreme, `any` or `all`
    /// over the window axis is computed as a moving reduction, without building the windows.
    pub fn sliding_windows(&self, axis: i64, width: usize) -> Result<Array> {
        tegula_plan::construct::windows::sliding_windows(&self.node, axis, width).map(Array::from_node)
    }

    /// The array API's `cumulative_sum`/`cumulative_prod` (`spec.op`), chunked along the axis.
    pub fn cumulative(&self, spec: &ScanSpec) -> Result<Array> {
        any_dtype::cumulative(&self.node, spec).map(Array::from_node)
    }

    /// Sorted along `axis` (NumPy's order, NaN last; stable either way).
    pub fn sort(&self, axis: i64, descending: bool) -> Result<Array> {
        self.sorted(&SortSpec::new(axis, descending, false))
    }

    /// The int64 positions that sort `self` along `axis`, as `sort` orders.
    pub fn argsort(&self, axis: i64, descending: bool) -> Result<Array> {
        self.sorted(&SortSpec::new(axis, descending, true))
    }

    /// Sorted (or its sorting positions) as `spec` says. An axis longer than a block is
    /// sample-sorted: its splitters and bucket counts are computed now (the input runs three
    /// times in all), so the result has known chunks.
    pub fn sorted(&self, spec: &SortSpec) -> Result<Array> {
        if self.dtype().is_time() {
            let sorted = Array::from_node(time::sort_keys(&self.node)?).sorted(spec)?;
            return if spec.arg { Ok(sorted) } else { time::from_sort_keys(&sorted.node, self.dtype()).map(Array::from_node) };
        }
        let axis = normalize_axis(spec.axis, self.ndim())?;
        let n = self.shape()[axis];
        let most = block_elements(self, spec);
        if n <= most || self.size() == 0 {
            let x = rechunk(&self.node, one_block_along(self.chunks(), axis, most))?;
            return sort::sort(&x, axis as i64, spec.descending, spec.arg).map(Array::from_node);
        }
        sort_long_axis(self, axis, spec.descending, spec.arg, most)
    }

    /// `take_along_axis(sort(self, axis), indices, axis)`: the elements each lane along `axis`
    /// holds at `indices` once sorted (NumPy's order, NaN last) — quantiles, medians.
    /// `indices`: integer, this array's ndim, along the other axes its length or one, each in
    /// `[0, n)` (an `IndexError` when computed). Found by selection, linear in the lane's
    /// length, when a lane fits a block of `block_bytes`; a longer axis
    /// is sorted as `sorted` sorts it, then gathered.
    pub fn sorted_take(&self, indices: &Array, axis: i64, block_bytes: usize) -> Result<Array> {
        if self.dtype().is_time() {
            let keys = Array::from_node(time::sort_keys(&self.node)?).sorted_take(indices, axis, block_bytes)?;
            return time::from_sort_keys(&keys.node, self.dtype()).map(Array::from_node);
        }
        let spec = SortSpec { axis, descending: false, arg: false, block_bytes };
        let n_axis = normalize_axis(axis, self.ndim())?;
        let most = block_elements(self, &spec);
        if self.shape()[n_axis] > most && self.size() > 0 {
            return self.sorted(&spec)?.take_along_axis(indices, axis);
        }
        let x = rechunk(&self.node, one_block_along(self.chunks(), n_axis, most))?;
        sort::sorted_take(&x, &indices.node, axis).map(Array::from_node)
    }

    /// For each element of `v`, the int64 index in the sorted 1-D `self` where inserting it keeps
    /// the order (after equal elements when `right`); `sorter`: the positions that sort `self`.
    pub fn searchsorted(&self, v: &Array, right: bool, sorter: Option<&Array>) -> Result<Array> {
        any_dtype::searchsorted(&self.node, &v.node, right, sorter.map(|s| &s.node)).map(Array::from_node)
    }
}

/// The elements a block of the sort may hold: `spec.block_bytes` of the result's elements
/// and the input's (argsort holds both). Bigger input blocks are cut: a sort holds its block
/// several times over, so even a block the budget holds may be too big to sort whole.
fn block_elements(x: &Array, spec: &SortSpec) -> usize {
    let itemsize = x.dtype().itemsize().max(if spec.arg { 8 } else { 1 });
    (spec.block_bytes / itemsize).max(1)
}

/// `chunks` with `axis` one block, and the other axes' blocks cut (last axes kept longest) so
/// that a block holds at most `most` elements, or one lane where a lane alone holds more.
fn one_block_along(chunks: &Chunks, axis: usize, most: usize) -> Chunks {
    let mut sizes = chunks.sizes().to_vec();
    let n: usize = sizes[axis].iter().sum();
    sizes[axis] = vec![n];
    let mut room = (most / n.max(1)).max(1);
    for a in (0..sizes.len()).rev().filter(|&a| a != axis) {
        sizes[a] = sizes[a].iter().flat_map(|&b| split(b, room)).collect();
        room = (room / sizes[a].iter().copied().max().unwrap_or(1).max(1)).max(1);
    }
    Chunks::from_axes(sizes)
}

/// A block of `len` cut into even parts of at most `most`.
fn split(len: usize, most: usize) -> Vec<usize> {
    let parts = len.div_ceil(most).max(1);
    (0..parts).map(|i| len / parts + usize::from(i < len % parts)).collect()
}
