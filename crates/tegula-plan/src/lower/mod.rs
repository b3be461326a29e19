//! Lowering: expression nodes → chunk tasks. Nodes are visited in topological order and each
//! node's blocks become tasks (or reuse their input's tasks when nothing changes); a node
//! shared by several outputs is lowered once; tasks no output needs are culled. With fusion,
//! operations run fused (`crate::fuse`) become one task per block, and the operations they
//! absorb none.

mod cull;
mod elementwise;
mod fused;
mod gather;
mod join;
mod layout;
mod linalg;
mod map_blocks;
mod mask;
mod matmul;
mod points;
mod reduce;
mod reshape;
mod sample_sort;
mod scan;
mod setitem;
mod sort;
mod source;
mod store;
mod windows;

use crate::fuse::{plan_fusion, Template};
use crate::graph::{BlockGrid, Output, Task, TaskGraph, TaskId};
use crate::node::{Node, NodeKind, NodeRef};
use crate::resource::ReadUnit;
use std::collections::{HashMap, HashSet};
use tegula_core::limits::MAX_TASKS;
use tegula_core::{Chunks, DType, IoOp, KernelOp, ResourceId, Result, TegulaError, TileAt};
use tegula_core::TaskOp;

pub(crate) use matmul::is_transpose_pair;

/// Whether lowering fuses element-wise chains (on by default; off for debugging).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fusion {
    /// Element-wise chains become fused tasks.
    On,
    /// Every operation gets tasks of its own.
    Off,
}

/// Builds the task graph that computes every node of `roots`.
pub fn lower(roots: &[NodeRef], fusion: Fusion) -> Result<TaskGraph> {
    let templates = if fusion == Fusion::On { plan_fusion(roots) } else { HashMap::new() };
    let deps = |n: &Node| templates.get(&n.id).map_or_else(|| n.inputs.clone(), |t| t.reads.clone());
    let mut l = Lowering::default();
    let nodes = crate::walk::topological_by(roots, deps);
    let estimate = check_task_count(&nodes)?;
    l.factorisations = linalg::Factorisations::new(&nodes);
    // Reserved up front (in huge pages when big): a plan of millions of tasks would otherwise
    // be copied as it grows, and take a page fault every 4 KB.
    l.graph.tasks = tegula_core::memory::big_vec(estimate);
    for node in nodes {
        let inputs: Vec<Vec<TaskId>> = deps(&node).iter().map(|i| l.memo[&i.id].clone()).collect();
        let blocks = match templates.get(&node.id) {
            Some(template) => l.lower_fused(&node, template, &inputs)?,
            None => l.lower_node(&node, &inputs)?,
        };
        match node.kind {
            NodeKind::Matmul { .. } => l.record_product_grids(&node, &inputs, &blocks),
            NodeKind::Linalg { op } => op.tile_at().into_iter().for_each(|at| l.record_tile(at, &blocks)),
            _ => {}
        }
        l.memo.insert(node.id, blocks);
    }
    let outputs = roots
        .iter()
        .map(|n| Output { node: n.id, dtype: n.dtype, chunks: n.chunks.clone(), blocks: l.memo[&n.id].clone() })
        .collect();
    l.graph.outputs = outputs;
    Ok(cull::cull(l.graph))
}

/// About how many tasks the plan of `nodes` has; a memory error, before any is made, when that
/// is more than `MAX_TASKS`, naming the operation with the most.
fn check_task_count(nodes: &[NodeRef]) -> Result<usize> {
    let total = nodes.iter().fold(0usize, |sum, n| sum.saturating_add(task_estimate(n)));
    if total <= MAX_TASKS {
        return Ok(total);
    }
    let biggest = nodes.iter().max_by_key(|n| task_estimate(n));
    let (most, label) = biggest.map_or((0, String::new()), |n| (task_estimate(n), n.label()));
    Err(TegulaError::Memory(format!(
        "the plan would have about {total} tasks ({most} of them for {label}), more than the {MAX_TASKS} tegula \
         plans at most: use larger chunks, or compute a smaller selection"
    )))
}

/// About how many tasks lowering `node` emits: one per block, twice the input's blocks for a
/// reduction tree, none for a concatenation (an estimate; only used to reserve memory).
fn task_estimate(node: &Node) -> usize {
    match node.kind {
        NodeKind::Reduce { .. } => 2usize.saturating_mul(node.inputs[0].chunks.nblocks()),
        NodeKind::Matmul { .. } => 2usize.saturating_mul(matmul_products(node)),
        NodeKind::Scan { .. } => 4usize.saturating_mul(node.chunks.nblocks()),
        NodeKind::Windows { .. } | NodeKind::Moving { .. } => 2usize.saturating_mul(node.chunks.nblocks()),
        NodeKind::SearchSorted { .. } => 2usize.saturating_mul(node.inputs[0].chunks.nblocks()).saturating_mul(node.chunks.nblocks()),
        NodeKind::Gather { axis } => node.chunks.nblocks().saturating_mul(node.inputs[0].chunks.axis(axis).len()),
        NodeKind::Concatenate { .. } => 0,
        NodeKind::MergeBuckets { ref counts, .. } => 2usize.saturating_mul(counts.len()).saturating_add(node.chunks.nblocks()),
        _ => node.chunks.nblocks(),
    }
}

/// The block products of a matmul node: one per output block and block of the contracted axis.
fn matmul_products(node: &Node) -> usize {
    let a = &node.inputs[0].chunks;
    node.chunks.nblocks().saturating_mul(a.axis(a.ndim() - 1).len())
}

#[derive(Default)]
pub(crate) struct Lowering {
    graph: TaskGraph,
    memo: HashMap<u64, Vec<TaskId>>,
    /// The blocks of each rechunk made so far, by source node and chunking: rechunks built
    /// apart from the same array to the same blocks share one set of tasks.
    rechunks: HashMap<(u64, Chunks, bool), Vec<TaskId>>,
    stored: HashSet<u64>,
    /// The reads of stored regions made so far: a region read for several blocks is read once.
    reads: HashMap<(ResourceId, Vec<(usize, usize)>), TaskId>,
    factorisations: linalg::Factorisations,
    /// The grid (an index into `graph.grids`) of the tiles of factorisations by tiles of
    /// matrices of so many tiles a side: every such matrix is laid out alike.
    tile_grids: HashMap<u32, usize>,
}

impl Lowering {
    /// Appends a task producing a block of `size` elements of `dtype`.
    pub(crate) fn push(&mut self, node: &Node, op: impl Into<TaskOp>, inputs: Vec<TaskId>, size: usize, dtype: DType) -> TaskId {
        self.graph.tasks.push(Task { op: op.into(), inputs, size, dtype, node: node.id, device: node.device });
        self.graph.tasks.len() - 1
    }

    /// The task reading `region` of the stored array `resource`, shared by every block that
    /// reads that region.
    pub(crate) fn read(&mut self, node: &Node, resource: ResourceId, region: Vec<(usize, usize)>, dtype: DType) -> TaskId {
        let key = (resource, region);
        if let Some(&task) = self.reads.get(&key) {
            return task;
        }
        let size = key.1.iter().map(|(lo, hi)| hi - lo).product();
        let task = self.push(node, IoOp::Read { resource, region: key.1.clone() }, vec![], size, dtype);
        self.reads.insert(key, task);
        task
    }

    /// How the stored array `resource` is read, when it is read by whole units.
    pub(crate) fn read_unit(&self, resource: ResourceId) -> Option<ReadUnit> {
        self.graph.resources.iter().find(|r| r.id == resource).and_then(|r| r.read_unit.clone())
    }

    /// Records where the blocks of a product's operands (`inputs`) and of its result
    /// (`blocks`) lie in the last two axes of their block grids: placement lays those
    /// matrices out alike over a grid of nodes (`placement::tiles`).
    fn record_product_grids(&mut self, node: &Node, inputs: &[Vec<TaskId>], blocks: &[TaskId]) {
        let operands = node.inputs.iter().map(|i| &i.chunks).zip(inputs.iter().map(Vec::as_slice));
        for (chunks, blocks) in operands.chain([(&node.chunks, blocks)]) {
            let counts = chunks.numblocks();
            let [.., rows, columns] = counts[..] else { continue };
            let cells = blocks.iter().enumerate().map(|(k, &t)| (t, [k / columns % rows, k % columns])).collect();
            self.graph.grids.push(BlockGrid { shape: [rows, columns], blocks: cells });
        }
    }

    /// Records that `blocks`, made by a step of a factorisation by tiles, are the tile `at`
    /// of its matrix: placement runs the step where that tile lies (`placement::tiles`).
    fn record_tile(&mut self, at: TileAt, blocks: &[TaskId]) {
        let tiles = at.tiles as usize;
        let grid = *self.tile_grids.entry(at.tiles).or_insert_with(|| {
            self.graph.grids.push(BlockGrid { shape: [tiles, tiles], blocks: vec![] });
            self.graph.grids.len() - 1
        });
        let cell = [at.row as usize, at.column as usize];
        self.graph.grids[grid].blocks.extend(blocks.iter().map(|&t| (t, cell)));
    }

    pub(crate) fn task(&self, id: TaskId) -> &Task {
        &self.graph.tasks[id]
    }

    fn shared_rechunk(&mut self, node: &Node, input: &[TaskId], copy: bool) -> Vec<TaskId> {
        let key = (node.inputs[0].id, node.chunks.clone(), copy);
        if let Some(blocks) = self.rechunks.get(&key) {
            return blocks.clone();
        }
        let blocks = layout::rechunk(self, node, input, copy);
        self.rechunks.insert(key, blocks.clone());
        blocks
    }

    fn lower_node(&mut self, node: &Node, inputs: &[Vec<TaskId>]) -> Result<Vec<TaskId>> {
        match &node.kind {
            NodeKind::Source(kind, _) => source::lower(self, node, kind),
            NodeKind::Unary { op, compute } => {
                elementwise::lower(self, node, inputs, KernelOp::Unary { op: *op, compute: *compute })
            }
            NodeKind::Binary { op, compute } => {
                elementwise::lower(self, node, inputs, KernelOp::Binary { op: *op, compute: *compute })
            }
            NodeKind::Where { compute } => elementwise::lower(self, node, inputs, KernelOp::Where { compute: *compute }),
            NodeKind::Cast => elementwise::lower(self, node, inputs, KernelOp::Cast { dtype: node.dtype }),
            NodeKind::Bitcast => elementwise::lower(self, node, inputs, KernelOp::Bitcast { dtype: node.dtype }),
            NodeKind::Drawn { dist } => elementwise::lower(self, node, inputs, KernelOp::Drawn { dist: *dist }),
            NodeKind::Reduce { .. } => reduce::lower(self, node, reduce::Reduced::Tasks(&inputs[0])),
            NodeKind::Matmul { split_every } => matmul::lower(self, node, inputs, *split_every),
            NodeKind::Linalg { op } => Ok(linalg::lower(self, node, inputs, *op)),
            NodeKind::Transpose { perm } => Ok(layout::transpose(self, node, &inputs[0], perm)),
            NodeKind::Index { axes } => Ok(layout::index(self, node, &inputs[0], axes)),
            NodeKind::SetItem { axes } => Ok(setitem::set_item(self, node, inputs, axes)),
            NodeKind::Fft { axis, inverse } => {
                elementwise::lower(self, node, inputs, KernelOp::Fft { axis: *axis, inverse: *inverse })
            }
            NodeKind::Rechunk { copy } => Ok(self.shared_rechunk(node, &inputs[0], *copy)),
            NodeKind::Reshape => Ok(reshape::reshape(self, node, &inputs[0])),
            NodeKind::Check { error } => elementwise::lower(self, node, inputs, KernelOp::Check { error: error.clone() }),
            NodeKind::WrapIndex { n, axis } => Ok(gather::wrap_index(self, node, &inputs[0], *n, *axis)),
            NodeKind::Gather { axis } => Ok(gather::gather(self, node, inputs, *axis)),
            NodeKind::PickPoints { axes, coords } => Ok(points::pick_points(self, node, &inputs[0], axes, coords)),
            NodeKind::Compress { blocks } => Ok(mask::compress(self, node, inputs, blocks)),
            NodeKind::BlockCounts => Ok(mask::block_counts(self, node, &inputs[0])),
            NodeKind::ExpandDims { axes } => Ok(join::expand_dims(self, node, &inputs[0], axes)),
            NodeKind::Concatenate { axis } => Ok(join::concatenate(node, inputs, *axis)),
            NodeKind::Scan { op, axis } => Ok(scan::lower(self, node, &inputs[0], *op, *axis)),
            &NodeKind::Windows { axis, width } => Ok(windows::lower(self, node, &inputs[0], axis, width, |start, count| {
                KernelOp::Windows { axis, width, start, count }
            })),
            &NodeKind::Moving { op, axis, width } => Ok(windows::lower(self, node, &inputs[0], axis, width, |start, count| {
                KernelOp::Moving { op, axis, width, start, count }
            })),
            NodeKind::Sort { axis, descending, arg } => Ok(sort::sort(self, node, &inputs[0], *axis, *descending, *arg)),
            NodeKind::SortedTake { axis } => Ok(sort::sorted_take(self, node, inputs, *axis)),
            NodeKind::TakeWithinBlocks => Ok(sample_sort::take_within_blocks(self, node, inputs)),
            NodeKind::SamplePositions { descending, buckets } => {
                Ok(sample_sort::sample_positions(self, node, &inputs[0], *buckets, *descending))
            }
            NodeKind::BucketCounts { descending } => Ok(sample_sort::bucket_counts(self, node, inputs, *descending)),
            NodeKind::BucketPartition { descending, arg } => Ok(sample_sort::bucket_partition(self, node, inputs, *descending, *arg)),
            NodeKind::MergeBuckets { descending, counts } => Ok(sample_sort::merge_buckets(self, node, inputs, counts, *descending)),
            NodeKind::SearchSorted { right, presorted } => Ok(sort::searchsorted(self, node, inputs, *right, *presorted)),
            NodeKind::Store { sink } => Ok(store::lower(self, node, &inputs[0], sink)),
            NodeKind::MapBlocks { function, .. } => Ok(map_blocks::lower(self, node, inputs, function)),
            NodeKind::ToDevice { .. } => elementwise::lower(self, node, inputs, KernelOp::ToDevice),
        }
    }

    /// A node run fused: an element-wise operation, or a reduction computing its input inside
    /// its partial reductions; `reads` holds the tasks of the template's reads.
    fn lower_fused(&mut self, node: &Node, template: &Template, reads: &[Vec<TaskId>]) -> Result<Vec<TaskId>> {
        match node.kind {
            NodeKind::Reduce { .. } => {
                reduce::lower(self, node, reduce::Reduced::Fused(fused::FusedBlocks::new(template, reads)?))
            }
            _ => fused::lower(self, node, template, reads),
        }
    }

    pub(crate) fn register_resource(&mut self, stored: &std::sync::Arc<crate::resource::Resource>) {
        if self.stored.insert(stored.id) {
            self.graph.resources.push(stored.clone());
        }
    }
}
