//! The GPU device against the CPU's kernels: blocks copied in and out unchanged, element-wise
//! programs equal to the CPU's, kernels it has no shader for run on the CPU. Where wgpu finds
//! no adapter each test says why and passes without checking (CI installs Mesa's software
//! Vulkan driver, so there it always runs).

use ndarray::{ArrayD, IxDyn};
use std::sync::Arc;
use tegula_core::program::{FusedBlock, Instr, Program};
use tegula_core::{BinaryOp, DType, KernelOp, Scalar, UnaryOp};
use tegula_exec::Device;
use tegula_gpu::Gpu;
use tegula_kernels::{Block, Chunk};

fn gpu() -> Option<Gpu> {
    match Gpu::open("gpu") {
        Ok(gpu) => Some(gpu),
        Err(e) => {
            eprintln!("no GPU, test not run: {e}");
            None
        }
    }
}

fn f32s(shape: &[usize], f: impl Fn(usize) -> f32) -> Chunk {
    let n = shape.iter().product();
    Chunk::Float32(Block::from(ArrayD::from_shape_vec(IxDyn(shape), (0..n).map(f).collect()).unwrap()))
}

fn i8s(shape: &[usize], f: impl Fn(usize) -> i8) -> Chunk {
    let n = shape.iter().product();
    Chunk::Int8(Block::from(ArrayD::from_shape_vec(IxDyn(shape), (0..n).map(f).collect()).unwrap()))
}

/// Bits of a host chunk, for exact comparisons (NaN equal to NaN).
fn bits(c: &Chunk) -> (DType, Vec<usize>, Vec<u8>) {
    (c.dtype(), c.shape().to_vec(), tegula_kernels::raw::with_bytes(c, |b| b.to_vec()))
}

#[test]
fn blocks_come_back_as_they_went() {
    let Some(gpu) = gpu() else { return };
    let floats = f32s(&[3, 5], |i| if i == 4 { f32::NAN } else { i as f32 - 7.5 });
    let small = i8s(&[7], |i| (i as i8) * 37 - 100);
    let flags = Chunk::Bool(Block::from(ArrayD::from_shape_vec(IxDyn(&[5]), vec![true, false, false, true, true]).unwrap()));
    let halves = Chunk::Float16(Block::from(ArrayD::from_elem(IxDyn(&[3]), half::f16::from_f32(1.5))));
    let empty = f32s(&[0, 4], |_| 0.0);
    for chunk in [floats, small, flags, halves, empty] {
        let on = gpu.to_device(&chunk).unwrap();
        assert!(on.is_on_device());
        assert_eq!(on.shape(), chunk.shape());
        assert_eq!(bits(&gpu.to_host(&on).unwrap()), bits(&chunk));
    }
}

#[test]
fn element_wise_kernels_equal_the_cpus() {
    let Some(gpu) = gpu() else { return };
    let a = f32s(&[4, 6], |i| (i as f32 - 11.0) / 3.0);
    let row = f32s(&[1, 6], |i| if i == 2 { f32::NAN } else { i as f32 * 0.25 - 0.5 });
    let small = i8s(&[4, 6], |i| (i as i8).wrapping_mul(29));
    let ops = [
        (KernelOp::Binary { op: BinaryOp::Add, compute: DType::Float32 }, vec![a.clone(), row.clone()]),
        (KernelOp::Binary { op: BinaryOp::Maximum, compute: DType::Float32 }, vec![row.clone(), a.clone()]),
        (KernelOp::Binary { op: BinaryOp::NotEqual, compute: DType::Float32 }, vec![a.clone(), row.clone()]),
        (KernelOp::Binary { op: BinaryOp::FloorDivide, compute: DType::Int8 }, vec![small.clone(), i8s(&[1, 6], |i| i as i8 - 3)]),
        (KernelOp::Binary { op: BinaryOp::Remainder, compute: DType::Int8 }, vec![small.clone(), i8s(&[6], |i| i as i8 - 2)]),
        (KernelOp::Binary { op: BinaryOp::Multiply, compute: DType::Int8 }, vec![small.clone(), small.clone()]),
        (KernelOp::Unary { op: UnaryOp::Sqrt, compute: DType::Float32 }, vec![a.clone()]),
        (KernelOp::Unary { op: UnaryOp::Isnan, compute: DType::Float32 }, vec![row.clone()]),
        (KernelOp::Unary { op: UnaryOp::Negative, compute: DType::Int8 }, vec![small.clone()]),
        (KernelOp::Cast { dtype: DType::UInt8 }, vec![a.clone()]),
        (KernelOp::Cast { dtype: DType::Bool }, vec![row.clone()]),
        (KernelOp::Cast { dtype: DType::Float32 }, vec![small.clone()]),
    ];
    for (op, inputs) in ops {
        let on: Vec<Chunk> = inputs.iter().map(|c| gpu.to_device(c).unwrap()).collect();
        let before = gpu.counts();
        let got = gpu.to_host(&gpu.run(&op, &on).unwrap()).unwrap();
        assert_eq!(gpu.counts().kernels, before.kernels + 1, "{op:?} ran as a shader");
        assert_eq!(bits(&got), bits(&tegula_kernels::run(&op, &inputs).unwrap()), "{op:?}");
    }
}

#[test]
fn a_fused_program_with_constants_and_a_cast_equals_the_cpus() {
    let Some(gpu) = gpu() else { return };
    // (a * 2.5 + nan-or-b) > 1, where(…, a, -inf), as float32
    let mut p = Program::default();
    let a = p.push(Instr::Input(0), DType::Float32);
    let b = p.push(Instr::Input(1), DType::Int8);
    let k = p.push(Instr::Scalar(Scalar::Float(2.5)), DType::Float32);
    let ak = p.push(Instr::Binary { op: BinaryOp::Multiply, compute: DType::Float32, args: [a, k] }, DType::Float32);
    let sum = p.push(Instr::Binary { op: BinaryOp::Add, compute: DType::Float32, args: [ak, b] }, DType::Float32);
    let one = p.push(Instr::Scalar(Scalar::Int(1)), DType::Float32);
    let big = p.push(Instr::Binary { op: BinaryOp::Greater, compute: DType::Float32, args: [sum, one] }, DType::Bool);
    let low = p.push(Instr::Scalar(Scalar::Float(f64::NEG_INFINITY)), DType::Float32);
    p.push(Instr::Where { compute: DType::Float32, args: [big, a, low] }, DType::Float32);
    let block = FusedBlock { program: Arc::new(p), sources: Vec::new(), shape: vec![3, 4] };
    let op = KernelOp::Fused(block);
    let inputs = vec![f32s(&[3, 4], |i| i as f32 * 0.1 - 0.3), i8s(&[4], |i| i as i8 - 1)];
    let on: Vec<Chunk> = inputs.iter().map(|c| gpu.to_device(c).unwrap()).collect();
    let got = gpu.to_host(&gpu.run(&op, &on).unwrap()).unwrap();
    assert_eq!(bits(&got), bits(&tegula_kernels::run(&op, &inputs).unwrap()));
}

#[test]
fn kernels_without_a_shader_run_on_the_cpu() {
    let Some(gpu) = gpu() else { return };
    let a = f32s(&[5], |i| i as f32);
    let op = KernelOp::Unary { op: UnaryOp::Sin, compute: DType::Float32 };
    let before = gpu.counts();
    let got = gpu.run(&op, &[gpu.to_device(&a).unwrap()]).unwrap();
    assert!(got.is_on_device());
    assert_eq!(gpu.counts().on_cpu, before.on_cpu + 1);
    assert_eq!(bits(&gpu.to_host(&got).unwrap()), bits(&tegula_kernels::run(&op, &[a]).unwrap()));
}
