//! Fused element-wise programs: a chain of element-wise operations (and the sources feeding
//! them) that one task evaluates in a single pass over its block, in cache-sized tiles, without
//! writing intermediate blocks. A program is plain data, like every op.

use crate::dtype::DType;
use crate::ops::{BinaryOp, UnaryOp};
use crate::source_op::SourceOp;
use crate::scalar::Scalar;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// One step of a program. Steps refer to earlier steps by index; the last step is the result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Instr {
    /// Input `i` of the task (a block, broadcast to the program's block shape).
    Input(usize),
    /// Source `i` of the block (`Full`, `Arange`, `Linspace` or `Random`), generated per tile.
    /// The program is shared by every block of an operation; the sources locate the block.
    Source(usize),
    /// A constant.
    Scalar(Scalar),
    /// An element-wise function of one earlier step.
    Unary {
        /// The function.
        op: UnaryOp,
        /// The dtype it runs in.
        compute: DType,
        /// The step it reads.
        arg: usize,
    },
    /// An element-wise function of two earlier steps.
    Binary {
        /// The function.
        op: BinaryOp,
        /// The dtype it runs in.
        compute: DType,
        /// The steps it reads.
        args: [usize; 2],
    },
    /// NumPy's `where(cond, x, y)` of three earlier steps.
    Where {
        /// The dtype `x` and `y` are cast to.
        compute: DType,
        /// The steps of `cond`, `x` and `y`.
        args: [usize; 3],
    },
    /// An earlier step cast to the step's dtype (`astype`).
    Cast {
        /// The step it casts.
        arg: usize,
    },
}

impl Instr {
    /// The earlier steps this one reads.
    pub fn args(&self) -> Vec<usize> {
        match self {
            Instr::Unary { arg, .. } | Instr::Cast { arg } => vec![*arg],
            Instr::Binary { args, .. } => args.to_vec(),
            Instr::Where { args, .. } => args.to_vec(),
            Instr::Input(_) | Instr::Source(_) | Instr::Scalar(_) => Vec::new(),
        }
    }
}

/// A step and the dtype it produces.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// What the step computes.
    pub instr: Instr,
    /// The dtype of its values.
    pub dtype: DType,
}

/// A fused chain of element-wise steps, evaluated tile by tile; the last step is the result.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Program {
    /// The steps, each reading only earlier ones.
    pub steps: Vec<Step>,
}

impl Program {
    /// Appends a step and returns its index.
    pub fn push(&mut self, instr: Instr, dtype: DType) -> usize {
        self.steps.push(Step { instr, dtype });
        self.steps.len() - 1
    }

    /// The dtype of the result.
    pub fn dtype(&self) -> Option<DType> {
        self.steps.last().map(|s| s.dtype)
    }

    /// The names of the operations, in order, for plans (`add,multiply,sqrt`), naming the
    /// sources by `sources`.
    pub fn label(&self, sources: &[SourceOp]) -> String {
        let names: Vec<String> = self
            .steps
            .iter()
            .filter_map(|s| match &s.instr {
                Instr::Unary { op, .. } => Some(op.name().to_string()),
                Instr::Binary { op, .. } => Some(op.name().to_string()),
                Instr::Where { .. } => Some("where".into()),
                Instr::Cast { .. } => Some(format!("astype({})", s.dtype)),
                Instr::Source(i) => Some(sources.get(*i).map_or("source", |op| op.label()).to_string()),
                Instr::Input(_) | Instr::Scalar(_) => None,
            })
            .collect();
        names.join(",")
    }
}

/// A fused program applied to one block: the program (shared by every block of the
/// operation), the block's sources and its shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FusedBlock {
    /// The program, shared by every block of the operation.
    pub program: Arc<Program>,
    /// The block's sources, which `Instr::Source` names by index.
    pub sources: Vec<SourceOp>,
    /// The shape of the block.
    pub shape: Vec<usize>,
}

impl FusedBlock {
    /// The names of the program's operations, for plans.
    pub fn label(&self) -> String {
        self.program.label(&self.sources)
    }

    /// Source `i` of the block.
    pub fn source(&self, i: usize) -> crate::Result<&SourceOp> {
        self.sources.get(i).ok_or_else(|| crate::internal_err!("fused source {i} missing"))
    }
}
