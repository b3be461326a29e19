"""The lazy chunked array of tegula. It holds one handle on a Rust expression node; every
method builds a new node (validated at once) and nothing runs until ``compute``."""

import operator

import numpy as np

from . import _tegula
from ._dtypes import dtype_name, in_unit_of, is_python_scalar
from ._strict import check_promotion
from ._indexing import normalize_key


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
        from ._info import _check_device

        _check_device(device)
        return self if device == self.device else Array(self._h.to_device(device), self._attrs)

    def __array_namespace__(self, /, *, api_version=None):
        import tegula

        if api_version not in (None, "2021.12", "2022.12", "2023.12", "2024.12", "2025.12"):
            raise ValueError(f"tegula does not implement array API version {api_version!r}")
        return tegula

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
        from . import config

        if isinstance(node_memory, str):
            node_memory = _tegula.memory_budget(node_memory)
        return self._h.explain(config.explicit().get("memory"), nodes, node_memory)

    def map_blocks(self, func, *args, **kwargs):
        """``tegula.map_blocks(func, self, *args, **kwargs)``: ``func`` applied to each block."""
        from ._map_blocks import map_blocks

        return map_blocks(func, self, *args, **kwargs)

    def map_overlap(self, func, depth, boundary=None, trim=True, **kwargs):
        """Dask's method: ``tegula.map_overlap(func, self, depth=depth, ...)``."""
        from ._overlap import map_overlap

        return map_overlap(func, self, depth=depth, boundary=boundary, trim=trim, **kwargs)

    def visualize(self, filename=None, color="order", level="auto", fuse=True, renderer="auto"):
        """Draws the chunk task graph (see ``tegula._visualize.visualize``): SVG text, or the
        picture written to ``filename``."""
        from ._visualize import visualize

        return visualize(self, filename, color=color, level=level, fuse=fuse, renderer=renderer)

    def __repr__(self):
        return (
            f"tegula.Array<shape={self.shape}, dtype={self.dtype}, chunksize={self.chunksize}, "
            f"numblocks={self.numblocks}, tasks={self.task_count()}>"
        )

    def _repr_html_(self):
        from ._html import repr_html

        return repr_html(self)

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
        from ._functions import run_compute

        return run_compute([self._h], scheduler, num_workers, fuse, progress, placement)[0][0]

    def persist(self, scheduler=None, num_workers=None, fuse=True, progress=None, placement=None):
        """Computes the array and keeps its blocks; returns a tegula array of the same values
        and chunks that reads them (see ``tegula.persist``)."""
        from ._functions import persist

        return persist(self, scheduler=scheduler, num_workers=num_workers, fuse=fuse, progress=progress, placement=placement)[0]

    def to_zarr(self, path, chunks=None, compressor=None, overwrite=False, **kwargs):
        """Writes the array to a new Zarr array (see ``tegula.to_zarr``)."""
        from ._io import to_zarr

        return to_zarr(self, path, chunks=chunks, compressor=compressor, overwrite=overwrite, **kwargs)

    def to_dask_array(self):
        """A Dask array of the same chunks whose blocks tegula computes when Dask asks (see
        ``_to_dask.py``; tegula arrays are not Dask collections themselves)."""
        from ._to_dask import to_dask_array

        return to_dask_array(self)

    def to_npy(self, path, overwrite=False):
        """Writes the array to a ``.npy`` file (see ``tegula.to_npy``)."""
        from ._io import to_npy

        return to_npy(self, path, overwrite=overwrite)

    def __array__(self, dtype=None, copy=None):
        if copy is False:
            raise ValueError("a tegula array is computed to make a NumPy array: it cannot be had without a copy")
        out = self.compute()
        return out if dtype is None else out.astype(dtype, copy=False)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        from ._numpy_protocol import array_ufunc

        return array_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        from ._numpy_protocol import array_function

        return array_function(func, types, args, kwargs)

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
    def __getitem__(self, key):
        from ._gather import getitem, is_advanced

        if is_advanced(key):
            return getitem(self, key)  # integer arrays and boolean masks
        return Array(self._h.getitem(normalize_key(key)))

    def __setitem__(self, key, value):
        """Assignment rebinds this array to a new lazy value (copy on write): arrays made from
        it earlier keep the old values."""
        from ._indexing import assign

        self._h = assign(self, key, value)._h

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

    def reshape(self, *shape, order="C", copy=None):
        """``x.reshape(2, 3)`` or ``x.reshape((2, 3))``, ``order="F"`` as NumPy's; see
        ``tegula.reshape``."""
        from ._reshape import reshape

        return reshape(self, shape[0] if len(shape) == 1 else shape, order=order, copy=copy)

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

    @property
    def blocks(self):
        """Dask's block indexer: ``x.blocks[i, j]`` is the array of those blocks (ints, slices
        and lists of block numbers), keeping their chunks."""
        from ._blocks import BlockView

        return BlockView(self)

    @property
    def vindex(self):
        """Dask's point-wise indexer: ``x.vindex[[0, 2], [1, 3]]`` is ``[x[0, 1], x[2, 3]]``;
        index arrays broadcast together and their axes come first."""
        from ._blocks import VectorIndex

        return VectorIndex(self)

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
    def argmax(self, axis=None, out=None, *, keepdims=False):
        """The position of the first largest element along ``axis`` (of the flattened array when
        None)."""
        refuse_out(out)
        return _namespace().argmax(self, axis=axis, keepdims=keepdims)

    def argmin(self, axis=None, out=None, *, keepdims=False):
        """The position of the first smallest element along ``axis`` (of the flattened array when
        None)."""
        refuse_out(out)
        return _namespace().argmin(self, axis=axis, keepdims=keepdims)

    def cumsum(self, axis=None, dtype=None):
        """Running sums along ``axis`` (of the flattened array when None)."""
        return _namespace().cumsum(self, axis=axis, dtype=dtype)

    def cumprod(self, axis=None, dtype=None):
        """Running products along ``axis`` (of the flattened array when None)."""
        return _namespace().cumprod(self, axis=axis, dtype=dtype)

    def clip(self, min=None, max=None):
        """The elements limited to ``[min, max]``."""
        return _namespace().clip(self, min, max)

    def round(self, decimals=0):
        """The elements rounded to ``decimals`` (half to even, as NumPy's)."""
        return _namespace().round(self, decimals=decimals)

    def squeeze(self, axis=None):
        """The array without its length-one axes (or only those of ``axis``)."""
        return _namespace().squeeze(self, axis=axis)

    def swapaxes(self, axis1, axis2):
        """The array with axes ``axis1`` and ``axis2`` swapped (a view of every block)."""
        axes = list(range(self.ndim))
        for axis in (axis1, axis2):
            if not -self.ndim <= axis < self.ndim:
                raise np.exceptions.AxisError(axis, self.ndim)
        a, b = axis1 % self.ndim, axis2 % self.ndim
        axes[a], axes[b] = b, a
        return self.transpose(axes)

    def repeat(self, repeats, axis=None):
        """Each element repeated ``repeats`` times along ``axis`` (of the flattened array when
        None)."""
        return _namespace().repeat(self, repeats, axis=axis)

    def nonzero(self):
        """The indices of the non-zero elements, one array per axis (their number is computed now)."""
        return _namespace().nonzero(self)

    def dot(self, b):
        """NumPy's ``dot`` of this array and ``b``."""
        return _namespace().dot(self, b)

    def diagonal(self, offset=0, axis1=0, axis2=1):
        """NumPy's method: the diagonal of the plane of ``axis1`` and ``axis2``, as a last axis."""
        return _namespace().diagonal(self, offset, axis1, axis2)

    def trace(self, offset=0, axis1=0, axis2=1, dtype=None):
        """The sum of the ``offset``-th diagonal of the matrices of ``axis1`` and ``axis2``."""
        return _namespace().trace(self, offset, axis1, axis2, dtype)

    def take(self, indices, axis=None):
        """NumPy's ``take``: the elements at ``indices`` along ``axis`` (of the flattened array when
        None)."""
        return _namespace().take(self, indices, axis=axis)

    def searchsorted(self, v, side="left", sorter=None):
        """For each of ``v``, where inserting it keeps this sorted 1-d array sorted."""
        return _namespace().searchsorted(self, v, side=side, sorter=sorter)

    def argsort(self, axis=-1, kind=None, order=None):
        """Stable whatever ``kind`` asks for (a stable order is a valid answer to every kind)."""
        if order is not None:
            raise ValueError("argsort's order names fields of structured arrays, which tegula does not have")
        return _namespace().argsort(self, axis=axis)

    def sort(self, axis=-1, kind=None, order=None, *, stable=None):
        """NumPy's in-place sort: this array rebound to its values sorted along ``axis`` (stable
        whatever ``kind`` asks for); arrays made from it earlier keep the old values."""
        from ._sorting import sort

        if order is not None:
            raise ValueError("sort's order names fields of structured arrays, which tegula does not have")
        self._h = sort(self, axis=axis)._h

    def partition(self, kth, axis=-1, kind="introselect", order=None):
        """NumPy's in-place partition, as a full sort (rebinding, as ``sort``)."""
        from ._ndarray_methods import partition

        self._h = partition(self, kth, axis, order=order)._h

    def argpartition(self, kth, axis=-1, kind="introselect", order=None):
        """Positions that partition the array around ``kth`` along ``axis`` (NumPy's
        ``argpartition``)."""
        from ._ndarray_methods import argpartition

        return argpartition(self, kth, axis, order=order)

    def fill(self, value):
        """NumPy's ``fill``: this array rebound to ``value`` everywhere, keeping its dtype and
        chunks."""
        from ._ndarray_methods import filled

        self._h = filled(self, value)._h

    def put(self, indices, values, mode="raise"):
        """A new array with the flat positions ``ind`` set to ``v`` (tegula arrays are values:
        nothing is changed in place)."""
        from ._ndarray_methods import put

        put(self, indices, values, mode)

    def compress(self, condition, axis=None, out=None):
        """The slices along ``axis`` where ``condition`` is true."""
        from ._ndarray_methods import compress

        refuse_out(out)
        return compress(condition, self, axis)

    def choose(self, choices, out=None, mode="raise"):
        """NumPy's ``choose``: each element picks from ``choices`` by this array's value."""
        from ._ndarray_methods import choose

        return choose(self, choices, out, mode)

    def view(self, dtype=None, type=None):
        """NumPy's ``view(dtype)``: the elements' bytes read as ``dtype``."""
        from ._ndarray_methods import view

        if type is not None:
            raise TypeError("tegula arrays have no subclasses to view as")
        return view(self, dtype)

    @property
    def flat(self):
        """The elements as a 1-d array, in row-major order."""
        from ._ndarray_methods import FlatView

        return FlatView(self)

    def tobytes(self, order="C"):
        """The computed elements as bytes, in row-major order."""
        from ._ndarray_methods import tobytes

        return tobytes(self, order)

    def tofile(self, fid, sep="", format="%s"):
        """The computed elements written to ``fid`` (NumPy's ``tofile``)."""
        from ._ndarray_methods import tofile

        tofile(self, fid, sep, format)

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
    from ._functions import where

    wide = x.astype(np.float32)
    reduced = range(x.ndim) if axis is None else [a % x.ndim for a in _axes(axis)]
    count = int(np.prod([x.shape[a] for a in reduced], dtype=np.int64))
    largest = float(np.finfo(np.float16).max)
    sums = abs(wide.sum(axis=axis, keepdims=keepdims))
    squares = wide.var(axis=axis, keepdims=keepdims) * count
    # An infinite element makes NumPy's deviations inf - inf, so its result is NaN, as is ours.
    overflow = ((sums > largest) | (squares > largest)) & ~_namespace().isnan(result)
    return where(overflow, np.float16(np.inf), result)


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
    from ._creation import asarray

    return asarray(x)


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


def _namespace():
    """The ``tegula`` namespace, whose functions the array methods call (imported late: it
    imports this module)."""
    import tegula

    return tegula
