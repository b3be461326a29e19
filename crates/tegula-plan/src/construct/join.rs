//! Joining arrays: `expand_dims`, `concatenate` and `stack`. None of them copies data: a new
//! axis is a view of each block, and every block of a concatenation is one block of an input.

use super::elementwise::{cast, refine_all};
use super::layout::rechunk;
use super::reshape::reshape;
use crate::node::{Node, NodeKind, NodeRef};
use tegula_core::shape::{normalize_axes, normalize_axis};
use tegula_core::{result_type, shape_err, value_err, Chunks, Result};

/// A length-one axis at each of `axes`, positions in the result (negative ones count from its end).
pub fn expand_dims(x: &NodeRef, axes: &[i64]) -> Result<NodeRef> {
    let axes = normalize_axes(Some(axes), x.ndim() + axes.len())?;
    if axes.is_empty() {
        return Ok(x.clone());
    }
    let mut sizes = x.chunks.sizes().to_vec();
    axes.iter().for_each(|&a| sizes.insert(a, vec![1]));
    let chunks = Chunks::from_axes(sizes);
    Node::checked(NodeKind::ExpandDims { axes: axes.into() }, vec![x.clone()], x.dtype, chunks)
}

/// NumPy's `concatenate`: the inputs, promoted to their result type, one after another along
/// `axis`. Their chunks on the other axes are unified; along `axis` the result keeps every
/// input's blocks. `None` joins the inputs flattened.
pub fn concatenate(xs: &[NodeRef], axis: Option<i64>) -> Result<NodeRef> {
    let Some(first) = xs.first() else {
        return Err(value_err!("need at least one array to concatenate"));
    };
    let Some(axis) = axis else {
        return concatenate(&flattened(xs)?, Some(0));
    };
    if first.ndim() == 0 {
        return Err(value_err!("zero-dimensional arrays cannot be concatenated"));
    }
    let axis = normalize_axis(axis, first.ndim())?;
    check_shapes(xs, axis)?;
    let dtype = result_type(&xs.iter().map(|x| x.dtype).collect::<Vec<_>>())?;
    let chunks = joined_chunks(xs, axis)?;
    // Cast before rechunking, so that the cast can fuse with whatever computes the input.
    let inputs = xs
        .iter()
        .map(|x| rechunk(&cast(x, dtype)?, chunks.with_axis(axis, x.chunks.axis(axis).to_vec())))
        .collect::<Result<Vec<_>>>()?;
    Node::checked(NodeKind::Concatenate { axis }, inputs, dtype, chunks)
}

/// NumPy's `stack`: arrays of one shape joined along a new axis `axis` of the result.
pub fn stack(xs: &[NodeRef], axis: i64) -> Result<NodeRef> {
    let Some(first) = xs.first() else {
        return Err(value_err!("need at least one array to stack"));
    };
    if xs.iter().any(|x| x.shape() != first.shape()) {
        return Err(shape_err!("all input arrays must have the same shape"));
    }
    let expanded = xs.iter().map(|x| expand_dims(x, &[axis])).collect::<Result<Vec<_>>>()?;
    concatenate(&expanded, Some(axis))
}

/// The blocks of a concatenation along `axis`, as (input, block of that input): every input's
/// blocks in order, without empty ones unless the whole axis is empty.
pub fn joined_blocks(xs: &[NodeRef], axis: usize) -> Vec<(usize, usize)> {
    let blocks: Vec<(usize, usize)> = xs
        .iter()
        .enumerate()
        .flat_map(|(i, x)| x.chunks.axis(axis).iter().enumerate().filter(|(_, &n)| n > 0).map(move |(b, _)| (i, b)))
        .collect();
    if blocks.is_empty() {
        vec![(0, 0)]
    } else {
        blocks
    }
}

fn joined_chunks(xs: &[NodeRef], axis: usize) -> Result<Chunks> {
    let mut shape = xs[0].shape();
    shape[axis] = xs.iter().map(|x| x.shape()[axis]).sum();
    let sizes = (0..shape.len())
        .map(|a| {
            if a == axis {
                joined_blocks(xs, axis).into_iter().map(|(i, b)| xs[i].chunks.axis(axis)[b]).collect()
            } else {
                refine_all(xs.iter().map(|x| x.chunks.axis(a))).unwrap_or_default()
            }
        })
        .collect();
    Chunks::new(sizes, &shape)
}

/// NumPy's checks, with its messages: one number of dimensions, equal lengths off `axis`.
fn check_shapes(xs: &[NodeRef], axis: usize) -> Result<()> {
    let first = xs[0].shape();
    for (i, x) in xs.iter().enumerate().skip(1) {
        let shape = x.shape();
        if shape.len() != first.len() {
            return Err(shape_err!(
                "all the input arrays must have same number of dimensions, but the array at index 0 has {} dimension(s) and the array at index {i} has {} dimension(s)",
                first.len(),
                shape.len()
            ));
        }
        if let Some(a) = (0..first.len()).find(|&a| a != axis && shape[a] != first[a]) {
            return Err(shape_err!(
                "all the input array dimensions except for the concatenation axis must match exactly, but along dimension {a}, the array at index 0 has size {} and the array at index {i} has size {}",
                first[a],
                shape[a]
            ));
        }
    }
    Ok(())
}

/// The inputs of `concatenate(axis=None)` as 1-d arrays.
fn flattened(xs: &[NodeRef]) -> Result<Vec<NodeRef>> {
    xs.iter().map(|x| if x.ndim() == 1 { Ok(x.clone()) } else { reshape(x, &[-1]) }).collect()
}
