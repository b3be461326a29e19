//! Randomized SVD (Halko, Martinsson and Tropp), as Dask's `svd_compressed`: a Gaussian sample
//! of a matrix's columns, its orthonormal basis by TSQR, and the SVD of the small projection.

use super::{adjoint, Linalg};
use crate::array::Array;
use crate::constant::{all, at_axis, constant};
use crate::ops::{IndexItem, ReduceSpec};
use crate::random::Generator;
use tegula_core::{value_err, AxisChunks, BinaryOp, ChunkSpec, DType, Distribution, ReduceOp, Result, Scalar, UnaryOp};

/// How `svd_compressed` samples `a`'s range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sampling {
    /// The singular triplets wanted.
    pub k: usize,
    /// Power iterations (`a a^H` applied again), which sharpen a slowly decaying spectrum.
    pub power_iterations: usize,
    /// Extra sample columns beyond `k`.
    pub oversamples: usize,
    /// Re-orthonormalise after every product (Dask's `iterator="QR"`; stabler for many
    /// iterations) rather than only at the end (`"power"`, cheapest).
    pub orthonormalise_each: bool,
    /// Make each row of `Vh` sum to a non-negative number (and `U` follow), so the result does
    /// not depend on the sign conventions of the factorisations inside.
    pub coerce_signs: bool,
}

impl Linalg {
    /// The `k` leading singular triplets `(U, S, Vh)` of the matrix `a` by randomized SVD:
    /// `a` times a Gaussian matrix of `k + oversamples` columns drawn from `generator`, its
    /// range's orthonormal basis `Q` by TSQR, then the SVD of the small `Q^H a`. Exact when
    /// `a`'s rank is at most `k + oversamples`.
    pub fn svd_compressed(&self, a: &Array, sampling: &Sampling, generator: &Generator) -> Result<(Array, Array, Array)> {
        if a.ndim() != 2 {
            return Err(value_err!("svd_compressed needs a matrix, got {} dimensions", a.ndim()));
        }
        let smaller = a.shape()[0].min(a.shape()[1]);
        if !(1..=smaller).contains(&sampling.k) {
            return Err(value_err!("k must be between 1 and min(a.shape) = {smaller}, got {}", sampling.k));
        }
        let a = if a.dtype().is_float() || a.dtype().is_complex() { a.clone() } else { a.astype(DType::Float64)? };
        let width = (sampling.k + sampling.oversamples).min(smaller);
        let q = self.range_basis(&a, width, sampling, generator)?;
        let (u, s, vh) = self.short_svd(&adjoint(&q)?.matmul(&a)?)?;
        let first = |x: &Array, axis: usize| x.index(&at_axis(axis + 1, axis, IndexItem::Slice { start: None, stop: Some(sampling.k as i64), step: None }));
        let (u, s, vh) = (q.matmul(&first(&u, 1)?)?, first(&s, 0)?, first(&vh, 0)?);
        if !sampling.coerce_signs {
            return Ok((u, s, vh));
        }
        let sums = vh.reduce(&ReduceSpec { axes: Some(vec![1]), ..ReduceSpec::new(ReduceOp::Sum) })?;
        let sums = if sums.dtype().is_complex() { sums.unary(UnaryOp::Real)? } else { sums };
        let negative = sums.binary_scalar(BinaryOp::Less, Scalar::Int(0), false)?;
        let signs = Array::where_(&negative, &constant(Scalar::Int(-1), DType::Int64)?, &constant(Scalar::Int(1), DType::Int64)?)?.astype(s.dtype())?;
        let row_signs = signs.index(&[all(), IndexItem::NewAxis])?;
        Ok((u.mul(&signs)?, s, vh.mul(&row_signs)?))
    }

    /// An orthonormal basis of `a`'s range sampled by `width` Gaussian combinations of its
    /// columns.
    fn range_basis(&self, a: &Array, width: usize, sampling: &Sampling, generator: &Generator) -> Result<Array> {
        let chunks = ChunkSpec::PerAxis(vec![AxisChunks::Explicit(a.chunks().sizes()[1].clone()), AxisChunks::Full]);
        let normal = Distribution::Normal { loc: 0.0, scale: 1.0 };
        let omega = generator.draw(normal, &[a.shape()[1], width], a.dtype().real_part(), &chunks)?;
        let y = a.matmul(&omega)?;
        let basis = |x: &Array| -> Result<Array> { Ok(self.qr(x, false)?.0) };
        if !sampling.orthonormalise_each {
            let mut y = y;
            for _ in 0..sampling.power_iterations {
                y = a.matmul(&adjoint(a)?.matmul(&y)?)?;
            }
            return basis(&y);
        }
        let mut q = basis(&y)?;
        for _ in 0..sampling.power_iterations {
            q = basis(&a.matmul(&basis(&adjoint(a)?.matmul(&q)?)?)?)?;
        }
        Ok(q)
    }

    /// The reduced SVD of a short matrix; a wide one in several column blocks through the TSQR
    /// of its adjoint (`b^H = U S Vh` gives `b = Vh^H S U^H`).
    fn short_svd(&self, b: &Array) -> Result<(Array, Array, Array)> {
        let wide = b.shape()[1] > b.shape()[0] && b.chunks().numblocks()[1] > 1;
        if wide {
            let (u, s, vh) = self.svd(&adjoint(b)?, false)?;
            return Ok((adjoint(&vh)?, s, adjoint(&u)?));
        }
        self.svd(b, false)
    }
}
