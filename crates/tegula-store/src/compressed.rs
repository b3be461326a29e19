//! Chunks compressed with zstd or gzip alone (the common Zarr chains: v3 `[bytes, zstd]` or
//! `[bytes, gzip]`, v2 `compressor` zstd or gzip without filters), decoded here rather than by
//! `zarrs`, so that a chunk never decodes to more than its declared size: each is streamed
//! into a buffer of exactly the chunk's bytes (its shape times the item size), and one that
//! would hold more (a "decompression bomb": a 568 KB zstd file decodes to 16 GB), or less, is
//! an error naming the chunk, with memory bounded by the chunk. `zarrs` decodes a frame whole,
//! to whatever size its header (or a gzip stream) says.

use crate::atomic::AtomicStore;
use crate::zstd_stream::ZstdStream;
use rayon::prelude::*;
use unsafe_cell_slice::UnsafeCellSlice;
use crate::{io_err, StoredInfo};
use serde_json::Value;
use std::io::Read;
use std::sync::Arc;
use tegula_core::{Result, TegulaError};
use zarrs::array::Array;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Codec {
    Zstd,
    Gzip,
}

pub(crate) struct Compressed {
    store: Arc<AtomicStore>,
    codec: Codec,
    /// One element of the fill value (native byte order), for chunks never written.
    fill: Vec<u8>,
}

impl Compressed {
    /// A reader when `meta` (the array's metadata document) describes such chunks, holding
    /// little-endian elements (this machine's order).
    pub(crate) fn new(meta: &Value, store: &Arc<AtomicStore>, fill: &[u8]) -> Option<Compressed> {
        let codec = |name: Option<&str>| match name {
            Some("zstd") => Some(Codec::Zstd),
            Some("gzip") => Some(Codec::Gzip),
            _ => None,
        };
        let codec = match meta["zarr_format"].as_u64() {
            Some(3) => match meta["codecs"].as_array().map(Vec::as_slice) {
                Some([bytes, compressor]) => {
                    let little = bytes["configuration"]["endian"].as_str().is_none_or(|e| e == "little");
                    let plain = bytes["name"] == "bytes" && little && meta["storage_transformers"].as_array().is_none_or(|t| t.is_empty());
                    codec(compressor["name"].as_str()).filter(|_| plain)
                }
                _ => None,
            },
            Some(2) => {
                let plain = meta["filters"].as_array().is_none_or(|f| f.is_empty())
                    && meta["order"] == "C"
                    && meta["dtype"].as_str().is_some_and(|d| d.starts_with('<') || d.starts_with('|'));
                codec(meta["compressor"]["id"].as_str()).filter(|_| plain)
            }
            _ => None,
        }?;
        cfg!(target_endian = "little").then(|| Compressed { store: store.clone(), codec, fill: fill.to_vec() })
    }

    /// Reads `region` (checked by the caller) into `out`, its chunks decoded in parallel on
    /// the current rayon pool (the executor's: one thread budget), as zarrs does.
    pub(crate) fn read(&self, array: &Array<AtomicStore>, info: &StoredInfo, region: &[(usize, usize)], out: &mut [u8]) -> Result<()> {
        let item = info.dtype.itemsize();
        let chunk_bytes = info.chunk_shape.iter().product::<usize>() * item;
        let first: Vec<usize> = region.iter().zip(&info.chunk_shape).map(|(&(a, _), &c)| a / c).collect();
        let last: Vec<usize> = region.iter().zip(&info.chunk_shape).map(|(&(a, b), &c)| (b - 1).max(a) / c).collect();
        let mut chunks = Vec::new();
        let mut index = first.clone();
        'all: loop {
            chunks.push(index.clone());
            // The next chunk, last axis fastest.
            let mut axis = index.len();
            loop {
                if axis == 0 {
                    break 'all;
                }
                axis -= 1;
                index[axis] += 1;
                if index[axis] <= last[axis] {
                    break;
                }
                index[axis] = first[axis];
            }
        }
        // A block that is one whole stored chunk (the usual case) is decoded straight into
        // place: no buffer to fill, fault in and copy from.
        let whole_chunk = chunks.len() == 1
            && region.iter().zip(&info.chunk_shape).zip(&first).all(|((&(a, b), &c), &i)| a == i * c && b == a + c);
        let shared = UnsafeCellSlice::new(out);
        chunks.par_iter().try_for_each_init(Buffers::default, |buffers, index| {
            let key: Vec<u64> = index.iter().map(|&i| i as u64).collect();
            let store_key = array.chunk_key(&key);
            let path = self.store.path_of(&store_key);
            let fail = |what: String| io_err(&info.path, format!("reading chunk {index:?} ({store_key}): {what}"));
            let Some(file) = self.store.root().open(&path).map_err(|e| fail(e.to_string()))? else {
                // A chunk never written: its part of the region is the fill value.
                // SAFETY: the parts of the region that different chunks cover are disjoint, so
                // no two threads write the same bytes of `out`.
                let mut write = |at: usize, row: &[u8]| unsafe { shared.index_mut(at..at + row.len()) }.copy_from_slice(row);
                copy_part(Source::Fill(&self.fill), index, &info.chunk_shape, region, item, &mut write);
                return Ok(());
            };
            if whole_chunk {
                // SAFETY: the only chunk, so the only writer of `out`.
                let out = unsafe { shared.index_mut(0..chunk_bytes) };
                return self.decode(file, &mut buffers.zstd, out).map_err(fail);
            }
            // Fallible: metadata may declare a chunk far larger than the array (or memory).
            let chunk = &mut buffers.chunk;
            chunk.clear();
            chunk.try_reserve_exact(chunk_bytes).map_err(|_| {
                TegulaError::Memory(format!("{}: chunk {index:?} ({store_key}) of {chunk_bytes} bytes does not fit in memory", info.path))
            })?;
            chunk.resize(chunk_bytes, 0);
            self.decode(file, &mut buffers.zstd, chunk).map_err(fail)?;
            // SAFETY: as for the fill value above.
            let mut write = |at: usize, row: &[u8]| unsafe { shared.index_mut(at..at + row.len()) }.copy_from_slice(row);
            copy_part(Source::Chunk(chunk), index, &info.chunk_shape, region, item, &mut write);
            Ok(())
        })
    }

    /// Decodes the chunk file into `out`, which it must fill exactly. zstd is decoded while
    /// the file is read, straight into `out`, by the thread's `zstd` stream; a file that does
    /// not decode to exactly `out`'s length, and gzip, are streamed through a reader, which
    /// bounds what is read and names what is wrong.
    fn decode(&self, file: std::fs::File, zstd: &mut ZstdStream, out: &mut [u8]) -> std::result::Result<(), String> {
        if self.codec == Codec::Zstd && zstd.decode_into(&file, out).map_err(|e| e.to_string())? {
            return Ok(());
        }
        self.stream(std::io::BufReader::new(file), out)
    }

    /// Decodes a chunk into `out` as a stream, reading no more than one byte past `out`.
    fn stream(&self, input: impl std::io::BufRead, out: &mut [u8]) -> std::result::Result<(), String> {
        let mut decoder: Box<dyn Read + '_> = match self.codec {
            Codec::Zstd => Box::new(zstd::stream::read::Decoder::with_buffer(input).map_err(|e| format!("zstd: {e}"))?),
            Codec::Gzip => Box::new(flate2::bufread::GzDecoder::new(input)),
        };
        let failed = |e: std::io::Error| format!("{:?} decoding failed: {e}", self.codec);
        let len = out.len();
        let mut filled = 0;
        while filled < len {
            match decoder.read(&mut out[filled..]).map_err(failed)? {
                0 => return Err(format!("the chunk decodes to {filled} bytes, expected {len}")),
                n => filled += n,
            }
        }
        let mut extra = [0u8; 1];
        match decoder.read(&mut extra).map_err(failed)? {
            0 => Ok(()),
            _ => Err(format!("the chunk decodes to more than its {len} bytes (shape × item size); not reading further")),
        }
    }
}

/// Per-thread buffers of a read: a decoded chunk of which the read needs a part, and a zstd
/// decoder with its input buffer (made once per thread of a read, not per chunk).
#[derive(Default)]
struct Buffers {
    chunk: Vec<u8>,
    zstd: ZstdStream,
}

/// What a chunk's part of a region comes from.
enum Source<'a> {
    /// The decoded chunk, whole, row-major.
    Chunk(&'a [u8]),
    /// One element of the fill value.
    Fill(&'a [u8]),
}

/// Copies the part of chunk `index` (a full chunk of `chunk_shape`, row-major) that lies in
/// `region` into the region's elements (row-major): `write(byte offset, row)` for each row.
fn copy_part(source: Source, index: &[usize], chunk_shape: &[usize], region: &[(usize, usize)], item: usize, write: &mut dyn FnMut(usize, &[u8])) {
    let n = index.len();
    // The part, in array coordinates.
    let part: Vec<(usize, usize)> = (0..n)
        .map(|a| {
            let start = index[a] * chunk_shape[a];
            (start.max(region[a].0), (start + chunk_shape[a]).min(region[a].1))
        })
        .collect();
    if part.iter().any(|(a, b)| a >= b) {
        return;
    }
    let extent: Vec<usize> = region.iter().map(|(a, b)| b - a).collect();
    let row = if n == 0 { 1 } else { part[n - 1].1 - part[n - 1].0 } * item;
    let mut at: Vec<usize> = part.iter().map(|p| p.0).collect();
    let fill_row: Vec<u8> = match source {
        Source::Fill(element) => element.iter().cycle().take(row).copied().collect(),
        Source::Chunk(_) => Vec::new(),
    };
    loop {
        let (mut src, mut dst) = (0, 0);
        for a in 0..n {
            src = src * chunk_shape[a] + (at[a] - index[a] * chunk_shape[a]);
            dst = dst * extent[a] + (at[a] - region[a].0);
        }
        match source {
            Source::Chunk(chunk) => write(dst * item, &chunk[src * item..src * item + row]),
            Source::Fill(_) => write(dst * item, &fill_row),
        }
        // The next row: every axis but the last.
        let mut axis = n.saturating_sub(1);
        loop {
            if axis == 0 {
                return;
            }
            axis -= 1;
            at[axis] += 1;
            if at[axis] < part[axis].1 {
                break;
            }
            at[axis] = part[axis].0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{copy_part, Source};

    #[test]
    fn parts_of_chunks_land_in_place() {
        // A 5 × 7 array in 2 × 3 chunks; the region rows 1..4, columns 2..6.
        let value = |i: usize, j: usize| (i * 10 + j) as u8;
        let region = [(1, 4), (2, 6)];
        let mut out = vec![0u8; 12];
        for ci in 0..3 {
            for cj in 0..3 {
                let chunk: Vec<u8> = (0..6).map(|k| value(ci * 2 + k / 3, cj * 3 + k % 3)).collect();
                copy_part(Source::Chunk(&chunk), &[ci, cj], &[2, 3], &region, 1, &mut |at, row| out[at..at + row.len()].copy_from_slice(row));
            }
        }
        let expected: Vec<u8> = (1..4).flat_map(|i| (2..6).map(move |j| value(i, j))).collect();
        assert_eq!(out, expected);
        let mut scalar = vec![0u8; 2];
        copy_part(Source::Chunk(&[7, 9]), &[], &[], &[], 2, &mut |at, row| scalar[at..at + row.len()].copy_from_slice(row));
        assert_eq!(scalar, [7, 9]);
        // A missing chunk's part is the fill value: rows 4..5 (chunk 2 along the first axis).
        let mut filled = vec![0u8; 12];
        copy_part(Source::Fill(&[5]), &[2, 0], &[2, 3], &region, 1, &mut |at, row| filled[at..at + row.len()].copy_from_slice(row));
        assert_eq!(filled, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]); // rows 4..6 lie outside rows 1..4
        copy_part(Source::Fill(&[5]), &[1, 0], &[2, 3], &region, 1, &mut |at, row| filled[at..at + row.len()].copy_from_slice(row));
        assert_eq!(filled, [0, 0, 0, 0, 5, 0, 0, 0, 5, 0, 0, 0]);
    }
}
