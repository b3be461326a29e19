//! NumPy's `Generator.multivariate_normal`: `mean + z @ A.T` of standard normal `z`, where
//! `A A.T = cov` by NumPy's choice of factorisation (SVD, eigendecomposition or Cholesky)
//! of the covariance, one block. Whether the covariance is symmetric positive-semidefinite
//! (within `tol`, NumPy's tests) is computed now, so the caller can warn or refuse as NumPy.

use super::Generator;
use crate::array::{compute, Array};
use crate::constant::{over_all, whole};
use tegula_core::{value_err, BinaryOp, ChunkSpec, DType, LinalgOp, ReduceOp, Result, Scalar, UnaryOp};

/// How `multivariate_normal` factorises the covariance (NumPy's `method`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CovarianceFactor {
    /// `U sqrt(S)` of the singular value decomposition (NumPy's default).
    Svd,
    /// `V sqrt(max(w, 0))` of the eigendecomposition.
    Eigh,
    /// The lower Cholesky factor (a covariance that is not positive definite fails when
    /// computed).
    Cholesky,
}

impl CovarianceFactor {
    /// NumPy's name (`"svd"`, `"eigh"`, `"cholesky"`).
    pub fn from_name(name: &str) -> Result<CovarianceFactor> {
        match name {
            "svd" => Ok(CovarianceFactor::Svd),
            "eigh" => Ok(CovarianceFactor::Eigh),
            "cholesky" => Ok(CovarianceFactor::Cholesky),
            _ => Err(value_err!("method must be one of {{'eigh', 'svd', 'cholesky'}}")),
        }
    }
}

/// Samples of a multivariate normal distribution, and whether the covariance passed NumPy's
/// test of being symmetric positive-semidefinite (NumPy warns or raises where it did not).
#[derive(Debug, Clone)]
pub struct MultivariateNormal {
    /// The samples: `shape` followed by the mean's length.
    pub samples: Array,
    /// The covariance passed the test (always, for Cholesky).
    pub valid: bool,
}

impl Generator {
    /// `shape` samples (each a vector of the 1-D `mean`'s length) of the normal distribution
    /// of `mean` and the square covariance `cov`, factorised by `method`; `tol`: NumPy's
    /// tolerance of the positive-semidefinite test.
    pub fn multivariate_normal(
        &self,
        mean: &Array,
        cov: &Array,
        shape: &[usize],
        method: CovarianceFactor,
        tol: f64,
        chunks: &ChunkSpec,
    ) -> Result<MultivariateNormal> {
        let n = mean.size();
        if mean.ndim() != 1 || cov.shape() != [n, n] {
            return Err(value_err!("mean must be 1 dimensional and cov must be 2 dimensional and square, of mean's length"));
        }
        let (mean, cov) = (mean.astype(DType::Float64)?, cov.astype(DType::Float64)?.rechunk(&whole())?);
        let (factor, valid) = match method {
            CovarianceFactor::Cholesky => (cov.linalg(LinalgOp::Cholesky { upper: false }, &[])?, None),
            CovarianceFactor::Svd => {
                let [u, s, vh] = results::<3>(&cov, LinalgOp::Svd { full: false, output: 0 })?;
                let rebuilt = vh.transpose(None)?.binary(BinaryOp::Multiply, &s)?.matmul(&vh)?;
                (u.binary(BinaryOp::Multiply, &s.unary(UnaryOp::Sqrt)?)?, Some(close(&rebuilt, &cov, tol)?))
            }
            CovarianceFactor::Eigh => {
                let [w, v] = results::<2>(&cov, LinalgOp::Eigh { output: 0 })?;
                let valid = over_all(&w.binary_scalar(BinaryOp::GreaterEqual, Scalar::Float(-tol), false)?, ReduceOp::All)?;
                let w = w.binary_scalar(BinaryOp::Maximum, Scalar::Float(0.0), false)?;
                (v.binary(BinaryOp::Multiply, &w.unary(UnaryOp::Sqrt)?)?, Some(valid))
            }
        };
        let valid = match valid {
            Some(test) => {
                let (found, _) = compute(&[&test], crate::ComputeOptions::default())?;
                found[0].typed::<bool>()?.iter().all(|&v| v)
            }
            None => true,
        };
        let mut full = shape.to_vec();
        full.push(n);
        let z = self.standard_normal(&full, chunks)?;
        let samples = z.matmul(&factor.transpose(None)?)?.binary(BinaryOp::Add, &mean)?;
        Ok(MultivariateNormal { samples, valid })
    }
}

fn results<const K: usize>(cov: &Array, op: LinalgOp) -> Result<[Array; K]> {
    let found = cov.linalg_results(op, &[])?;
    <[Array; K]>::try_from(found).map_err(|_| tegula_core::TegulaError::Internal(format!("{} results", op.name())))
}

/// NumPy's `allclose(a, b, rtol=tol, atol=tol)`, lazy.
fn close(a: &Array, b: &Array, tol: f64) -> Result<Array> {
    let gap = a.sub(b)?.unary(UnaryOp::Abs)?;
    let allowed = b.unary(UnaryOp::Abs)?.binary_scalar(BinaryOp::Multiply, Scalar::Float(tol), false)?;
    let allowed = allowed.binary_scalar(BinaryOp::Add, Scalar::Float(tol), false)?;
    over_all(&gap.binary(BinaryOp::LessEqual, &allowed)?, ReduceOp::All)
}
