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
    let small = i8s(&[7], |i| (i as i8).wrapping_mul(37).wrapping_sub(100));
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

#[test]
fn transposes_selections_and_assembled_blocks_equal_the_cpus_and_say_they_run_on_the_gpu() {
    let Some(gpu) = gpu() else { return };
    let a = f32s(&[4, 5, 3], |i| i as f32 - 20.5);
    let wide = Chunk::Int64(Block::from(ArrayD::from_shape_vec(IxDyn(&[4, 5]), (0..20).map(|i| (i as i64) << 40).collect()).unwrap()));
    let range = |start, stop, step| tegula_core::Select::Range { start, stop, step };
    let piece = |input, src: Vec<(usize, usize)>, dst| tegula_core::Piece { input, src, dst };
    let cases = [
        (KernelOp::Transpose { perm: vec![2, 0, 1] }, vec![a.clone()]),
        (KernelOp::Select { axes: vec![range(0, 4, -3), tegula_core::Select::NewAxis, tegula_core::Select::Index(2), range(1, 3, 1)] }, vec![a.clone()]),
        (KernelOp::Transpose { perm: vec![1, 0] }, vec![wide.clone()]),
        (KernelOp::Assemble { shape: vec![5, 4], pieces: vec![piece(0, vec![(1, 4), (0, 4)], vec![0, 0]), piece(1, vec![(0, 2), (1, 5)], vec![3, 0])] }, vec![wide.clone(), wide]),
    ];
    for (op, inputs) in cases {
        let dtypes: Vec<DType> = inputs.iter().map(Chunk::dtype).collect();
        assert!(gpu.computes(&tegula_core::TaskOp::Kernel(op.clone()), &dtypes), "{op:?}");
        let on: Vec<Chunk> = inputs.iter().map(|c| gpu.to_device(c).unwrap()).collect();
        let before = gpu.counts();
        let got = gpu.to_host(&gpu.run(&op, &on).unwrap()).unwrap();
        assert_eq!(gpu.counts().on_cpu, before.on_cpu, "{op:?}");
        let want = tegula_kernels::run(&op, &inputs).unwrap();
        assert_eq!(bits(&got), bits(&want), "{op:?}");
    }
}

/// Within `tol` relative to the largest magnitude, NaN for NaN.
fn close(got: &Chunk, want: &Chunk, tol: f64) {
    let (g, w) = (got.cast(DType::Float64), want.cast(DType::Float64));
    let (g, w) = (g.typed::<f64>().unwrap(), w.typed::<f64>().unwrap());
    assert_eq!(g.shape(), w.shape());
    let scale = w.iter().filter(|v| v.is_finite()).fold(1.0f64, |m, v| m.max(v.abs()));
    for (a, b) in g.iter().zip(w.iter()) {
        assert!((a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= tol * scale, "{a} against the CPU's {b}");
    }
}

#[test]
fn reductions_equal_the_cpus() {
    use tegula_core::{Finish, PartialReduce};
    let Some(gpu) = gpu() else { return };
    let a = f32s(&[37, 3, 300], |i| ((i * 7919) % 1000) as f32 / 100.0 - 5.0);
    let with_nan = f32s(&[40, 50], |i| if i == 777 { f32::NAN } else { (i % 91) as f32 - 45.0 });
    let small = i8s(&[20, 9], |i| ((i * 13) % 7) as i8 - 3);
    let cases: Vec<(KernelOp, Chunk, bool)> = vec![
        (KernelOp::ReducePartial { op: PartialReduce::Sum { acc: DType::Float32 }, axes: Arc::from([0usize]) }, a.clone(), false),
        (KernelOp::ReducePartial { op: PartialReduce::Sum { acc: DType::Float32 }, axes: Arc::from([0usize, 2]) }, a.clone(), false),
        (KernelOp::ReducePartial { op: PartialReduce::Sum { acc: DType::Float32 }, axes: Arc::from([0usize, 1, 2]) }, a.clone(), false),
        (KernelOp::ReducePartial { op: PartialReduce::Max, axes: Arc::from([1usize]) }, a.clone(), true),
        (KernelOp::ReducePartial { op: PartialReduce::Min, axes: Arc::from([0usize, 1]) }, with_nan.clone(), true),
        (KernelOp::ReducePartial { op: PartialReduce::Max, axes: Arc::from([1usize]) }, with_nan.clone(), true),
        (KernelOp::ReducePartial { op: PartialReduce::Any, axes: Arc::from([0usize]) }, small.clone(), true),
        (KernelOp::ReducePartial { op: PartialReduce::All, axes: Arc::from([1usize]) }, small.clone(), true),
        (KernelOp::ReducePartial { op: PartialReduce::Min, axes: Arc::from([0usize, 1]) }, small.clone(), true),
    ];
    for (op, input, exact) in cases {
        let before = gpu.counts();
        let got = gpu.to_host(&gpu.run(&op, &[gpu.to_device(&input).unwrap()]).unwrap()).unwrap();
        assert_eq!(gpu.counts().on_cpu, before.on_cpu, "{op:?} ran on the GPU");
        let want = tegula_kernels::run(&op, &[input]).unwrap();
        if exact {
            assert_eq!(bits(&got), bits(&want), "{op:?}");
        } else {
            assert_eq!(got.dtype(), want.dtype());
            close(&got, &want, 1e-5);
        }
    }
    // Partials combined, then finished as a mean.
    let parts: Vec<Chunk> = (0..3).map(|k| f32s(&[1, 4], |i| (i + k) as f32 * 1.5)).collect();
    let combine = KernelOp::ReduceCombine { op: PartialReduce::Sum { acc: DType::Float32 } };
    let on: Vec<Chunk> = parts.iter().map(|c| gpu.to_device(c).unwrap()).collect();
    let combined = gpu.run(&combine, &on).unwrap();
    assert_eq!(bits(&gpu.to_host(&combined).unwrap()), bits(&tegula_kernels::run(&combine, &parts).unwrap()));
    let finish = KernelOp::ReduceFinish { finish: Finish::DivideBy(6.0), squeeze: vec![0], dtype: DType::Float32 };
    let host_combined = tegula_kernels::run(&combine, &parts).unwrap();
    let got = gpu.to_host(&gpu.run(&finish, &[combined]).unwrap()).unwrap();
    assert_eq!(bits(&got), bits(&tegula_kernels::run(&finish, &[host_combined]).unwrap()));
}

#[test]
fn variances_equal_the_cpus_to_rounding() {
    use tegula_core::{Finish, PartialReduce};
    let Some(gpu) = gpu() else { return };
    if !gpu.has_float64() {
        eprintln!("no float64 on this GPU: moments run on the CPU, test not run");
        return;
    }
    // Values far from zero, where a one-pass variance would lose digits; blocks long enough
    // along the reduced axes to be cut into several segments.
    let blocks: Vec<Chunk> = (0..3).map(|k| f32s(&[700, 2, 5], |i| 1e4 + ((i * 7919 + k * 13) % 1000) as f32 / 64.0)).collect();
    let partial = KernelOp::ReducePartial { op: PartialReduce::Moments, axes: Arc::from([0usize, 2]) };
    let combine = KernelOp::ReduceCombine { op: PartialReduce::Moments };
    let finish = KernelOp::ReduceFinish { finish: Finish::Variance { ddof: 1.0, sqrt: true }, squeeze: vec![0, 2], dtype: DType::Float32 };
    for op in [&partial, &combine, &finish] {
        let dtypes = if matches!(op, KernelOp::ReducePartial { .. }) { vec![DType::Float32] } else { vec![DType::Float64; 3] };
        assert!(gpu.computes(&tegula_core::TaskOp::Kernel((*op).clone()), &dtypes[..if matches!(op, KernelOp::ReduceFinish { .. }) { 1 } else { dtypes.len() }]), "{op:?}");
    }
    let before = gpu.counts();
    let on: Vec<Chunk> = blocks.iter().map(|c| gpu.run(&partial, &[gpu.to_device(c).unwrap()]).unwrap()).collect();
    let host: Vec<Chunk> = blocks.iter().map(|c| tegula_kernels::run(&partial, std::slice::from_ref(c)).unwrap()).collect();
    close(&gpu.to_host(&on[0]).unwrap(), &host[0], 1e-12);
    let (combined, host_combined) = (gpu.run(&combine, &on).unwrap(), tegula_kernels::run(&combine, &host).unwrap());
    close(&gpu.to_host(&combined).unwrap(), &host_combined, 1e-12);
    let got = gpu.to_host(&gpu.run(&finish, &[combined]).unwrap()).unwrap();
    let want = tegula_kernels::run(&finish, &[host_combined]).unwrap();
    assert_eq!((got.dtype(), got.shape()), (want.dtype(), want.shape()));
    close(&got, &want, 1e-6);
    assert_eq!(gpu.counts().on_cpu, before.on_cpu);
}

#[test]
fn a_fused_reduction_equals_the_cpus() {
    use tegula_core::PartialReduce;
    let Some(gpu) = gpu() else { return };
    let mut p = Program::default();
    let a = p.push(Instr::Input(0), DType::Float32);
    let k = p.push(Instr::Scalar(Scalar::Float(0.5)), DType::Float32);
    p.push(Instr::Binary { op: BinaryOp::Subtract, compute: DType::Float32, args: [a, k] }, DType::Float32);
    let block = FusedBlock { program: Arc::new(p), sources: Vec::new(), shape: vec![64, 70] };
    for axes in [vec![0usize], vec![1], vec![0, 1]] {
        let op = KernelOp::FusedReduce { block: block.clone(), op: PartialReduce::Max, axes: Arc::from(axes) };
        let input = f32s(&[64, 70], |i| ((i * 31) % 97) as f32 / 7.0);
        let got = gpu.to_host(&gpu.run(&op, &[gpu.to_device(&input).unwrap()]).unwrap()).unwrap();
        assert_eq!(bits(&got), bits(&tegula_kernels::run(&op, &[input]).unwrap()));
    }
}

#[test]
fn matrix_products_equal_the_cpus_to_rounding() {
    let Some(gpu) = gpu() else { return };
    for (m, k, n) in [(1, 1, 1), (17, 33, 5), (40, 16, 48), (3, 0, 4), (64, 100, 31)] {
        let a = f32s(&[m, k], |i| ((i * 37) % 23) as f32 / 7.0 - 1.5);
        let b = f32s(&[k, n], |i| ((i * 11) % 19) as f32 / 5.0 - 2.0);
        let op = KernelOp::Matmul { dtype: DType::Float32 };
        let before = gpu.counts();
        let got = gpu.to_host(&gpu.run(&op, &[gpu.to_device(&a).unwrap(), gpu.to_device(&b).unwrap()]).unwrap()).unwrap();
        assert_eq!(gpu.counts().on_cpu, before.on_cpu, "{m}x{k}x{n} ran on the GPU");
        close(&got, &tegula_kernels::run(&op, &[a, b]).unwrap(), 1e-5);
    }
}

#[test]
fn the_gpus_limits_are_measured() {
    let Some(gpu) = gpu() else { return };
    let peaks = gpu.peaks().unwrap();
    assert!(peaks.bytes_per_second > 1e6 && peaks.bytes_per_second.is_finite(), "{peaks:?}");
    assert!(peaks.flops > 1e6 && peaks.flops.is_finite(), "{peaks:?}");
}
