//! `Array`: a lazy chunked array (a handle on an expression node) and computing it.

use crate::budget::budget_left;
use tegula_core::shape::fmt_shape;
use tegula_core::{Chunks, DType, Result, Spec};
use std::sync::Arc;
use tegula_exec::device::made_on_host;
use tegula_exec::{Executor, Observer, Report, Threaded};
use tegula_kernels::Chunk;
use tegula_plan::memory::{check_fits, check_results_fit};
use tegula_plan::describe::{describe, describe_in, Detail, PlanDescription};
use tegula_plan::product_blocks::merge_product_blocks;
use tegula_plan::rechunk_stages::stage_rechunks;
use tegula_plan::{explain::explain, lower, Fusion, NodeRef, TaskGraph};

/// A rechunk is planned in stages when one of its tasks would hold more than this share of
/// the memory budget, leaving room for other tasks and the blocks waiting to be read.
const RECHUNK_SHARE: usize = 4;

/// A lazy chunked array. Operations build new arrays; nothing runs until `compute`.
#[derive(Clone, Debug)]
pub struct Array {
    pub(crate) node: NodeRef,
}

impl Array {
    pub(crate) fn from_node(node: NodeRef) -> Array {
        Array { node }
    }
    /// The expression node this array is (the planning layer's view of it).
    pub fn node(&self) -> &NodeRef {
        &self.node
    }
    /// The length of each axis.
    pub fn shape(&self) -> Vec<usize> {
        self.node.shape()
    }
    /// The number of axes.
    pub fn ndim(&self) -> usize {
        self.node.ndim()
    }
    /// The number of elements.
    pub fn size(&self) -> usize {
        self.node.size()
    }
    /// The element type.
    pub fn dtype(&self) -> DType {
        self.node.dtype
    }
    /// The block lengths along each axis.
    pub fn chunks(&self) -> &Chunks {
        &self.node.chunks
    }
    /// The bytes of the whole array, once computed.
    pub fn nbytes(&self) -> usize {
        self.node.nbytes()
    }

    /// The number of chunk tasks computing this array takes.
    pub fn task_count(&self) -> Result<usize> {
        let roots = staged(std::slice::from_ref(&self.node), Spec::from_env()?.memory);
        Ok(plan(&roots, true)?.tasks.len())
    }

    /// The plan: one line per operation with its shape, chunks, task count and what was
    /// fused, then its projected peak memory against the budget (`TEGULA_MEMORY` or the
    /// default).
    pub fn explain(&self) -> Result<String> {
        self.explain_with(&Spec::from_env()?)
    }

    /// `explain` against the budget of `spec`.
    pub fn explain_with(&self, spec: &Spec) -> Result<String> {
        let roots = staged(std::slice::from_ref(&self.node), spec.memory);
        let graph = plan(&roots, true)?;
        let inputs = |t: &tegula_plan::graph::Task| t.inputs.iter().map(|&i| graph.tasks[i].dtype).collect();
        let on_host = made_on_host(graph.tasks.iter().map(|t| (t.device, &t.op, inputs(t))))?;
        Ok(explain(&roots, &graph, spec.memory, &on_host))
    }

    /// Computes the array on all cores.
    pub fn compute(&self) -> Result<Chunk> {
        self.compute_with(ComputeOptions::default()).map(|(c, _)| c)
    }

    /// Computes the array as `options` say (an executor, fusion, a budget), with the
    /// computation's report.
    pub fn compute_with(&self, options: impl Into<ComputeOptions>) -> Result<(Chunk, Report)> {
        let (mut out, report) = compute(&[self], options)?;
        Ok((out.remove(0), report))
    }
}

/// How a computation runs.
#[derive(Debug, Clone)]
pub struct ComputeOptions {
    /// What runs the tasks (`Threaded` by default).
    pub executor: Arc<dyn Executor>,
    /// Fuse element-wise chains (and the reductions they feed) into single tasks. Turning it
    /// off is for debugging and comparison; results are the same.
    pub fuse: bool,
    /// The memory budget and spill directory; `None`: `Spec::from_env()`.
    pub spec: Option<Spec>,
}

impl ComputeOptions {
    /// The spec to run under: the one given, or `Spec::from_env()`.
    pub fn spec(&self) -> Result<Spec> {
        match &self.spec {
            Some(spec) => Ok(spec.clone()),
            None => Spec::from_env(),
        }
    }
}

impl Default for ComputeOptions {
    fn default() -> Self {
        ComputeOptions { executor: Arc::new(Threaded::default()), fuse: true, spec: None }
    }
}

impl<E: Executor + 'static> From<E> for ComputeOptions {
    fn from(executor: E) -> Self {
        ComputeOptions { executor: Arc::new(executor), ..ComputeOptions::default() }
    }
}

/// Computes several arrays in one pass: work they share is done once.
pub fn compute(arrays: &[&Array], options: impl Into<ComputeOptions>) -> Result<(Vec<Chunk>, Report)> {
    let (chunks, report, _) = compute_observed(arrays, options, None, false)?;
    Ok((chunks, report))
}

/// `compute`, telling `observer` about each task as it ends (see `tegula::execute::Progress` and
/// `tegula::execute::Trace`); with `describe_plan` (`true` or a `Detail`), also the description
/// of the plan that ran, whose `task_operation` names each event's operation (given to the
/// observer too, before the first task).
pub fn compute_observed(
    arrays: &[&Array],
    options: impl Into<ComputeOptions>,
    observer: Option<&dyn Observer>,
    describe_plan: impl Into<Detail>,
) -> Result<(Vec<Chunk>, Report, Option<Arc<PlanDescription>>)> {
    let options = options.into();
    let spec = budget_left(options.spec()?)?;
    let roots: Vec<NodeRef> = arrays.iter().map(|a| a.node.clone()).collect();
    let roots = staged(&roots, spec.memory);
    let graph = plan_staged_within(&roots, options.fuse, spec.memory)?;
    let description = describe_in(&roots, &graph, describe_plan.into()).map(Arc::new);
    if let (Some(observer), Some(plan)) = (observer, &description) {
        observer.planned(plan);
    }
    let (chunks, report) = tegula_exec::compute_observed(&graph, options.executor.as_ref(), &spec, observer)?;
    Ok((chunks, report, description))
}

/// The plan computing `arrays` (fused or not): its description and its task graph.
pub fn plan_of(arrays: &[&Array], fuse: bool) -> Result<(PlanDescription, TaskGraph)> {
    let roots: Vec<NodeRef> = arrays.iter().map(|a| a.node.clone()).collect();
    let roots = staged(&roots, Spec::from_env()?.memory);
    let graph = plan(&roots, fuse)?;
    Ok((describe(&roots, &graph), graph))
}

/// The task graph computing `roots`, refused (a memory error, before anything runs) when its
/// results or one of its tasks cannot fit in `budget`. A fused task holds all the inputs of its chain at
/// once, so a fused plan that does not fit is planned again unfused (when neither fits, the
/// fused plan's error is reported: it is the plan that would have run). Rechunks are staged
/// within the budget first.
pub(crate) fn plan_within(roots: &[NodeRef], fused: bool, budget: usize) -> Result<TaskGraph> {
    plan_staged_within(&staged(roots, budget), fused, budget)
}

/// The expressions `roots` with each matrix product of small blocks computed over bigger ones,
/// and each rechunk whose tasks would hold more than a share of `budget` planned in stages.
fn staged(roots: &[NodeRef], budget: usize) -> Vec<NodeRef> {
    let roots = merge_product_blocks(roots, budget / RECHUNK_SHARE);
    stage_rechunks(&roots, budget / RECHUNK_SHARE)
}

/// `plan_within` for roots already staged.
fn plan_staged_within(roots: &[NodeRef], fused: bool, budget: usize) -> Result<TaskGraph> {
    crate::gemm::use_blas_from_env()?;
    let graph = plan(roots, fused)?;
    let graph = match check_fits(&graph, budget) {
        Err(refused) if fused => {
            let unfused = plan(roots, false)?;
            check_fits(&unfused, budget).map_err(|_| refused)?;
            unfused
        }
        checked => checked.map(|()| graph)?,
    };
    check_results_fit(&graph, budget)?;
    Ok(graph)
}

/// The task graph computing `roots`.
fn plan(roots: &[NodeRef], fused: bool) -> Result<TaskGraph> {
    lower(roots, if fused { Fusion::On } else { Fusion::Off })
}

impl std::fmt::Display for Array {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "tegula.Array<shape={}, dtype={}, chunksize={}, numblocks={}>",
            fmt_shape(&self.shape()),
            self.dtype(),
            fmt_shape(&self.chunks().max_block_shape()),
            fmt_shape(&self.chunks().numblocks())
        )
    }
}
