//! Chunkings: the canonical form (a list of block sizes per axis, as Dask's `chunks`) and the
//! normalisation of what users write (`4`, `(4, -1)`, `((2, 2), (3,))`, `"auto"`).

use crate::error::{Result, TegulaError};
use crate::limits::{check_array_shape, check_blocks_per_axis};
use crate::shape::fmt_shape;
use crate::value_err;
use serde::{Deserialize, Serialize};

/// The default byte target of one chunk for `chunks="auto"`.
pub const AUTO_CHUNK_BYTES: usize = 128 << 20;

/// A normalised chunking: `sizes[axis]` lists the block lengths along that axis; they sum to the
/// axis length. A zero-length axis has one empty block, `[0]`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Chunks {
    sizes: Vec<Vec<usize>>,
}

/// How one axis is chunked, before normalisation.
#[derive(Debug, Clone, PartialEq)]
pub enum AxisChunks {
    /// Blocks of this length (the last one may be shorter).
    Size(usize),
    /// One block covering the whole axis (`-1` or `None` in Python).
    Full,
    /// Chosen with the other `Auto` axes to reach the byte target.
    Auto,
    /// Explicit block lengths.
    Explicit(Vec<usize>),
}

/// What a user may pass as `chunks=`.
#[derive(Debug, Clone, PartialEq)]
pub enum ChunkSpec {
    /// Every axis `Auto`, with this byte target.
    Auto(usize),
    /// The same rule for every axis.
    All(AxisChunks),
    /// One rule per axis.
    PerAxis(Vec<AxisChunks>),
}

impl Chunks {
    /// Builds from per-axis block lengths, checking that they sum to `shape`.
    pub fn new(sizes: Vec<Vec<usize>>, shape: &[usize]) -> Result<Chunks> {
        if sizes.len() != shape.len() {
            return Err(value_err!(
                "chunks have {} dimensions but the shape {} has {}",
                sizes.len(),
                fmt_shape(shape),
                shape.len()
            ));
        }
        for (axis, (s, &n)) in sizes.iter().zip(shape).enumerate() {
            if s.is_empty() || s.iter().sum::<usize>() != n {
                return Err(value_err!(
                    "chunks {} along axis {axis} do not add up to the axis length {n}",
                    fmt_shape(s)
                ));
            }
        }
        Ok(Chunks { sizes })
    }

    /// One block per axis covering the whole array.
    pub fn single(shape: &[usize]) -> Chunks {
        Chunks { sizes: shape.iter().map(|&n| vec![n]).collect() }
    }

    /// Blocks of at most `block` elements along every axis.
    pub fn regular(shape: &[usize], block: &[usize]) -> Chunks {
        Chunks {
            sizes: shape.iter().zip(block).map(|(&n, &b)| split_axis(n, b)).collect(),
        }
    }

    /// The number of axes.
    pub fn ndim(&self) -> usize {
        self.sizes.len()
    }
    /// The block lengths along `axis`.
    pub fn axis(&self, axis: usize) -> &[usize] {
        &self.sizes[axis]
    }
    /// The block lengths along every axis (Dask's `chunks`).
    pub fn sizes(&self) -> &[Vec<usize>] {
        &self.sizes
    }
    /// The array's shape: the sum of the block lengths along each axis.
    pub fn shape(&self) -> Vec<usize> {
        self.sizes.iter().map(|s| s.iter().sum()).collect()
    }
    /// The number of blocks along each axis (Dask's `numblocks`).
    pub fn numblocks(&self) -> Vec<usize> {
        self.sizes.iter().map(|s| s.len()).collect()
    }
    /// The number of blocks (saturating: a plan of that many is refused, not miscounted).
    pub fn nblocks(&self) -> usize {
        self.sizes.iter().fold(1usize, |n, s| n.saturating_mul(s.len()))
    }
    /// The shape of the block at `index` (one block number per axis).
    pub fn block_shape(&self, index: &[usize]) -> Vec<usize> {
        self.sizes.iter().zip(index).map(|(s, &i)| s[i]).collect()
    }
    /// The number of elements of the block at `index`.
    pub fn block_size(&self, index: &[usize]) -> usize {
        self.sizes.iter().zip(index).map(|(s, &i)| s[i]).product()
    }
    /// The largest block length along each axis.
    pub fn max_block_shape(&self) -> Vec<usize> {
        self.sizes.iter().map(|s| s.iter().copied().max().unwrap_or(0)).collect()
    }
    /// A chunking with `sizes` for axis `axis` replaced.
    pub fn with_axis(&self, axis: usize, sizes: Vec<usize>) -> Chunks {
        let mut out = self.sizes.clone();
        out[axis] = sizes;
        Chunks { sizes: out }
    }
    /// The chunking of the axes listed in `axes`, in that order.
    pub fn select_axes(&self, axes: &[usize]) -> Chunks {
        Chunks { sizes: axes.iter().map(|&a| self.sizes[a].clone()).collect() }
    }
    /// Builds from per-axis block lengths, unchecked: the shape is their sums.
    pub fn from_axes(sizes: Vec<Vec<usize>>) -> Chunks {
        Chunks { sizes }
    }
}

/// Splits an axis of length `n` into blocks of `block` (the last may be shorter).
pub fn split_axis(n: usize, block: usize) -> Vec<usize> {
    if n == 0 {
        return vec![0];
    }
    let block = block.clamp(1, n);
    let mut out = vec![block; n / block];
    if !n.is_multiple_of(block) {
        out.push(n % block);
    }
    out
}

/// Chunk rules as a user writes them in Python: `(10, -1, 'auto', (4, 4, 2))`.
fn fmt_rules(rules: &[AxisChunks]) -> String {
    let items: Vec<String> = rules
        .iter()
        .map(|r| match r {
            AxisChunks::Size(n) => n.to_string(),
            AxisChunks::Full => "-1".into(),
            AxisChunks::Auto => "'auto'".into(),
            AxisChunks::Explicit(sizes) => fmt_shape(sizes),
        })
        .collect();
    match items.as_slice() {
        [one] => format!("({one},)"),
        _ => format!("({})", items.join(", ")),
    }
}

/// `split_axis`, refused before allocating when it would make too many blocks.
fn split_within_limit(n: usize, block: usize) -> Result<Vec<usize>> {
    check_blocks_per_axis(n.div_ceil(block.clamp(1, n.max(1))), n)?;
    Ok(split_axis(n, block))
}

/// Turns a user's chunk request into a canonical `Chunks` for `shape`.
pub fn normalize_chunks(spec: &ChunkSpec, shape: &[usize], itemsize: usize) -> Result<Chunks> {
    let (rules, target) = match spec {
        ChunkSpec::Auto(bytes) => (vec![AxisChunks::Auto; shape.len()], *bytes),
        ChunkSpec::All(rule) => (vec![rule.clone(); shape.len()], AUTO_CHUNK_BYTES),
        ChunkSpec::PerAxis(rules) => (rules.clone(), AUTO_CHUNK_BYTES),
    };
    if rules.len() != shape.len() {
        return Err(value_err!(
            "chunks {} have {} dimensions but the shape {} has {}",
            fmt_rules(&rules),
            rules.len(),
            fmt_shape(shape),
            shape.len()
        ));
    }
    check_array_shape(shape, itemsize)?;
    let auto = auto_block_lengths(&rules, shape, itemsize, target);
    let sizes = rules
        .iter()
        .zip(shape)
        .zip(auto)
        .map(|((rule, &n), auto_len)| match rule {
            AxisChunks::Size(0) if n > 0 => Err(value_err!("chunk sizes must be positive, got 0")),
            AxisChunks::Size(b) => split_within_limit(n, *b),
            AxisChunks::Full => Ok(vec![n]),
            AxisChunks::Auto => split_within_limit(n, auto_len),
            AxisChunks::Explicit(s) => {
                check_blocks_per_axis(s.len(), n)?;
                Ok(if s.is_empty() && n == 0 { vec![0] } else { s.clone() })
            }
        })
        .collect::<Result<Vec<_>>>()?;
    Chunks::new(sizes, shape)
}

/// Block lengths for the `Auto` axes: as equal as the axis lengths allow, with the product of
/// all block lengths times `itemsize` near `target` bytes (Dask's "auto" rule).
fn auto_block_lengths(rules: &[AxisChunks], shape: &[usize], itemsize: usize, target: usize) -> Vec<usize> {
    let fixed: f64 = rules
        .iter()
        .zip(shape)
        .map(|(r, &n)| match r {
            AxisChunks::Size(b) => (*b).min(n).max(1) as f64,
            AxisChunks::Full => n.max(1) as f64,
            AxisChunks::Explicit(s) => s.iter().copied().max().unwrap_or(1).max(1) as f64,
            AxisChunks::Auto => 1.0,
        })
        .product();
    let mut budget = (target as f64 / itemsize.max(1) as f64 / fixed).max(1.0);
    let mut out = vec![0; shape.len()];
    let mut open: Vec<usize> = (0..shape.len())
        .filter(|&i| rules[i] == AxisChunks::Auto)
        .collect();
    // Axes shorter than the ideal side take their whole length; the rest share what remains.
    loop {
        if open.is_empty() {
            break;
        }
        let side = budget.powf(1.0 / open.len() as f64);
        let (short, long): (Vec<usize>, Vec<usize>) =
            open.iter().partition(|&&i| (shape[i] as f64) <= side);
        if short.is_empty() {
            for &i in &long {
                out[i] = (side.floor() as usize).max(1);
            }
            break;
        }
        for &i in &short {
            out[i] = shape[i].max(1);
            budget /= shape[i].max(1) as f64;
        }
        budget = budget.max(1.0);
        open = long;
    }
    out
}

/// Parses a byte size such as `"128MiB"`, `"1 GB"`, `"4096"`.
pub fn parse_bytes(text: &str) -> Result<usize> {
    let t = text.trim();
    let split = t.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let value: f64 = num
        .trim()
        .parse()
        .map_err(|_| TegulaError::Value(format!("cannot parse byte size '{text}'")))?;
    let scale: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "kb" => 1e3,
        "mb" => 1e6,
        "gb" => 1e9,
        "tb" => 1e12,
        "kib" => 1024.0,
        "mib" => 1024f64.powi(2),
        "gib" => 1024f64.powi(3),
        "tib" => 1024f64.powi(4),
        _ => return Err(TegulaError::Value(format!("unknown byte unit in '{text}'"))),
    };
    if value < 0.0 || !value.is_finite() {
        return Err(TegulaError::Value(format!("byte size must be positive: '{text}'")));
    }
    Ok((value * scale) as usize)
}
