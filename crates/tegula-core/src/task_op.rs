//! What one task computes: a source, a kernel over its input blocks, or I/O through a
//! resource. Three enums, so that the type system, not a run-time check, keeps I/O out of
//! kernels and sources out of kernel inputs.

use crate::io_op::IoOp;
use crate::kernel_op::KernelOp;
use crate::source_op::SourceOp;
use serde::{Deserialize, Serialize};

/// What one task computes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum TaskOp {
    /// A block made from nothing (constants, ranges, random numbers).
    Source(SourceOp),
    /// A kernel over the task's input blocks.
    Kernel(KernelOp),
    /// A read, load or write through a resource.
    Io(IoOp),
}

impl TaskOp {
    /// A short name for plans and reports.
    pub fn label(&self) -> String {
        match self {
            TaskOp::Source(op) => op.label().into(),
            TaskOp::Kernel(op) => op.label(),
            TaskOp::Io(op) => op.label().into(),
        }
    }

    /// The kernel, if the task runs one.
    pub fn as_kernel(&self) -> Option<&KernelOp> {
        match self {
            TaskOp::Kernel(op) => Some(op),
            _ => None,
        }
    }

    /// The I/O op, if the task does I/O.
    pub fn as_io(&self) -> Option<&IoOp> {
        match self {
            TaskOp::Io(op) => Some(op),
            _ => None,
        }
    }
}

impl From<SourceOp> for TaskOp {
    fn from(op: SourceOp) -> TaskOp {
        TaskOp::Source(op)
    }
}

impl From<KernelOp> for TaskOp {
    fn from(op: KernelOp) -> TaskOp {
        TaskOp::Kernel(op)
    }
}

impl From<IoOp> for TaskOp {
    fn from(op: IoOp) -> TaskOp {
        TaskOp::Io(op)
    }
}
