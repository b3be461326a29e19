//! Which kernels the GPU runs itself, known from the op and its inputs' dtypes before anything
//! runs, so `explain` can show the others as copies to the host and back. The same tests the
//! shader builders make, on dtypes alone: a shape never decides (blocks too big for a
//! dispatch excepted, which run on the CPU without being shown).

use crate::device::{one_step_program, sources_as_inputs, Gpu};
use crate::elementwise::{cast, element};
use crate::moments::as_double;
use crate::matmul::loads;
use crate::reduce::{combine_program, finish_program, folding};
use tegula_core::program::{Instr, Program};
use tegula_core::{DType, Finish, KernelOp, PartialReduce};

impl Gpu {
    /// Whether `op` over inputs of `dtypes` runs as a shader (or as a view) on this GPU.
    pub(crate) fn has_shader(&self, op: &KernelOp, dtypes: &[DType]) -> bool {
        let f64 = self.has_float64();
        let computes = |program: &Program, dtypes: &[DType]| {
            let inputs: Vec<(DType, Vec<usize>)> = dtypes.iter().map(|&d| (d, vec![1])).collect();
            element(program, &inputs, &[1], f64).is_some_and(|e| self.binds(&e))
        };
        let reduces = |op: PartialReduce, program: &Program, dtypes: &[DType]| {
            let folds = |d: DType| match op {
                PartialReduce::Moments => as_double(d, f64).is_some(),
                _ => folding(op, d, f64).is_some(),
            };
            program.dtype().is_some_and(folds) && computes(program, dtypes)
        };
        let with_sources = |block: &tegula_core::program::FusedBlock| {
            let (program, sources) = sources_as_inputs(block, dtypes.len());
            let mut all = dtypes.to_vec();
            all.extend(sources.iter().map(|&(_, dtype)| dtype));
            (program, all)
        };
        match op {
            KernelOp::ToDevice | KernelOp::Reshape { .. } | KernelOp::ExpandDims { .. } => true,
            KernelOp::Fused(block) => {
                let (program, all) = with_sources(block);
                computes(&program, &all)
            }
            KernelOp::FusedReduce { block, op, .. } => {
                let (program, all) = with_sources(block);
                reduces(*op, &program, &all)
            }
            KernelOp::ReducePartial { op, .. } => {
                let mut program = Program::default();
                dtypes.iter().take(1).for_each(|&d| _ = program.push(Instr::Input(0), d));
                reduces(*op, &program, dtypes)
            }
            KernelOp::ReduceCombine { op: PartialReduce::Moments } => self.merges_moments(dtypes),
            KernelOp::ReduceFinish { finish: Finish::Variance { .. }, dtype, .. } => {
                dtypes.first().is_some_and(|&d| self.variance_lane(d, *dtype).is_some() && cast("v", DType::Float64, dtype.storage(), true).is_some())
            }
            KernelOp::ReduceCombine { op } => {
                dtypes.first().and_then(|&d| combine_program(*op, d, dtypes.len())).is_some_and(|p| computes(&p, dtypes))
            }
            KernelOp::ReduceFinish { finish, dtype, .. } => {
                dtypes.first().and_then(|&d| finish_program(*finish, d, *dtype)).is_some_and(|p| computes(&p, dtypes))
            }
            KernelOp::Transpose { .. } | KernelOp::Select { .. } | KernelOp::Assemble { .. } => {
                dtypes.first().is_some_and(|&d| self.words_per_element(d).is_some())
            }
            KernelOp::Matmul { dtype } => matches!(dtypes, &[a, b] if loads(*dtype, a, b, f64).is_some()),
            _ => one_step_program(op, dtypes).is_some_and(|p| computes(&p, dtypes)),
        }
    }
}
