//! tegula-plan: pure planning. Expression nodes (`node`, built and validated by `construct`) are
//! lowered to a chunk task graph of plain data (`graph`, `lower`), fused (`fuse`), ordered
//! (`order`), projected in memory (`memory`) and described (`explain`). Planning knows op kinds and sizes, never kernels, stores or threads.

#![deny(missing_docs)]

pub mod chain;
pub mod construct;
pub mod describe;
pub mod explain;
pub mod fan_out;
pub mod fragments;
pub mod fuse;
pub mod graph;
pub mod levels;
pub mod lower;
pub mod memory;
pub mod merge;
pub mod node_loss;
pub mod node;
pub mod order;
pub mod panels;
pub mod placement;
pub mod product_blocks;
pub mod ranges;
pub mod ready;
pub mod rechunk_stages;
pub mod refine;
pub mod resource;
pub mod walk;

pub use graph::{Output, Task, TaskGraph, TaskId};
pub use lower::{lower, Fusion};
pub use node::{next_id, IndexAxis, Node, NodeKind, NodeRef, SourceKind};
pub use resource::{ReadUnit, Resource, ResourceKind};
