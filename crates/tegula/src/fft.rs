//! Discrete Fourier transforms, NumPy's `numpy.fft`: each transform runs along one axis held in
//! one block (other axes stay chunked, [`Array::fft`](crate::Array::fft)); the real and
//! Hermitian variants, normalisation, cutting and padding, and the n-dimensional forms are
//! composed here of lazy operations.
//!
//! ```
//! use tegula::{Array, AxisChunks, ChunkSpec};
//! use tegula::fft::{rfft, FftNorm};
//! let x = Array::from_ndarray(ndarray::arr1(&[1.0, 2.0, 3.0, 4.0]).into_dyn(), &ChunkSpec::All(AxisChunks::Size(2))).unwrap();
//! let spectrum = rfft(&x, None, -1, FftNorm::Backward).unwrap();
//! assert_eq!(spectrum.shape(), [3]);
//! ```

use crate::array::Array;
use crate::constant::{at_axis, constant, positions};
use crate::ops::IndexItem;
use tegula_core::shape::normalize_axis;
use tegula_core::{value_err, BinaryOp, ChunkSpec, DType, Result, Scalar, TegulaError, UnaryOp};

/// Which direction is scaled, and how (NumPy's `norm=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FftNorm {
    /// The inverse transforms divide by `n` (NumPy's default).
    #[default]
    Backward,
    /// Both directions multiply by `1/sqrt(n)`.
    Ortho,
    /// The forward transforms divide by `n`.
    Forward,
}

impl FftNorm {
    /// NumPy's name; `None` is `"backward"`.
    pub fn from_name(name: Option<&str>) -> Result<FftNorm> {
        match name {
            None | Some("backward") => Ok(FftNorm::Backward),
            Some("ortho") => Ok(FftNorm::Ortho),
            Some("forward") => Ok(FftNorm::Forward),
            Some(other) => Err(value_err!("Invalid norm value {other}; should be \"backward\", \"ortho\" or \"forward\".")),
        }
    }

    /// The normalisation of the transform in the other direction (`hfft` through `irfft`).
    fn swapped(self) -> FftNorm {
        match self {
            FftNorm::Backward => FftNorm::Forward,
            FftNorm::Ortho => FftNorm::Ortho,
            FftNorm::Forward => FftNorm::Backward,
        }
    }
}

/// The one-dimensional transform along `axis`, cut or zero-padded to `n` points first.
pub fn fft(x: &Array, n: Option<i64>, axis: i64, norm: FftNorm) -> Result<Array> {
    transform(x, n, axis, norm, false)
}

/// The inverse of `fft`.
pub fn ifft(x: &Array, n: Option<i64>, axis: i64, norm: FftNorm) -> Result<Array> {
    transform(x, n, axis, norm, true)
}

/// The transform of a real array: its non-negative frequency terms only.
pub fn rfft(x: &Array, n: Option<i64>, axis: i64, norm: FftNorm) -> Result<Array> {
    let out = fft(&real_input(x)?, n, axis, norm)?;
    let axis = normalize_axis(axis, out.ndim())?;
    out.index(&along(out.ndim(), axis, 0, Some(out.shape()[axis] as i64 / 2 + 1), None))
}

/// The inverse of `rfft`: a real array of `n` points (`2 * (m - 1)` by default).
pub fn irfft(x: &Array, n: Option<i64>, axis: i64, norm: FftNorm) -> Result<Array> {
    let given = x.dtype();
    let x = complex(x)?;
    let axis = checked_axis(&x, axis)?;
    let n = n.unwrap_or(2 * (x.shape()[axis] as i64 - 1));
    if n < 1 {
        return Err(value_err!("Invalid number of FFT data points ({n}) specified."));
    }
    let full = hermitian_full(&x, n as usize, axis)?;
    real_result(given, ifft(&full, Some(n), axis as i64, norm)?.unary(UnaryOp::Real)?)
}

/// The transform of a signal with Hermitian symmetry given by its first half: real.
pub fn hfft(x: &Array, n: Option<i64>, axis: i64, norm: FftNorm) -> Result<Array> {
    let given = x.dtype();
    real_result(given, irfft(&complex(x)?.unary(UnaryOp::Conj)?, n, axis, norm.swapped())?)
}

/// The inverse of `hfft`.
pub fn ihfft(x: &Array, n: Option<i64>, axis: i64, norm: FftNorm) -> Result<Array> {
    rfft(x, n, axis, norm.swapped())?.unary(UnaryOp::Conj)
}

/// The n-dimensional transform: one-dimensional transforms along each of `axes` (the last
/// `s.len()` axes, or all, by default), the last first, each cut or padded to its size in `s`
/// (`None`: as it is).
pub fn fftn(x: &Array, s: Option<&[Option<i64>]>, axes: Option<&[i64]>, norm: FftNorm) -> Result<Array> {
    transform_n(x, s, axes, norm, false)
}

/// The inverse of `fftn`.
pub fn ifftn(x: &Array, s: Option<&[Option<i64>]>, axes: Option<&[i64]>, norm: FftNorm) -> Result<Array> {
    transform_n(x, s, axes, norm, true)
}

/// `fftn` of a real array: `rfft` along the last of `axes`, `fft` along the others.
pub fn rfftn(x: &Array, s: Option<&[Option<i64>]>, axes: Option<&[i64]>, norm: FftNorm) -> Result<Array> {
    let x = real_input(x)?;
    let (axes, sizes) = axes_and_sizes(&x, s, axes)?;
    let Some((&last, rest)) = axes.split_last() else { return Ok(x) };
    let mut out = rfft(&x, sizes[rest.len()], last, norm)?;
    for (&axis, &n) in rest.iter().zip(&sizes).rev() {
        out = fft(&out, n, axis, norm)?;
    }
    Ok(out)
}

/// The inverse of `rfftn`: `ifft` along all but the last of `axes`, then `irfft`.
pub fn irfftn(x: &Array, s: Option<&[Option<i64>]>, axes: Option<&[i64]>, norm: FftNorm) -> Result<Array> {
    let (axes, sizes) = axes_and_sizes(x, s, axes)?;
    let Some((&last, rest)) = axes.split_last() else { return Ok(x.clone()) };
    let mut out = x.clone();
    for (&axis, &n) in rest.iter().zip(&sizes) {
        out = ifft(&out, n, axis, norm)?;
    }
    irfft(&out, sizes[rest.len()], last, norm)
}

/// The sample frequencies of an `n`-point transform with sample spacing `d`.
pub fn fftfreq(n: usize, d: f64, dtype: Option<DType>) -> Result<Array> {
    if n == 0 {
        return Err(value_err!("n must be positive"));
    }
    let k = positions(n)?;
    let wrapped = k.binary_scalar(BinaryOp::GreaterEqual, Scalar::Int(n.div_ceil(2) as i128), false)?;
    let k = k.sub(&wrapped.binary_scalar(BinaryOp::Multiply, Scalar::Int(n as i128), true)?)?;
    k.binary_scalar(BinaryOp::Divide, Scalar::Float(n as f64 * d), false)?.astype(dtype.unwrap_or(DType::Float64))
}

/// The non-negative sample frequencies of an `n`-point real transform.
pub fn rfftfreq(n: usize, d: f64, dtype: Option<DType>) -> Result<Array> {
    if n == 0 {
        return Err(value_err!("n must be positive"));
    }
    positions(n / 2 + 1)?.binary_scalar(BinaryOp::Divide, Scalar::Float(n as f64 * d), false)?.astype(dtype.unwrap_or(DType::Float64))
}

/// The zero-frequency term moved to the middle: a roll by half of each of `axes` (all when
/// `None`).
pub fn fftshift(x: &Array, axes: Option<&[i64]>) -> Result<Array> {
    shift(x, axes, 1)
}

/// The inverse of `fftshift`.
pub fn ifftshift(x: &Array, axes: Option<&[i64]>) -> Result<Array> {
    shift(x, axes, -1)
}

fn shift(x: &Array, axes: Option<&[i64]>, direction: i64) -> Result<Array> {
    let axes = axes.map_or_else(|| (0..x.ndim() as i64).collect(), <[i64]>::to_vec);
    if axes.is_empty() {
        return Ok(x.clone());
    }
    let shape = x.shape();
    let shifts = axes.iter().map(|&a| Ok(direction * (shape[normalize_axis(a, x.ndim())?] / 2) as i64)).collect::<Result<Vec<_>>>()?;
    x.roll(&shifts, Some(&axes))
}

/// `x` as the complex type NumPy transforms it in: complex64 for float16 and float32,
/// complex128 for float64, integers and bools.
fn complex(x: &Array) -> Result<Array> {
    match x.dtype() {
        d if d.is_complex() => Ok(x.clone()),
        DType::Float16 | DType::Float32 => x.astype(DType::Complex64),
        d if d.is_float() || d.is_integer() || d == DType::Bool => x.astype(DType::Complex128),
        d => Err(TegulaError::DType(format!("fft takes a numeric array, not {d}"))),
    }
}

/// `x` as a real array (integers and bools transform as float64, as NumPy's).
fn real_input(x: &Array) -> Result<Array> {
    match x.dtype() {
        d if d.is_float() => Ok(x.clone()),
        d if d.is_integer() || d == DType::Bool => x.astype(DType::Float64),
        d => Err(TegulaError::DType(format!("rfft takes a real array, not {d}"))),
    }
}

/// NumPy's real inverse transforms of float16 input are float16 (computed in float32).
fn real_result(given: DType, result: Array) -> Result<Array> {
    if given == DType::Float16 {
        result.astype(DType::Float16)
    } else {
        Ok(result)
    }
}

fn checked_axis(x: &Array, axis: i64) -> Result<usize> {
    if x.ndim() == 0 {
        return Err(value_err!("fft needs an array of at least one dimension"));
    }
    normalize_axis(axis, x.ndim())
}

/// An index taking `start..stop` (by `step`) along `axis` of `ndim` axes.
fn along(ndim: usize, axis: usize, start: i64, stop: Option<i64>, step: Option<i64>) -> Vec<IndexItem> {
    at_axis(ndim, axis, IndexItem::Slice { start: Some(start), stop, step })
}

/// `x` cut or zero-padded to `n` points along `axis`, as NumPy's `n=`.
fn fit(x: &Array, n: i64, axis: usize) -> Result<Array> {
    if n < 1 {
        return Err(value_err!("Invalid number of FFT data points ({n}) specified."));
    }
    let length = x.shape()[axis] as i64;
    if n <= length {
        return x.index(&along(x.ndim(), axis, 0, Some(n), None));
    }
    let mut shape = x.shape();
    shape[axis] = (n - length) as usize;
    let zeros = Array::zeros(&shape, x.dtype(), &ChunkSpec::Auto(tegula_core::chunks::AUTO_CHUNK_BYTES))?;
    Array::concatenate(&[x, &zeros], Some(axis as i64))
}

fn scale(x: &Array, n: usize, norm: FftNorm, inverse: bool) -> Result<Array> {
    if n == 0 {
        return Ok(x.clone());
    }
    match norm {
        // NumPy's `1 / np.sqrt(n)` is a float64 scalar, which promotes complex64 (the result
        // is cast back).
        FftNorm::Ortho => x.mul(&constant(Scalar::Float(1.0 / (n as f64).sqrt()), DType::Float64)?),
        FftNorm::Backward if inverse => x.binary_scalar(BinaryOp::Multiply, Scalar::Float(1.0 / n as f64), false),
        FftNorm::Forward if !inverse => x.binary_scalar(BinaryOp::Multiply, Scalar::Float(1.0 / n as f64), false),
        _ => Ok(x.clone()),
    }
}

fn transform(x: &Array, n: Option<i64>, axis: i64, norm: FftNorm, inverse: bool) -> Result<Array> {
    let x = complex(x)?;
    let axis = checked_axis(&x, axis)?;
    let n = n.unwrap_or(x.shape()[axis] as i64);
    let x = fit(&x, n, axis)?;
    let out = x.fft(axis as i64, inverse)?;
    scale(&out, n as usize, norm, inverse)?.astype(x.dtype())
}

/// The axes and sizes of an n-dimensional transform, as NumPy defaults them.
fn axes_and_sizes(x: &Array, s: Option<&[Option<i64>]>, axes: Option<&[i64]>) -> Result<(Vec<i64>, Vec<Option<i64>>)> {
    let ndim = x.ndim() as i64;
    let axes: Vec<i64> = match (axes, s) {
        (Some(axes), _) => axes.to_vec(),
        (None, None) => (0..ndim).collect(),
        (None, Some(s)) => (ndim - s.len() as i64..ndim).collect(),
    };
    let sizes = match s {
        Some(s) if s.len() != axes.len() => return Err(value_err!("s and axes must have the same length")),
        Some(s) => s.to_vec(),
        None => vec![None; axes.len()],
    };
    Ok((axes, sizes))
}

fn transform_n(x: &Array, s: Option<&[Option<i64>]>, axes: Option<&[i64]>, norm: FftNorm, inverse: bool) -> Result<Array> {
    let (axes, sizes) = axes_and_sizes(x, s, axes)?;
    let mut out = x.clone();
    for (&axis, &n) in axes.iter().zip(&sizes).rev() {
        out = transform(&out, n, axis, norm, inverse)?;
    }
    complex(&out)
}

/// The full spectrum of `n` points whose first half is `x` (Hermitian symmetry).
fn hermitian_full(x: &Array, n: usize, axis: usize) -> Result<Array> {
    let m = n / 2 + 1;
    let x = fit(x, m as i64, axis)?;
    // The mirrored positive frequencies, conjugated.
    let tail = x.index(&along(x.ndim(), axis, (n - m) as i64, Some(0), Some(-1)))?.unary(UnaryOp::Conj)?;
    Array::concatenate(&[&x, &tail], Some(axis as i64))
}

impl Array {
    /// NumPy's `roll`: elements shifted by `shifts` along `axes` (one shift per axis), wrapping
    /// around; `axes` `None` rolls the flattened array by `shifts[0]`. Two slices joined per
    /// axis, so no block is copied.
    pub fn roll(&self, shifts: &[i64], axes: Option<&[i64]>) -> Result<Array> {
        let Some(axes) = axes else {
            let shift = match shifts {
                [s] => *s,
                _ => return Err(value_err!("shift and axis must have the same length")),
            };
            let shape: Vec<i64> = self.shape().iter().map(|&d| d as i64).collect();
            return self.reshape(&[-1])?.roll(&[shift], Some(&[0]))?.reshape(&shape);
        };
        if shifts.len() != axes.len() {
            return Err(value_err!("shift and axis must have the same length"));
        }
        let mut x = self.clone();
        for (&s, &a) in shifts.iter().zip(axes) {
            let a = normalize_axis(a, x.ndim())?;
            let n = x.shape()[a] as i64;
            if n == 0 || s.rem_euclid(n) == 0 {
                continue;
            }
            let cut = n - s.rem_euclid(n);
            let head = x.index(&along(x.ndim(), a, cut, None, None))?;
            let tail = x.index(&along(x.ndim(), a, 0, Some(cut), None))?;
            x = Array::concatenate(&[&head, &tail], Some(a as i64))?;
        }
        Ok(x)
    }
}
