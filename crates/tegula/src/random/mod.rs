//! Counter-based random arrays: values depend on the seed, the call and each element's
//! position, never on the chunking.

use crate::array::Array;
use std::sync::atomic::{AtomicU64, Ordering};
pub use tegula_core::{Distribution, Rejection};
use tegula_core::{normalize_chunks, ChunkSpec, DType, Result};
use tegula_kernels::stream_key;
use tegula_plan::construct::{creation, elementwise};

/// Like NumPy's `Generator`: each call draws a fresh, independent stream.
pub struct Generator {
    seed: u64,
    calls: AtomicU64,
}

impl Generator {
    /// A generator whose streams all derive from `seed`.
    pub fn new(seed: u64) -> Generator {
        Generator { seed, calls: AtomicU64::new(0) }
    }

    /// Values of `dist` in an array of `shape`.
    pub fn draw(&self, dist: Distribution, shape: &[usize], dtype: DType, chunks: &ChunkSpec) -> Result<Array> {
        let chunks = normalize_chunks(chunks, shape, dtype.itemsize())?;
        let key = stream_key(self.seed, self.calls.fetch_add(1, Ordering::Relaxed));
        creation::random(key, dist, dtype, chunks).map(Array::from_node)
    }

    /// Values of `dist` in an array of `shape` with parameters given per element: `a` and `b`
    /// (see `Rejection`) broadcast to `shape`. Where they are equal everywhere, the values are
    /// `draw`'s with those parameters as numbers, from the same call.
    pub fn draw_with(&self, dist: Rejection, a: &Array, b: &Array, shape: &[usize], chunks: &ChunkSpec) -> Result<Array> {
        let words = self.draw(Distribution::Words, shape, DType::UInt64, chunks)?;
        elementwise::drawn(dist, &words.node, &a.node, &b.node).map(Array::from_node)
    }

    /// Uniform float64 values in [0, 1).
    pub fn random(&self, shape: &[usize], chunks: &ChunkSpec) -> Result<Array> {
        self.draw(Distribution::Uniform { low: 0.0, high: 1.0 }, shape, DType::Float64, chunks)
    }

    /// Float64 values of the standard normal distribution.
    pub fn standard_normal(&self, shape: &[usize], chunks: &ChunkSpec) -> Result<Array> {
        self.draw(Distribution::Normal { loc: 0.0, scale: 1.0 }, shape, DType::Float64, chunks)
    }

    /// Integers uniform on `[low, high)`, as int64.
    pub fn integers(&self, low: i64, high: i64, shape: &[usize], chunks: &ChunkSpec) -> Result<Array> {
        let dist = Distribution::Integers { low: low as i128, high: high as i128 };
        self.draw(dist, shape, DType::Int64, chunks)
    }
}

mod multivariate;
mod transformed;
pub use multivariate::{CovarianceFactor, MultivariateNormal};
pub use transformed::Param;
