//! Observers see every task of a computation exactly once, with consistent times, threads and
//! memory, and the plan description they come with names each task's operation.

use proptest::prelude::*;
use tegula::random::Generator;
use tegula::{compute, Array, AxisChunks, ChunkSpec, ComputeOptions, execute::{compute_observed, plan_of, Threaded, Progress, Spec, Trace}, ops::{ReduceOp, ReduceSpec}};

fn expression(seed: u64, n: usize, block: usize) -> Array {
    let x = Generator::new(seed).random(&[n, n], &ChunkSpec::All(AxisChunks::Size(block))).unwrap();
    let y = x.add_scalar(1.0).unwrap().matmul(&x.t()).unwrap();
    y.reduce(&ReduceSpec { axes: Some(vec![0]), ..ReduceSpec::new(ReduceOp::Sum) }).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[test]
    fn a_trace_holds_every_task_once(seed in any::<u64>(), n in 1usize..30, block in 1usize..10, threads in 1usize..4, budget in prop::option::of((1usize << 21)..(1 << 22))) {
        let y = expression(seed, n, block);
        let spec = budget.map(|memory| Spec { memory, ..Spec::default() });
        let options = ComputeOptions { executor: std::sync::Arc::new(Threaded { threads }), fuse: true, spec };
        let trace = Trace::new();
        let (observed, report, plan) = compute_observed(&[&y], options.clone(), Some(&trace), true).unwrap();
        let (plain, _) = compute(&[&y], options).unwrap();
        let values = |c: &tegula::Chunk| c.typed::<f64>().unwrap().iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        prop_assert_eq!(values(&observed[0]), values(&plain[0]));
        let plan = plan.unwrap();
        let events = trace.events();
        prop_assert_eq!(events.len(), report.tasks);
        let mut seen = vec![false; report.tasks];
        // `done` counts the tasks in the order they ended (threads' batches may be told in
        // either order).
        let mut done: Vec<usize> = events.iter().map(|e| e.done).collect();
        done.sort_unstable();
        prop_assert_eq!(done, (1..=report.tasks).collect::<Vec<_>>());
        for e in &events {
            prop_assert!(!seen[e.task]);
            seen[e.task] = true;
            prop_assert_eq!(e.total, report.tasks);
            prop_assert!(e.start <= e.end);
            prop_assert!(e.thread < threads);
            prop_assert!(e.held <= report.peak_bytes);
            prop_assert!(e.on_disk <= report.spilled_bytes);
            prop_assert!(plan.task_operation[e.task] < plan.operations.len());
        }
        // Every operation's task count is what the description says.
        let total: usize = plan.operations.iter().map(|o| o.tasks).sum();
        prop_assert_eq!(total, report.tasks);
    }
}

#[test]
fn progress_counts_every_task_and_byte() {
    let y = expression(7, 40, 7);
    let progress = Progress::new();
    let (_, report, _) = compute_observed(&[&y], Threaded { threads: 2 }, Some(&progress), false).unwrap();
    let (done, total, bytes) = progress.snapshot();
    assert_eq!((done, total), (report.tasks, report.tasks));
    let (_, graph) = plan_of(&[&y], true).unwrap();
    assert_eq!(bytes, graph.tasks.iter().map(|t| t.nbytes()).sum::<usize>());
}

#[test]
fn the_description_matches_the_plan() {
    let y = expression(3, 20, 6);
    let (plan, graph) = plan_of(&[&y], true).unwrap();
    assert_eq!(plan.task_operation.len(), graph.tasks.len());
    let matmul = plan.operations.iter().find(|o| o.label == "matmul").unwrap();
    let matmul_index = plan.operations.iter().position(|o| o.label == "matmul").unwrap();
    let tasks = plan.task_operation.iter().filter(|&&i| i == matmul_index).count();
    assert_eq!(matmul.tasks, tasks);
    let written: usize = (0..graph.tasks.len()).filter(|&t| plan.task_operation[t] == matmul_index).map(|t| graph.tasks[t].nbytes()).sum();
    assert_eq!(matmul.bytes_written, written);
    assert!(plan.projected_peak >= matmul.peak && matmul.peak > 0);
    let mut ranks = plan.rank.clone();
    ranks.sort_unstable();
    assert_eq!(ranks, (0..graph.tasks.len()).collect::<Vec<_>>());
}

#[test]
fn a_trace_follows_spilled_bytes() {
    let y = expression(11, 600, 100);
    let options = ComputeOptions { executor: std::sync::Arc::new(Threaded { threads: 2 }), fuse: true, spec: Some(Spec { memory: 2_000_000, ..Spec::default() }) };
    let trace = Trace::new();
    let (_, report, _) = compute_observed(&[&y], options, Some(&trace), false).unwrap();
    assert!(report.spilled_bytes > 0, "{report:?}");
    let most_on_disk = trace.events().iter().map(|e| e.on_disk).max().unwrap();
    assert!(most_on_disk > 0 && most_on_disk <= report.spilled_bytes);
}

#[test]
fn a_trace_is_read_while_it_grows_and_tells_spills_and_the_plan() {
    let y = expression(11, 600, 100);
    let options = ComputeOptions { executor: std::sync::Arc::new(Threaded { threads: 2 }), fuse: true, spec: Some(Spec { memory: 2_000_000, ..Spec::default() }) };
    let trace = Trace::new();
    let (_, report, plan) = compute_observed(&[&y], options, Some(&trace), true).unwrap();
    // The plan reached the observer before any task, as the one returned.
    let planned = trace.plan().expect("the plan was given to the observer");
    assert_eq!(planned.task_operation, plan.unwrap().task_operation);
    // Read in pieces, the events are the whole trace in order.
    let whole = trace.events();
    let (first, rest) = (trace.events_from(0), trace.events_from(whole.len() / 3));
    assert_eq!(first, whole);
    assert_eq!(rest, whole[whole.len() / 3..]);
    assert!(trace.events_from(whole.len() + 5).is_empty());
    // Each spill is one event, within the computation and on a pool thread (a plan that
    // spills runs two jobs per thread, on a pool twice as big), and together they wrote what
    // the report says was spilled.
    let spills = trace.spills_from(0);
    assert!(!spills.is_empty());
    let end = whole.iter().map(|e| e.end).max().unwrap();
    assert!(spills.iter().all(|s| s.start <= s.end && s.end <= end && s.thread < 4 && s.bytes > 0), "{spills:?} end {end:?}");
    assert_eq!(spills.iter().map(|s| s.bytes).sum::<usize>(), report.spilled_bytes);
    assert_eq!(trace.spills_from(1), spills[1..]);
}
