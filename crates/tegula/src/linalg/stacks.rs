//! Stacks of matrices too big for one task each: every matrix of the stack factorised (or
//! solved) by tiles on its own, its results stacked back along the stack axes. The matrices'
//! plans are independent, so the executor runs their tiles side by side.

use crate::array::Array;
use crate::ops::IndexItem;
use tegula_core::Result;

/// `each(matrices)` for the matrices at every index of the stack axes of `stacks` (all with
/// the same stack axes), its results stacked back: result `o` has the stack axes, then the
/// axes of `each`'s result `o`. The stack must not be empty.
pub(super) fn each_matrix(stacks: &[&Array], each: impl Fn(&[Array]) -> Result<Vec<Array>>) -> Result<Vec<Array>> {
    let stack_shape = &stacks[0].shape()[..stacks[0].ndim() - 2];
    let count: usize = stack_shape.iter().product();
    let mut per_output: Vec<Vec<Array>> = Vec::new();
    for flat in 0..count {
        let index: Vec<IndexItem> = unravel(flat, stack_shape).into_iter().map(|i| IndexItem::Int(i as i64)).collect();
        let matrices = stacks.iter().map(|s| s.index(&index)).collect::<Result<Vec<_>>>()?;
        for (o, result) in each(&matrices)?.into_iter().enumerate() {
            if per_output.len() <= o {
                per_output.push(Vec::with_capacity(count));
            }
            per_output[o].push(result);
        }
    }
    per_output
        .iter()
        .map(|results| {
            let stacked = Array::stack(&results.iter().collect::<Vec<_>>(), 0)?;
            let shape: Vec<i64> = stack_shape.iter().chain(&results[0].shape()).map(|&d| d as i64).collect();
            stacked.reshape(&shape)
        })
        .collect()
}

/// The C-order index of the `flat`th element of an array of `shape`.
fn unravel(mut flat: usize, shape: &[usize]) -> Vec<usize> {
    let mut index = vec![0; shape.len()];
    for (i, &d) in shape.iter().enumerate().rev() {
        index[i] = flat % d;
        flat /= d;
    }
    index
}

#[cfg(test)]
mod tests {
    use super::unravel;

    #[test]
    fn unravel_counts_in_c_order() {
        assert_eq!(unravel(0, &[2, 3]), vec![0, 0]);
        assert_eq!(unravel(4, &[2, 3]), vec![1, 1]);
        assert_eq!(unravel(5, &[2, 3]), vec![1, 2]);
        assert_eq!(unravel(0, &[]), Vec::<usize>::new());
    }
}
