//! In-memory arrays that worker processes on the same machine read straight out of the
//! caller's memory (`process_vm_readv`, `CallerArray`): each region a task loads is copied
//! once, into the worker's block, and nothing is written anywhere first; and output blocks a
//! worker writes straight into the caller's result array (`process_vm_writev`,
//! `CallerRegion`). The kernel allows it where a process may trace its parent (same user, no
//! Yama restriction, no seccomp filter refusing it); a worker says whether it can when it
//! starts (`Probe`), and the caller shares its arrays and takes results as files (`shared.rs`)
//! when one cannot.

use serde::{Deserialize, Serialize};
use std::hash::{BuildHasher, Hasher};
use std::sync::OnceLock;
use tegula_core::grid::for_each_run;
use tegula_core::{DType, Result, TegulaError};
use tegula_kernels::raw::with_bytes;
use tegula_kernels::{with_chunk, Chunk};
use tegula_store::{ChunkSource, StoredInfo};

/// The environment variable through which a worker learns where to find the caller's token.
pub(crate) const PROBE_VARIABLE: &str = "TEGULA_CALLER_PROBE";

/// Where a process's token lies and what it holds: a worker that reads these bytes at that
/// address of that process id is reading the caller itself (not a process that has the same
/// id in another namespace).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Probe {
    pid: u32,
    addr: u64,
    token: [u64; 2],
}

/// Sixteen random bytes, at a fixed address for the life of the process.
fn token() -> &'static [u64; 2] {
    static TOKEN: OnceLock<[u64; 2]> = OnceLock::new();
    TOKEN.get_or_init(|| {
        let random = || std::collections::hash_map::RandomState::new().build_hasher().finish();
        [random(), random()]
    })
}

impl Probe {
    /// This process's probe.
    pub fn here() -> Probe {
        let token = token();
        Probe { pid: std::process::id(), addr: token.as_ptr() as u64, token: *token }
    }

    /// As the value of `PROBE_VARIABLE`.
    pub(crate) fn to_variable(self) -> String {
        format!("{}:{}:{}:{}", self.pid, self.addr, self.token[0], self.token[1])
    }

    /// The probe in `PROBE_VARIABLE`, if it is set and well formed.
    pub(crate) fn from_environment() -> Option<Probe> {
        let value = std::env::var(PROBE_VARIABLE).ok()?;
        let mut parts = value.split(':');
        let mut next = || parts.next()?.parse::<u64>().ok();
        Some(Probe { pid: u32::try_from(next()?).ok()?, addr: next()?, token: [next()?, next()?] })
    }

    /// Whether this process reads the probe's token in the process it names.
    pub fn readable(&self) -> bool {
        let mut got = [0u64; 2];
        let out = bytes_of_mut(&mut got);
        read_remote(self.pid, &mut [(self.addr, out)]).is_ok() && got == self.token
    }
}

fn bytes_of_mut(words: &mut [u64; 2]) -> &mut [u8] {
    // SAFETY: sixteen initialised bytes, any value valid for u8, borrowed for as long as `words`.
    unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<u8>(), 16) }
}

/// A row-major array in the memory of the process `probe` names, which keeps it unchanged for
/// as long as the computation that shared it runs.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CallerArray {
    probe: Probe,
    addr: u64,
    dtype: DType,
    shape: Vec<usize>,
}

impl CallerArray {
    /// `chunk`, read where it lies in this process's memory; `None` unless its elements lie
    /// row-major without gaps (other layouts are shared as files).
    pub fn describe(chunk: &Chunk) -> Option<CallerArray> {
        let addr = with_chunk!(chunk, a => a.as_slice().map(|s| s.as_ptr() as u64))?;
        Some(CallerArray { probe: Probe::here(), addr, dtype: chunk.dtype(), shape: chunk.shape().to_vec() })
    }

    /// The array as a source whose reads copy from the caller; an error when this process
    /// cannot read the caller's memory.
    pub fn open(self) -> Result<CallerSource> {
        if !self.probe.readable() {
            return Err(TegulaError::Io(format!("this worker cannot read the memory of process {} that shares an array with it", self.probe.pid)));
        }
        let info = StoredInfo {
            path: format!("an array in the memory of process {}", self.probe.pid),
            shape: self.shape.clone(),
            dtype: self.dtype,
            chunk_shape: vec![1; self.shape.len()],
            attributes: "{}".into(),
        };
        Ok(CallerSource { array: self, info })
    }
}

/// A `CallerArray` opened in a worker: each region read is one copy out of the caller.
pub struct CallerSource {
    array: CallerArray,
    info: StoredInfo,
}

impl ChunkSource for CallerSource {
    fn info(&self) -> &StoredInfo {
        &self.info
    }

    fn read_into(&self, region: &[(usize, usize)], out: &mut [u8]) -> Result<()> {
        let runs = runs(&self.array.shape, region, self.array.dtype.itemsize());
        let expected: usize = runs.iter().map(|&(_, len)| len).sum();
        if expected != out.len() || region.len() != self.array.shape.len() {
            return Err(TegulaError::Value(format!("region {region:?} of {:?}: {} bytes for {expected}", self.array.shape, out.len())));
        }
        let mut rest = out;
        let mut pieces = Vec::with_capacity(runs.len());
        for (offset, len) in runs {
            let (piece, tail) = rest.split_at_mut(len);
            pieces.push((self.array.addr + offset as u64, piece));
            rest = tail;
        }
        read_remote(self.array.probe.pid, &mut pieces)
    }
}

/// The contiguous byte runs `(offset from the array's start, length)` of `region` in a
/// row-major array of `shape`, in row-major order; none for a region outside the array.
fn runs(shape: &[usize], region: &[(usize, usize)], itemsize: usize) -> Vec<(usize, usize)> {
    if region.len() != shape.len() || region.iter().zip(shape).any(|(&(a, b), &n)| a > b || b > n) {
        return vec![];
    }
    let mut out = Vec::new();
    let _ = for_each_run(shape, region, |at, _, len| {
        out.push((at * itemsize, len * itemsize));
        Ok::<_, ()>(())
    });
    out
}

/// Fills each `(address in process pid, buffer)` pair from that process's memory.
fn read_remote(pid: u32, pieces: &mut [(u64, &mut [u8])]) -> Result<()> {
    let pieces: Vec<(u64, *mut u8, usize)> = pieces.iter_mut().map(|(a, b)| (*a, b.as_mut_ptr(), b.len())).collect();
    // SAFETY: every buffer is borrowed mutably by this function for the call.
    unsafe { remote_io(pid, &pieces, Direction::Read) }
}

/// Copies each `(address in process pid, bytes)` pair into that process's memory.
fn write_remote(pid: u32, pieces: &[(u64, &[u8])]) -> Result<()> {
    let pieces: Vec<(u64, *mut u8, usize)> = pieces.iter().map(|(a, b)| (*a, b.as_ptr().cast_mut(), b.len())).collect();
    // SAFETY: the kernel only reads the local buffers when writing, and they are borrowed.
    unsafe { remote_io(pid, &pieces, Direction::Write) }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    Read,
    Write,
}

/// `process_vm_readv` or `process_vm_writev` of `(remote address, local buffer, length)`
/// pieces, all of them or an error.
///
/// # Safety
///
/// Each local buffer is valid for its length (and writable when reading) for the call.
#[cfg(target_os = "linux")]
unsafe fn remote_io(pid: u32, pieces: &[(u64, *mut u8, usize)], direction: Direction) -> Result<()> {
    // The kernel takes at most IOV_MAX (1024) pieces a call.
    for batch in pieces.chunks(1024) {
        let local: Vec<libc::iovec> = batch.iter().map(|&(_, ptr, len)| libc::iovec { iov_base: ptr.cast(), iov_len: len }).collect();
        let remote: Vec<libc::iovec> = batch.iter().map(|&(addr, _, len)| libc::iovec { iov_base: addr as usize as *mut libc::c_void, iov_len: len }).collect();
        let want: usize = batch.iter().map(|&(_, _, len)| len).sum();
        let call = if direction == Direction::Read { libc::process_vm_readv } else { libc::process_vm_writev };
        // SAFETY: the caller vouches for the local buffers; the kernel checks the remote ones.
        let got = unsafe { call(pid as libc::pid_t, local.as_ptr(), local.len() as _, remote.as_ptr(), remote.len() as _, 0) };
        if got < 0 || got as usize != want {
            let why = if got < 0 { std::io::Error::last_os_error().to_string() } else { format!("{got} bytes of {want}") };
            let verb = if direction == Direction::Read { "reading an array in" } else { "writing a result into" };
            return Err(TegulaError::Io(format!("{verb} the memory of process {pid}: {why}")));
        }
    }
    Ok(())
}

#[cfg(not(target_os = "linux"))]
unsafe fn remote_io(pid: u32, _: &[(u64, *mut u8, usize)], _: Direction) -> Result<()> {
    Err(TegulaError::Io(format!("reaching the memory of process {pid} needs Linux")))
}

/// Where a block of a result goes in the caller's memory: `region` of a row-major array of
/// `shape` at `addr`, which the caller holds, unread, until the worker says it wrote it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CallerRegion {
    probe: Probe,
    addr: u64,
    dtype: DType,
    shape: Vec<usize>,
    region: Vec<(usize, usize)>,
}

impl CallerRegion {
    /// `region` of the row-major array of `dtype` and `shape` at `addr` in this process.
    pub fn here(addr: u64, dtype: DType, shape: &[usize], region: Vec<(usize, usize)>) -> CallerRegion {
        CallerRegion { probe: Probe::here(), addr, dtype, shape: shape.to_vec(), region }
    }

    /// Writes `chunk` (cast to the array's dtype) into the region, in the caller's memory.
    pub fn write(&self, chunk: &Chunk) -> Result<()> {
        let extent: Vec<usize> = self.region.iter().map(|&(a, b)| b.saturating_sub(a)).collect();
        if chunk.shape() != extent.as_slice() {
            return Err(TegulaError::Value(format!("a block of shape {:?} for a region of {extent:?}", chunk.shape())));
        }
        if !self.probe.readable() {
            return Err(TegulaError::Io(format!("this worker cannot reach the memory of process {} that waits for its result", self.probe.pid)));
        }
        let cast;
        let chunk = if chunk.dtype() == self.dtype { chunk } else { cast = chunk.cast(self.dtype); &cast };
        with_bytes(chunk, |bytes| {
            let mut rest = bytes;
            let mut pieces = Vec::new();
            for (offset, len) in runs(&self.shape, &self.region, self.dtype.itemsize()) {
                let (piece, tail) = rest.split_at(len);
                pieces.push((self.addr + offset as u64, piece));
                rest = tail;
            }
            write_remote(self.probe.pid, &pieces)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tegula_kernels::Wrap;

    fn row_major_bytes(chunk: &Chunk) -> Vec<u8> {
        with_bytes(chunk, <[u8]>::to_vec)
    }

    #[test]
    fn runs_cover_the_region_row_major() {
        // 4 × 5 × 6 of 8-byte items: strides 240, 48, 8.
        assert_eq!(runs(&[4, 5, 6], &[(1, 3), (0, 5), (0, 6)], 8), vec![(240, 480)]);
        assert_eq!(runs(&[4, 5, 6], &[(1, 2), (2, 4), (0, 6)], 8), vec![(240 + 96, 96)]);
        assert_eq!(runs(&[4, 5, 6], &[(0, 2), (1, 2), (3, 5)], 8), vec![(48 + 24, 16), (240 + 48 + 24, 16)]);
        assert_eq!(runs(&[3], &[(0, 3)], 4), vec![(0, 12)]);
        assert_eq!(runs(&[], &[], 8), vec![(0, 8)]);
        assert!(runs(&[3, 4], &[(1, 1), (0, 4)], 8).is_empty());
    }

    #[test]
    fn a_worker_reads_regions_as_the_array_holds_them() {
        // A process reading its own memory takes the same path as a worker reading its caller's.
        let whole = ndarray::ArrayD::from_shape_fn(vec![7, 6, 5], |i| (i[0] * 100 + i[1] * 10 + i[2]) as f64);
        let chunk = f64::wrap(whole.clone().into());
        let source = CallerArray::describe(&chunk).expect("row-major").open().expect("this process reads itself");
        for region in [[(0, 7), (0, 6), (0, 5)], [(2, 5), (1, 4), (0, 5)], [(6, 7), (5, 6), (4, 5)], [(0, 7), (3, 4), (1, 3)]] {
            let expected = whole.slice_each_axis(|ax| ndarray::Slice::from(region[ax.axis.index()].0..region[ax.axis.index()].1)).to_owned();
            let mut got = vec![0u8; expected.len() * 8];
            source.read_into(&region, &mut got).unwrap();
            assert_eq!(got, row_major_bytes(&f64::wrap(expected.into())), "{region:?}");
        }
        let mut short = vec![0u8; 8];
        assert!(matches!(source.read_into(&[(0, 2), (0, 6), (0, 5)], &mut short), Err(TegulaError::Value(_))));
    }

    #[test]
    fn a_transposed_array_is_not_described() {
        let chunk = f64::wrap(ndarray::ArrayD::zeros(vec![3, 4]).reversed_axes().into());
        assert!(CallerArray::describe(&chunk).is_none());
    }

    #[test]
    fn a_probe_names_its_process_and_a_wrong_token_is_refused() {
        let probe = Probe::here();
        assert!(probe.readable());
        assert!(!Probe { token: [probe.token[0] ^ 1, probe.token[1]], ..probe }.readable());
        let array = CallerArray { probe: Probe { token: [0, 0], ..probe }, addr: 0, dtype: DType::Float64, shape: vec![1] };
        assert!(matches!(array.open(), Err(TegulaError::Io(_))));
    }

    #[test]
    fn a_worker_writes_a_block_into_its_region_of_the_callers_array() {
        let mut whole = ndarray::ArrayD::<f32>::zeros(vec![5, 4, 3]);
        let block = ndarray::ArrayD::from_shape_fn(vec![2, 3, 3], |i| (i[0] * 9 + i[1] * 3 + i[2] + 1) as f64);
        let place = CallerRegion::here(whole.as_mut_ptr() as u64, DType::Float32, &[5, 4, 3], vec![(2, 4), (1, 4), (0, 3)]);
        place.write(&f64::wrap(block.clone().into())).unwrap();
        let mut expected = ndarray::ArrayD::<f32>::zeros(vec![5, 4, 3]);
        expected.slice_mut(ndarray::s![2..4, 1..4, ..]).assign(&block.mapv(|v| v as f32));
        assert_eq!(whole, expected);
        let wrong = f64::wrap(ndarray::ArrayD::zeros(vec![2, 2, 3]).into());
        assert!(matches!(place.write(&wrong), Err(TegulaError::Value(_))));
    }
}
