"""The lazy chunked array of tegula. It holds one handle on a Rust expression node; every
method builds a new node (validated at once) and nothing runs until ``compute``.

The methods that are functions of modules above this one (indexing with arrays, reshapes,
sorting, NumPy's and Dask's other methods, I/O, pictures) are set on the class by
``_array_methods.py``, and NumPy's protocols and ``__array_namespace__`` by the package's
``__init__``, when the package is imported: this module imports none of them."""

import operator

import numpy as np

from . import _compute, _tegula, config
from ._dtypes import dtype_name, in_unit_of, is_python_scalar, is_supported
from ._info import _check_device
from ._strict import check_promotion


class Array:
    """A lazy, chunked n-dimensional array with NumPy semantics."""

    __slots__ = ("_h", "_attrs")
    __array_priority__ = 20  # NumPy defers binary operators to us
    __hash__ = None  # type: ignore[assignment]  # unhashable as NumPy arrays are (a Python idiom mypy refuses)

    def __init__(self, handle, attrs=None):
        self._h = handle
        self._attrs = attrs

    @property
    def attrs(self):
        """User attributes: those of the stored array this array was read from (Zarr), or a
        new empty dict. ``to_zarr`` writes them."""
        if self._attrs is None:
            self._attrs = {}
        return self._attrs

    # --- metadata -------------------------------------------------------------------------
    @property
    def shape(self):
        """The length of each axis."""
        return self._h.shape

    @property
    def dtype(self):
        """The element type (a NumPy dtype)."""
        return np.dtype(self._h.dtype)

    @property
    def ndim(self):
        """The number of axes."""
        return len(self.shape)

    @property
    def size(self):
        """The number of elements."""
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def itemsize(self):
        """The bytes of one element."""
        return self.dtype.itemsize

    @property
    def nbytes(self):
        """The bytes of the whole array, once computed."""
        return self.size * self.itemsize

    @property
    def device(self):
        """The name of the device the array is computed on: ``"cpu"`` unless placed on another
        by ``to_device``."""
        return self._h.device()

    def to_device(self, device, /, *, stream=None):
        """The array on ``device`` (a name from ``__array_namespace_info__().devices()``): its
        blocks are moved there when computed, and operations on it run there. ``stream`` is
        accepted for the array API and unused."""
        _check_device(device)
        return self if device == self.device else Array(self._h.to_device(device), self._attrs)

    @property
    def chunks(self):
        """Block lengths along each axis, as a tuple of tuples (Dask's convention)."""
        return self._h.chunks

    @property
    def numblocks(self):
        """The number of blocks along each axis (Dask's)."""
        return tuple(len(c) for c in self.chunks)

    @property
    def npartitions(self):
        """The number of blocks (Dask's)."""
        return int(np.prod(self.numblocks, dtype=np.int64))

    @property
    def chunksize(self):
        """The largest block length along each axis (Dask's)."""
        return tuple(max(c) for c in self.chunks)

    def task_count(self):
        """Number of chunk tasks computing this array takes."""
        return self._h.task_count()

    def explain(self, nodes=None, node_memory=None):
        """The plan: one line per operation with its shape, chunks and task count, then the
        projected peak memory against the budget of ``tg.config``. With ``nodes``, also how
        it runs on a cluster of that many nodes (``scheduler="ray"``) of ``node_memory`` bytes
        each (an int or a string such as ``"4GB"``; default: the budget): its fragments, the
        bytes placing them moves between nodes, and each node's work and peak memory."""
        if isinstance(node_memory, str):
            node_memory = _tegula.memory_budget(node_memory)
        return self._h.explain(config.explicit().get("memory"), nodes, node_memory)

    def __repr__(self):
        return (
            f"tegula.Array<shape={self.shape}, dtype={self.dtype}, chunksize={self.chunksize}, "
            f"numblocks={self.numblocks}, tasks={self.task_count()}>"
        )

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    # --- computing ------------------------------------------------------------------------
    def compute(self, scheduler=None, num_workers=None, fuse=True, progress=None, placement=None):
        """Computes the array on all cores (or as ``scheduler`` says, see ``tegula.compute``)
        and returns a NumPy array. ``fuse=False`` runs every operation as its own tasks (for
        debugging; the result is the same). ``progress``: a progress bar (True), none (False),
        or as ``tg.config`` says (unset)."""
        return _compute.run_compute([self._h], scheduler, num_workers, fuse, progress, placement)[0][0]

    def persist(self, scheduler=None, num_workers=None, fuse=True, progress=None, placement=None):
        """Computes the array and keeps its blocks; returns a tegula array of the same values
        and chunks that reads them (see ``tegula.persist``)."""
        kept, _ = _compute.run_compute([self._h], scheduler, num_workers, fuse, progress, placement, persist=True)
        return Array(kept[0], self._attrs)

    def __array__(self, dtype=None, copy=None):
        if copy is False:
            raise ValueError("a tegula array is computed to make a NumPy array: it cannot be had without a copy")
        out = self.compute()
        return out if dtype is None else out.astype(dtype, copy=False)

    def __deepcopy__(self, memo):
        # an immutable lazy value: a copy shares the expression (xarray deep-copies its data)
        return Array(self._h, None if self._attrs is None else dict(self._attrs))

    def __dlpack__(self, /, *, stream=None, max_version=None, dl_device=None, copy=None):
        """The computed array, shared through DLPack (CPU memory)."""
        if dl_device not in (None, (1, 0)):
            raise BufferError(f"tegula arrays live on the CPU (DLPack device (1, 0)), not {dl_device}")
        kwargs = {} if max_version is None else {"max_version": max_version}
        return self.compute().__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return (1, 0)

    def _scalar(self, kind):
        if self.size != 1:
            raise TypeError(f"only arrays of size 1 can be converted to Python {kind.__name__}")
        return kind(self.compute().reshape(()).item())

    def __bool__(self):
        if self.size != 1:
            raise ValueError(
                "The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()"
            )
        return bool(self.compute())

    def __float__(self):
        return self._scalar(float)

    def __int__(self):
        return self._scalar(int)

    def __complex__(self):
        return self._scalar(complex)

    def __index__(self):
        if not np.issubdtype(self.dtype, np.integer):
            raise TypeError("only integer arrays can be used as an index")
        return self._scalar(int)

    # --- layout ---------------------------------------------------------------------------
    def transpose(self, *axes):
        """The axes reversed, or permuted as ``axes`` says (a view of every block)."""
        if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
            axes = axes[0]
        return Array(self._h.transpose(list(axes) if axes else None))

    @property
    def T(self):
        """The transpose (axes reversed)."""
        return self.transpose()

    @property
    def mT(self):
        """The matrix transpose: the last two axes swapped (a stack of matrices stays one)."""
        if self.ndim < 2:
            raise ValueError("mT needs an array of at least two dimensions")
        axes = list(range(self.ndim))
        axes[-2:] = axes[-1], axes[-2]
        return self.transpose(axes)

    @property
    def real(self):
        """The real parts (the array itself when not complex)."""
        return Array(self._h.unary("real"))

    @property
    def imag(self):
        """The imaginary parts (zeros when not complex)."""
        return Array(self._h.unary("imag"))

    def conj(self):
        """The complex conjugate; an array of another kind is returned as it is (NumPy's
        method, unlike the ``conj`` function, keeps a boolean array boolean)."""
        return Array(self._h.unary("conj")) if self.dtype.kind == "c" else self

    conjugate = conj

    def flatten(self):
        """The elements as a 1-d array, in row-major order."""
        return self.reshape(-1)

    ravel = flatten

    def rechunk(self, chunks="auto"):
        """New block lengths; ``chunks`` in every form ``asarray`` takes, or Dask's dict
        ``{axis: chunks}`` (axes it leaves out keep their blocks)."""
        if isinstance(chunks, dict):
            chunks = _chunks_from_dict(chunks, self.chunks)
        return Array(self._h.rechunk(chunks))

    def astype(self, dtype, copy=True):
        """The elements converted to ``dtype`` (NumPy's casting)."""
        return Array(self._h.astype(dtype_name(dtype)))

    # --- reductions -----------------------------------------------------------------------
    def _reduce(self, op, axis=None, keepdims=False, dtype=None, ddof=0, split_every=None):
        if self.ndim == 0 and op in _UFUNC_REDUCTIONS and not isinstance(axis, (tuple, list)) and axis in (0, -1):
            axis = None  # NumPy's ufunc reductions take axis 0 or -1 of a 0-d array as "all"
        return Array(self._h.reduce(op, _axes(axis), bool(keepdims), float(ddof), dtype_name(dtype), split_every))

    # NumPy's positional order (``out`` included, refused), so ``x.var(0, None, None, 1)`` is a
    # ddof of 1 as in NumPy, never a keepdims.
    def sum(self, axis=None, dtype=None, out=None, keepdims=False, *, split_every=None):
        """Sum over ``axis`` (int, tuple or None) as a tree reduction of ``split_every`` partials at
        a time."""
        refuse_out(out)
        return self._reduce("sum", axis, keepdims, dtype, split_every=split_every)

    def prod(self, axis=None, dtype=None, out=None, keepdims=False, *, split_every=None):
        """Product over ``axis`` as a tree reduction."""
        refuse_out(out)
        return self._reduce("prod", axis, keepdims, dtype, split_every=split_every)

    def mean(self, axis=None, dtype=None, out=None, keepdims=False, *, split_every=None):
        """Mean over ``axis`` as a tree reduction of sums and counts."""
        refuse_out(out)
        return self._reduce("mean", axis, keepdims, dtype, split_every=split_every)

    def var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, split_every=None):
        """Variance over ``axis`` with ``ddof`` degrees of freedom, in one pass (merged moments)."""
        refuse_out(out)
        result = self._reduce("var", axis, keepdims, dtype, ddof, split_every)
        return _float16_overflow(self, result, axis, keepdims) if self.dtype == np.float16 and dtype is None else result

    def std(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, split_every=None):
        """Standard deviation over ``axis`` with ``ddof`` degrees of freedom, in one pass."""
        refuse_out(out)
        result = self._reduce("std", axis, keepdims, dtype, ddof, split_every)
        return _float16_overflow(self, result, axis, keepdims) if self.dtype == np.float16 and dtype is None else result

    def min(self, axis=None, out=None, keepdims=False, *, split_every=None):
        """Smallest element over ``axis`` (NaN propagates, as NumPy's)."""
        refuse_out(out)
        return self._reduce("min", axis, keepdims, split_every=split_every)

    def max(self, axis=None, out=None, keepdims=False, *, split_every=None):
        """Largest element over ``axis`` (NaN propagates, as NumPy's)."""
        refuse_out(out)
        return self._reduce("max", axis, keepdims, split_every=split_every)

    def any(self, axis=None, out=None, keepdims=False, *, split_every=None):
        """Whether any element over ``axis`` is true."""
        refuse_out(out)
        return self._reduce("any", axis, keepdims, split_every=split_every)

    def all(self, axis=None, out=None, keepdims=False, *, split_every=None):
        """Whether every element over ``axis`` is true."""
        refuse_out(out)
        return self._reduce("all", axis, keepdims, split_every=split_every)

    # --- NumPy's other array methods, each the namespace function of the same name -----------
    def swapaxes(self, axis1, axis2):
        """The array with axes ``axis1`` and ``axis2`` swapped (a view of every block)."""
        axes = list(range(self.ndim))
        for axis in (axis1, axis2):
            if not -self.ndim <= axis < self.ndim:
                raise np.exceptions.AxisError(axis, self.ndim)
        a, b = axis1 % self.ndim, axis2 % self.ndim
        axes[a], axes[b] = b, a
        return self.transpose(axes)

    def copy(self):
        """A new array object with the same (immutable) values: later in-place operations on
        either do not reach the other."""
        return Array(self._h, self._attrs)

    def item(self, *args):
        """The single element (or the one at ``args``) as a Python scalar; computes it."""
        return self.compute().item(*args)

    def tolist(self):
        """The computed elements as nested Python lists."""
        return self.compute().tolist()

    # --- operators ------------------------------------------------------------------------
    def __matmul__(self, other):
        if not _is_operand(other):
            return NotImplemented
        return _matmul(self, _as_array(other))

    def __rmatmul__(self, other):
        if not _is_operand(other):
            return NotImplemented
        return _matmul(_as_array(other), self)

    def __imatmul__(self, other):
        out = self @ other
        if out is NotImplemented or out.shape != self.shape or out.dtype != self.dtype:
            raise ValueError("in-place matmul must keep the array's shape and dtype")
        self._h = out._h
        return self

    def __neg__(self):
        return Array(self._h.unary("negative"))

    def __pos__(self):
        return Array(self._h.unary("positive"))

    def __abs__(self):
        return Array(self._h.unary("abs"))

    def __invert__(self):
        return Array(self._h.unary("invert"))


_UFUNC_REDUCTIONS = frozenset(["sum", "prod", "min", "max", "any", "all"])


def _matmul(a, b):
    """NumPy's matmul, as blocked contractions in the Rust core (stack axes broadcast; a
    vector is a one-row or one-column matrix whose axis is dropped)."""
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("matmul: Input operand does not have enough dimensions")
    if a.shape[-1] != b.shape[-2 if b.ndim > 1 else 0]:
        raise ValueError(f"matmul: Input operand 1 has a mismatch in its core dimension 0 "
                         f"(size {b.shape[-2 if b.ndim > 1 else 0]} is different from {a.shape[-1]})")
    np.broadcast_shapes(a.shape[:-2], b.shape[:-2])  # NumPy's error for batch shapes
    return Array(a._h.matmul(b._h))


def _float16_overflow(x, result, axis, keepdims):
    """NumPy's var and std of float16 sum in float16 (tegula's moments are float64): where the
    sum of ``x``, or of its squared deviations, passes float16's largest value, NumPy's result
    is ``inf``, and so is this (unless an element is infinite: then both are NaN)."""
    wide = x.astype(np.float32)
    reduced = range(x.ndim) if axis is None else [a % x.ndim for a in _axes(axis)]
    count = int(np.prod([x.shape[a] for a in reduced], dtype=np.int64))
    largest = float(np.finfo(np.float16).max)
    sums = abs(wide.sum(axis=axis, keepdims=keepdims))
    squares = wide.var(axis=axis, keepdims=keepdims) * count
    # An infinite element makes NumPy's deviations inf - inf, so its result is NaN, as is ours.
    overflow = ((sums > largest) | (squares > largest)) & ~Array(result._h.unary("isnan"))
    return Array(overflow._h.where_(from_values(np.float16(np.inf))._h, result._h))


def refuse_out(out):
    """NumPy's ``out=`` (a positional slot of its signatures, kept so later arguments land where
    NumPy puts them): tegula arrays are immutable values, so none may be given."""
    if out is not None:
        raise TypeError("tegula arrays are immutable values: out= is not supported")


def _chunks_from_dict(chunks, current):
    """Dask's ``{axis: chunks}`` as a per-axis tuple: axes it leaves out keep ``current``."""
    ndim = len(current)
    out = list(current)
    for axis, c in chunks.items():
        axis = operator.index(axis)
        if not -ndim <= axis < ndim:
            raise np.exceptions.AxisError(axis, ndim)
        out[axis % ndim] = c
    return tuple(out)


def _axes(axis):
    """``axis=`` as a list of ints; a float or other non-integer is NumPy's ``TypeError``."""
    if axis is None:
        return None
    if isinstance(axis, (tuple, list)):
        return [operator.index(a) for a in axis]
    return [operator.index(axis)]


def _is_operand(x):
    """Whether an Array operator accepts `x` as its other operand (checked without converting
    it: a Python scalar stays weakly typed, and may not even fit a NumPy dtype)."""
    return isinstance(x, (Array, np.ndarray, np.generic, list, tuple)) or is_python_scalar(x)


def _as_array(x):
    return x if isinstance(x, Array) else from_values(x)


def from_values(a, dtype=None, chunks="auto"):
    """An array of values in memory: a NumPy array or scalar, a Python scalar, or nested
    sequences of them (``asarray``'s building block, and the operators')."""
    if dtype is None and _is_nested_scalars(a):
        arr = _default_array(a)
    else:
        arr = np.asarray(a, dtype=None if dtype is None else np.dtype(dtype))
    if not is_supported(arr.dtype.newbyteorder("=")):
        raise TypeError(f"tegula does not support dtype {arr.dtype}")
    if not arr.dtype.isnative:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    return Array(_tegula.from_numpy(arr, chunks))


def _is_nested_scalars(a):
    return is_python_scalar(a) or (isinstance(a, (list, tuple)) and all(map(_is_nested_scalars, a)))


def _default_array(a):
    """Python scalars (nested in lists) as NumPy makes them, except that Python ints too big for
    int64 are an ``OverflowError``, as the standard asks (NumPy would make objects or uint64)."""
    arr = np.asarray(a)
    if arr.dtype == object or arr.dtype == np.uint64:
        raise OverflowError("Python int too large to convert to int64")
    return arr


def binary(op, a, b):
    """`op(a, b)` with NumPy 2 promotion (Python scalars are weak)."""
    check_promotion(op, a, b)
    a, b = in_unit_of([a, b])
    if isinstance(a, Array) and is_python_scalar(b):
        return Array(a._h.binary_scalar(op, b, False))
    if isinstance(b, Array) and is_python_scalar(a):
        return Array(b._h.binary_scalar(op, a, True))
    return Array(_as_array(a)._h.binary(op, _as_array(b)._h))


def _add_operators():
    ops = {
        "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "divide",
        "floordiv": "floor_divide", "mod": "remainder", "pow": "power", "and": "bitwise_and",
        "or": "bitwise_or", "xor": "bitwise_xor", "lshift": "left_shift", "rshift": "right_shift",
    }
    comparisons = {
        "eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal", "gt": "greater",
        "ge": "greater_equal",
    }

    def forward(op):
        def method(self, other):
            if not _is_operand(other):
                return NotImplemented
            return binary(op, self, other)
        return method

    def reflected(op):
        def method(self, other):
            if not _is_operand(other):
                return NotImplemented
            return binary(op, other, self)
        return method

    def in_place(op):
        def method(self, other):
            if not _is_operand(other):
                return NotImplemented
            out = binary(op, self, other)
            if out.dtype != self.dtype or out.shape != self.shape:
                raise TypeError(f"in-place {op} would change {self.dtype}{list(self.shape)} into "
                                f"{out.dtype}{list(out.shape)}")
            self._h = out._h
            return self
        return method

    for dunder, op in ops.items():
        setattr(Array, f"__{dunder}__", forward(op))
        setattr(Array, f"__r{dunder}__", reflected(op))
        setattr(Array, f"__i{dunder}__", in_place(op))
    for dunder, op in comparisons.items():
        setattr(Array, f"__{dunder}__", forward(op))


_add_operators()

