//! A computation planned for a cluster of nodes (`ClusterPlan`).

use crate::array::{plan_within, Array};
use crate::fragments::EncodedFragment;
use tegula_core::{internal_err, value_err, IoOp, Result, Spec, TaskOp};
use tegula_exec::{assemble_output, Admission, Dispatch, DispatchJob, Fragment, FunctionBytes};
use tegula_kernels::Chunk;
use tegula_plan::chain::chain_combines;
use tegula_plan::fan_out::merge_fan_outs;
use tegula_plan::levels::{has_factorisation_steps, level_order, reorder};
use tegula_plan::fragments::{cut_given_loads, sub_graph, FragmentCut};
use tegula_plan::merge::merge_trees;
use tegula_plan::panels::contract_by_panels;
use tegula_plan::node_loss::{lose_node, NodeLoss};
use tegula_plan::refine::refine;
use tegula_plan::placement::{check_nodes_fit, check_peaks_fit, fragment_need, simulate, Placement, Placer, Simulation};
use tegula_plan::{NodeRef, TaskGraph, TaskId};

/// The nodes a plan is placed on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Nodes {
    /// How many nodes.
    pub count: usize,
    /// Bytes each node may hold.
    pub memory: usize,
}

/// A plan placed on nodes: its fragments, where each runs, and the placement's simulated cost.
pub struct ClusterPlan {
    graph: TaskGraph,
    /// The fragments, each as bytes, in an order where each one's inputs come from earlier ones.
    pub fragments: Vec<EncodedFragment>,
    /// The bytes each fragment needs at once where it runs (`placement::fragment_need`).
    pub needs: Vec<usize>,
    /// The node each fragment runs on, and where each given block goes.
    pub placement: Placement,
    /// The placement replayed: bytes moved between nodes and each node's load and peak.
    pub simulation: Simulation,
}

/// Plans `arrays` for `nodes` (see `ClusterPlan::new`).
pub fn plan_cluster(arrays: &[&Array], fuse: bool, spec: &Spec, nodes: Nodes) -> Result<ClusterPlan> {
    plan_cluster_with(arrays, fuse, spec, nodes, Placer::Tegula)
}

/// Plans `arrays` for `nodes`, its fragments placed by `placer` (see `ClusterPlan::new_with`).
pub fn plan_cluster_with(arrays: &[&Array], fuse: bool, spec: &Spec, nodes: Nodes, placer: Placer) -> Result<ClusterPlan> {
    let roots: Vec<NodeRef> = arrays.iter().map(|a| a.node().clone()).collect();
    ClusterPlan::new_with(plan_within(&roots, fuse, spec.memory.max(nodes.memory))?, nodes, placer)
}

impl ClusterPlan {
    /// `graph` for `nodes`: fragments in an order where each one's inputs come from earlier
    /// ones or are given blocks; refused before anything runs when a fragment cannot fit a
    /// node, when placed its blocks would outgrow a node's memory, or when it reaches what
    /// cannot leave this process.
    pub fn new(graph: TaskGraph, nodes: Nodes) -> Result<ClusterPlan> {
        ClusterPlan::new_with(graph, nodes, Placer::Tegula)
    }

    /// `new`, its fragments placed by `placer`: the block-cyclic baseline is there to be
    /// simulated against tegula's placement; executors run `new`'s.
    pub fn new_with(graph: TaskGraph, nodes: Nodes, placer: Placer) -> Result<ClusterPlan> {
        if nodes.count == 0 {
            return Err(value_err!("a cluster needs at least one node"));
        }
        let cuts = cut_given_loads(&graph);
        let needs: Vec<usize> = cuts.iter().map(|c| fragment_need(&graph, c)).collect();
        check_nodes_fit(&graph, &cuts, &needs, nodes.memory)?;
        let placement = placer.place(&graph, &cuts, nodes.count);
        let Finished { graph, cuts, placement, needs, simulation } = match placer {
            Placer::Tegula => {
                // Refining lowers the bytes copied as placement counts them, before combines
                // are cut into chains; a chain may fold what refining gathered, so the plan
                // kept is the one whose chains move less.
                let mut refined = placement.clone();
                refine(&graph, &cuts, &mut refined);
                if refined == placement {
                    finish(graph, cuts, placement, placer)
                } else {
                    let first = finish(graph.clone(), cuts.clone(), refined, placer);
                    let second = finish(graph, cuts, placement, placer);
                    if second.simulation.bytes_between_nodes < first.simulation.bytes_between_nodes { second } else { first }
                }
            }
            Placer::BlockCyclic => finish(graph, cuts, placement, placer),
        };
        // The baseline is simulated as it is, to be compared with; what runs must fit.
        if placer == Placer::Tegula {
            check_peaks_fit(&simulation, nodes.memory)?;
        }
        let functions = FunctionBytes::default();
        let fragments = cuts
            .into_iter()
            .map(|c| {
                let bytes = Fragment::encode_sharing(sub_graph(&graph, &c)?, None, &functions)?.to_bytes()?;
                Ok(EncodedFragment { bytes, inputs: c.inputs, outputs: c.outputs, tasks: c.tasks })
            })
            .collect::<Result<_>>()?;
        Ok(ClusterPlan { graph, fragments, needs, placement, simulation })
    }

    /// What losing node `node` once half the fragments have run costs: the work made again
    /// (`node_loss::lose_node`), the caller having fetched results in batches of
    /// `fetch_batch` bytes (as `dispatch` hands them over; `None`: at the end).
    pub fn node_loss(&self, node: usize, fetch_batch: Option<usize>) -> NodeLoss {
        let cuts: Vec<FragmentCut> = self
            .fragments
            .iter()
            .map(|f| FragmentCut { tasks: f.tasks.clone(), inputs: f.inputs.clone(), outputs: f.outputs.clone() })
            .collect();
        lose_node(&self.graph, &cuts, &self.placement, node, cuts.len() / 2, fetch_batch)
    }

    /// The tasks whose blocks make each array, row-major over its block grid.
    pub fn outputs(&self) -> Vec<Vec<TaskId>> {
        self.graph.outputs.iter().map(|o| o.blocks.clone()).collect()
    }

    /// The dispatch of this plan's fragments (which starts next, what to let go of and
    /// fetch), admitting them as `admission` says; results fetched in batches of
    /// `fetch_batch` bytes (`None`: at the end).
    pub fn dispatch(&self, admission: Admission, fetch_batch: Option<usize>) -> Result<Dispatch> {
        let placed = self.fragments.iter().zip(&self.placement.fragment_node).zip(&self.needs);
        let jobs = placed.map(|((f, &node), &need)| DispatchJob { inputs: f.inputs.clone(), outputs: f.outputs.clone(), node, need }).collect();
        Dispatch::new(jobs, self.outputs().into_iter().flatten(), admission, fetch_batch)
    }

    /// The bytes of each task's block, by task (the cluster plan's tasks: the caller's, then
    /// those placement added).
    pub fn task_bytes(&self) -> Vec<usize> {
        self.graph.tasks.iter().map(|t| t.nbytes()).collect()
    }

    /// The bytes of the blocks each fragment makes for others or returns, together.
    pub fn output_bytes(&self) -> Vec<usize> {
        self.fragments.iter().map(|f| f.outputs.iter().map(|&t| self.graph.tasks[t].nbytes()).sum()).collect()
    }

    /// The given blocks (of the caller's arrays), with the node each is placed on.
    pub fn given(&self) -> Vec<(TaskId, usize)> {
        let mut given: Vec<(TaskId, usize)> = self.placement.given_node.iter().map(|(&t, &n)| (t, n)).collect();
        given.sort_unstable();
        given
    }

    /// The block of given task `task`: a region of an array the caller holds (a view).
    pub fn given_block(&self, task: TaskId) -> Result<Chunk> {
        let op = self.graph.tasks.get(task).map(|t| &t.op);
        let Some(TaskOp::Io(IoOp::Load { resource, region })) = op else {
            return Err(value_err!("task {task} is not a block the caller gives"));
        };
        let stored = self.graph.resources.iter().find(|r| r.id == *resource);
        let loaded = stored.and_then(|r| tegula_exec::held::load_in_memory(r.data.as_ref(), region));
        loaded.unwrap_or_else(|| Err(internal_err!("array #{resource} missing")))
    }

    /// Array `index` of the plan, joined from its blocks (in the order `outputs` names them).
    pub fn assemble(&self, index: usize, blocks: Vec<Chunk>) -> Result<Chunk> {
        let output = self.graph.outputs.get(index).ok_or_else(|| value_err!("the plan has no output {index}"))?;
        if blocks.len() != output.blocks.len() {
            return Err(value_err!("output {index} has {} blocks, {} given", output.blocks.len(), blocks.len()));
        }
        assemble_output(&output.chunks, output.dtype, blocks)
    }
}

/// A placed plan ready to run, and its simulation.
struct Finished {
    graph: TaskGraph,
    cuts: Vec<FragmentCut>,
    placement: Placement,
    needs: Vec<usize>,
    simulation: Simulation,
}

/// Makes a placed plan ready to run: each tree placed whole merged into one fragment, each
/// combine whose partials lie on several nodes cut into a chain and each block read only on
/// its own node merged with its readers (tegula's placement only: the baseline combines as
/// the plan does, wherever its partials are), then simulated.
fn finish(graph: TaskGraph, cuts: Vec<FragmentCut>, placement: Placement, placer: Placer) -> Finished {
    // A merged tree needs what its hungriest member needed.
    let (cuts, placement) = merge_trees(cuts, placement);
    let (graph, cuts, placement) = match placer {
        Placer::Tegula => {
            let (graph, cuts, placement) = chain_combines(graph, cuts, placement);
            let (cuts, placement) = merge_fan_outs(&graph, cuts, placement);
            contract_by_panels(graph, cuts, placement)
        }
        Placer::BlockCyclic => (graph, cuts, placement),
    };
    let needs: Vec<usize> = cuts.iter().map(|c| fragment_need(&graph, c)).collect();
    let simulation = simulate(&graph, &cuts, &needs, &placement);
    let planned = Finished { graph, cuts, placement, needs, simulation };
    match placer {
        Placer::Tegula => by_levels_if_lower(planned),
        Placer::BlockCyclic => planned,
    }
}

/// `planned` with its fragments run level by level (`levels`) where it runs a factorisation's
/// steps and that lowers the busiest node's peak: the same copies, held for less long.
fn by_levels_if_lower(planned: Finished) -> Finished {
    if !has_factorisation_steps(&planned.graph) {
        return planned;
    }
    let order = level_order(&planned.cuts);
    if order.iter().enumerate().all(|(place, &k)| place == k) {
        return planned;
    }
    let needs: Vec<usize> = order.iter().map(|&k| planned.needs[k]).collect();
    let (cuts, placement) = reorder(planned.cuts.clone(), planned.placement.clone(), &order);
    let simulation = simulate(&planned.graph, &cuts, &needs, &placement);
    let peak = |s: &Simulation| s.nodes.iter().map(|n| n.peak_bytes).max();
    if peak(&simulation) < peak(&planned.simulation) {
        Finished { graph: planned.graph, cuts, placement, needs, simulation }
    } else {
        planned
    }
}

impl Array {
    /// The plan (as `explain` shows it), then how it runs on a cluster of `nodes`: its
    /// fragments, the bytes placing them moves between nodes and each node's load and peak.
    pub fn explain_on(&self, spec: &Spec, nodes: Nodes) -> Result<String> {
        let plan = plan_cluster(&[self], true, spec, nodes)?;
        Ok(format!("{}{} fragments {}", self.explain_with(spec)?, plan.fragments.len(), plan.simulation))
    }
}
