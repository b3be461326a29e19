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
use tegula_core::grid::for_each_run;
use tegula_core::{DType, Kind, Result, TegulaError};

const MAGIC: &[u8] = b"\x93NUMPY";

/// A parsed header: where the data starts and how it is laid out.
pub(crate) struct Header {
    pub(crate) dtype: DType,
    big_endian: bool,
    fortran: bool,
    pub(crate) shape: Vec<usize>,
    pub(crate) data_offset: u64,
}

pub(crate) fn read_header(path: &str, file: &File) -> Result<Header> {
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
    // The header is read whole: refuse a length the file cannot hold before allocating it.
    let size = file.metadata().map_err(|e| io(path, e))?.len();
    if (start + len) as u64 > size {
        return Err(corrupt("truncated header"));
    }
    let mut text = vec![0u8; len];
    file.read_exact_at(&mut text, start as u64).map_err(|_| corrupt("truncated header"))?;
    let text = String::from_utf8(text).map_err(|_| corrupt("header is not text"))?;
    let bad = |what: String| tegula_core::value_err!("{path}: invalid .npy header ({what}): {}", text.trim_end());
    let dict = parse_header_dict(&text).map_err(bad)?;
    let descr = match &dict.descr {
        Literal::Str(d) => d.as_str(),
        _ => return Err(tegula_core::dtype_err!("{path}: structured dtypes are not supported by tegula")),
    };
    let dtype = parse_dtype(descr).map_err(|e| tegula_core::dtype_err!("{path}: {e}"))?;
    let shape = dict.shape;
    if shape.len() > crate::MAX_NDIM {
        return Err(bad(format!("{} dimensions, more than {}", shape.len(), crate::MAX_NDIM)));
    }
    crate::checked_bytes(&shape, dtype.itemsize())
        .ok_or_else(|| tegula_core::value_err!("{path}: shape {shape:?} of {dtype} is too large (more than isize::MAX bytes)"))?;
    Ok(Header { dtype, big_endian: descr.starts_with('>') && dtype.itemsize() > 1, fortran: dict.fortran, shape, data_offset: (start + len) as u64 })
}

/// A value of a `.npy` header's dict literal.
#[derive(Debug, PartialEq)]
enum Literal {
    Str(String),
    Bool(bool),
    Int(usize),
    Tuple(Vec<Literal>),
    List(Vec<Literal>),
}

/// What a header's dict says.
#[derive(Debug)]
struct HeaderDict {
    descr: Literal,
    fortran: bool,
    shape: Vec<usize>,
}

/// Parses a header: a Python dict literal with exactly the keys `descr` (a string, or a list
/// for structured dtypes), `fortran_order` (a bool) and `shape` (a tuple of ints), as NumPy
/// requires; then only spaces and a newline.
fn parse_header_dict(text: &str) -> std::result::Result<HeaderDict, String> {
    let mut p = Parser { s: text.as_bytes(), at: 0 };
    p.expect(b'{')?;
    let (mut descr, mut fortran, mut shape) = (None, None, None);
    loop {
        p.space();
        if p.eat(b'}') {
            break;
        }
        let key = match p.value(0)? {
            Literal::Str(k) => k,
            other => return Err(format!("key {other:?} is not a string")),
        };
        p.space();
        p.expect(b':')?;
        let value = p.value(0)?;
        let slot = match key.as_str() {
            "descr" => &mut descr,
            "fortran_order" => &mut fortran,
            "shape" => &mut shape,
            _ => return Err(format!("unexpected key {key:?}")),
        };
        if slot.replace(value).is_some() {
            return Err(format!("key {key:?} given twice"));
        }
        p.space();
        if !p.eat(b',') {
            p.space();
            p.expect(b'}')?;
            break;
        }
    }
    if !p.s[p.at..].iter().all(|c| c.is_ascii_whitespace() || *c == 0) {
        return Err("text after the dict".into());
    }
    let fortran = match fortran {
        Some(Literal::Bool(b)) => b,
        Some(_) => return Err("fortran_order is not a bool".into()),
        None => return Err("no fortran_order".into()),
    };
    let shape = match shape {
        Some(Literal::Tuple(items)) => items
            .into_iter()
            .map(|i| match i {
                Literal::Int(n) => Ok(n),
                _ => Err("shape holds something other than ints".to_string()),
            })
            .collect::<std::result::Result<Vec<_>, _>>()?,
        Some(_) => return Err("shape is not a tuple".into()),
        None => return Err("no shape".into()),
    };
    let descr = descr.ok_or("no descr")?;
    Ok(HeaderDict { descr, fortran, shape })
}

struct Parser<'t> {
    s: &'t [u8],
    at: usize,
}

impl Parser<'_> {
    fn space(&mut self) {
        while self.s.get(self.at).is_some_and(|c| c.is_ascii_whitespace()) {
            self.at += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        let hit = self.s.get(self.at) == Some(&c);
        self.at += hit as usize;
        hit
    }

    fn expect(&mut self, c: u8) -> std::result::Result<(), String> {
        if self.eat(c) { Ok(()) } else { Err(format!("expected {:?} at byte {}", c as char, self.at)) }
    }

    /// A string, bool, int, tuple or list (nested at most a few levels: structured dtypes).
    fn value(&mut self, depth: usize) -> std::result::Result<Literal, String> {
        if depth > 8 {
            return Err("values nested too deep".into());
        }
        self.space();
        match self.s.get(self.at).copied() {
            Some(q @ (b'\'' | b'"')) => {
                self.at += 1;
                let begin = self.at;
                while self.s.get(self.at).is_some_and(|&c| c != q && c != b'\\' && c != b'\n') {
                    self.at += 1;
                }
                let text = std::str::from_utf8(&self.s[begin..self.at]).map_err(|e| e.to_string())?.to_string();
                self.expect(q)?;
                Ok(Literal::Str(text))
            }
            Some(open @ (b'(' | b'[')) => {
                self.at += 1;
                let close = if open == b'(' { b')' } else { b']' };
                let mut items = Vec::new();
                let mut comma = false;
                loop {
                    self.space();
                    if self.eat(close) {
                        break;
                    }
                    items.push(self.value(depth + 1)?);
                    self.space();
                    comma = self.eat(b',');
                    if !comma {
                        self.space();
                        self.expect(close)?;
                        break;
                    }
                }
                // `(8)` is the int 8 in Python, not a tuple.
                if open == b'(' && items.len() == 1 && !comma {
                    return Err("a parenthesised value, not a tuple".into());
                }
                Ok(if open == b'(' { Literal::Tuple(items) } else { Literal::List(items) })
            }
            Some(b'0'..=b'9') => {
                let begin = self.at;
                while self.s.get(self.at).is_some_and(u8::is_ascii_digit) {
                    self.at += 1;
                }
                let digits = std::str::from_utf8(&self.s[begin..self.at]).map_err(|e| e.to_string())?;
                let n = digits.parse::<usize>().map_err(|_| format!("{digits} is too large"))?;
                self.eat(b'L'); // Python 2's long ints
                Ok(Literal::Int(n))
            }
            _ if self.s[self.at..].starts_with(b"True") => {
                self.at += 4;
                Ok(Literal::Bool(true))
            }
            _ if self.s[self.at..].starts_with(b"False") => {
                self.at += 5;
                Ok(Literal::Bool(false))
            }
            _ => Err(format!("unexpected text at byte {}", self.at)),
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

/// A NumPy `.npy` file read region by region (the whole file is one chunk).
pub struct NpySource {
    info: StoredInfo,
    file: File,
    header: Header,
}

impl NpySource {
    /// Opens the `.npy` file at `path`, refusing one shorter than its header describes.
    pub fn open(path: &str) -> Result<NpySource> {
        let file = crate::files::open_regular(std::path::Path::new(path)).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => TegulaError::NotFound(format!("no such file or directory: {path}")),
            _ => io(path, e),
        })?;
        let header = read_header(path, &file)?;
        let size = file.metadata().map_err(|e| io(path, e))?.len();
        let need = header.data_offset.saturating_add(array_bytes(&header.shape, header.dtype) as u64);
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

    /// The file and the offset of its first element, where its elements lie as a row-major,
    /// little-endian array (as `NpySink` writes them), for a reader that maps them into
    /// memory; `None` for a file stored another way.
    pub fn mappable(&self) -> Option<(&File, u64)> {
        (!self.header.big_endian && !self.header.fortran).then_some((&self.file, self.header.data_offset))
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

    fn url(&self) -> Option<String> {
        Some(format!("npy:{}", self.info.path))
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

/// A NumPy `.npy` file being written region by region, in a temporary file beside its path
/// until `finish`.
pub struct NpySink {
    info: StoredInfo,
    target: PathBuf,
    temp: PathBuf,
    file: File,
    data_offset: u64,
    finished: AtomicBool,
}

impl NpySink {
    /// Starts a `.npy` file of `shape` and `dtype` at `path`, refusing an existing one unless
    /// `overwrite`; nothing appears at `path` until `finish`.
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
        write_region(&self.file, self.data_offset, &self.info, region, bytes)
    }

    fn finish(&self) -> Result<()> {
        std::fs::rename(&self.temp, &self.target).map_err(|e| io(&self.info.path, e))?;
        self.finished.store(true, Ordering::Release);
        Ok(())
    }

    fn url(&self) -> Option<String> {
        let names = (self.info.path.as_str(), self.temp.to_str()?);
        serde_json::to_string(&names).ok().map(|json| format!("{STAGED_NPY_SCHEME}:{json}"))
    }
}

/// The URL scheme of a `.npy` file being written: `npy-staging:["PATH","TEMPORARY FILE"]`
/// (JSON, so any path goes through).
pub const STAGED_NPY_SCHEME: &str = "npy-staging";

/// Writes `region`'s elements (row-major) into the row-major data of a `.npy` file starting
/// at `data_offset`.
pub(crate) fn write_region(file: &File, data_offset: u64, info: &StoredInfo, region: &[(usize, usize)], bytes: &[u8]) -> Result<()> {
    check_region(info, region, bytes.len())?;
    let item = info.dtype.itemsize();
    for_each_run(&info.shape, region, |file_at, at, len| {
        file.write_all_at(&bytes[at * item..(at + len) * item], data_offset + (file_at * item) as u64)
            .map_err(|e| io(&info.path, format!("writing region {region:?}: {e}")))
    })
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
    fn header_dicts_are_parsed_not_searched() {
        let ok = parse_header_dict("{'descr': '<f8', 'fortran_order': False, 'shape': (8,), }          \n").unwrap();
        assert_eq!((ok.descr, ok.fortran, ok.shape), (Literal::Str("<f8".into()), false, vec![8]));
        let ok = parse_header_dict("{\"shape\": (2, 3L), 'fortran_order': True, 'descr': [('a', '<i4')]}").unwrap();
        assert_eq!((ok.fortran, ok.shape), (true, vec![2, 3]));
        assert_eq!(parse_header_dict("{'descr': '|b1', 'fortran_order': False, 'shape': ()}").unwrap().shape, Vec::<usize>::new());
        for bad in [
            "{'descr': '<f8', 'c': \"'shape': (2,),\", 'fortran_order': False, 'shape': (8,), }",
            "{'descr': '<f8', 'fortran_order': False, 'shape': (8,), 'shape': (2,)}",
            "{'descr': '<f8', 'fortran_order': False}",
            "{'descr': '<f8', 'fortran_order': 0, 'shape': (8,)}",
            "{'descr': '<f8', 'fortran_order': False, 'shape': (8)}",
            "{'descr': '<f8', 'fortran_order': False, 'shape': (-8,)}",
            "{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999999,)}",
            "{'descr': '<f8', 'fortran_order': False, 'shape': (8,)} x",
            "{'descr': '<f8', 'fortran_order': False, 'shape': (8,)",
            "",
        ] {
            assert!(parse_header_dict(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn byte_counts_are_checked() {
        assert_eq!(crate::checked_bytes(&[2, 3], 8), Some(48));
        assert_eq!(crate::checked_bytes(&[1 << 61], 8), None);
        assert_eq!(crate::checked_bytes(&[1 << 32, 1 << 32], 1), None);
        assert_eq!(crate::checked_bytes(&[0, usize::MAX], 1), None);
        assert_eq!(crate::checked_bytes(&[], 16), Some(16));
    }
}
