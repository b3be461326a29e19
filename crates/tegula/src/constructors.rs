//! Creating arrays: from in-memory data, constants and ranges.

use crate::array::Array;
use std::sync::Arc;
use tegula_core::{normalize_chunks, result_type, ChunkSpec, DType, Result, Scalar};
use tegula_kernels::{Chunk, Wrap};
use tegula_plan::construct::creation;

impl Array {
    /// An array holding `data` (which is moved, not copied), split into `chunks`.
    pub fn from_chunk(data: Chunk, chunks: &ChunkSpec) -> Result<Array> {
        let dtype = data.dtype();
        let chunks = normalize_chunks(chunks, data.shape(), dtype.itemsize())?;
        Ok(Array::from_node(creation::stored(Arc::new(data), dtype, chunks)))
    }

    /// An array holding `data` (moved, not copied), split into `chunks`.
    pub fn from_ndarray<T: Wrap>(data: ndarray::ArrayD<T>, chunks: &ChunkSpec) -> Result<Array> {
        Array::from_chunk(T::wrap(data.into()), chunks)
    }

    /// An array of `shape` filled with `value` (dtype: `dtype`, or the value's own).
    pub fn full(shape: &[usize], value: Scalar, dtype: Option<DType>, chunks: &ChunkSpec) -> Result<Array> {
        let dtype = dtype.unwrap_or_else(|| value.default_dtype());
        let chunks = normalize_chunks(chunks, shape, dtype.itemsize())?;
        Ok(Array::from_node(creation::full(value, dtype, chunks)?))
    }

    /// An array of `shape` filled with zeros of `dtype`.
    pub fn zeros(shape: &[usize], dtype: DType, chunks: &ChunkSpec) -> Result<Array> {
        Array::full(shape, Scalar::Bool(false), Some(dtype), chunks)
    }

    /// An array of `shape` filled with ones of `dtype`.
    pub fn ones(shape: &[usize], dtype: DType, chunks: &ChunkSpec) -> Result<Array> {
        Array::full(shape, Scalar::Bool(true), Some(dtype), chunks)
    }

    /// NumPy's `arange(start, stop, step)`: integers when all three are, float64 otherwise.
    pub fn arange(start: Scalar, stop: Scalar, step: Scalar, dtype: Option<DType>, chunks: &ChunkSpec) -> Result<Array> {
        let dtype = match dtype {
            Some(d) => d,
            None => result_type(&[start.default_dtype(), stop.default_dtype(), step.default_dtype()])?,
        };
        // NumPy stores `start` and `start + step` (added as Python numbers) and fills the rest
        // from their difference in the dtype's arithmetic.
        let (len, second) = match (start, stop, step) {
            (Scalar::Int(_) | Scalar::Bool(_), Scalar::Int(_) | Scalar::Bool(_), Scalar::Int(s)) => {
                let (a, b) = (int_of(start), int_of(stop));
                if s == 0 {
                    return Err(tegula_core::value_err!("Maximum allowed size exceeded"));
                }
                let len = if s > 0 { (b - a + s - 1).div_euclid(s) } else { (a - b - s - 1).div_euclid(-s) };
                (len.max(0) as usize, Scalar::Int(a + s))
            }
            _ => {
                let (a, b, s) = (start.as_f64(), stop.as_f64(), step.as_f64());
                if s == 0.0 || !s.is_finite() {
                    return Err(tegula_core::value_err!("arange step must be finite and non-zero"));
                }
                let len = ((b - a) / s).ceil();
                if !len.is_finite() {
                    return Err(tegula_core::value_err!("arange: cannot compute length"));
                }
                (len.max(0.0) as usize, Scalar::Float(a + s))
            }
        };
        let chunks = normalize_chunks(chunks, &[len], dtype.itemsize())?;
        Ok(Array::from_node(creation::arange(start, second, dtype, chunks)?))
    }

    /// Ones on the `k`-th diagonal of an `n_rows` by `n_cols` matrix, zeros elsewhere (NumPy's
    /// `eye`), generated block by block; `chunks` cuts each axis as it would a 1-d array (one
    /// rule per axis: the rows by the first, the columns by the second).
    pub fn eye(n_rows: usize, n_cols: usize, k: i64, dtype: DType, chunks: &ChunkSpec) -> Result<Array> {
        use crate::ops::IndexItem::{NewAxis, Slice};
        // Each axis's rule (one rule per axis: rows, then columns) for its range of positions.
        let axis = |i: usize| match chunks {
            ChunkSpec::PerAxis(axes) if axes.len() == 2 => ChunkSpec::All(axes[i].clone()),
            other => other.clone(),
        };
        let range = |n: usize, i: usize| Array::arange(Scalar::Int(0), Scalar::Int(n as i128), Scalar::Int(1), Some(DType::Int64), &axis(i));
        let all = Slice { start: None, stop: None, step: None };
        let rows = range(n_rows, 0)?.index(&[all, NewAxis])?;
        let cols = range(n_cols, 1)?.index(&[NewAxis, all])?;
        let offsets = cols.sub(&rows)?;
        offsets.binary_scalar(tegula_core::BinaryOp::Equal, Scalar::Int(k.into()), false)?.astype(dtype)
    }

    /// NumPy's `linspace(start, stop, num, endpoint)`.
    pub fn linspace(start: f64, stop: f64, num: usize, endpoint: bool, dtype: DType, chunks: &ChunkSpec) -> Result<Array> {
        let chunks = normalize_chunks(chunks, &[num], dtype.itemsize())?;
        Ok(Array::from_node(creation::linspace(start, stop, endpoint, dtype, chunks)?))
    }
}

fn int_of(s: Scalar) -> i128 {
    match s {
        Scalar::Int(v) => v,
        Scalar::Bool(b) => b as i128,
        _ => 0,
    }
}
