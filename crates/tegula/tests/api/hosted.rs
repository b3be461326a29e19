//! A distributed engine written in Rust as a `ClusterRunner`: computations reach it by name and
//! give the threaded executor's results bit for bit, a run abandoned because nodes left is
//! planned again for the nodes there are, and a cluster whose nodes keep leaving is an error.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};
use tegula::cluster::{register_hosted_executor, run_fragment, ClusterPlan, ClusterRunner, Fragment, FragmentProgress, RunnerOutput};
use tegula::execute::{executor, ExecutorConfig, Spec, Trace};
use tegula::random::Generator;
use tegula::ops::{ReduceOp, ReduceSpec};
use tegula::{compute, Array, AxisChunks, Chunk, ChunkSpec, ComputeOptions, Result, TegulaError};

/// Runs each fragment in this process, in order, on the node the plan names; loses a node in
/// each of its first `losses` runs (answering that nodes left).
struct LocalCluster {
    nodes: AtomicUsize,
    losses: AtomicUsize,
    /// The node count of each plan it was given.
    planned_for: Mutex<Vec<usize>>,
}

impl LocalCluster {
    fn new(nodes: usize, losses: usize) -> Arc<LocalCluster> {
        Arc::new(LocalCluster { nodes: AtomicUsize::new(nodes), losses: AtomicUsize::new(losses), planned_for: Mutex::new(vec![]) })
    }
}

fn now() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs_f64()
}

impl ClusterRunner for LocalCluster {
    fn nodes(&self, workers: Option<usize>) -> Result<(usize, Option<usize>)> {
        let count = self.nodes.load(Ordering::SeqCst);
        Ok((workers.map_or(count, |w| w.min(count)), None))
    }

    fn run(&self, plan: ClusterPlan, progress: &FragmentProgress) -> Result<Option<RunnerOutput>> {
        let count = plan.placement.fragment_node.iter().chain(plan.placement.given_node.values()).max().map_or(1, |&n| n + 1);
        self.planned_for.lock().unwrap().push(count);
        if self.losses.load(Ordering::SeqCst) > 0 {
            self.losses.fetch_sub(1, Ordering::SeqCst);
            self.nodes.fetch_sub(1, Ordering::SeqCst);
            return Ok(None);
        }
        let mut blocks: HashMap<usize, Chunk> = plan.given().into_iter().map(|(t, _)| Ok((t, plan.given_block(t)?))).collect::<Result<_>>()?;
        for (i, f) in plan.fragments.iter().enumerate() {
            let start = now();
            let graph = Fragment::from_bytes(&f.bytes)?.decode()?;
            let given: Vec<Chunk> = f.inputs.iter().map(|t| blocks[t].clone()).collect();
            let (out, _) = run_fragment(&graph, &given, 1, &Spec::default(), None)?;
            blocks.extend(f.outputs.iter().copied().zip(out));
            progress.done(i, plan.placement.fragment_node[i], start, now());
        }
        let outputs = plan.outputs().into_iter().flatten().map(|t| (t, blocks[&t].clone())).collect();
        Ok(Some(RunnerOutput { blocks: outputs, measured: None }))
    }
}

fn workload() -> Vec<Array> {
    let chunks = ChunkSpec::All(AxisChunks::Size(7));
    let x = Generator::new(5).random(&[30, 20], &chunks).unwrap();
    vec![x.t().matmul(&x).unwrap(), x.add_scalar(1.0).unwrap().mean(Some(&[0][..]), false).unwrap(), x.clone()]
}

fn on(executor: Arc<dyn tegula::execute::Executor>) -> Result<Vec<Chunk>> {
    let arrays = workload();
    let refs: Vec<&Array> = arrays.iter().collect();
    let options = ComputeOptions { executor, ..ComputeOptions::default() };
    compute(&refs, options).map(|(chunks, _)| chunks)
}

fn threaded() -> Vec<Chunk> {
    let arrays = workload();
    let refs: Vec<&Array> = arrays.iter().collect();
    compute(&refs, ComputeOptions::default()).unwrap().0
}

#[test]
fn a_rust_engine_by_name_gives_the_threaded_results_and_is_planned_again_when_nodes_leave() {
    let cluster = LocalCluster::new(3, 1);
    register_hosted_executor("local-test-cluster", cluster.clone()).unwrap();
    let got = on(executor("local-test-cluster", &ExecutorConfig::default()).unwrap()).unwrap();
    for (g, t) in got.iter().zip(threaded()) {
        assert_eq!(g.typed::<f64>().unwrap(), t.typed::<f64>().unwrap());
    }
    // Planned for 3 nodes; one left, so planned again for the 2 there are.
    let planned = cluster.planned_for.lock().unwrap().clone();
    assert_eq!(planned.len(), 2);
    assert!(planned[0] <= 3 && planned[1] <= 2, "{planned:?}");
}

#[test]
fn every_task_reaches_the_observer_once() {
    let cluster = LocalCluster::new(2, 0);
    let hosted = tegula::cluster::HostedExecutor::new(cluster, None);
    let a = Generator::new(6).random(&[40, 12], &ChunkSpec::All(AxisChunks::Size(5))).unwrap();
    let x = a.add_scalar(2.0).unwrap().reduce(&ReduceSpec { axes: Some(vec![0]), ..ReduceSpec::new(ReduceOp::Sum) }).unwrap();
    let seen = Trace::new();
    let options = ComputeOptions { executor: Arc::new(hosted), ..ComputeOptions::default() };
    let (chunks, report, _) = tegula::execute::compute_observed(&[&x], options, Some(&seen), false).unwrap();
    assert_eq!(chunks[0].typed::<f64>().unwrap(), x.compute().unwrap().typed::<f64>().unwrap());
    // Every task of the plan once (its blocks, partial sums and their combines), with the
    // count of those seen so far and the plan's total.
    let events = seen.events();
    let mut tasks: Vec<usize> = events.iter().map(|e| e.task).collect();
    tasks.sort_unstable();
    assert_eq!(tasks, (0..report.tasks).collect::<Vec<_>>());
    assert!(events.iter().enumerate().all(|(i, e)| e.done == i + 1 && e.total == report.tasks));
    assert!(events.iter().all(|e| e.thread < 2));
    assert!(report.cluster.is_some());
}

#[test]
fn nodes_that_keep_leaving_are_an_error_not_a_hang() {
    let cluster = LocalCluster::new(10, 10);
    let err = on(Arc::new(tegula::cluster::HostedExecutor::new(cluster.clone(), None))).unwrap_err();
    assert!(matches!(err, TegulaError::Io(ref m) if m.contains("attempts")), "{err}");
    assert_eq!(cluster.planned_for.lock().unwrap().len(), 4);
}

#[test]
fn the_blocks_each_node_receives_are_told_as_the_placement_moves_them() {
    let cluster = LocalCluster::new(3, 0);
    let hosted = tegula::cluster::HostedExecutor::new(cluster, None);
    let arrays = workload();
    let refs: Vec<&Array> = arrays.iter().collect();
    let seen = Trace::new();
    let options = ComputeOptions { executor: Arc::new(hosted), ..ComputeOptions::default() };
    let (_, report, _) = tegula::execute::compute_observed(&refs, options, Some(&seen), false).unwrap();
    let transfers = seen.transfers_from(0);
    // Every transfer is between two nodes of the three, and together they are the bytes the
    // simulated placement moves (each block once to each node that reads it).
    assert!(transfers.iter().all(|t| t.from != t.to && t.from < 3 && t.to < 3 && t.bytes > 0));
    let moved: usize = transfers.iter().map(|t| t.bytes).sum();
    let simulated = report.cluster.unwrap().simulated.bytes_between_nodes;
    assert!(simulated > 0);
    assert_eq!(moved, simulated);
}
