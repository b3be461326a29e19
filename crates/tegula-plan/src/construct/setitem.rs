//! `x[index] = values` as a new array: `x` everywhere except on the selection. Arrays are
//! immutable values, so assigning makes a new node (copy on write) that the caller rebinds.

use super::layout::{index_chunks, normalize_index, rechunk, IndexItem};
use crate::node::{IndexAxis, Node, NodeKind, NodeRef};
use tegula_core::shape::fmt_shape;
use tegula_core::{index_err, value_err, Result};

/// `x` with the basic-index selection `items` replaced by `values`, which must already have
/// the selection's shape and `x`'s dtype; they are rechunked so that each of their blocks
/// falls in one block of `x`.
pub fn set_item(x: &NodeRef, items: &[IndexItem], values: &NodeRef) -> Result<NodeRef> {
    let axes = normalize_index(items, &x.shape())?;
    if axes.iter().any(|a| matches!(a, IndexAxis::NewAxis)) {
        return Err(index_err!("an assignment index cannot hold newaxis (None)"));
    }
    let chunks = index_chunks(x, &axes)?;
    if values.shape() != chunks.shape() {
        return Err(value_err!(
            "could not broadcast input array from shape {} into shape {}",
            fmt_shape(&values.shape()),
            fmt_shape(&chunks.shape())
        ));
    }
    if values.dtype != x.dtype {
        return Err(value_err!("assigned values of dtype {} to an array of dtype {}", values.dtype, x.dtype));
    }
    if chunks.shape().contains(&0) {
        return Ok(x.clone());
    }
    let values = rechunk(values, chunks)?;
    Node::checked(NodeKind::SetItem { axes }, vec![x.clone(), values], x.dtype, x.chunks.clone())
}
