//! Stacks of matrices too big for one task each: every matrix of the stack factorised (or
//! solved) by tiles on its own, its results stacked back along the stack axes. The matrices'
//! plans are independent, so the executor runs their tiles side by side.

use crate::array::Array;
use crate::ops::IndexItem;
use tegula_core::{grid, Result};

/// `each(matrices)` for the matrices at every index of the stack axes of `stacks` (all with
/// the same stack axes), its results stacked back: result `o` has the stack axes, then the
/// axes of `each`'s result `o`. The stack must not be empty.
pub(super) fn each_matrix(stacks: &[&Array], each: impl Fn(&[Array]) -> Result<Vec<Array>>) -> Result<Vec<Array>> {
    let stack_shape = &stacks[0].shape()[..stacks[0].ndim() - 2];
    let mut per_output: Vec<Vec<Array>> = Vec::new();
    for index in grid::block_indices(stack_shape) {
        let index: Vec<IndexItem> = index.into_iter().map(|i| IndexItem::Int(i as i64)).collect();
        let matrices = stacks.iter().map(|s| s.index(&index)).collect::<Result<Vec<_>>>()?;
        for (o, result) in each(&matrices)?.into_iter().enumerate() {
            if per_output.len() <= o {
                per_output.push(Vec::new());
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

/// [`each_matrix`] of a function with one result.
pub(super) fn each_matrix_one(stacks: &[&Array], each: impl Fn(&[Array]) -> Result<Array>) -> Result<Array> {
    let mut stacked = each_matrix(stacks, |m| Ok(vec![each(m)?]))?;
    Ok(stacked.swap_remove(0))
}
