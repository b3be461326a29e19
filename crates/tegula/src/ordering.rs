//! Ordering operations: cumulative sums and products, sorting and searching a sorted array.

use crate::array::Array;
use tegula_core::Result;
use tegula_plan::build::scan::{cumulative, ScanSpec};
use tegula_plan::build::sort;

impl Array {
    /// The array API's `cumulative_sum`/`cumulative_prod` (`spec.op`), chunked along the axis.
    pub fn cumulative(&self, spec: &ScanSpec) -> Result<Array> {
        cumulative(&self.node, spec).map(Array::from_node)
    }

    /// Sorted along `axis` (NumPy's order, NaN last; stable either way).
    pub fn sort(&self, axis: i64, descending: bool) -> Result<Array> {
        sort::sort(&self.node, axis, descending, false).map(Array::from_node)
    }

    /// The int64 positions that sort `self` along `axis`, as `sort` orders.
    pub fn argsort(&self, axis: i64, descending: bool) -> Result<Array> {
        sort::sort(&self.node, axis, descending, true).map(Array::from_node)
    }

    /// For each element of `v`, the int64 index in the sorted 1-D `self` where inserting it keeps
    /// the order (after equal elements when `right`); `sorter`: the positions that sort `self`.
    pub fn searchsorted(&self, v: &Array, right: bool, sorter: Option<&Array>) -> Result<Array> {
        sort::searchsorted(&self.node, &v.node, right, sorter.map(|s| &s.node)).map(Array::from_node)
    }
}
