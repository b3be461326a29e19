//! Operations on arrays. Each validates its arguments and returns a new lazy array.

use crate::array::Array;
use tegula_core::{normalize_chunks, shape_err, BinaryOp, ChunkSpec, DType, DeviceId, LinalgOp, ReduceOp, Result, Scalar, UnaryOp};
use tegula_plan::construct::layout::IndexItem;
use tegula_plan::construct::reduce::ReduceSpec;
use tegula_plan::construct::{any_dtype as any, elementwise as ew, join, layout, linalg, matmul, reshape, setitem, DEFAULT_SPLIT_EVERY};
use tegula_plan::NodeRef;

impl Array {
    /// An element-wise function of one array (`UnaryOp`: NumPy's ufuncs of one argument).
    pub fn unary(&self, op: UnaryOp) -> Result<Array> {
        any::unary(op, &self.node).map(Array::from_node)
    }

    /// An element-wise function of two arrays, broadcast against each other with NumPy's rules
    /// and the result dtype NumPy promotes to.
    pub fn binary(&self, op: BinaryOp, other: &Array) -> Result<Array> {
        any::binary(op, &self.node, &other.node).map(Array::from_node)
    }

    /// `op(self, s)`, or `op(s, self)` when `reflected`, with a weakly-typed Python scalar.
    pub fn binary_scalar(&self, op: BinaryOp, s: Scalar, reflected: bool) -> Result<Array> {
        any::binary_scalar(op, &self.node, s, reflected).map(Array::from_node)
    }

    /// `self + other`, broadcast.
    pub fn add(&self, other: &Array) -> Result<Array> {
        self.binary(BinaryOp::Add, other)
    }
    /// `self + s`, with `s` a weak scalar (NEP 50: `int8 + 1` stays `int8`).
    pub fn add_scalar(&self, s: impl Into<ScalarArg>) -> Result<Array> {
        self.binary_scalar(BinaryOp::Add, s.into().0, false)
    }
    /// `self * other`, broadcast.
    pub fn mul(&self, other: &Array) -> Result<Array> {
        self.binary(BinaryOp::Multiply, other)
    }
    /// `self * s`, with `s` a weak scalar.
    pub fn mul_scalar(&self, s: impl Into<ScalarArg>) -> Result<Array> {
        self.binary_scalar(BinaryOp::Multiply, s.into().0, false)
    }
    /// `self - other`, broadcast.
    pub fn sub(&self, other: &Array) -> Result<Array> {
        self.binary(BinaryOp::Subtract, other)
    }

    /// `where(cond, self, other)`.
    pub fn where_(cond: &Array, a: &Array, b: &Array) -> Result<Array> {
        any::where_(&cond.node, &a.node, &b.node).map(Array::from_node)
    }

    /// The device its tasks run on and its blocks live on.
    pub fn device(&self) -> DeviceId {
        self.node.device
    }

    /// This array on `device` (see `tegula_exec::device`): its blocks are moved there when
    /// computed, and operations on it run there. Operations on arrays on different devices
    /// are `ValueError`s.
    pub fn to_device(&self, device: DeviceId) -> Array {
        Array::from_node(tegula_plan::construct::device::to_device(&self.node, device))
    }

    /// `self` converted to `dtype` (NumPy's unsafe casting; times see `time::time_cast`).
    pub fn astype(&self, dtype: DType) -> Result<Array> {
        any::cast(&self.node, dtype).map(Array::from_node)
    }

    /// NumPy's `view(dtype)`: the elements' bytes read as `dtype` (see `ew::bitcast`).
    pub fn bitcast(&self, dtype: DType) -> Result<Array> {
        ew::bitcast(&self.node, dtype).map(Array::from_node)
    }

    /// A reduction over some axes (`ReduceSpec`: the operation, axes, `keepdims`, dtype and
    /// degrees of freedom).
    pub fn reduce(&self, spec: &ReduceSpec) -> Result<Array> {
        any::reduce(&self.node, spec).map(Array::from_node)
    }

    fn reduce_simple(&self, op: ReduceOp, axes: Option<&[i64]>, keepdims: bool) -> Result<Array> {
        let spec = ReduceSpec { axes: axes.map(|a| a.to_vec()), keepdims, ..ReduceSpec::new(op) };
        self.reduce(&spec)
    }
    /// The sum over `axes` (all axes when `None`), in NumPy's sum dtype.
    pub fn sum(&self, axes: Option<&[i64]>, keepdims: bool) -> Result<Array> {
        self.reduce_simple(ReduceOp::Sum, axes, keepdims)
    }
    /// The mean over `axes` (all axes when `None`).
    pub fn mean(&self, axes: Option<&[i64]>, keepdims: bool) -> Result<Array> {
        self.reduce_simple(ReduceOp::Mean, axes, keepdims)
    }
    /// The standard deviation over `axes` (all axes when `None`), with zero degrees of freedom.
    pub fn std(&self, axes: Option<&[i64]>, keepdims: bool) -> Result<Array> {
        self.reduce_simple(ReduceOp::Std, axes, keepdims)
    }
    /// The largest element over `axes` (all axes when `None`); NaN wins, as in NumPy.
    pub fn max(&self, axes: Option<&[i64]>, keepdims: bool) -> Result<Array> {
        self.reduce_simple(ReduceOp::Max, axes, keepdims)
    }

    /// NumPy's `matmul`: stacks of matrices (the stack axes broadcast), and 1-D operands as a
    /// row or column vector whose axis is removed from the result.
    pub fn matmul(&self, other: &Array) -> Result<Array> {
        let (na, nb) = (self.ndim(), other.ndim());
        if na == 0 || nb == 0 {
            return Err(shape_err!(
                "matmul: Input operand {} does not have enough dimensions (has 0, gufunc core with signature (n?,k),(k,m?)->(n?,m?) requires 1)",
                if na == 0 { 0 } else { 1 }
            ));
        }
        let full = IndexItem::Slice { start: None, stop: None, step: None };
        let a = if na == 1 { self.index(&[IndexItem::NewAxis, full])? } else { self.clone() };
        let b = if nb == 1 { other.index(&[full, IndexItem::NewAxis])? } else { other.clone() };
        let mut r = Array::from_node(matmul::matmul(&a.node, &b.node, DEFAULT_SPLIT_EVERY)?);
        if na == 1 {
            r = r.index(&[IndexItem::Ellipsis, IndexItem::Int(0), full])?;
        }
        if nb == 1 {
            r = r.index(&[IndexItem::Ellipsis, IndexItem::Int(0)])?;
        }
        Ok(r)
    }

    /// `op` of each matrix (the last two axes) of this array, and of `others` alike (the
    /// right-hand sides of `solve`, with the same stack shape). Each matrix is one block.
    pub fn linalg(&self, op: LinalgOp, others: &[&Array]) -> Result<Array> {
        let inputs: Vec<NodeRef> = std::iter::once(self).chain(others.iter().copied()).map(|a| a.node.clone()).collect();
        linalg::linalg(op, &inputs).map(Array::from_node)
    }

    /// Every result of the factorisation `op` of each matrix (`U`, `S` and `Vh` of an SVD, in
    /// `LinalgOp::results` order): computed together, each matrix is factorised once.
    pub fn linalg_results(&self, op: LinalgOp, others: &[&Array]) -> Result<Vec<Array>> {
        let inputs: Vec<NodeRef> = std::iter::once(self).chain(others.iter().copied()).map(|a| a.node.clone()).collect();
        Ok(linalg::linalg_results(op, &inputs)?.into_iter().map(Array::from_node).collect())
    }

    /// `op` of each row block of this matrix as a matrix of its own (the steps of a
    /// tall-skinny QR: `Qr` gives the blocks' `R`s stacked, `QrApply` each block's `Q` times
    /// its rows of `others[0]`).
    pub fn linalg_row_blocks(&self, op: LinalgOp, others: &[&Array]) -> Result<Array> {
        let inputs: Vec<NodeRef> = std::iter::once(self).chain(others.iter().copied()).map(|a| a.node.clone()).collect();
        linalg::linalg_row_blocks(op, &inputs).map(Array::from_node)
    }

    /// Reverses the axes (`.T`), or permutes them as `axes` says.
    pub fn transpose(&self, axes: Option<&[i64]>) -> Result<Array> {
        layout::transpose(&self.node, axes).map(Array::from_node)
    }
    /// The transpose (axes reversed), NumPy's `x.T`.
    pub fn t(&self) -> Array {
        layout::transpose(&self.node, None).map(Array::from_node).unwrap_or_else(|_| self.clone())
    }

    /// Basic indexing: integers, slices, `NewAxis` and one `Ellipsis`.
    pub fn index(&self, items: &[IndexItem]) -> Result<Array> {
        layout::index(&self.node, items).map(Array::from_node)
    }

    /// `self` with the selection `items` replaced by `values` (of the selection's shape;
    /// converted to `self`'s dtype as NumPy's assignment does), as a new array.
    pub fn set_item(&self, items: &[IndexItem], values: &Array) -> Result<Array> {
        let values = if values.dtype() == self.dtype() { values.clone() } else { values.astype(self.dtype())? };
        setitem::set_item(&self.node, items, &values.node).map(Array::from_node)
    }

    /// The unnormalised discrete Fourier transform of a complex array along `axis`
    /// (`inverse`: positive exponent), its axis in one block.
    pub fn fft(&self, axis: i64, inverse: bool) -> Result<Array> {
        tegula_plan::construct::fft::fft(&self.node, axis, inverse).map(Array::from_node)
    }

    /// The same values in blocks of `chunks`.
    pub fn rechunk(&self, chunks: &ChunkSpec) -> Result<Array> {
        let chunks = normalize_chunks(chunks, &self.shape(), self.dtype().itemsize())?;
        layout::rechunk(&self.node, chunks).map(Array::from_node)
    }

    /// NumPy's `reshape`: the elements in row-major order, in `shape` (one length may be `-1`,
    /// inferred). No block of the plan is larger than this array's chunk size.
    pub fn reshape(&self, shape: &[i64]) -> Result<Array> {
        reshape::reshape(&self.node, shape).map(Array::from_node)
    }

    /// A length-one axis at each of `axes` (positions in the result; a view of every block).
    pub fn expand_dims(&self, axes: &[i64]) -> Result<Array> {
        join::expand_dims(&self.node, axes).map(Array::from_node)
    }

    /// NumPy's `concatenate` along `axis` (`None` flattens 0-d and 1-d inputs); no data is copied.
    pub fn concatenate(arrays: &[&Array], axis: Option<i64>) -> Result<Array> {
        any::concatenate(&nodes(arrays), axis).map(Array::from_node)
    }

    /// NumPy's `stack`: arrays of one shape joined along a new axis `axis`.
    pub fn stack(arrays: &[&Array], axis: i64) -> Result<Array> {
        any::stack(&nodes(arrays), axis).map(Array::from_node)
    }
}

fn nodes(arrays: &[&Array]) -> Vec<NodeRef> {
    arrays.iter().map(|a| a.node.clone()).collect()
}

/// A Rust number taken as a weakly-typed Python scalar.
pub struct ScalarArg(pub Scalar);

impl From<f64> for ScalarArg {
    fn from(v: f64) -> Self {
        ScalarArg(Scalar::Float(v))
    }
}
impl From<i64> for ScalarArg {
    fn from(v: i64) -> Self {
        ScalarArg(Scalar::Int(v as i128))
    }
}
impl From<bool> for ScalarArg {
    fn from(v: bool) -> Self {
        ScalarArg(Scalar::Bool(v))
    }
}
