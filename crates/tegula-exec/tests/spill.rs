//! Spilling under a small budget: results equal those of an unbounded run, the budget holds,
//! and the spill directory is gone afterwards, also when a task fails after chunks were spilled.

use tegula_core::{BinaryOp, Chunks, DType, IoOp, KernelOp, PartialReduce, Scalar, SourceOp, Spec, TaskOp};
use tegula_exec::{compute, Threaded};
use tegula_kernels::Chunk;
use tegula_plan::{Output, Task, TaskGraph};

const BLOCK: usize = 100_000; // 800 KB of float64
const BLOCKS: usize = 20;
/// Room for eight blocks and the scratch of a few tasks: less than the twenty blocks the
/// graph holds at once unbounded.
const BUDGET: usize = 8 * BLOCK * 8 + 4 * (1 << 20);

fn task(op: impl Into<TaskOp>, inputs: Vec<usize>, size: usize) -> Task {
    Task { op: op.into(), inputs, size, dtype: DType::Float64, node: 0, device: tegula_core::DeviceId::CPU }
}

/// Filled blocks, each read twice: early (doubled, and the doubles summed in a chain) and
/// late (added to the chain in reverse order), so all of them wait between the two reads.
/// Then, as a second output, `last` on its own.
fn graph(last: Option<TaskOp>) -> TaskGraph {
    let full = |v: f64| SourceOp::Full { value: Scalar::Float(v), dtype: DType::Float64, shape: vec![BLOCK] };
    let add = || KernelOp::Binary { op: BinaryOp::Add, compute: DType::Float64 };
    let mut tasks: Vec<Task> = (0..BLOCKS).map(|b| task(full(b as f64 + 0.1), vec![], BLOCK)).collect();
    for b in 0..BLOCKS {
        tasks.push(task(add(), vec![b, b], BLOCK));
    }
    let mut acc = BLOCKS;
    for b in (1..BLOCKS).chain((0..BLOCKS).rev()) {
        let other = if tasks.len() < 3 * BLOCKS - 1 { BLOCKS + b } else { b };
        tasks.push(task(add(), vec![acc, other], BLOCK));
        acc = tasks.len() - 1;
    }
    let sum = KernelOp::ReducePartial { op: PartialReduce::Sum { acc: DType::Float64 }, axes: vec![0].into() };
    tasks.push(task(sum, vec![acc], 1));
    let one = || Chunks::new(vec![vec![1]], &[1]).unwrap();
    let mut outputs = vec![Output { node: 0, dtype: DType::Float64, chunks: one(), blocks: vec![tasks.len() - 1] }];
    if let Some(op) = last {
        tasks.push(task(op, vec![], 1));
        outputs.push(Output { node: 1, dtype: DType::Float64, chunks: one(), blocks: vec![tasks.len() - 1] });
    }
    TaskGraph { tasks, outputs, resources: vec![], grids: vec![] }
}

fn spec(memory: usize, dir: &std::path::Path) -> Spec {
    Spec { memory, spill_dir: dir.to_path_buf(), ..Spec::default() }
}

fn value(c: &Chunk) -> f64 {
    c.typed::<f64>().unwrap().iter().copied().sum()
}

fn scratch_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("tegula-test-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn spilled_runs_match_and_stay_within_the_budget() {
    let dir = scratch_dir("match");
    let g = graph(None);
    let (free, report) = compute(&g, &Threaded::serial(), &spec(usize::MAX, &dir)).unwrap();
    assert!(report.peak_bytes > BUDGET, "the graph must not fit the budget unspilled: {report:?}");
    let expected: f64 = (0..BLOCKS).map(|b| 3.0 * (b as f64 + 0.1)).sum::<f64>() * BLOCK as f64;
    assert!((value(&free[0]) - expected).abs() <= 1e-9 * expected);
    for executor in [Threaded::serial(), Threaded { threads: 2 }, Threaded { threads: 4 }] {
        let (bounded, report) = compute(&g, &executor, &spec(BUDGET, &dir)).unwrap();
        assert_eq!(value(&bounded[0]).to_bits(), value(&free[0]).to_bits(), "{executor:?}");
        assert!(report.spilled_bytes > 0, "{executor:?}: {report:?}");
        assert!(report.peak_bytes <= report.projected_peak_bytes, "{report:?}");
        assert!(report.projected_peak_bytes <= BUDGET, "{report:?}");
    }
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "spill directories left behind");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_failing_task_after_spilling_leaves_no_files() {
    let dir = scratch_dir("fail");
    // A load of an array the graph does not carry fails when it runs, after the spills.
    let g = graph(Some(IoOp::Load { resource: 7, region: vec![(0, 1)] }.into()));
    for executor in [Threaded::serial(), Threaded { threads: 2 }] {
        let err = compute(&g, &executor, &spec(BUDGET, &dir)).unwrap_err();
        assert!(err.to_string().contains("resource #7"), "{err}");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "spill directories left behind");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn an_unwritable_spill_directory_is_an_io_error() {
    let file = std::env::temp_dir().join(format!("tegula-test-not-a-dir-{}", std::process::id()));
    std::fs::write(&file, b"x").unwrap();
    let err = compute(&graph(None), &Threaded::serial(), &spec(BUDGET, &file)).unwrap_err();
    assert!(matches!(err, tegula_core::TegulaError::Io(_)), "{err:?}");
    std::fs::remove_file(file).unwrap();
}
