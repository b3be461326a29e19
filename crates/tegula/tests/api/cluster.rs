//! Plans for a cluster: running every fragment from its bytes where it is placed, given the
//! caller's blocks, gives the threaded executor's results bit for bit; the placement
//! simulator's figures follow from the placement; plans too big for a node are refused.

use proptest::prelude::*;
use std::collections::HashMap;
use tegula::random::Generator;
use tegula::{Array, AxisChunks, Chunk, ChunkSpec, TegulaError, cluster::{plan_cluster, plan_cluster_with, run_fragment, ClusterPlan, Placer, Fragment, Nodes}, ops::{ReduceOp, ReduceSpec, UnaryOp}, execute::Spec};

fn chunks(block: usize) -> ChunkSpec {
    ChunkSpec::All(AxisChunks::Size(block))
}

fn held(n: usize, block: usize) -> Array {
    let data: Vec<f64> = (0..n * n).map(|i| ((i * 7919) % 97) as f64 - 40.0).collect();
    Array::from_ndarray(ndarray::ArrayD::from_shape_vec(vec![n, n], data).unwrap(), &chunks(block)).unwrap()
}

fn nodes(count: usize) -> Nodes {
    Nodes { count, memory: 1 << 30 }
}

/// Runs the plan's fragments in order, as a cluster would, and joins each array.
fn run_on_cluster(arrays: &[&Array], count: usize) -> Vec<Chunk> {
    let plan = plan_cluster(arrays, true, &Spec::default(), nodes(count)).unwrap();
    let mut blocks: HashMap<usize, Chunk> = plan.given().into_iter().map(|(t, _)| (t, plan.given_block(t).unwrap())).collect();
    for f in &plan.fragments {
        let graph = Fragment::from_bytes(&f.bytes).unwrap().decode().unwrap();
        let given: Vec<Chunk> = f.inputs.iter().map(|t| blocks[t].clone()).collect();
        let (out, _) = run_fragment(&graph, &given, 1, &Spec::default(), None).unwrap();
        blocks.extend(f.outputs.iter().copied().zip(out));
    }
    plan.outputs()
        .iter()
        .enumerate()
        .map(|(i, tasks)| plan.assemble(i, tasks.iter().map(|t| blocks[t].clone()).collect()).unwrap())
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn fragments_run_where_placed_give_the_threaded_results(seed in any::<u64>(), n in 1usize..20, block in 1usize..7, count in 1usize..5) {
        let x = Generator::new(seed).random(&[n, n], &chunks(block)).unwrap();
        let m = held(n, block + 1);
        let sum = ReduceSpec { axes: Some(vec![0]), ..ReduceSpec::new(ReduceOp::Sum) };
        let arrays = [x.t().matmul(&x).unwrap(), x.mul(&m).unwrap().reduce(&sum).unwrap(), m.t(), m.clone()];
        let refs: Vec<&Array> = arrays.iter().collect();
        let got = run_on_cluster(&refs, count);
        for (array, chunk) in arrays.iter().zip(got) {
            let expected = array.compute().unwrap();
            prop_assert_eq!(expected.typed::<f64>().unwrap(), chunk.typed::<f64>().unwrap());
        }
    }
}

#[test]
fn one_node_moves_nothing_between_nodes() {
    let x = Generator::new(1).random(&[64, 64], &chunks(16)).unwrap();
    let y = x.matmul(&x.t()).unwrap();
    let plan = plan_cluster(&[&y], true, &Spec::default(), nodes(1)).unwrap();
    assert_eq!(plan.simulation.bytes_between_nodes, 0);
    assert_eq!(plan.simulation.nodes.len(), 1);
    assert_eq!(plan.simulation.nodes[0].fragments, plan.fragments.len());
}

#[test]
fn the_simulation_adds_up() {
    let x = Generator::new(2).random(&[96, 96], &chunks(16)).unwrap();
    let y = x.matmul(&x.t()).unwrap();
    let plan = plan_cluster(&[&y], true, &Spec::default(), nodes(3)).unwrap();
    let sim = &plan.simulation;
    let received: usize = sim.nodes.iter().map(|n| n.bytes_in).sum();
    let sent: usize = sim.nodes.iter().map(|n| n.bytes_out).sum();
    assert_eq!(received, sim.bytes_between_nodes);
    assert_eq!(sent, sim.bytes_between_nodes);
    assert_eq!(sim.nodes.iter().map(|n| n.fragments).sum::<usize>(), plan.fragments.len());
    assert_eq!(sim.bytes_returned, 96 * 96 * 8);
    // Every node gets work: the 36 source blocks are dealt round the nodes.
    assert!(sim.nodes.iter().all(|n| n.fragments > 0), "{sim:?}");
}

#[test]
fn a_transposed_product_ships_each_block_once() {
    // a.T @ a of a tall matrix: each row block's product is local work; only the small
    // partial products cross nodes, never a block of `a` or of its transpose.
    let a = Generator::new(3).random(&[4096, 32], &ChunkSpec::PerAxis(vec![AxisChunks::Size(512), AxisChunks::Full])).unwrap();
    let y = a.t().matmul(&a).unwrap();
    let plan = plan_cluster(&[&y], true, &Spec::default(), nodes(3)).unwrap();
    let partial = 32 * 32 * 8;
    assert!(plan.simulation.bytes_between_nodes <= 8 * partial, "{}", plan.simulation);
    assert!(plan.fragments.len() <= 8 + 8, "{} fragments", plan.fragments.len());
}

#[test]
fn a_fragment_bigger_than_a_node_is_refused_before_anything_runs() {
    let x = Generator::new(4).random(&[512, 512], &chunks(512)).unwrap();
    let y = x.matmul(&x).unwrap();
    let small = Nodes { count: 3, memory: 1 << 20 };
    match plan_cluster(&[&y], true, &Spec::default(), small) {
        Err(TegulaError::Memory(message)) => assert!(message.contains("a node has"), "{message}"),
        other => panic!("expected a memory error, got {:?}", other.map(|p| p.fragments.len())),
    }
}

#[test]
fn a_plan_whose_blocks_outgrow_a_node_is_refused_and_one_that_fits_stays_within_memory() {
    // 64 blocks of 128 KiB each, returned: every fragment fits in 1.5 MiB (a draw's scratch
    // and its block), but 8 MiB of results over 3 nodes do not.
    let x = Generator::new(6).random(&[1024, 1024], &chunks(128)).unwrap();
    let y = x.add(&x).unwrap();
    let small = Nodes { count: 3, memory: 3 << 19 };
    match plan_cluster(&[&y], true, &Spec::default(), small) {
        Err(TegulaError::Memory(message)) => assert!(message.contains("would hold"), "{message}"),
        other => panic!("expected a memory error, got {:?}", other.map(|p| p.fragments.len())),
    }
    let memory = 6 << 20;
    let plan = plan_cluster(&[&y], true, &Spec::default(), Nodes { count: 3, memory }).unwrap();
    assert!(plan.simulation.nodes.iter().all(|n| n.peak_bytes <= memory), "{}", plan.simulation);
}

#[test]
fn a_cluster_needs_a_node() {
    let x = Generator::new(5).random(&[8], &chunks(4)).unwrap();
    assert!(matches!(plan_cluster(&[&x], true, &Spec::default(), nodes(0)), Err(TegulaError::Value(_))));
}

#[test]
fn a_product_with_many_output_blocks_is_computed_by_their_owners() {
    // 8 x 8 output blocks, each a sum of 8 partial products: each output block's tree runs on
    // one node, so partial products never move; only operand blocks do, each at most once
    // per node.
    let (n, b) = (1024, 128);
    let x = Generator::new(2).random(&[n, n], &chunks(b)).unwrap();
    let y = Generator::new(3).random(&[n, n], &chunks(b)).unwrap();
    let plan = plan_cluster(&[&x.matmul(&y).unwrap()], true, &Spec::default(), nodes(3)).unwrap();
    let operands = 2 * n * n * 8;
    assert!(plan.simulation.bytes_between_nodes <= 2 * operands, "{}", plan.simulation);
}

/// `x @ x.T` of 8 × 8 blocks of `block`² elements.
fn x_times_xt(block: usize) -> Array {
    let x = Generator::new(6).random(&[8 * block, 8 * block], &chunks(block)).unwrap();
    x.matmul(&x.t()).unwrap()
}

fn placed(arrays: &[&Array], count: usize, placer: Placer) -> ClusterPlan {
    plan_cluster_with(arrays, true, &Spec::default(), nodes(count), placer).unwrap()
}

#[test]
fn placers_are_found_by_name() {
    for placer in Placer::ALL {
        assert_eq!(Placer::from_name(placer.name()), Some(placer));
    }
    assert_eq!(Placer::from_name("round-robin"), None);
}

#[test]
fn the_block_cyclic_baseline_puts_everything_on_a_node() {
    // An array the caller holds, whose blocks are given, beside generated ones.
    let m = held(128, 16);
    let y = x_times_xt(16).add(&m.matmul(&m).unwrap()).unwrap();
    for count in [1, 3, 16] {
        let plan = placed(&[&y], count, Placer::BlockCyclic);
        assert_eq!(plan.placement.fragment_node.len(), plan.fragments.len());
        assert!(plan.placement.fragment_node.iter().all(|&n| n < count));
        assert!(!plan.given().is_empty());
        assert!(plan.given().iter().all(|&(_, n)| n < count));
    }
}

#[test]
fn the_block_cyclic_baseline_spreads_fragments_evenly() {
    // The source's blocks, the products and the transposed blocks below the diagonal are
    // each dealt round the nodes from node 0: no node has more than one more of each.
    for count in [2, 3, 5, 16] {
        let plan = placed(&[&x_times_xt(64)], count, Placer::BlockCyclic);
        let fragments: Vec<usize> = plan.simulation.nodes.iter().map(|n| n.fragments).collect();
        let (least, most) = (fragments.iter().min().unwrap(), fragments.iter().max().unwrap());
        assert!(most - least <= 3, "{count} nodes: {fragments:?}");
    }
}

#[test]
fn tegula_moves_no_more_than_the_block_cyclic_baseline_on_x_times_xt() {
    for block in [64, 500] {
        for count in [2, 3, 4, 8, 16] {
            let moved = |placer| placed(&[&x_times_xt(block)], count, placer).simulation.bytes_between_nodes;
            let (ours, baseline) = (moved(Placer::Tegula), moved(Placer::BlockCyclic));
            assert!(ours <= baseline, "blocks of {block}², {count} nodes: {ours} moved against {baseline}");
        }
    }
}

#[test]
fn a_contraction_placed_whole_is_one_fragment_per_output_block() {
    // 4×4 output blocks, each the sum of 4 products: 32 generated blocks, then per output
    // block one fragment reading its 8 operand blocks, not 4 products and a sum apart.
    let rng = Generator::new(5);
    let x = rng.random(&[64, 64], &chunks(16)).unwrap();
    let y = rng.random(&[64, 64], &chunks(16)).unwrap();
    let z = x.matmul(&y).unwrap();
    let plan = plan_cluster(&[&z], true, &Spec::default(), nodes(3)).unwrap();
    let readers: Vec<_> = plan.fragments.iter().filter(|f| !f.inputs.is_empty()).collect();
    assert_eq!(readers.len(), 16);
    assert!(readers.iter().all(|f| f.inputs.len() == 8 && f.outputs.len() == 1));
    assert_eq!(plan.fragments.len(), 32 + 16);
    assert_eq!(plan.simulation.nodes.iter().map(|n| n.fragments).sum::<usize>(), plan.fragments.len());
    let got = run_on_cluster(&[&z], 3);
    assert_eq!(got[0].typed::<f64>().unwrap(), z.compute().unwrap().typed::<f64>().unwrap());
}

#[test]
fn a_product_copies_no_more_than_whole_rows_per_node_would() {
    // 4×4 output blocks of x @ y on 3 nodes. Giving each node whole rows of the output (and
    // making x's rows there) copies y's 16 blocks to the 2 nodes lacking each: 32 blocks.
    // Output blocks placed one at a time, x's and y's blocks dealt round the nodes, copied 48.
    // Blocks long enough that the product is planned over them as they are, not merged.
    let b = 1100;
    let rng = Generator::new(9);
    let (x, y) = (rng.random(&[4 * b, 4 * b], &chunks(b)).unwrap(), rng.random(&[4 * b, 4 * b], &chunks(b)).unwrap());
    let plan = plan_cluster(&[&x.matmul(&y).unwrap()], true, &Spec::default(), nodes(3)).unwrap();
    assert!(plan.simulation.bytes_between_nodes <= 32 * b * b * 8, "{}", plan.simulation);
    // The products stay spread: no node runs more than 6 of the 16 output blocks (⌈16 / 3⌉,
    // what the busiest node runs however they are dealt), and every node some.
    let mut products = [0; 3];
    for (f, &node) in plan.fragments.iter().zip(&plan.placement.fragment_node) {
        products[node] += usize::from(!f.inputs.is_empty());
    }
    assert!(products.iter().all(|&p| (4..=6).contains(&p)), "{products:?}");
}

/// Two generated `n × n` matrices of `block`² blocks.
fn two_matrices(n: usize, block: usize) -> (Array, Array) {
    let rng = Generator::new(11);
    (rng.random(&[n, n], &chunks(block)).unwrap(), rng.random(&[n, n], &chunks(block)).unwrap())
}

#[test]
fn a_product_on_a_square_grid_of_nodes_moves_what_summa_moves_and_loads_every_node_alike() {
    // 8 × 8 blocks on 16 nodes, a 4 × 4 grid: every matrix laid out as ScaLAPACK lays it out,
    // each operand block goes to the 3 other nodes of its row of nodes (x's) or of its column
    // (y's), and every node makes, sends and receives as much as any other.
    let b = 1100;
    let (x, y) = two_matrices(8 * b, b);
    let plan = plan_cluster(&[&x.matmul(&y).unwrap()], true, &Spec::default(), nodes(16)).unwrap();
    assert_eq!(plan.simulation.bytes_between_nodes, 2 * 64 * 3 * b * b * 8, "{}", plan.simulation);
    let loads: Vec<_> = plan.simulation.nodes.iter().map(|n| (n.fragments, n.bytes_made, n.bytes_in, n.bytes_out)).collect();
    assert!(loads.iter().all(|l| *l == loads[0]), "{loads:?}");
}

#[test]
fn the_blocks_of_x_times_xt_spread_over_the_nodes_each_with_its_transpose() {
    // 36 blocks on and above the diagonal of 8 × 8 are computed, the 28 below are their
    // transposes, made where the block they transpose is; the computed ones spread over the
    // 16 nodes (2 or 3 each), and each block of x goes at most to the 3 other nodes of its
    // row of nodes and the 3 of its column.
    let b = 1100;
    let x = two_matrices(8 * b, b).0;
    let plan = plan_cluster(&[&x.matmul(&x.t()).unwrap()], true, &Spec::default(), nodes(16)).unwrap();
    assert!(plan.simulation.bytes_between_nodes <= 64 * 6 * b * b * 8, "{}", plan.simulation);
    let mut computed = [0; 16];
    for (f, &node) in plan.fragments.iter().zip(&plan.placement.fragment_node) {
        // A block above the diagonal (read 8 + 8 blocks), its transpose beside it or not.
        computed[node] += usize::from(f.inputs.len() > 1);
    }
    assert_eq!(computed.iter().sum::<usize>(), 36, "{computed:?}");
    assert!(computed.iter().all(|&c| (2..=3).contains(&c)), "{computed:?}");
}

#[test]
fn a_long_contraction_runs_panel_after_panel_and_gives_the_threaded_result() {
    // x @ x.T of 4 × 24 blocks on a 2 × 2 grid of nodes: each of the 10 blocks computed (on
    // and above the diagonal) is a sum of 24 products, cut into 3 panels of 8, each folded onto
    // the total before it, so no fragment reads more than a panel of 8 blocks from each of
    // two rows of x and a running total, and a node runs the first panel of all its blocks
    // before any second one: it holds one panel's copies of x's rows at a time, not every
    // block of the rows it needs.
    let b = 300;
    let x = Generator::new(13).random(&[4 * b, 24 * b], &chunks(b)).unwrap();
    let z = x.matmul(&x.t()).unwrap();
    let plan = plan_cluster(&[&z], true, &Spec::default(), nodes(4)).unwrap();
    let panels: Vec<_> = plan.fragments.iter().zip(&plan.placement.fragment_node).filter(|(f, _)| f.inputs.len() > 1).collect();
    assert_eq!(panels.len(), 10 * 3);
    // A first panel reads 8 blocks of x (a diagonal block) or 16; a later one the total too.
    let reads: Vec<usize> = panels.iter().map(|(f, _)| f.inputs.len()).collect();
    assert!(reads.iter().all(|r| [8, 9, 16, 17].contains(r)), "{reads:?}");
    for node in 0..4 {
        let firsts: Vec<bool> = panels.iter().filter(|(_, &n)| n == node).map(|(f, _)| f.inputs.len() % 2 == 0).collect();
        let computed = firsts.iter().filter(|&&f| f).count();
        assert!(computed > 0 && firsts[..computed].iter().all(|&f| f), "node {node}: {firsts:?}");
    }
    // A node holds its 24 blocks of x, its blocks of the result and their totals, and one
    // panel of up to 4 rows of x (32 blocks): 64 blocks at most, where holding the whole rows
    // its blocks read took 96 (all of x) before its last block was made.
    let peak = plan.simulation.nodes.iter().map(|n| n.peak_bytes).max().unwrap();
    assert!(peak <= 64 * b * b * 8, "{}", plan.simulation);
    let got = run_on_cluster(&[&z], 4);
    assert_eq!(got[0].typed::<f64>().unwrap(), z.compute().unwrap().typed::<f64>().unwrap());
}

#[test]
fn a_node_lost_halfway_costs_the_results_it_held_and_no_more_than_twice_its_share() {
    // Blocks made independently, each returned: losing a node redoes exactly the fragments it
    // had run, and moves those it had not.
    let x = Generator::new(12).random(&[64 * 512, 512], &chunks(512)).unwrap().unary(UnaryOp::Exp).unwrap();
    let plan = placed(&[&x], 4, Placer::Tegula);
    let half = plan.fragments.len() / 2;
    let on_0 = |range: std::ops::Range<usize>| plan.placement.fragment_node[range].iter().filter(|&&n| n == 0).count();
    let loss = plan.node_loss(0, None);
    assert_eq!((loss.redone_fragments, loss.moved_fragments), (on_0(0..half), on_0(half..plan.fragments.len())));
    // Results fetched as they are made (a batch of one byte) are safe with the caller; in
    // batches of three blocks, only node 0's results of the last unfetched batch are redone.
    let fetched = plan.node_loss(0, Some(1));
    assert_eq!((fetched.redone_fragments, fetched.moved_fragments), (0, loss.moved_fragments));
    let block = 512 * 512 * 8;
    let unfetched = (half / 3) * 3..half;
    assert_eq!(plan.node_loss(0, Some(3 * block)).redone_fragments, on_0(unfetched));
    // A product on 16 nodes: what node 0 made and copies no other node holds are made again,
    // with what they need that every node has let go of.
    let b = 1100;
    let (x, y) = two_matrices(8 * b, b);
    let plan = plan_cluster(&[&x.matmul(&y).unwrap()], true, &Spec::default(), nodes(16)).unwrap();
    let loss = plan.node_loss(0, None);
    assert!(loss.redone_fragments > 0 && loss.redone_work <= 2 * loss.node_work, "{loss:?}");
}

/// `op` over the first axis of `planes` generated planes of 512² elements, a block each.
fn over_planes(planes: usize, op: ReduceOp) -> Array {
    let per_plane = ChunkSpec::PerAxis(vec![AxisChunks::Size(1), AxisChunks::Full, AxisChunks::Full]);
    let x = Generator::new(7).random(&[planes, 512, 512], &per_plane).unwrap();
    x.reduce(&ReduceSpec { axes: Some(vec![0]), ..ReduceSpec::new(op) }).unwrap()
}

#[test]
fn a_reduction_beyond_a_node_moves_a_running_total_not_its_partials() {
    // 16 partials of 512² on 3 nodes: each node makes a contiguous range of them and folds it
    // onto the total of the ranges before, so a total moves at each change of node, and once
    // more between the two halves of the tree (it combines 8 at a time): 3 partials' bytes.
    // Dealt round the nodes, 12 of the 16 would move.
    for (op, rows) in [(ReduceOp::Sum, 1), (ReduceOp::Var, 3)] {
        let y = over_planes(16, op);
        let plan = plan_cluster(&[&y], true, &Spec::default(), nodes(3)).unwrap();
        let partial = rows * 512 * 512 * 8;
        assert!(plan.simulation.bytes_between_nodes <= 3 * partial, "{op:?}: {}", plan.simulation);
        assert!(plan.simulation.nodes.iter().all(|n| n.fragments > 0), "{op:?}: {}", plan.simulation);
        let baseline = placed(&[&y], 3, Placer::BlockCyclic).simulation.bytes_between_nodes;
        assert!(2 * plan.simulation.bytes_between_nodes <= baseline, "{op:?}: {} against {baseline}", plan.simulation);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6))]

    #[test]
    fn a_reduction_folded_in_a_chain_gives_the_threaded_results(planes in 2usize..20, count in 2usize..6, op in 0usize..5) {
        let op = [ReduceOp::Sum, ReduceOp::Mean, ReduceOp::Var, ReduceOp::Min, ReduceOp::Prod][op];
        let y = over_planes(planes, op);
        let got = run_on_cluster(&[&y], count);
        let expected = y.compute().unwrap();
        prop_assert_eq!(expected.typed::<f64>().unwrap(), got[0].typed::<f64>().unwrap());
    }
}

#[test]
fn reductions_side_by_side_share_the_nodes() {
    // 4 output blocks, each a mean of 16 blocks of 1024², on 16 nodes: each reduction gets
    // ranges of a share of the work (8 ranges of 2 partials) and moves 7 running totals;
    // given all 16 nodes, each would spread its partials one per node and move nearly all.
    let planes = Generator::new(8).random(&[16, 2048, 2048], &ChunkSpec::PerAxis(vec![AxisChunks::Size(1), AxisChunks::Size(1024), AxisChunks::Size(1024)])).unwrap();
    let y = planes.reduce(&ReduceSpec { axes: Some(vec![0]), ..ReduceSpec::new(ReduceOp::Mean) }).unwrap();
    let plan = placed(&[&y], 16, Placer::Tegula);
    let partial = 1024 * 1024 * 8;
    assert!(plan.simulation.bytes_between_nodes <= 4 * 8 * partial, "{}", plan.simulation);
    let baseline = placed(&[&y], 16, Placer::BlockCyclic).simulation.bytes_between_nodes;
    assert!(2 * plan.simulation.bytes_between_nodes <= baseline, "{} against {baseline}", plan.simulation);
}

/// How a Newton step spells its Hessian: scaling the columns of `x.T`, as users write it,
/// or the rows of `x`, as `tegula.glm` does.
#[derive(Clone, Copy, Debug)]
enum Hessian {
    ScaledTranspose,
    ScaledRows,
}

/// A Newton step of logistic regression on generated rows: the gradient and the Hessian,
/// over `blocks` row blocks of `rows` rows and 8 columns.
fn newton_step(blocks: usize, rows: usize, spelling: Hessian) -> [Array; 2] {
    let rng = Generator::new(9);
    let x = rng.standard_normal(&[blocks * rows, 8], &ChunkSpec::PerAxis(vec![AxisChunks::Size(rows), AxisChunks::Size(8)])).unwrap();
    let y = rng.random(&[blocks * rows], &chunks(rows)).unwrap();
    let beta = Array::from_ndarray(ndarray::ArrayD::from_shape_vec(vec![8, 1], (0..8).map(|i| i as f64 / 20.0 - 0.2).collect()).unwrap(), &chunks(8)).unwrap();
    let eta = x.matmul(&beta).unwrap().reshape(&[-1]).unwrap();
    let mu = eta.unary(UnaryOp::Exp).unwrap().add_scalar(1.0).unwrap();
    let gradient = x.t().matmul(&mu.sub(&y).unwrap().reshape(&[-1, 1]).unwrap()).unwrap();
    let w = mu.mul(&mu).unwrap();
    let hessian = match spelling {
        Hessian::ScaledTranspose => x.t().mul(&w).unwrap().matmul(&x),
        Hessian::ScaledRows => x.t().matmul(&x.mul(&w.reshape(&[-1, 1]).unwrap()).unwrap()),
    };
    [gradient, hessian.unwrap()]
}

#[test]
fn a_row_block_read_by_several_fragments_on_its_node_stays_in_one() {
    // Each row block of x is read by the step's product with beta, the gradient's and the
    // Hessian's partial products, all placed on its node: one fragment per row block (the
    // partials of both sums leave it), not one per reader with the block shipped between.
    for (spelling, count) in [Hessian::ScaledTranspose, Hessian::ScaledRows].into_iter().flat_map(|s| [(s, 2), (s, 3), (s, 4)]) {
        let [gradient, hessian] = newton_step(12, 1 << 16, spelling);
        let got = run_on_cluster(&[&gradient, &hessian], count);
        // The Hessian bit for bit; the gradient (a matrix-vector product) to within rounding
        // of its largest element, as without the merge: its sums run in another order.
        let [g, h] = [&gradient, &hessian].map(|a| a.compute().unwrap());
        assert_eq!(got[1].typed::<f64>().unwrap(), h.typed::<f64>().unwrap(), "{spelling:?}, {count} nodes");
        let g = g.typed::<f64>().unwrap();
        let scale = g.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        for (a, b) in got[0].typed::<f64>().unwrap().iter().zip(g.iter()) {
            assert!((a - b).abs() <= 1e-13 * scale, "{spelling:?}, {count} nodes: {a} against {b}");
        }
        let plan = plan_cluster(&[&gradient, &hessian], true, &Spec::default(), nodes(count)).unwrap();
        let with_two_partials = plan.fragments.iter().filter(|f| f.outputs.len() == 2).count();
        assert_eq!(with_two_partials, 12, "{spelling:?}, {count} nodes");
        assert!(plan.fragments.len() <= 12 + 2 + 2 * 2 * count + 1, "{spelling:?}, {count} nodes: {} fragments", plan.fragments.len());
    }
}

/// The longest chain of fragments, each reading a block the one before made.
fn longest_chain(plan: &ClusterPlan) -> usize {
    let mut depth_of: HashMap<usize, usize> = HashMap::new();
    let mut longest = 0;
    for f in &plan.fragments {
        let depth = 1 + f.inputs.iter().filter_map(|t| depth_of.get(t)).max().copied().unwrap_or(0);
        depth_of.extend(f.outputs.iter().map(|&t| (t, depth)));
        longest = longest.max(depth);
    }
    longest
}

#[test]
fn the_steps_of_a_factorisation_by_panels_run_side_by_side_and_where_their_blocks_are() {
    // An SPD matrix too big to factorise whole, in 8 × 8 blocks: the updates of one step (one
    // per column block right of the panel) are fragments that run at once, not one fragment
    // per column waiting for every panel left of it; and they run where their column blocks
    // are, so the factorisation copies less than each node fetching every column it updates.
    let n = 64;
    let data: Vec<f64> = (0..n * n).map(|i| if i / n == i % n { 4.0 * n as f64 } else { ((i / n + i % n) % 7) as f64 / 7.0 }).collect();
    let a = Array::from_ndarray(ndarray::ArrayD::from_shape_vec(vec![n, n], data).unwrap(), &chunks(8)).unwrap();
    let la = tegula::linalg::Linalg { whole_matrix_bytes: 0, min_tile: 8, ..tegula::linalg::Linalg::default() };
    let rhs = Generator::new(3).random(&[n, 2], &ChunkSpec::PerAxis(vec![AxisChunks::Size(8), AxisChunks::Size(2)])).unwrap();
    for (name, x) in [("cholesky", la.cholesky(&a, false).unwrap()), ("solve", la.solve(&a, &rhs).unwrap())] {
        let plan = plan_cluster(&[&x], true, &Spec::default(), nodes(4)).unwrap();
        let chain = longest_chain(&plan);
        assert!(plan.fragments.len() >= 2 * chain, "{name}: {} fragments in a chain of {chain}", plan.fragments.len());
        let expected = x.compute().unwrap();
        assert_eq!(run_on_cluster(&[&x], 4)[0].typed::<f64>().unwrap(), expected.typed::<f64>().unwrap(), "{name}");
        // Each column block shipped whole to every node, once per step, is an upper bound.
        let column = n * n * 8 / 8;
        assert!(plan.simulation.bytes_between_nodes < 8 * 3 * column, "{name}: {} bytes moved", plan.simulation.bytes_between_nodes);
    }
}

#[test]
fn a_cholesky_by_tiles_runs_step_by_step_and_lets_each_steps_copies_go() {
    // 32 × 32 tiles of 512² on a 4 × 4 grid of nodes, planned only. Walked depth first, the
    // plan runs row by row (left-looking), and a node keeps every factor tile it is sent until
    // the last row has read it (399 tiles at the busiest node); step by step (right-looking)
    // it holds at most its share of the matrix (64 tiles, one version of each at a time), as
    // much of the factor and the zeros above it, and one step's row and column of factor
    // tiles (16).
    let (t, b) = (32, 512);
    let n = t * b;
    let x = Generator::new(5).random(&[n, n], &chunks(b)).unwrap();
    let a = x.add(&x.t()).unwrap().add(&Array::eye(n, n, 0, tegula::DType::Float64, &chunks(b)).unwrap().mul_scalar(n as f64).unwrap()).unwrap();
    let la = tegula::linalg::Linalg { whole_matrix_bytes: 0, min_tile: b, ..tegula::linalg::Linalg::default() };
    let l = la.cholesky(&a, false).unwrap();
    let plan = plan_cluster(&[&l], true, &Spec::default(), Nodes { count: 16, memory: 1 << 40 }).unwrap();
    let tile = b * b * 8;
    let peak = plan.simulation.nodes.iter().map(|n| n.peak_bytes).max().unwrap();
    assert!(peak <= (2 * t * t / 16 + 2 * t / 4) * tile, "{} tiles: {}", peak / tile, plan.simulation);
}

/// The bytes ScaLAPACK's right-looking Cholesky moves for `t` × `t` tiles of `tile` bytes
/// laid out 2D block-cyclically over `pr` × `pc` nodes: each factor tile goes once to every
/// other node holding a tile it updates (the diagonal factor to the panel below it).
fn scalapack_cholesky_bytes(t: usize, tile: usize, pr: usize, pc: usize) -> usize {
    use std::collections::HashSet;
    let owner = |i: usize, j: usize| (i % pr, j % pc);
    let mut moved = 0;
    for k in 0..t {
        let below: HashSet<_> = (k + 1..t).map(|i| owner(i, k)).filter(|&o| o != owner(k, k)).collect();
        moved += below.len();
        for i in k + 1..t {
            let row = (k + 1..=i).map(|j| owner(i, j));
            let column = (i..t).map(|j| owner(j, i));
            let needs: HashSet<_> = row.chain(column).filter(|&o| o != owner(i, k)).collect();
            moved += needs.len();
        }
    }
    moved * tile
}

#[test]
fn a_cholesky_by_tiles_moves_only_the_factors_scalapacks_layout_moves() {
    // A matrix made on the nodes, `x + x^T + n I`, factorised by tiles: every step runs on
    // its tile's node of the grid, and what makes the matrix runs where its tiles are, so
    // only factor tiles move, as many as ScaLAPACK sends (ragged: 10 tiles on 4 or 2 rows),
    // and the identity's index vectors (64 values a block, read by whole rows of tiles).
    let (t, b) = (10, 64);
    let n = t * b;
    let x = Generator::new(5).random(&[n, n], &chunks(b)).unwrap();
    let eye = Array::eye(n, n, 0, tegula::DType::Float64, &chunks(b)).unwrap();
    let a = x.add(&x.t()).unwrap().add(&eye.mul_scalar(n as f64).unwrap()).unwrap();
    let la = tegula::linalg::Linalg { whole_matrix_bytes: 0, min_tile: b, ..tegula::linalg::Linalg::default() };
    let l = la.cholesky(&a, false).unwrap();
    for (nodes, pr, pc) in [(16, 4, 4), (8, 2, 4), (6, 2, 3)] {
        let plan = plan_cluster(&[&l], true, &Spec::default(), Nodes { count: nodes, memory: 1 << 40 }).unwrap();
        let expected = scalapack_cholesky_bytes(t, b * b * 8, pr, pc);
        let moved = plan.simulation.bytes_between_nodes;
        assert!((expected..expected + expected / 100).contains(&moved), "{nodes} nodes: {moved} bytes, ScaLAPACK's {expected}");
    }
}

