//! Errors NumPy raises from the data, found when the data is computed: a node that is its
//! input, block for block, but fails with a given error where a boolean array holds a true
//! element (checking when the expression is built would compute the data).

use crate::node::{Node, NodeKind, NodeRef};
use tegula_core::{value_err, DType, Result, TegulaError};

/// `value`, failing with `error` when computed if any element of `failed` (a boolean array
/// of `value`'s shape and chunks) is true.
pub fn check(value: &NodeRef, failed: &NodeRef, error: TegulaError) -> Result<NodeRef> {
    if failed.dtype != DType::Bool || failed.chunks != value.chunks {
        return Err(value_err!("a check needs a boolean array chunked as the value it checks"));
    }
    Node::checked(NodeKind::Check { error }, vec![value.clone(), failed.clone()], value.dtype, value.chunks.clone())
}
