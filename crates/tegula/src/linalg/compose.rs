//! The functions of NumPy's `linalg` built from others: the pseudo-inverse with a tolerance per
//! matrix, the rank, powers and chains of products, the cross product, the
//! diagonal and the trace.

use super::{adjoint, norms::square, Linalg};
use crate::array::Array;
use crate::constant::{all, constant};
use crate::ops::{IndexItem, ReduceSpec};
use tegula_core::{linalg_err, value_err, BinaryOp, ChunkSpec, DType, LinalgOp, ReduceOp, Result, Scalar, TegulaError};

impl Linalg {
    /// The Moore-Penrose pseudo-inverse of each matrix, from the singular values above `rtol`
    /// times the largest (default `max(M, N) * eps`), one task per matrix.
    pub fn pinv(&self, x: &Array, rtol: Option<f64>) -> Result<Array> {
        x.linalg(LinalgOp::Pinv { rtol }, &[])
    }

    /// `pinv` with a tolerance per matrix (`rtol` broadcast over the stack), from the SVD.
    pub fn pinv_each(&self, x: &Array, rtol: &Array) -> Result<Array> {
        let (u, s, vh) = self.svd(x, false)?;
        let cutoff = last_axis_new(rtol)?.mul(&largest(&s)?)?;
        let kept = s.binary(BinaryOp::Greater, &cutoff)?;
        let one = constant(Scalar::Int(1), s.dtype())?;
        let inverted = Array::where_(&kept, &s, &one)?.binary_scalar(BinaryOp::Divide, Scalar::Int(1), true)?;
        let inverse = Array::where_(&kept, &inverted, &constant(Scalar::Int(0), s.dtype())?)?.astype(s.dtype())?;
        let scaled = adjoint(&vh)?.mul(&inverse.index(&[IndexItem::Ellipsis, IndexItem::NewAxis, all()])?)?;
        scaled.matmul(&adjoint(&u)?)
    }

    /// How many singular values of each matrix exceed `rtol` (broadcast over the stack;
    /// default `max(M, N) * eps`) times the largest.
    pub fn matrix_rank(&self, x: &Array, rtol: Option<&Array>) -> Result<Array> {
        let s = self.svdvals(x)?;
        let default;
        let rtol = match rtol {
            Some(r) => r,
            None => {
                default = constant(Scalar::Float(default_rtol(x)), DType::Float64)?;
                &default
            }
        };
        let tolerance = if s.shape().last().is_some_and(|&n| n > 0) {
            last_axis_new(rtol)?.mul(&largest(&s)?)?
        } else {
            constant(Scalar::Int(0), DType::Int64)?
        };
        let above = s.binary(BinaryOp::Greater, &tolerance)?;
        above.reduce(&ReduceSpec { axes: Some(vec![-1]), dtype: Some(DType::Int64), ..ReduceSpec::new(ReduceOp::Sum) })
    }

    /// `x` multiplied by itself `n` times (by repeated squaring); `n == 0` gives identities and
    /// a negative `n` powers of the inverse.
    pub fn matrix_power(&self, x: &Array, n: i64) -> Result<Array> {
        square(x)?;
        if n == 0 {
            let side = x.shape()[x.ndim() - 1];
            return Array::eye(side, side, 0, x.dtype(), &ChunkSpec::Auto(tegula_core::chunks::AUTO_CHUNK_BYTES))?.broadcast_to(&x.shape());
        }
        let (mut base, mut n) = if n < 0 { (x.linalg(LinalgOp::Inv, &[])?, n.unsigned_abs()) } else { (x.clone(), n as u64) };
        let mut result: Option<Array> = None;
        while n > 0 {
            if n & 1 == 1 {
                result = Some(match result {
                    Some(r) => r.matmul(&base)?,
                    None => base.clone(),
                });
            }
            n >>= 1;
            if n > 0 {
                base = base.matmul(&base)?;
            }
        }
        Ok(result.expect("n is not zero"))
    }

    /// NumPy's `linalg.multi_dot`: the product of two or more matrices (the first may be a row
    /// vector, the last a column vector), multiplied in the order that needs the fewest scalar
    /// multiplications, as NumPy chooses it.
    pub fn multi_dot(&self, arrays: &[&Array]) -> Result<Array> {
        match arrays {
            [] | [_] => return Err(value_err!("Expecting at least two arrays.")),
            [a, b] => return a.matmul(b),
            _ => {}
        }
        let (first, last) = (arrays[0].ndim(), arrays[arrays.len() - 1].ndim());
        let mut matrices: Vec<Array> = arrays.iter().map(|a| (*a).clone()).collect();
        if first == 1 {
            matrices[0] = matrices[0].reshape(&[1, -1])?;
        }
        if last == 1 {
            let end = matrices.len() - 1;
            matrices[end] = matrices[end].reshape(&[-1, 1])?;
        }
        if let Some(a) = matrices.iter().find(|a| a.ndim() != 2) {
            return Err(linalg_err!("{}-dimensional array given. Array must be two-dimensional", a.ndim()));
        }
        let shapes: Vec<(usize, usize)> = matrices.iter().map(|a| (a.shape()[0], a.shape()[1])).collect();
        let result = chain(&matrices, &chain_order(&shapes), 0, matrices.len() - 1)?;
        match (first, last) {
            (1, 1) => result.index(&[IndexItem::Int(0), IndexItem::Int(0)]),
            (1, _) | (_, 1) => result.reshape(&[-1]),
            _ => Ok(result),
        }
    }
}

impl Array {
    /// The cross product of 3-element vectors along `axis` (a negative axis, counted from the
    /// end of both; the other axes broadcast).
    pub fn cross(&self, other: &Array, axis: i64) -> Result<Array> {
        let ndim = self.ndim().min(other.ndim());
        if !(-(ndim as i64)..0).contains(&axis) {
            return Err(TegulaError::Axis { axis, ndim });
        }
        let length = |x: &Array| x.shape()[(x.ndim() as i64 + axis) as usize];
        if length(self) != 3 || length(other) != 3 {
            return Err(value_err!("cross takes vectors of 3 elements along axis {axis} (got {} and {})", length(self), length(other)));
        }
        let part = |x: &Array, i: i64| -> Result<Array> {
            let mut key = vec![IndexItem::Ellipsis, IndexItem::Int(i)];
            key.extend((0..(-axis - 1)).map(|_| all()));
            x.index(&key)
        };
        let (a, b): (Vec<Array>, Vec<Array>) = ((0..3).map(|i| part(self, i)).collect::<Result<_>>()?, (0..3).map(|i| part(other, i)).collect::<Result<_>>()?);
        let term = |i: usize, j: usize| -> Result<Array> { a[i].mul(&b[j])?.sub(&a[j].mul(&b[i])?) };
        let parts = [term(1, 2)?, term(2, 0)?, term(0, 1)?];
        Array::stack(&parts.iter().collect::<Vec<_>>(), axis)
    }

    /// The `offset`-th diagonal of each matrix (the last two axes): every `N + 1`-th element of
    /// the matrix's row-major elements (a reshape and a strided slice, so values are copied
    /// exactly).
    pub fn diagonal(&self, offset: i64) -> Result<Array> {
        let nd = self.ndim();
        if nd < 2 {
            return Err(value_err!("diagonal needs an array of at least two dimensions"));
        }
        let shape = self.shape();
        let (m, n) = (shape[nd - 2] as i64, shape[nd - 1] as i64);
        let k = 0.max(m.min(n - offset) - 0.max(-offset));
        let start = if offset >= 0 { offset } else { -offset * n };
        let mut dims: Vec<i64> = shape[..nd - 2].iter().map(|&d| d as i64).collect();
        dims.push(m * n);
        let flat = self.reshape(&dims)?;
        let taken = if k > 0 {
            IndexItem::Slice { start: Some(start), stop: Some(start + k * (n + 1)), step: Some(n + 1) }
        } else {
            IndexItem::Slice { start: None, stop: Some(0), step: None }
        };
        flat.index(&[IndexItem::Ellipsis, taken])
    }

    /// The sum of the `offset`-th diagonal of each matrix (`sum`'s dtype rules, or `dtype`).
    pub fn trace(&self, offset: i64, dtype: Option<DType>) -> Result<Array> {
        self.diagonal(offset)?.reduce(&ReduceSpec { axes: Some(vec![-1]), dtype, ..ReduceSpec::new(ReduceOp::Sum) })
    }
}

/// `max(M, N) * eps` of the dtype the factorisation runs in (float32 for float16 and float32
/// and complex64, float64 otherwise).
fn default_rtol(x: &Array) -> f64 {
    let shape = x.shape();
    let side = shape[shape.len() - 2].max(shape[shape.len() - 1]) as f64;
    let single = matches!(x.dtype(), DType::Float16 | DType::Float32 | DType::Complex64);
    side * if single { f64::from(f32::EPSILON) } else { f64::EPSILON }
}

/// The largest value along the last axis, kept as length one.
fn largest(s: &Array) -> Result<Array> {
    s.reduce(&ReduceSpec { axes: Some(vec![-1]), keepdims: true, ..ReduceSpec::new(ReduceOp::Max) })
}

/// `x[..., None]`.
fn last_axis_new(x: &Array) -> Result<Array> {
    x.index(&[IndexItem::Ellipsis, IndexItem::NewAxis])
}

/// The matrix-chain dynamic programme (NumPy's `_multi_dot_matrix_chain_order`): for each run
/// `i..=j` of matrices, the split `k` after which the product is cheapest.
fn chain_order(shapes: &[(usize, usize)]) -> Vec<Vec<usize>> {
    let n = shapes.len();
    let dims: Vec<u128> = std::iter::once(shapes[0].0).chain(shapes.iter().map(|s| s.1)).map(|d| d as u128).collect();
    let mut cost = vec![vec![0u128; n]; n];
    let mut split = vec![vec![0usize; n]; n];
    for length in 1..n {
        for i in 0..n - length {
            let j = i + length;
            let mut best: Option<u128> = None;
            for k in i..j {
                let q = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1];
                if best.is_none_or(|b| q < b) {
                    best = Some(q);
                    split[i][j] = k;
                }
            }
            cost[i][j] = best.expect("a run of two or more has a split");
        }
    }
    split
}

fn chain(arrays: &[Array], split: &[Vec<usize>], i: usize, j: usize) -> Result<Array> {
    if i == j {
        return Ok(arrays[i].clone());
    }
    let k = split[i][j];
    chain(arrays, split, i, k)?.matmul(&chain(arrays, split, k + 1, j)?)
}
