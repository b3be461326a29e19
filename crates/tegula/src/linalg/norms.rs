//! Norms and condition numbers: the array API's `vector_norm` and `matrix_norm`, NumPy's
//! `norm` (which picks one by its axes) and `cond`, composed of element-wise operations,
//! reductions and, for the spectral norms, singular values.

use super::Linalg;
use crate::array::Array;
use crate::constant::{constant, whole};
use crate::ops::{IndexItem, ReduceSpec};
use tegula_core::chunks::{AxisChunks, ChunkSpec};
use tegula_core::shape::normalize_axis;
use tegula_core::{linalg_err, value_err, BinaryOp, DType, ReduceOp, Result, Scalar, UnaryOp};

/// Which norm: `ord=` of NumPy's norms.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NormOrder {
    /// The Frobenius norm of a matrix.
    Fro,
    /// The nuclear norm of a matrix (the sum of its singular values).
    Nuc,
    /// The `p`-norm of a vector (any `p`, `±inf` and `0` included) or of a matrix (`±1`, `±2`,
    /// `±inf`).
    P(f64),
}

impl std::fmt::Display for NormOrder {
    /// As NumPy's messages write an order: `'fro'`, `'nuc'`, or the number.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NormOrder::Fro => write!(f, "'fro'"),
            NormOrder::Nuc => write!(f, "'nuc'"),
            NormOrder::P(p) => write!(f, "{p}"),
        }
    }
}

impl Linalg {
    /// The `ord`-norm of the vectors along `axes` (every axis when `None`).
    pub fn vector_norm(&self, x: &Array, axes: Option<&[i64]>, keepdims: bool, ord: NormOrder) -> Result<Array> {
        let a = real_float(x)?;
        let axes = axes.map_or_else(|| (0..a.ndim() as i64).collect(), <[i64]>::to_vec);
        let reduce = |x: &Array, op, dtype| x.reduce(&ReduceSpec { axes: Some(axes.clone()), keepdims, dtype, ..ReduceSpec::new(op) });
        let p = match ord {
            NormOrder::P(p) => p,
            _ => return Err(value_err!("Invalid norm order {ord} for vectors")),
        };
        match p {
            f64::INFINITY => reduce(&a, ReduceOp::Max, None),
            f64::NEG_INFINITY => reduce(&a, ReduceOp::Min, None),
            0.0 => reduce(&a.binary_scalar(BinaryOp::NotEqual, Scalar::Int(0), false)?, ReduceOp::Sum, Some(a.dtype())),
            1.0 => reduce(&a, ReduceOp::Sum, None),
            2.0 => reduce(&a.mul(&a)?, ReduceOp::Sum, None)?.unary(UnaryOp::Sqrt),
            p => {
                let powers = a.binary_scalar(BinaryOp::Power, Scalar::Float(p), false)?;
                reduce(&powers, ReduceOp::Sum, None)?.binary_scalar(BinaryOp::Power, Scalar::Float(1.0 / p), false)
            }
        }
    }

    /// The `ord`-norm of each matrix (the last two axes): `Fro`, `Nuc`, 1/-1 (column sums),
    /// 2/-2 (singular values), inf/-inf (row sums).
    pub fn matrix_norm(&self, x: &Array, keepdims: bool, ord: NormOrder) -> Result<Array> {
        if x.ndim() < 2 {
            return Err(value_err!("matrix_norm needs an array of at least two dimensions"));
        }
        let over = |a: &Array, op, axes: Vec<i64>, keep| a.reduce(&ReduceSpec { axes: Some(axes), keepdims: keep, ..ReduceSpec::new(op) });
        let kept = |out: Array| if keepdims { out.index(&[IndexItem::Ellipsis, IndexItem::NewAxis, IndexItem::NewAxis]) } else { Ok(out) };
        match ord {
            NormOrder::Fro => {
                let a = real_float(x)?;
                kept(over(&a.mul(&a)?, ReduceOp::Sum, vec![-2, -1], false)?.unary(UnaryOp::Sqrt)?)
            }
            NormOrder::Nuc | NormOrder::P(2.0) | NormOrder::P(-2.0) => {
                let s = self.svdvals(x)?;
                let op = match ord {
                    NormOrder::Nuc => ReduceOp::Sum,
                    NormOrder::P(2.0) => ReduceOp::Max,
                    _ => ReduceOp::Min,
                };
                kept(over(&s, op, vec![-1], false)?)
            }
            NormOrder::P(p @ (1.0 | -1.0 | f64::INFINITY | f64::NEG_INFINITY)) => {
                let columns = p.abs() == 1.0;
                let sums = over(&real_float(x)?, ReduceOp::Sum, vec![if columns { -2 } else { -1 }], true)?;
                let op = if p > 0.0 { ReduceOp::Max } else { ReduceOp::Min };
                let out = over(&sums, op, vec![if columns { -1 } else { -2 }], true)?;
                if keepdims {
                    Ok(out)
                } else {
                    out.index(&[IndexItem::Ellipsis, IndexItem::Int(0), IndexItem::Int(0)])
                }
            }
            NormOrder::P(p) => Err(value_err!("Invalid norm order {p} for matrices")),
        }
    }

    /// NumPy's `linalg.norm`: a vector norm along one axis, a matrix norm over two, and with
    /// neither `ord` nor `axes` the 2-norm of all elements.
    pub fn norm(&self, x: &Array, ord: Option<NormOrder>, axes: Option<&[i64]>, keepdims: bool) -> Result<Array> {
        let ndim = x.ndim();
        let axes: Vec<i64> = match (axes, ord) {
            (None, None) => return self.vector_norm(x, None, keepdims, NormOrder::P(2.0)),
            (None, Some(_)) if !(1..=2).contains(&ndim) => return Err(value_err!("Improper number of dimensions to norm.")),
            (None, Some(_)) => (0..ndim as i64).collect(),
            (Some(axes), _) => axes.to_vec(),
        };
        let axes = axes.iter().map(|&a| normalize_axis(a, ndim)).collect::<Result<Vec<_>>>()?;
        match axes[..] {
            [axis] => {
                self.vector_norm(x, Some(&[axis as i64]), keepdims, ord.unwrap_or(NormOrder::P(2.0)))
            }
            [a, b] if a == b => Err(value_err!("Duplicate axes given.")),
            [a, b] => {
                let order: Vec<i64> = (0..ndim).filter(|i| *i != a && *i != b).chain([a, b]).map(|i| i as i64).collect();
                let out = self.matrix_norm(&x.transpose(Some(&order))?, false, ord.unwrap_or(NormOrder::Fro))?;
                if !keepdims {
                    return Ok(out);
                }
                let shape = x.shape();
                out.reshape(&(0..ndim).map(|i| if i == a || i == b { 1 } else { shape[i] as i64 }).collect::<Vec<_>>())
            }
            _ => Err(value_err!("Improper number of dimensions to norm.")),
        }
    }

    /// NumPy's `linalg.cond`: the condition number of each matrix in the `p`-norm, from the
    /// singular values for `p` of `None`, 2 or -2 (any shape), else the norms of the matrix and
    /// its inverse (square matrices); `inf` where NumPy's is (a NaN from a matrix without NaN,
    /// an exactly singular matrix: its determinant is 0, and the identity is inverted in its
    /// place so that the inverse does not fail).
    pub fn cond(&self, x: &Array, p: Option<NormOrder>) -> Result<Array> {
        if x.ndim() < 2 {
            return Err(linalg_err!("{}-dimensional array given. Array must be at least two-dimensional", x.ndim()));
        }
        if x.size() == 0 {
            return Err(linalg_err!("cond is not defined on empty arrays"));
        }
        let last = |a: &Array, i: i64| a.index(&[IndexItem::Ellipsis, IndexItem::Int(i)]);
        let r = match p {
            None | Some(NormOrder::P(2.0)) => {
                let s = self.svdvals(x)?;
                last(&s, 0)?.binary(BinaryOp::Divide, &last(&s, -1)?)?
            }
            Some(NormOrder::P(-2.0)) => {
                let s = self.svdvals(x)?;
                last(&s, -1)?.binary(BinaryOp::Divide, &last(&s, 0)?)?
            }
            Some(p) => {
                square(x)?;
                let n = x.shape()[x.ndim() - 1];
                // Singular where LU meets an exactly zero pivot (where LAPACK's inverse fails
                // and NumPy's cond is inf): the sign of slogdet, which no underflow zeroes.
                let singular = self.slogdet(x)?.0.binary_scalar(BinaryOp::Equal, Scalar::Int(0), false)?;
                let singular_matrix = singular.index(&[IndexItem::Ellipsis, IndexItem::NewAxis, IndexItem::NewAxis])?;
                let identity = Array::eye(n, n, 0, x.dtype(), &same_blocks(x))?;
                let invertible = Array::where_(&singular_matrix, &identity, x)?;
                let inverse = self.inv(&invertible)?;
                let r = self.norm(x, Some(p), Some(&[-2, -1]), false)?.mul(&self.norm(&inverse, Some(p), Some(&[-2, -1]), false)?)?;
                let r = Array::where_(&singular, &constant(Scalar::Float(f64::INFINITY), DType::Float64)?, &r)?;
                // NumPy's: the matrix's real float type.
                r.astype(real_float_dtype(x.dtype()))?
            }
        };
        let x_nan = x.unary(UnaryOp::Isnan)?.reduce(&ReduceSpec { axes: Some(vec![-2, -1]), ..ReduceSpec::new(ReduceOp::Any) })?;
        let unexplained = r.unary(UnaryOp::Isnan)?.binary(BinaryOp::LogicalAnd, &x_nan.unary(UnaryOp::LogicalNot)?)?;
        Array::where_(&unexplained, &constant(Scalar::Float(f64::INFINITY), r.dtype())?, &r)
    }
}

/// A matrix's own blocks (so a choice between it and another keeps its tiles); a stack's whole.
fn same_blocks(x: &Array) -> ChunkSpec {
    match x.ndim() {
        2 => ChunkSpec::PerAxis(x.chunks().sizes().iter().map(|s| AxisChunks::Explicit(s.clone())).collect()),
        _ => whole(),
    }
}

/// `|x|` in the real floating dtype a norm returns (float64 for integers and bools).
fn real_float(x: &Array) -> Result<Array> {
    let x = if x.dtype().is_float() || x.dtype().is_complex() { x.clone() } else { x.astype(DType::Float64)? };
    x.unary(UnaryOp::Abs)
}

/// The dtype `real_float` gives for `dtype`.
fn real_float_dtype(dtype: DType) -> DType {
    if dtype.is_float() || dtype.is_complex() {
        dtype.real_part()
    } else {
        DType::Float64
    }
}

/// Refuses anything but stacks of square matrices, as NumPy's `linalg` does.
pub(super) fn square(x: &Array) -> Result<()> {
    let n = x.ndim();
    if n < 2 {
        return Err(linalg_err!("{n}-dimensional array given. Array must be at least two-dimensional"));
    }
    let shape = x.shape();
    if shape[n - 1] != shape[n - 2] {
        return Err(linalg_err!("Last 2 dimensions of the array must be square"));
    }
    Ok(())
}
