//! Reductions as trees: a partial reduction per input block, combined `split_every` at a time,
//! then one finishing task per output block.

use super::fused::FusedBlocks;
use super::Lowering;
use crate::graph::TaskId;
use crate::node::{Node, NodeKind};
use tegula_core::grid::{block_indices, ravel};
use tegula_core::{internal_err, DType, Finish, OpKind, PartialReduce, ReduceOp, Result};

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
        _ => Finish::Identity,
    };
    let squeeze = if *keepdims { vec![] } else { axes.clone() };
    let in_nb = input.chunks.numblocks();
    let kept: Vec<usize> = (0..in_nb.len()).filter(|a| !axes.contains(a)).collect();
    let outer_nb: Vec<usize> = kept.iter().map(|&a| in_nb[a]).collect();
    let inner_nb: Vec<usize> = axes.iter().map(|&a| in_nb[a]).collect();
    let mut out = Vec::new();
    for outer in block_indices(&outer_nb) {
        let mut parts = Vec::new();
        for inner in block_indices(&inner_nb) {
            let mut idx = vec![0; in_nb.len()];
            kept.iter().zip(&outer).for_each(|(&a, &b)| idx[a] = b);
            axes.iter().zip(&inner).for_each(|(&a, &b)| idx[a] = b);
            let shape = input.chunks.block_shape(&idx);
            // Blocks with nothing to reduce add nothing (and min/max have no identity for them).
            if axes.iter().any(|&a| shape[a] == 0) && (count > 0 || !parts.is_empty()) {
                continue;
            }
            let mut pshape = shape.clone();
            axes.iter().for_each(|&a| pshape[a] = 1);
            let (pshape, pdtype) = partial_layout(partial, input.dtype, pshape);
            let (op, inputs) = match &reduced {
                Reduced::Tasks(blocks) => (OpKind::ReducePartial { op: partial, axes: axes.clone() }, vec![blocks[ravel(&idx, &in_nb)]]),
                Reduced::Fused(fused) => {
                    let (block, inputs) = fused.block(&idx, shape);
                    (OpKind::FusedReduce { block, op: partial, axes: axes.clone() }, inputs)
                }
            };
            parts.push(l.push(node, op, inputs, pshape, pdtype));
        }
        let combined = tree(l, node, parts, partial, *split_every);
        let shape = out_block_shape(&input.chunks, axes, *keepdims, &outer);
        out.push(l.push(node, OpKind::ReduceFinish { finish, squeeze: squeeze.clone(), dtype: node.dtype }, vec![combined], shape, node.dtype));
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
                let (shape, dtype) = (t.shape.clone(), t.dtype);
                l.push(node, OpKind::ReduceCombine { op }, group.to_vec(), shape, dtype)
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
        ReduceOp::Any => PartialReduce::Any,
        ReduceOp::All => PartialReduce::All,
        // Like NumPy, a real `dtype=` converts complex elements before summing them.
        ReduceOp::Mean => PartialReduce::Sum { acc: if output.is_complex() { DType::Complex128 } else { DType::Float64 } },
        ReduceOp::Var | ReduceOp::Std => PartialReduce::Moments,
    }
}

/// Shape and dtype of the partial of a block whose keep-dims shape is `shape`.
fn partial_layout(op: PartialReduce, input: DType, shape: Vec<usize>) -> (Vec<usize>, DType) {
    match op {
        PartialReduce::Sum { acc } | PartialReduce::Prod { acc } => (shape, acc),
        PartialReduce::Any | PartialReduce::All => (shape, DType::Bool),
        PartialReduce::Min | PartialReduce::Max => (shape, input),
        PartialReduce::Moments => {
            let dtype = if input.is_complex() { DType::Complex128 } else { DType::Float64 };
            ([&[3][..], &shape[..]].concat(), dtype)
        }
    }
}

/// The result block of the output position `outer` (block numbers along the kept axes).
fn out_block_shape(input: &tegula_core::Chunks, axes: &[usize], keepdims: bool, outer: &[usize]) -> Vec<usize> {
    let mut kept = outer.iter();
    (0..input.ndim())
        .filter_map(|a| match (axes.contains(&a), keepdims) {
            (true, true) => Some(1),
            (true, false) => None,
            (false, _) => kept.next().map(|&b| input.axis(a)[b]),
        })
        .collect()
}
