//! NumPy's `.npy` files. Reads use positioned reads of the region's contiguous runs (not a
//! memory map: a file truncated under a map would kill the process with SIGBUS instead of
//! raising an error). A new file is written under a temporary name, region by region, and
//! renamed over the target when every region is in: readers see the old file or the new one.

use crate::codecs::parse_dtype;
use crate::{array_bytes, check_region, io_err as io, ChunkSink, ChunkSource, StoredInfo};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use tegula_core::{DType, Kind, Result, TegulaError};

const MAGIC: &[u8] = b"\x93NUMPY";

/// A parsed header: where the data starts and how it is laid out.
struct Header {
    dtype: DType,
    big_endian: bool,
    fortran: bool,
    shape: Vec<usize>,
    data_offset: u64,
}

fn read_header(path: &str, file: &File) -> Result<Header> {
    let corrupt = |what: &str| io(path, format!("not a valid .npy file ({what})"));
    let mut lead = [0u8; 12];
    let got = file.read_at(&mut lead, 0).map_err(|e| io(path, e))?;
    if got < 10 || &lead[..6] != MAGIC {
        return Err(corrupt("no .npy magic string"));
    }
    let (len, start) = match lead[6] {
        1 => (u16::from_le_bytes([lead[8], lead[9]]) as usize, 10),
        2 | 3 if got == 12 => (u32::from_le_bytes([lead[8], lead[9], lead[10], lead[11]]) as usize, 12),
        _ => return Err(corrupt("unknown version")),
    };
    let mut text = vec![0u8; len];
    file.read_exact_at(&mut text, start as u64).map_err(|_| corrupt("truncated header"))?;
    let text = String::from_utf8(text).map_err(|_| corrupt("header is not text"))?;
    let descr = dict_value(&text, "descr").ok_or_else(|| corrupt("no descr"))?;
    let descr = descr.trim_matches(|c| c == '\'' || c == '"');
    let dtype = parse_dtype(descr).map_err(|e| tegula_core::dtype_err!("{path}: {e}"))?;
    let fortran = match dict_value(&text, "fortran_order").map(str::trim) {
        Some("True") => true,
        Some("False") => false,
        _ => return Err(corrupt("no fortran_order")),
    };
    let shape = parse_shape(dict_value(&text, "shape").ok_or_else(|| corrupt("no shape"))?).ok_or_else(|| corrupt("bad shape"))?;
    Ok(Header { dtype, big_endian: descr.starts_with('>') && dtype.itemsize() > 1, fortran, shape, data_offset: (start + len) as u64 })
}

/// The text of `key`'s value in a header's Python dict literal (a tuple's parentheses kept).
fn dict_value<'t>(text: &'t str, key: &str) -> Option<&'t str> {
    let quoted = [format!("'{key}'"), format!("\"{key}\"")];
    let at = quoted.iter().find_map(|q| text.find(q.as_str()).map(|i| i + q.len()))?;
    let rest = text[at..].trim_start().strip_prefix(':')?.trim_start();
    let end = if rest.starts_with('(') { rest.find(')')? + 1 } else { rest.find([',', '}'])? };
    Some(&rest[..end])
}

fn parse_shape(text: &str) -> Option<Vec<usize>> {
    let inner = text.trim().strip_prefix('(')?.strip_suffix(')')?;
    inner.split(',').map(str::trim).filter(|s| !s.is_empty()).map(|s| s.trim_end_matches('L').parse().ok()).collect()
}

/// Calls `f(offset_in_elements_of_file, offset_in_elements_of_out, len)` for each contiguous
/// run of `region` inside a row-major array of `shape`.
fn for_each_run(shape: &[usize], region: &[(usize, usize)], mut f: impl FnMut(usize, usize, usize) -> Result<()>) -> Result<()> {
    let n = shape.len();
    // Axes from `inner` on are read whole; the run is along axis `inner - 1` (or everything).
    let mut inner = n;
    while inner > 0 && region[inner - 1] == (0, shape[inner - 1]) {
        inner -= 1;
    }
    let tail: usize = shape[inner..].iter().product();
    let (run_axis, run) = if inner == 0 { (None, tail) } else { (Some(inner - 1), (region[inner - 1].1 - region[inner - 1].0) * tail) };
    let outer = run_axis.unwrap_or(0);
    let mut idx: Vec<usize> = region[..outer].iter().map(|r| r.0).collect();
    if region.iter().any(|(a, b)| a == b) {
        return Ok(());
    }
    let mut done = 0;
    loop {
        let mut offset = 0;
        for a in 0..n {
            let i = if a < outer { idx[a] } else { region[a].0 };
            offset = offset * shape[a] + i;
        }
        f(offset, done, run)?;
        done += run;
        // Next index of the outer axes, last axis fastest.
        let mut a = outer;
        loop {
            if a == 0 {
                return Ok(());
            }
            a -= 1;
            idx[a] += 1;
            if idx[a] < region[a].1 {
                break;
            }
            idx[a] = region[a].0;
        }
    }
}

/// Reverses the byte order of every element (a complex number's two halves separately).
fn swap_bytes(bytes: &mut [u8], dtype: DType) {
    let width = if dtype.kind() == Kind::Complex { dtype.itemsize() / 2 } else { dtype.itemsize() };
    bytes.chunks_exact_mut(width).for_each(|e| e.reverse());
}

/// Transposes a row-major array of `shape` (elements of `itemsize` bytes) into `out`.
fn transpose_bytes(input: &[u8], shape: &[usize], itemsize: usize, out: &mut [u8]) {
    let n = shape.len();
    let mut strides = vec![1usize; n];
    for a in (0..n.saturating_sub(1)).rev() {
        strides[a] = strides[a + 1] * shape[a + 1];
    }
    // out has the reversed shape; walk it in row-major order.
    let mut idx = vec![0usize; n];
    for chunk in out.chunks_exact_mut(itemsize) {
        let src: usize = (0..n).map(|k| idx[k] * strides[n - 1 - k]).sum();
        chunk.copy_from_slice(&input[src * itemsize..(src + 1) * itemsize]);
        for k in (0..n).rev() {
            idx[k] += 1;
            if idx[k] < shape[n - 1 - k] {
                break;
            }
            idx[k] = 0;
        }
    }
}

pub struct NpySource {
    info: StoredInfo,
    file: File,
    header: Header,
}

impl NpySource {
    pub fn open(path: &str) -> Result<NpySource> {
        let file = File::open(path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => TegulaError::NotFound(format!("no such file or directory: {path}")),
            _ => io(path, e),
        })?;
        let header = read_header(path, &file)?;
        let size = file.metadata().map_err(|e| io(path, e))?.len();
        let need = header.data_offset + array_bytes(&header.shape, header.dtype) as u64;
        if size < need {
            return Err(io(path, format!("truncated: {size} bytes, the header describes {need}")));
        }
        let info = StoredInfo {
            path: path.into(),
            shape: header.shape.clone(),
            dtype: header.dtype,
            chunk_shape: header.shape.iter().map(|&n| n.max(1)).collect(),
            attributes: "{}".into(),
        };
        Ok(NpySource { info, file, header })
    }

    /// Reads `region` of the row-major array of `shape` stored in the file.
    fn read_c_order(&self, shape: &[usize], region: &[(usize, usize)], out: &mut [u8]) -> Result<()> {
        let item = self.header.dtype.itemsize();
        for_each_run(shape, region, |file_at, out_at, len| {
            let target = &mut out[out_at * item..(out_at + len) * item];
            self.file
                .read_exact_at(target, self.header.data_offset + (file_at * item) as u64)
                .map_err(|e| io(&self.info.path, format!("reading region {region:?}: {e}")))
        })
    }
}

impl ChunkSource for NpySource {
    fn info(&self) -> &StoredInfo {
        &self.info
    }

    fn read_into(&self, region: &[(usize, usize)], out: &mut [u8]) -> Result<()> {
        check_region(&self.info, region, out.len())?;
        if self.header.fortran {
            // The file holds the transpose in row-major order.
            let shape: Vec<usize> = self.header.shape.iter().rev().copied().collect();
            let flipped: Vec<(usize, usize)> = region.iter().rev().copied().collect();
            let mut buffer = vec![0u8; out.len()];
            self.read_c_order(&shape, &flipped, &mut buffer)?;
            let extents: Vec<usize> = flipped.iter().map(|(a, b)| b - a).collect();
            transpose_bytes(&buffer, &extents, self.header.dtype.itemsize(), out);
        } else {
            self.read_c_order(&self.header.shape, region, out)?;
        }
        if self.header.big_endian {
            swap_bytes(out, self.header.dtype);
        }
        Ok(())
    }
}

/// The header of a little-endian, row-major file (version 1.0, or 2.0 when it is long).
fn header_bytes(dtype: DType, shape: &[usize]) -> Vec<u8> {
    let descr = crate::codecs::v2_dtype(dtype);
    let dims: Vec<String> = shape.iter().map(|n| n.to_string()).collect();
    let tuple = if shape.len() == 1 { format!("({},)", dims[0]) } else { format!("({})", dims.join(", ")) };
    let mut dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {tuple}, }}");
    let long = dict.len() + 11 > u16::MAX as usize;
    let lead = if long { 12 } else { 10 };
    let total = (lead + dict.len() + 1).div_ceil(64) * 64;
    dict.push_str(&" ".repeat(total - lead - dict.len() - 1));
    dict.push('\n');
    let mut out = MAGIC.to_vec();
    if long {
        out.extend([2, 0]);
        out.extend((dict.len() as u32).to_le_bytes());
    } else {
        out.extend([1, 0]);
        out.extend((dict.len() as u16).to_le_bytes());
    }
    out.extend(dict.into_bytes());
    out
}

pub struct NpySink {
    info: StoredInfo,
    target: PathBuf,
    temp: PathBuf,
    file: File,
    data_offset: u64,
    finished: AtomicBool,
}

impl NpySink {
    pub fn create(path: &str, shape: &[usize], dtype: DType, overwrite: bool) -> Result<NpySink> {
        let target = PathBuf::from(path);
        if target.exists() && !overwrite {
            return Err(TegulaError::Exists(format!("{path} already exists; pass overwrite=True to replace it")));
        }
        if target.is_dir() {
            return Err(TegulaError::Exists(format!("{path} is a directory")));
        }
        let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let temp = target.with_file_name(format!(".{name}.{}{}", std::process::id(), crate::atomic::PARTIAL_SUFFIX));
        let header = header_bytes(dtype, shape);
        let data = array_bytes(shape, dtype) as u64;
        let file = File::create(&temp).map_err(|e| io(path, e))?;
        let written = file.write_all_at(&header, 0).and_then(|_| file.set_len(header.len() as u64 + data));
        if let Err(e) = written {
            let _ = std::fs::remove_file(&temp);
            return Err(io(path, e));
        }
        let info = StoredInfo { path: path.into(), shape: shape.to_vec(), dtype, chunk_shape: vec![1; shape.len()], attributes: "{}".into() };
        Ok(NpySink { info, target, temp, file, data_offset: header.len() as u64, finished: AtomicBool::new(false) })
    }
}

impl ChunkSink for NpySink {
    fn info(&self) -> &StoredInfo {
        &self.info
    }

    fn write(&self, region: &[(usize, usize)], bytes: &[u8]) -> Result<()> {
        check_region(&self.info, region, bytes.len())?;
        let item = self.info.dtype.itemsize();
        for_each_run(&self.info.shape, region, |file_at, at, len| {
            self.file
                .write_all_at(&bytes[at * item..(at + len) * item], self.data_offset + (file_at * item) as u64)
                .map_err(|e| io(&self.info.path, format!("writing region {region:?}: {e}")))
        })
    }

    fn finish(&self) -> Result<()> {
        std::fs::rename(&self.temp, &self.target).map_err(|e| io(&self.info.path, e))?;
        self.finished.store(true, Ordering::Release);
        Ok(())
    }
}

impl Drop for NpySink {
    /// An unfinished file (a failed compute) is removed; the target is untouched.
    fn drop(&mut self) {
        if !self.finished.load(Ordering::Acquire) {
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_cover_a_region_in_order() {
        let shape = [4, 5, 6];
        let region = [(1, 3), (2, 4), (0, 6)];
        let mut seen = Vec::new();
        for_each_run(&shape, &region, |file, out, len| {
            seen.push((file, out, len));
            Ok(())
        })
        .unwrap();
        assert_eq!(seen, vec![(42, 0, 12), (72, 12, 12)]);
        let mut all = Vec::new();
        for_each_run(&shape, &[(0, 4), (0, 5), (0, 6)], |f, o, l| Ok(all.push((f, o, l)))).unwrap();
        assert_eq!(all, vec![(0, 0, 120)]);
        let mut cols = Vec::new();
        for_each_run(&[3, 4], &[(0, 2), (1, 2)], |f, o, l| Ok(cols.push((f, o, l)))).unwrap();
        assert_eq!(cols, vec![(1, 0, 1), (5, 1, 1)]);
    }
}
