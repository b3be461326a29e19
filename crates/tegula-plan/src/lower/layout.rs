//! Transpose, basic indexing and rechunk: each output block is a view of one input block, or
//! (rechunk only) is assembled from pieces of several.

use super::Lowering;
use crate::construct::layout::range_chunks;
use crate::graph::TaskId;
use crate::node::{range_select, IndexAxis, Node};
use tegula_core::grid::{block_indices, intersect, locate, ravel, Overlap};
use tegula_core::{IoOp, KernelOp, Piece, Select};
use tegula_core::TaskOp;

pub(super) fn transpose(l: &mut Lowering, node: &Node, input: &[TaskId], perm: &[usize]) -> Vec<TaskId> {
    let in_nb = node.inputs[0].chunks.numblocks();
    block_indices(&node.chunks.numblocks())
        .map(|idx| {
            let mut in_idx = vec![0; idx.len()];
            perm.iter().zip(&idx).for_each(|(&p, &b)| in_idx[p] = b);
            let shape = node.chunks.block_shape(&idx);
            l.push(node, KernelOp::Transpose { perm: perm.to_vec() }, vec![input[ravel(&in_idx, &in_nb)]], shape.iter().product(), node.dtype)
        })
        .collect()
}

/// How one key item maps output blocks to input blocks.
enum AxisPlan {
    Range { parts: Vec<crate::construct::layout::RangePart>, step: isize },
    Index { block: usize, local: usize },
    NewAxis,
}

pub(super) fn index(l: &mut Lowering, node: &Node, input: &[TaskId], axes: &[IndexAxis]) -> Vec<TaskId> {
    let in_chunks = &node.inputs[0].chunks;
    let mut in_axis = 0;
    let plans: Vec<AxisPlan> = axes
        .iter()
        .map(|a| {
            let plan = match *a {
                IndexAxis::Range { start, step, len } => {
                    AxisPlan::Range { parts: range_chunks(in_chunks.axis(in_axis), start, step, len), step }
                }
                IndexAxis::Index(i) => {
                    let (block, local) = locate(in_chunks.axis(in_axis), i);
                    AxisPlan::Index { block, local }
                }
                IndexAxis::NewAxis => return AxisPlan::NewAxis,
            };
            in_axis += 1;
            plan
        })
        .collect();
    let in_nb = in_chunks.numblocks();
    block_indices(&node.chunks.numblocks())
        .map(|idx| {
            let (mut out_axis, mut in_idx, mut select) = (0, Vec::new(), Vec::new());
            for plan in &plans {
                match plan {
                    AxisPlan::Range { parts, step } => {
                        let p = parts[idx[out_axis]];
                        in_idx.push(p.block);
                        select.push(if p.len == 0 {
                            Select::Range { start: 0, stop: 0, step: 1 }
                        } else {
                            range_select(p.first, p.last, *step)
                        });
                        out_axis += 1;
                    }
                    AxisPlan::Index { block, local } => {
                        in_idx.push(*block);
                        select.push(Select::Index(*local));
                    }
                    AxisPlan::NewAxis => {
                        select.push(Select::NewAxis);
                        out_axis += 1;
                    }
                }
            }
            let shape = node.chunks.block_shape(&idx);
            let (task, select) = narrowed_read(l, node, input[ravel(&in_idx, &in_nb)], select);
            l.push(node, KernelOp::Select { axes: select }, vec![task], shape.iter().product(), node.dtype)
        })
        .collect()
}

/// When `task` reads a block from disk, a read of just the part `select` takes (its bounding
/// box; for a store read by whole units, the units around it, shared with every other read of
/// them) and `select` made relative to that part: indexing a stored array reads only what it
/// needs, not whole blocks.
fn narrowed_read(l: &mut Lowering, node: &Node, task: TaskId, select: Vec<Select>) -> (TaskId, Vec<Select>) {
    let TaskOp::Io(IoOp::Read { resource, region }) = &l.task(task).op else { return (task, select) };
    let (resource, region) = (*resource, region.clone());
    // The bounding box `select` takes along each of the block's axes, in the whole array.
    let mut narrow = Vec::with_capacity(region.len());
    for s in &select {
        let (lo, hi) = match *s {
            Select::Range { start, stop, .. } => (start, stop.max(start)),
            Select::Index(i) => (i, i + 1),
            Select::NewAxis => continue,
        };
        let Some(&(origin, _)) = region.get(narrow.len()) else { return (task, select) };
        narrow.push((origin + lo, origin + hi));
    }
    let read = l.read_unit(resource).map_or_else(|| narrow.clone(), |unit| unit.around(&narrow));
    if read == region {
        return (task, select);
    }
    // `select` counted from the read's start instead of the block's.
    let mut axis = 0;
    let relative = select
        .into_iter()
        .map(|s| {
            let from = |at: usize| region[axis].0 + at - read[axis].0;
            let moved = match s {
                Select::Range { start, stop, step } => Select::Range { start: from(start), stop: from(stop.max(start)), step },
                Select::Index(i) => Select::Index(from(i)),
                Select::NewAxis => return s,
            };
            axis += 1;
            moved
        })
        .collect();
    let dtype = l.task(task).dtype;
    (l.read(node, resource, read, dtype), relative)
}

pub(super) fn rechunk(l: &mut Lowering, node: &Node, input: &[TaskId], copy: bool) -> Vec<TaskId> {
    let old = &node.inputs[0].chunks;
    let in_nb = old.numblocks();
    let tables: Vec<Vec<Vec<Overlap>>> =
        (0..old.ndim()).map(|a| intersect(old.axis(a), node.chunks.axis(a))).collect();
    block_indices(&node.chunks.numblocks())
        .map(|idx| {
            let per_axis: Vec<&Vec<Overlap>> = idx.iter().enumerate().map(|(a, &b)| &tables[a][b]).collect();
            let shape = node.chunks.block_shape(&idx);
            let combos: Vec<Vec<usize>> = block_indices(&per_axis.iter().map(|o| o.len()).collect::<Vec<_>>()).collect();
            if let [only] = combos.as_slice() {
                let src: Vec<&Overlap> = per_axis.iter().zip(only).map(|(o, &k)| &o[k]).collect();
                let in_idx: Vec<usize> = src.iter().map(|o| o.block).collect();
                let task = input[ravel(&in_idx, &in_nb)];
                let block_shape = old.block_shape(&in_idx);
                if src.iter().zip(&block_shape).all(|(o, &n)| o.local.start == 0 && o.local.end == n) {
                    return task;
                }
                if copy {
                    let src = src.iter().map(|o| (o.local.start, o.local.end)).collect();
                    let piece = Piece { input: 0, src, dst: vec![0; shape.len()] };
                    return l.push(node, KernelOp::Assemble { shape: shape.clone(), pieces: vec![piece] }, vec![task], shape.iter().product(), node.dtype);
                }
                let axes = src.iter().map(|o| Select::Range { start: o.local.start, stop: o.local.end, step: 1 }).collect();
                return l.push(node, KernelOp::Select { axes }, vec![task], shape.iter().product(), node.dtype);
            }
            let (mut inputs, mut pieces) = (Vec::new(), Vec::new());
            for combo in combos {
                let src: Vec<&Overlap> = per_axis.iter().zip(&combo).map(|(o, &k)| &o[k]).collect();
                let in_idx: Vec<usize> = src.iter().map(|o| o.block).collect();
                inputs.push(input[ravel(&in_idx, &in_nb)]);
                let dst = per_axis
                    .iter()
                    .zip(&combo)
                    .map(|(o, &k)| o[..k].iter().map(|p| p.local.len()).sum())
                    .collect();
                let src = src.iter().map(|o| (o.local.start, o.local.end)).collect();
                pieces.push(Piece { input: inputs.len() - 1, src, dst });
            }
            let size = shape.iter().product();
            l.push(node, KernelOp::Assemble { shape, pieces }, inputs, size, node.dtype)
        })
        .collect()
}
