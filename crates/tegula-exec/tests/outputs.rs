//! Outputs returned as arrays: each block goes into its output's array as soon as it is made
//! (where no task reads it), and the arrays equal those joined from the returned blocks.

use tegula_core::{BinaryOp, Chunks, DType, DeviceId, KernelOp, Scalar, SourceOp, Spec, TaskOp};
use tegula_exec::{assemble_output, compute, Executor, OutputArrays, OutputSink, Threaded};
use tegula_kernels::Chunk;
use tegula_plan::{Output, Task, TaskGraph};

fn task(op: impl Into<TaskOp>, inputs: Vec<usize>, size: usize, dtype: DType) -> Task {
    Task { op: op.into(), inputs, size, dtype, node: 0, device: DeviceId::CPU }
}

/// An output of `rows` × `cols` blocks (ragged sizes), each block filled with its number and
/// doubled; with `tail`, a second output: the sum of the first output's last block with
/// itself, which a task then reads, so that block is kept to the end.
fn graph(rows: &[usize], cols: &[usize], tail: bool) -> TaskGraph {
    let chunks = Chunks::from_axes(vec![rows.to_vec(), cols.to_vec()]);
    let mut tasks = Vec::new();
    let mut blocks = Vec::new();
    for (k, idx) in tegula_core::grid::block_indices(&chunks.numblocks()).enumerate() {
        let shape = chunks.block_shape(&idx);
        let size = shape.iter().product();
        let full = SourceOp::Full { value: Scalar::Float(k as f64), dtype: DType::Float64, shape };
        tasks.push(task(full, vec![], size, DType::Float64));
        let add = KernelOp::Binary { op: BinaryOp::Add, compute: DType::Float64 };
        tasks.push(task(add, vec![tasks.len() - 1, tasks.len() - 1], size, DType::Float64));
        blocks.push(tasks.len() - 1);
    }
    let mut outputs = vec![Output { node: 0, dtype: DType::Float64, chunks, blocks }];
    if tail {
        let last = *outputs[0].blocks.last().unwrap();
        let add = KernelOp::Binary { op: BinaryOp::Add, compute: DType::Float64 };
        tasks.push(task(add, vec![last, last], tasks[last].size, DType::Float64));
        let shape = [*rows.last().unwrap(), *cols.last().unwrap()];
        outputs.push(Output { node: 1, dtype: DType::Float64, chunks: Chunks::from_axes(vec![vec![shape[0]], vec![shape[1]]]), blocks: vec![tasks.len() - 1] });
    }
    TaskGraph { tasks, outputs, resources: vec![], grids: vec![] }
}

/// Each output joined from the blocks the executor returns.
fn joined(graph: &TaskGraph, executor: &dyn Executor) -> (Vec<Chunk>, tegula_exec::Report) {
    let (blocks, report) = executor.execute(graph, &Spec::default(), None).unwrap();
    let arrays = graph.outputs.iter().zip(blocks).map(|(o, b)| assemble_output(&o.chunks, o.dtype, b).unwrap()).collect();
    (arrays, report)
}

fn values(c: &Chunk) -> Vec<f64> {
    c.typed::<f64>().unwrap().iter().copied().collect()
}

#[test]
fn arrays_equal_the_joined_blocks_on_ragged_grids() {
    for (rows, cols) in [(vec![3, 3, 1], vec![2, 5]), (vec![7], vec![1, 1, 1, 4]), (vec![2, 2], vec![3])] {
        let g = graph(&rows, &cols, true);
        for executor in [Threaded::serial(), Threaded { threads: 3 }] {
            let (arrays, _) = compute(&g, &executor, &Spec::default()).unwrap();
            let (expected, _) = joined(&g, &executor);
            assert_eq!(arrays.len(), 2);
            for (a, e) in arrays.iter().zip(&expected) {
                assert_eq!(a.shape(), e.shape(), "{rows:?} × {cols:?}");
                assert_eq!(values(a), values(e), "{rows:?} × {cols:?}");
            }
        }
    }
    // The oracle itself: block k holds 2k everywhere.
    let (arrays, _) = compute(&graph(&[1, 1], &[2], false), &Threaded::serial(), &Spec::default()).unwrap();
    assert_eq!(values(&arrays[0]), vec![0.0, 0.0, 2.0, 2.0]);
}

#[test]
fn each_block_is_let_go_of_once_in_its_array() {
    // Twelve output blocks made one at a time: returned as blocks, all twelve are held at the
    // end; joined into the array as made, at most a block and its source are.
    let g = graph(&[100; 4], &[100; 3], false);
    let block = 100 * 100 * 8;
    let (_, returned) = joined(&g, &Threaded::serial());
    assert!(returned.peak_bytes >= 12 * block, "{returned:?}");
    let (_, into_arrays) = compute(&g, &Threaded::serial(), &Spec::default()).unwrap();
    assert!(into_arrays.peak_bytes <= 2 * block, "{into_arrays:?}");
}

#[test]
fn a_block_given_twice_or_missing_is_an_error() {
    let g = graph(&[2, 2], &[3], false);
    let block = |v: f64| Chunk::full(DType::Float64, &[2, 3], Scalar::Float(v));
    let arrays = OutputArrays::new(&g.outputs);
    arrays.put(0, 1, block(1.0)).unwrap();
    assert!(arrays.put(0, 1, block(1.0)).is_err(), "a block given twice");
    assert!(arrays.put(0, 2, block(1.0)).is_err(), "a block outside the grid");
    assert!(arrays.put(0, 0, Chunk::full(DType::Float64, &[3, 2], Scalar::Float(0.0))).is_err(), "a block of another shape");
    assert!(arrays.finish().is_err(), "block 0 never came");
    // Blocks of another dtype are cast to the output's, in any order.
    let arrays = OutputArrays::new(&g.outputs);
    arrays.put(0, 1, Chunk::full(DType::Int32, &[2, 3], Scalar::Int(5))).unwrap();
    arrays.put(0, 0, block(1.5)).unwrap();
    let whole = arrays.finish().unwrap();
    assert_eq!(values(&whole[0]), [[1.5; 6], [5.0; 6]].concat());
}
