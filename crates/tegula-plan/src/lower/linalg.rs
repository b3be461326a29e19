//! Linear algebra: one task per stack block, reading the same-numbered block of each input
//! (the builder gave them one block per matrix axis and the same stack chunks). Where the plan
//! asks for several results of one factorisation of the same input (`svd`'s `U`, `S` and
//! `Vh`), one task per block computes them all (`KernelOp::Factorise`), and each result's
//! task takes its part (`KernelOp::Part`), so the matrix is factorised once.

use super::Lowering;
use crate::graph::TaskId;
use crate::node::{Node, NodeKind, NodeRef};
use std::collections::HashMap;
use tegula_core::grid::for_each_block;
use tegula_core::{DType, KernelOp, LinalgOp};

/// The factorisations of a plan whose results it asks for more than one of, and their tasks.
#[derive(Default)]
pub(crate) struct Factorisations {
    /// By the factorisation's key (`key`): the results asked for, a bit each.
    wanted: HashMap<String, u32>,
    /// By the factorisation's key and its input tasks: the task computing every result.
    tasks: HashMap<(String, Vec<TaskId>), TaskId>,
}

impl Factorisations {
    pub(crate) fn new(nodes: &[NodeRef]) -> Factorisations {
        let mut wanted: HashMap<String, u32> = HashMap::new();
        for node in nodes {
            if let NodeKind::Linalg { op } = node.kind {
                if let Some((factorisation, result)) = op.factorisation() {
                    *wanted.entry(key(factorisation, node)).or_default() |= 1 << result;
                }
            }
        }
        Factorisations { wanted, tasks: HashMap::new() }
    }
}

/// A factorisation of the inputs of `node`: its op and the input nodes.
fn key(factorisation: LinalgOp, node: &Node) -> String {
    let inputs: Vec<u64> = node.inputs.iter().map(|i| i.id).collect();
    format!("{factorisation:?} of {inputs:?}")
}

pub(super) fn lower(l: &mut Lowering, node: &Node, inputs: &[Vec<TaskId>], op: LinalgOp) -> Vec<TaskId> {
    // The factorisation's key, made once per node (it is a string).
    let shared = op.factorisation().map(|(f, result)| (f, result, key(f, node)));
    let shared = shared.filter(|(_, _, k)| l.factorisations.wanted.get(k).is_some_and(|w| w.count_ones() > 1));
    let mut blocks = Vec::with_capacity(node.chunks.nblocks());
    // The result's trailing axes (if any) are one block each, so its blocks are numbered
    // as the inputs' stack blocks are.
    for_each_block(&node.chunks.numblocks(), |idx| {
        let args: Vec<TaskId> = inputs.iter().map(|b| b[blocks.len()]).collect();
        let size = node.chunks.block_size(idx);
        blocks.push(match &shared {
            Some((factorisation, result, key)) => {
                let all = results(node, *factorisation, idx);
                let factors = factors_task(l, node, *factorisation, key, args, &all);
                let offset = all[..*result as usize].iter().map(byte_count).sum();
                let shape = all[*result as usize].1.clone();
                l.push(node, KernelOp::Part { offset, dtype: node.dtype, shape }, vec![factors], size, node.dtype)
            }
            None => l.push(node, KernelOp::Linalg { op }, args, size, node.dtype),
        });
    });
    blocks
}

/// The task computing every result (`all`: their dtypes and shapes) of `factorisation` of the
/// input blocks `args`.
fn factors_task(l: &mut Lowering, node: &Node, factorisation: LinalgOp, key: &str, args: Vec<TaskId>, all: &[(DType, Vec<usize>)]) -> TaskId {
    let id = (key.to_string(), args);
    if let Some(&task) = l.factorisations.tasks.get(&id) {
        return task;
    }
    let bytes = all.iter().map(byte_count).sum();
    let task = l.push(node, KernelOp::Factorise { op: factorisation }, id.1.clone(), bytes, DType::UInt8);
    l.factorisations.tasks.insert(id, task);
    task
}

fn byte_count((dtype, shape): &(DType, Vec<usize>)) -> usize {
    dtype.itemsize() * shape.iter().product::<usize>()
}

/// The dtype and block shape of each result of `factorisation` for block `idx` of `node`.
fn results(node: &Node, factorisation: LinalgOp, idx: &[usize]) -> Vec<(DType, Vec<usize>)> {
    let input = &node.inputs[0];
    let stack = input.chunks.ndim() - 2;
    let block: Vec<usize> = idx[..stack].iter().copied().chain([0, 0]).collect();
    let shape = input.chunks.block_shape(&block);
    let matrix = (shape[stack], shape[stack + 1]);
    factorisation
        .results()
        .into_iter()
        .map(|r| (r.output_dtype(input.dtype), shape[..stack].iter().copied().chain(r.result_shape(&[matrix])).collect()))
        .collect()
}
