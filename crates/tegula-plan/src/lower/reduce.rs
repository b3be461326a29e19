//! Reductions as trees: a partial reduction per input block, combined `split_every` at a time,
//! then one finishing task per output block.

use super::fused::FusedBlocks;
use super::Lowering;
use crate::graph::TaskId;
use crate::node::{Node, NodeKind};
use tegula_core::grid::{block_indices, ravel, try_for_each_block};
use tegula_core::{DType, Finish, KernelOp, PartialReduce, ReduceOp, Result, internal_err};

/// The blocks a reduction reduces: its input's tasks, or a fused program computed inside the
/// partial reductions.
pub(super) enum Reduced<'a> {
    Tasks(&'a [TaskId]),
    Fused(FusedBlocks<'a>),
}

pub(super) fn lower(l: &mut Lowering, node: &Node, reduced: Reduced) -> Result<Vec<TaskId>> {
    let NodeKind::Reduce { op, axes, keepdims, ddof, split_every } = &node.kind else {
        return Err(internal_err!("reduce lowering of {}", node.label()));
    };
    let input = &node.inputs[0];
    let in_shape = input.shape();
    let partial = partial_of(*op, node.dtype);
    let count: usize = axes.iter().map(|&a| in_shape[a]).product();
    let finish = match op {
        ReduceOp::Mean => Finish::DivideBy(count as f64),
        ReduceOp::Var => Finish::Variance { ddof: *ddof, sqrt: false },
        ReduceOp::Std => Finish::Variance { ddof: *ddof, sqrt: true },
        ReduceOp::NanMean => Finish::SumOverCount,
        ReduceOp::NanVar => Finish::NanVariance { ddof: *ddof, sqrt: false },
        ReduceOp::NanStd => Finish::NanVariance { ddof: *ddof, sqrt: true },
        ReduceOp::Sum | ReduceOp::NanSum if node.dtype.is_float() || node.dtype.is_complex() => Finish::AddZero,
        _ => Finish::Identity,
    };
    let squeeze = if *keepdims { vec![] } else { axes.clone() };
    let shared_axes: std::sync::Arc<[usize]> = axes.as_slice().into();
    let in_nb = input.chunks.numblocks();
    let kept: Vec<usize> = (0..in_nb.len()).filter(|a| !axes.contains(a)).collect();
    let outer_nb: Vec<usize> = kept.iter().map(|&a| in_nb[a]).collect();
    let inner_nb: Vec<usize> = axes.iter().map(|&a| in_nb[a]).collect();
    let mut out = Vec::new();
    for outer in block_indices(&outer_nb) {
        let mut parts = Vec::new();
        let mut idx = vec![0; in_nb.len()];
        kept.iter().zip(&outer).for_each(|(&a, &b)| idx[a] = b);
        try_for_each_block(&inner_nb, |inner| {
            axes.iter().zip(inner).for_each(|(&a, &b)| idx[a] = b);
            let shape = input.chunks.block_shape(&idx);
            // Blocks with nothing to reduce add nothing (and min/max have no identity for them).
            if axes.iter().any(|&a| shape[a] == 0) && (count > 0 || !parts.is_empty()) {
                return Ok(());
            }
            let kept_size = shape.iter().enumerate().filter(|(a, _)| !axes.contains(a)).map(|(_, &n)| n).product();
            let (psize, pdtype) = partial_layout(partial, input.dtype, kept_size);
            let (op, inputs) = match &reduced {
                Reduced::Tasks(blocks) => (KernelOp::ReducePartial { op: partial, axes: shared_axes.clone() }, vec![blocks[ravel(&idx, &in_nb)]]),
                Reduced::Fused(fused) => {
                    let (block, inputs) = fused.block(&idx, shape)?;
                    (KernelOp::FusedReduce { block, op: partial, axes: shared_axes.clone() }, inputs)
                }
            };
            parts.push(l.push(node, op, inputs, psize, pdtype));
            Ok(())
        })?;
        let combined = tree(l, node, parts, partial, *split_every);
        let size = kept.iter().zip(&outer).map(|(&a, &b)| input.chunks.axis(a)[b]).product();
        out.push(l.push(node, KernelOp::ReduceFinish { finish, squeeze: squeeze.clone(), dtype: node.dtype }, vec![combined], size, node.dtype));
    }
    Ok(out)
}

/// Combines `parts` `split_every` at a time until one remains.
pub(super) fn tree(l: &mut Lowering, node: &Node, mut parts: Vec<TaskId>, op: PartialReduce, split_every: usize) -> TaskId {
    while parts.len() > 1 {
        parts = parts
            .chunks(split_every)
            .map(|group| {
                if group.len() == 1 {
                    return group[0];
                }
                let t = l.task(group[0]);
                let (size, dtype) = (t.size, t.dtype);
                l.push(node, KernelOp::ReduceCombine { op }, group.to_vec(), size, dtype)
            })
            .collect();
    }
    parts[0]
}

/// The partial a reduction op keeps per block.
fn partial_of(op: ReduceOp, output: DType) -> PartialReduce {
    let wide = |d: DType| match d {
        DType::Float16 | DType::Float32 => DType::Float64,
        DType::Complex64 => DType::Complex128,
        d => d,
    };
    match op {
        ReduceOp::Sum => PartialReduce::Sum { acc: wide(output) },
        ReduceOp::Prod => PartialReduce::Prod { acc: wide(output) },
        ReduceOp::Min => PartialReduce::Min,
        ReduceOp::Max => PartialReduce::Max,
        ReduceOp::NanSum => PartialReduce::NanSum { acc: wide(output) },
        ReduceOp::NanMin => PartialReduce::NanMin,
        ReduceOp::NanMax => PartialReduce::NanMax,
        ReduceOp::Any => PartialReduce::Any,
        ReduceOp::All => PartialReduce::All,
        // Like NumPy, a real `dtype=` converts complex elements before summing them.
        ReduceOp::Mean => PartialReduce::Sum { acc: if output.is_complex() { DType::Complex128 } else { DType::Float64 } },
        ReduceOp::Var | ReduceOp::Std => PartialReduce::Moments,
        ReduceOp::NanVar | ReduceOp::NanStd => PartialReduce::NanMoments,
        ReduceOp::NanMean => PartialReduce::NanSumCount { acc: if output.is_complex() { DType::Complex128 } else { DType::Float64 } },
    }
}

/// Number of elements and dtype of the partial of a block with `kept` elements along the
/// axes it keeps (moments keep three numbers per element).
fn partial_layout(op: PartialReduce, input: DType, kept: usize) -> (usize, DType) {
    match op {
        PartialReduce::Sum { acc } | PartialReduce::Prod { acc } | PartialReduce::NanSum { acc } => (kept, acc),
        PartialReduce::Any | PartialReduce::All => (kept, DType::Bool),
        PartialReduce::Min | PartialReduce::Max | PartialReduce::NanMin | PartialReduce::NanMax => (kept, input),
        PartialReduce::NanSumCount { acc } => (2 * kept, acc),
        PartialReduce::Moments | PartialReduce::NanMoments => (3 * kept, if input.is_complex() { DType::Complex128 } else { DType::Float64 }),
    }
}
