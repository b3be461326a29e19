//! Fused element-wise programs: a chain of element-wise operations (and the sources feeding
//! them) that one task evaluates in a single pass over its block, in cache-sized tiles, without
//! writing intermediate blocks. A program is plain data, like every op.

use crate::dtype::DType;
use crate::ops::{BinaryOp, OpKind, UnaryOp};
use crate::scalar::Scalar;
use serde::{Deserialize, Serialize};

/// One step of a program. Steps refer to earlier steps by index; the last step is the result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Instr {
    /// Input `i` of the task (a block, broadcast to the program's block shape).
    Input(usize),
    /// Input `i` of the fused *node*: a source generated in place. Planning replaces it by
    /// `Source` with the op of each block; kernels never see it.
    Generate(usize),
    /// A source op of this block (`Full`, `Arange`, `Linspace` or `Random`) evaluated per tile.
    Source(OpKind),
    /// A constant.
    Scalar(Scalar),
    Unary { op: UnaryOp, compute: DType, arg: usize },
    Binary { op: BinaryOp, compute: DType, args: [usize; 2] },
    Where { compute: DType, args: [usize; 3] },
    Cast { arg: usize },
}

impl Instr {
    /// The earlier steps this one reads.
    pub fn args(&self) -> Vec<usize> {
        match self {
            Instr::Unary { arg, .. } | Instr::Cast { arg } => vec![*arg],
            Instr::Binary { args, .. } => args.to_vec(),
            Instr::Where { args, .. } => args.to_vec(),
            Instr::Input(_) | Instr::Generate(_) | Instr::Source(_) | Instr::Scalar(_) => Vec::new(),
        }
    }
}

/// A step and the dtype it produces.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    pub instr: Instr,
    pub dtype: DType,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Program {
    pub steps: Vec<Step>,
}

impl Program {
    pub fn push(&mut self, instr: Instr, dtype: DType) -> usize {
        self.steps.push(Step { instr, dtype });
        self.steps.len() - 1
    }

    /// The dtype of the result.
    pub fn dtype(&self) -> Option<DType> {
        self.steps.last().map(|s| s.dtype)
    }

    /// The names of the operations, in order, for plans (`add,multiply,sqrt`).
    pub fn label(&self) -> String {
        let names: Vec<String> = self
            .steps
            .iter()
            .filter_map(|s| match &s.instr {
                Instr::Unary { op, .. } => Some(op.name().to_string()),
                Instr::Binary { op, .. } => Some(op.name().to_string()),
                Instr::Where { .. } => Some("where".into()),
                Instr::Cast { .. } => Some(format!("astype({})", s.dtype)),
                Instr::Source(op) => Some(op.label()),
                Instr::Generate(_) => Some("source".into()),
                Instr::Input(_) | Instr::Scalar(_) => None,
            })
            .collect();
        names.join(",")
    }
}
