//! The device seam, proven with a host device (the host's cores and memory, a budget of its
//! own, transfers counted): plans placed on it give the CPU's results bit for bit, every block
//! moved is counted, its memory is kept within its own budget, and arrays on different devices
//! do not mix.

use ndarray::ArrayD;
use std::sync::Arc;
use tegula::random::Generator;
use tegula::{Array, AxisChunks, ChunkSpec, ComputeOptions, TegulaError, execute::{add_device, HostDevice, Spec, Threaded}};

fn host_device(name: &str, memory: Option<usize>) -> (Arc<HostDevice>, tegula::execute::DeviceId) {
    let device = Arc::new(HostDevice::new(name, memory));
    let id = add_device(device.clone()).unwrap();
    (device, id)
}

fn bytes(c: &tegula::Chunk) -> Vec<u8> {
    tegula_kernels::raw::with_bytes(c, |b| b.to_vec())
}

fn noise(shape: &[usize], block: usize) -> Array {
    Generator::new(7).standard_normal(shape, &ChunkSpec::All(AxisChunks::Size(block))).unwrap()
}

#[test]
fn a_plan_on_a_device_gives_the_cpu_results() {
    let (_, id) = host_device("same-results", None);
    let x = noise(&[40, 30], 7);
    let on_cpu = x.mul_scalar(2.0).unwrap().add(&x).unwrap().sum(Some(&[0]), false).unwrap();
    let y = x.to_device(id);
    let on_device = y.mul_scalar(2.0).unwrap().add(&y).unwrap().sum(Some(&[0]), false).unwrap();
    assert_eq!(on_device.device(), id);
    assert_eq!(bytes(&on_cpu.compute().unwrap()), bytes(&on_device.compute().unwrap()));
}

#[test]
fn every_block_moved_is_counted() {
    let (device, id) = host_device("counted", None);
    let data = ArrayD::from_shape_fn(vec![12, 10], |i| (i[0] * 10 + i[1]) as f64);
    let x = Array::from_ndarray(data.clone(), &ChunkSpec::All(AxisChunks::Size(4))).unwrap(); // 3×3 blocks
    let y = x.to_device(id).mul_scalar(3.0).unwrap();
    let got = y.compute().unwrap();
    assert_eq!(got.typed::<f64>().unwrap(), &(data * 3.0).into());
    // Nine blocks in, nine results out, each 4×4 or less: the whole array twice.
    assert_eq!(device.transfers(), (18, 2 * 12 * 10 * 8));
}

#[test]
fn a_device_keeps_to_its_own_budget() {
    // 16 blocks of 32 KB on a device of 160 KB (the CPU's budget is larger): the reversal
    // makes the first sums wait for the last blocks, which must be spilled to fit.
    let budget = 160_000;
    let (_, id) = host_device("small", Some(budget));
    let x = noise(&[256, 256], 16).rechunk(&ChunkSpec::PerAxis(vec![AxisChunks::Size(16), AxisChunks::Full])).unwrap();
    let y = x.to_device(id);
    let reversed = y.index(&[tegula::ops::IndexItem::Slice { start: None, stop: None, step: Some(-1) }]).unwrap();
    let total = y.sub(&reversed).unwrap().mul(&y).unwrap().sum(None, false).unwrap();
    let spec = Spec { memory: 64 << 20, ..Spec::default() };
    let options = ComputeOptions { executor: Arc::new(Threaded::new(Some(2)).unwrap()), fuse: false, spec: Some(spec) };
    let (got, report) = tegula::compute(&[&total], options).unwrap();
    let peaks = &report.device_peaks;
    assert!(peaks[id.index()] <= budget, "device peak {} over its budget {budget}", peaks[id.index()]);
    assert!(report.spilled_bytes > 0);
    let expected = x.sub(&x.index(&[tegula::ops::IndexItem::Slice { start: None, stop: None, step: Some(-1) }]).unwrap()).unwrap().mul(&x).unwrap().sum(None, false).unwrap();
    assert_eq!(bytes(&got[0]), bytes(&expected.compute().unwrap()));
}

#[test]
fn arrays_on_different_devices_do_not_mix() {
    let (_, id) = host_device("apart", None);
    let x = noise(&[8], 4);
    let err = x.to_device(id).add(&x).unwrap_err();
    assert!(matches!(err, TegulaError::Value(ref m) if m.contains("different devices")), "{err:?}");
    assert!(matches!(tegula::execute::device_id("no-such-device"), Err(TegulaError::Value(_))));
    assert!(matches!(add_device(Arc::new(HostDevice::new("apart", None))), Err(TegulaError::Value(_))));
}
