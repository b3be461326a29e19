//! Blocks of zeros an output's array takes without being made: written by `finish` wherever
//! the array's pages hold anything (old values moved onto them from memory the computation
//! freed, or a neighbour's), skipped where they were never touched.

use tegula_core::reuse::{reuse_within, Reusing};
use tegula_core::{Chunks, DType, Scalar};
use tegula_exec::{OutputArrays, OutputSink};
use tegula_kernels::Chunk;
use tegula_plan::Output;

#[global_allocator]
static ALLOCATOR: Reusing = Reusing(std::alloc::System);

fn values(c: &Chunk) -> Vec<f64> {
    c.typed::<f64>().unwrap().iter().copied().collect()
}

#[test]
fn zero_blocks_are_zeros_over_freed_memory_and_beside_other_blocks() {
    let _reuse = reuse_within(1 << 30);
    // 1000 × 1000 float64 (8 MB) in four blocks; the off-diagonal ones are zeros.
    let chunks = Chunks::from_axes(vec![vec![500, 500], vec![500, 500]]);
    let outputs = vec![Output { node: 0, dtype: DType::Float64, chunks, blocks: vec![0, 1, 2, 3] }];
    let arrays = OutputArrays::new(&outputs);
    assert!(arrays.put_zeros(0, 1).unwrap() && arrays.put_zeros(0, 2).unwrap());
    // Memory freed now is kept, holding sevens; block 0's rows take it, block 1's halves of
    // them included.
    drop(vec![7.0f64; 1_000_000]);
    arrays.put(0, 0, Chunk::full(DType::Float64, &[500, 500], Scalar::Float(1.0))).unwrap();
    arrays.put(0, 3, Chunk::full(DType::Float64, &[500, 500], Scalar::Float(2.0))).unwrap();
    let whole = values(&arrays.finish().unwrap()[0]);
    let expected: Vec<f64> = (0..1_000_000)
        .map(|k| match (k / 1000 < 500, k % 1000 < 500) {
            (true, true) => 1.0,
            (false, false) => 2.0,
            _ => 0.0,
        })
        .collect();
    assert!(whole == expected, "{} elements differ", whole.iter().zip(&expected).filter(|(a, b)| a != b).count());
}
