//! Persisted arrays: the kept blocks hold the computed values (in memory within a share of the
//! budget, on disk beyond it), later plans read them, and the bytes kept in memory count against
//! every later budget until the last array reading them is dropped.

use std::sync::Mutex;
use tegula::random::Generator;
use tegula::{Array, AxisChunks, ChunkSpec, ComputeOptions, execute::{budget_left, persist, Spec, Threaded}};

/// The kept-bytes count is the process's: tests that read it run one at a time.
static KEPT: Mutex<()> = Mutex::new(());

/// A directory of its own for one test's spills, removed after it.
struct Dir(std::path::PathBuf);

impl Dir {
    fn new() -> Dir {
        static MADE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("tegula-persist-test-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Dir(dir)
    }
    fn path(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn generated(shape: &[usize], block: usize) -> Array {
    Generator::new(7).random(shape, &ChunkSpec::All(AxisChunks::Size(block))).unwrap()
}

fn with_budget(memory: usize, spill_dir: &std::path::Path) -> ComputeOptions {
    let spec = Spec { memory, spill_dir: spill_dir.to_path_buf(), ..Spec::default() };
    ComputeOptions { spec: Some(spec), ..ComputeOptions::from(Threaded::default()) }
}

fn values(x: &Array) -> Vec<f64> {
    x.compute().unwrap().typed::<f64>().unwrap().iter().copied().collect()
}

fn left(memory: usize) -> usize {
    budget_left(Spec { memory, ..Spec::default() }).unwrap().memory
}

#[test]
fn kept_in_memory_counts_against_the_budget_until_dropped() {
    let _one = KEPT.lock().unwrap();
    let dir = Dir::new();
    let x = generated(&[300, 200], 70).add_scalar(1.0).unwrap();
    let before = left(1 << 30);
    let kept = persist(&[&x], with_budget(1 << 30, dir.path())).unwrap().remove(0);
    assert_eq!(kept.chunks(), x.chunks());
    assert_eq!(left(1 << 30), before - 300 * 200 * 8);
    assert_eq!(values(&kept.mul(&kept).unwrap()), values(&x.mul(&x).unwrap()));
    let derived = kept.add_scalar(2.0).unwrap();
    drop(kept);
    assert_eq!(left(1 << 30), before - 300 * 200 * 8, "a lazy array still reads the kept blocks");
    drop(derived);
    assert_eq!(left(1 << 30), before);
}

#[test]
fn blocks_beyond_the_share_are_kept_on_disk_and_removed_when_dropped() {
    let _one = KEPT.lock().unwrap();
    let dir = Dir::new();
    let x = generated(&[1000, 300], 90);
    let y = x.sum(Some(&[1]), true).unwrap().add(&x).unwrap();
    let before = left(1 << 30);
    // 2.4 MB of values, half of a 2 MB budget in memory: some rows of blocks on disk.
    let kept = persist(&[&y, &x], with_budget(2 << 20, dir.path())).unwrap();
    assert!(before - left(1 << 30) <= 1 << 20);
    assert!(std::fs::read_dir(dir.path()).unwrap().count() > 0, "nothing was kept on disk");
    assert_eq!(values(&kept[0]), values(&y));
    assert_eq!(values(&kept[1]), values(&x));
    assert_eq!(kept[0].chunks(), y.chunks());
    drop(kept);
    assert_eq!(left(1 << 30), before);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "the kept blocks' directory outlived them");
}

#[test]
fn a_budget_all_kept_is_refused() {
    let _one = KEPT.lock().unwrap();
    let dir = Dir::new();
    let x = generated(&[100, 100], 50);
    let kept = persist(&[&x], with_budget(1 << 30, dir.path())).unwrap();
    let refused = kept[0].compute_with(with_budget(80_000, dir.path()));
    assert!(matches!(refused, Err(tegula::TegulaError::Memory(m)) if m.contains("persisted arrays keep")));
}
