//! NumPy's distributions composed of uniform and normal draws (its transformations:
//! inversions of cdfs, ratios, powers), and random orderings. Each call draws its streams in
//! the order NumPy's `Generator` methods make them, so the values are those of `tegula.random`.

use super::Generator;
use crate::array::Array;
use crate::constant::{constant, whole};
use tegula_core::shape::broadcast_shapes;
use tegula_core::{value_err, BinaryOp, ChunkSpec, DType, Distribution, Result, Scalar, UnaryOp};

/// A distribution's parameter: a number (a Python float to NumPy: weak), or an array of them,
/// broadcast against the result.
#[derive(Debug, Clone)]
pub enum Param {
    /// One value for every element.
    Number(f64),
    /// A value per element (broadcast to the result's shape).
    Array(Array),
}

impl From<f64> for Param {
    fn from(v: f64) -> Param {
        Param::Number(v)
    }
}

impl From<Array> for Param {
    fn from(a: Array) -> Param {
        Param::Array(a)
    }
}

impl Param {
    fn shape(&self) -> Vec<usize> {
        match self {
            Param::Number(_) => vec![],
            Param::Array(a) => a.shape(),
        }
    }

    /// Refuses a number below zero (or at most zero when `strictly`), with NumPy's message.
    fn check(&self, name: &str, strictly: bool) -> Result<()> {
        match self {
            Param::Number(v) if strictly && *v <= 0.0 => Err(value_err!("{name} <= 0")),
            Param::Number(v) if *v < 0.0 => Err(value_err!("{name} < 0")),
            _ => Ok(()),
        }
    }
}

/// `x op p`, or `p op x` when `reflected`.
fn with(x: &Array, op: BinaryOp, p: &Param, reflected: bool) -> Result<Array> {
    match p {
        Param::Number(v) => x.binary_scalar(op, Scalar::Float(*v), reflected),
        Param::Array(a) if reflected => a.binary(op, x),
        Param::Array(a) => x.binary(op, a),
    }
}

/// `x op v` for a number `v` (weak, as NumPy's Python floats).
fn num(x: &Array, op: BinaryOp, v: f64) -> Result<Array> {
    x.binary_scalar(op, Scalar::Float(v), false)
}

/// `v op x` for a number `v`.
fn rnum(v: f64, op: BinaryOp, x: &Array) -> Result<Array> {
    x.binary_scalar(op, Scalar::Float(v), true)
}

impl Generator {
    /// The result's shape: `shape`, else the parameters' broadcast shape.
    fn shape_of(shape: Option<&[usize]>, params: &[&Param]) -> Result<Vec<usize>> {
        match shape {
            Some(s) => Ok(s.to_vec()),
            None => params.iter().try_fold(vec![], |acc, p| broadcast_shapes(&acc, &p.shape())),
        }
    }

    /// Uniform on `[low, high)`; with array bounds `low + (high - low)·u` (NumPy's).
    pub fn uniform(&self, low: &Param, high: &Param, shape: Option<&[usize]>, chunks: &ChunkSpec) -> Result<Array> {
        let shape = Self::shape_of(shape, &[low, high])?;
        if let (Param::Number(l), Param::Number(h)) = (low, high) {
            return self.draw(Distribution::Uniform { low: *l, high: *h }, &shape, DType::Float64, chunks);
        }
        let u = self.random(&shape, chunks)?;
        let width = match (low, high) {
            (_, Param::Array(h)) => with(h, BinaryOp::Subtract, low, false)?,
            (Param::Array(l), Param::Number(h)) => l.binary_scalar(BinaryOp::Subtract, Scalar::Float(*h), true)?,
            _ => unreachable!("one bound is an array"),
        };
        with(&width.mul(&u)?, BinaryOp::Add, low, true)
    }

    /// Normal of mean `loc` and standard deviation `scale`; with array parameters
    /// `loc + scale·z` of a standard normal `z`.
    pub fn normal(&self, loc: &Param, scale: &Param, shape: Option<&[usize]>, chunks: &ChunkSpec) -> Result<Array> {
        let shape = Self::shape_of(shape, &[loc, scale])?;
        if let (Param::Number(l), Param::Number(s)) = (loc, scale) {
            return self.draw(Distribution::Normal { loc: *l, scale: *s }, &shape, DType::Float64, chunks);
        }
        scale.check("scale", false)?;
        let z = self.standard_normal(&shape, chunks)?;
        with(&with(&z, BinaryOp::Multiply, scale, true)?, BinaryOp::Add, loc, true)
    }

    /// Exponential of scale 1: `-log1p(-u)` of a uniform `u` (NumPy's inversion).
    pub fn standard_exponential(&self, shape: &[usize], dtype: DType, chunks: &ChunkSpec) -> Result<Array> {
        let u = self.random(shape, chunks)?;
        u.unary(UnaryOp::Negative)?.unary(UnaryOp::Log1p)?.unary(UnaryOp::Negative)?.astype(dtype)
    }

    /// Exponential of mean `scale`.
    pub fn exponential(&self, scale: &Param, shape: Option<&[usize]>, chunks: &ChunkSpec) -> Result<Array> {
        scale.check("scale", false)?;
        let e = self.standard_exponential(&Self::shape_of(shape, &[scale])?, DType::Float64, chunks)?;
        with(&e, BinaryOp::Multiply, scale, false)
    }

    /// `exp` of a normal draw of `mean` and `sigma`.
    pub fn lognormal(&self, mean: &Param, sigma: &Param, shape: Option<&[usize]>, chunks: &ChunkSpec) -> Result<Array> {
        sigma.check("sigma", false)?;
        let z = self.standard_normal(&Self::shape_of(shape, &[mean, sigma])?, chunks)?;
        with(&with(&z, BinaryOp::Multiply, sigma, false)?, BinaryOp::Add, mean, false)?.unary(UnaryOp::Exp)
    }

    /// NumPy's inversion: `loc + scale·log(2u)` below one half, `loc - scale·log(2 - 2u)` above.
    pub fn laplace(&self, loc: &Param, scale: &Param, shape: Option<&[usize]>, chunks: &ChunkSpec) -> Result<Array> {
        scale.check("scale", false)?;
        let u = self.random(&Self::shape_of(shape, &[loc, scale])?, chunks)?;
        let twice = rnum(2.0, BinaryOp::Multiply, &u)?;
        let above = rnum(2.0, BinaryOp::Subtract, &twice)?.unary(UnaryOp::Log)?.unary(UnaryOp::Negative)?;
        let side = Array::where_(&num(&u, BinaryOp::GreaterEqual, 0.5)?, &above, &twice.unary(UnaryOp::Log)?)?;
        with(&with(&side, BinaryOp::Multiply, scale, true)?, BinaryOp::Add, loc, true)
    }

    /// `loc + scale·log(u / (1 - u))`.
    pub fn logistic(&self, loc: &Param, scale: &Param, shape: Option<&[usize]>, chunks: &ChunkSpec) -> Result<Array> {
        scale.check("scale", false)?;
        let u = self.random(&Self::shape_of(shape, &[loc, scale])?, chunks)?;
        let odds = u.binary(BinaryOp::Divide, &rnum(1.0, BinaryOp::Subtract, &u)?)?.unary(UnaryOp::Log)?;
        with(&with(&odds, BinaryOp::Multiply, scale, true)?, BinaryOp::Add, loc, true)
    }

    /// `loc - scale·log(-log1p(-u))`.
    pub fn gumbel(&self, loc: &Param, scale: &Param, shape: Option<&[usize]>, chunks: &ChunkSpec) -> Result<Array> {
        scale.check("scale", false)?;
        let u = self.random(&Self::shape_of(shape, &[loc, scale])?, chunks)?;
        let inner = u.unary(UnaryOp::Negative)?.unary(UnaryOp::Log1p)?.unary(UnaryOp::Negative)?.unary(UnaryOp::Log)?;
        with(&with(&inner, BinaryOp::Multiply, scale, true)?, BinaryOp::Subtract, loc, true)
    }

    /// A standard exponential to the power `1/a` (0 where `a` is 0).
    pub fn weibull(&self, a: &Param, shape: Option<&[usize]>, chunks: &ChunkSpec) -> Result<Array> {
        a.check("a", false)?;
        let e = self.standard_exponential(&Self::shape_of(shape, &[a])?, DType::Float64, chunks)?;
        match a {
            Param::Number(0.0) => num(&e, BinaryOp::Multiply, 0.0),
            Param::Number(v) => num(&e, BinaryOp::Power, 1.0 / v),
            Param::Array(arr) => {
                let zero = arr.binary_scalar(BinaryOp::Equal, Scalar::Int(0), false)?;
                let powered = e.binary(BinaryOp::Power, &rnum(1.0, BinaryOp::Divide, arr)?)?;
                Array::where_(&zero, &constant(Scalar::Float(0.0), DType::Float64)?, &powered)
            }
        }
    }

    /// `expm1` of a standard exponential over `a` (Pareto II, NumPy's).
    pub fn pareto(&self, a: &Param, shape: Option<&[usize]>, chunks: &ChunkSpec) -> Result<Array> {
        a.check("a", true)?;
        let e = self.standard_exponential(&Self::shape_of(shape, &[a])?, DType::Float64, chunks)?;
        with(&e, BinaryOp::Divide, a, false)?.unary(UnaryOp::Expm1)
    }

    /// `scale·sqrt(2·standard_exponential)`.
    pub fn rayleigh(&self, scale: &Param, shape: Option<&[usize]>, chunks: &ChunkSpec) -> Result<Array> {
        scale.check("scale", false)?;
        let e = self.standard_exponential(&Self::shape_of(shape, &[scale])?, DType::Float64, chunks)?;
        with(&rnum(2.0, BinaryOp::Multiply, &e)?.unary(UnaryOp::Sqrt)?, BinaryOp::Multiply, scale, true)
    }

    /// `(-expm1(-standard_exponential)) ** (1/a)`.
    pub fn power(&self, a: &Param, shape: Option<&[usize]>, chunks: &ChunkSpec) -> Result<Array> {
        a.check("a", true)?;
        let e = self.standard_exponential(&Self::shape_of(shape, &[a])?, DType::Float64, chunks)?;
        let base = e.unary(UnaryOp::Negative)?.unary(UnaryOp::Expm1)?.unary(UnaryOp::Negative)?;
        match a {
            Param::Number(v) => num(&base, BinaryOp::Power, 1.0 / v),
            Param::Array(arr) => base.binary(BinaryOp::Power, &rnum(1.0, BinaryOp::Divide, arr)?),
        }
    }

    /// The ratio of two standard normal draws of independent streams.
    pub fn standard_cauchy(&self, shape: &[usize], chunks: &ChunkSpec) -> Result<Array> {
        let numerator = self.standard_normal(shape, chunks)?;
        numerator.binary(BinaryOp::Divide, &self.standard_normal(shape, chunks)?)
    }

    /// A random order of `0..n`: the argsort of one uniform key per position.
    pub fn permutation(&self, n: usize, chunks: &ChunkSpec) -> Result<Array> {
        self.random(&[n], chunks)?.argsort(0, false)
    }

    /// `x` in a random order along `axis`.
    pub fn permuted(&self, x: &Array, axis: i64, chunks: &ChunkSpec) -> Result<Array> {
        if x.ndim() == 0 {
            return Err(tegula_core::TegulaError::Axis { axis, ndim: 0 });
        }
        let length = x.shape()[tegula_core::shape::normalize_axis(axis, x.ndim())?];
        x.take(&self.permutation(length, chunks)?, Some(axis))
    }

    /// NumPy's inversion of the triangular distribution's cdf, with parameters known now
    /// (`left <= mode <= right`, `left < right`, broadcast against each other and the result).
    pub fn triangular(
        &self,
        left: &ndarray::ArrayD<f64>,
        mode: &ndarray::ArrayD<f64>,
        right: &ndarray::ArrayD<f64>,
        shape: Option<&[usize]>,
        chunks: &ChunkSpec,
    ) -> Result<Array> {
        let common = broadcast_shapes(&broadcast_shapes(left.shape(), mode.shape())?, right.shape())?;
        let shape = shape.map_or_else(|| common.to_vec(), <[usize]>::to_vec);
        let view = |a: &ndarray::ArrayD<f64>| a.broadcast(common.clone()).map(|v| v.to_owned()).ok_or_else(|| value_err!("shape mismatch"));
        let (lo, md, hi) = (view(left)?, view(mode)?, view(right)?);
        if lo.iter().zip(&md).any(|(l, m)| l > m) {
            return Err(value_err!("left > mode"));
        }
        if md.iter().zip(&hi).any(|(m, h)| m > h) {
            return Err(value_err!("mode > right"));
        }
        if lo.iter().zip(&hi).any(|(l, h)| l == h) {
            return Err(value_err!("left == right"));
        }
        let u = self.random(&shape, chunks)?;
        let base = &hi - &lo;
        let known = |a: ndarray::ArrayD<f64>| Array::from_ndarray(a, &whole());
        let ratio = known((&md - &lo) / &base)?;
        let low_product = known((&md - &lo) * &base)?;
        let high_product = known((&hi - &md) * &base)?;
        let below = known(lo)?.add(&u.mul(&low_product)?.unary(UnaryOp::Sqrt)?)?;
        let above = known(hi)?.sub(&rnum(1.0, BinaryOp::Subtract, &u)?.mul(&high_product)?.unary(UnaryOp::Sqrt)?)?;
        Array::where_(&u.binary(BinaryOp::LessEqual, &ratio)?, &below, &above)
    }

    /// The int64 positions of a sample of `shape` from `0..n`: with replacement by uniform
    /// integers (by a search of `p`'s cumulative sums when weighted), without by the first
    /// entries of a permutation (weighted: Efraimidis and Spirakis's largest `log(u)/p` keys),
    /// so the sample is in random order. `p`: probabilities of the `n` positions, checked by
    /// the caller (non-negative, summing to one).
    pub fn choice(&self, n: usize, shape: &[usize], replace: bool, p: Option<&[f64]>, chunks: &ChunkSpec) -> Result<Array> {
        let count: usize = shape.iter().product();
        if !replace && count > n {
            return Err(value_err!("Cannot take a larger sample than population when replace is False"));
        }
        if p.is_some_and(|p| p.len() != n) {
            return Err(value_err!("a and p must have same size"));
        }
        let index = match (replace, p) {
            (true, Some(p)) => {
                let mut total = 0.0;
                let mut cdf: Vec<f64> = p.iter().map(|w| {
                    total += w;
                    total
                }).collect();
                let last = *cdf.last().unwrap_or(&1.0);
                cdf.iter_mut().for_each(|c| *c /= last);
                let cdf = Array::from_ndarray(ndarray::Array1::from(cdf).into_dyn(), &whole())?;
                let u = self.random(&[count], chunks)?;
                cdf.searchsorted(&u, true, None)?.binary_scalar(BinaryOp::Minimum, Scalar::Int(n as i128 - 1), false)?
            }
            (true, None) if n > 0 => self.integers(0, n as i64, &[count], chunks)?,
            (true, None) => self.permutation(0, chunks)?,
            (false, Some(p)) => {
                let weights = Array::from_ndarray(ndarray::Array1::from(p.to_vec()).into_dyn(), &whole())?;
                let keys = self.random(&[n], chunks)?.unary(UnaryOp::Log)?.binary(BinaryOp::Divide, &weights)?;
                first(&keys.argsort(0, true)?, count)?
            }
            (false, None) => first(&self.permutation(n, chunks)?, count)?,
        };
        index.reshape(&shape.iter().map(|&d| d as i64).collect::<Vec<_>>())
    }
}

/// The first `count` elements of a 1-d array.
fn first(x: &Array, count: usize) -> Result<Array> {
    x.index(&[crate::ops::IndexItem::Slice { start: None, stop: Some(count as i64), step: None }])
}
