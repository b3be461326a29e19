//! Moving an array to another device: a node on that device whose blocks are its input's, so
//! every operation on it runs there.

use crate::node::{Node, NodeKind, NodeRef};
use tegula_core::DeviceId;

/// `x` on `device` (itself when it is there already).
pub fn to_device(x: &NodeRef, device: DeviceId) -> NodeRef {
    if x.device == device {
        return x.clone();
    }
    Node::new(NodeKind::ToDevice { device }, vec![x.clone()], x.dtype, x.chunks.clone())
}
