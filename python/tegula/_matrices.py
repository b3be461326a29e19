"""Functions over the last axes of arrays, built from lazy element-wise operations on index
grids (``eye``, ``tri``, ``tril``, ``triu``, ``meshgrid``) and from ``matmul`` and reductions
(``vecdot``, ``vdot``, ``outer``, ``tensordot``, ``matrix_transpose``)."""

import operator

import numpy as np

from ._array import Array
from ._creation import arange, asarray
from ._dtypes import float64
from ._functions import UFUNCS, matmul, stack, where
from ._info import _check_device, _on
from ._manipulation import broadcast_arrays, broadcast_to
from ._reshape import reshape
from ._xarray_chunks import normalize_chunks


def _diagonal_offsets(n_rows, n_cols, row_chunks="auto", col_chunks="auto"):
    """The (rows, cols) int64 grid ``col - row``: which diagonal each element is on."""
    rows = arange(n_rows, dtype="int64", chunks=(row_chunks,))[:, None]
    cols = arange(n_cols, dtype="int64", chunks=(col_chunks,))[None, :]
    return cols - rows


def eye(n_rows, n_cols=None, k=0, dtype=None, *, device=None, chunks="auto"):
    """Ones on the ``k``-th diagonal, zeros elsewhere; generated block by block. (``k`` and
    ``dtype`` may be given by position, as NumPy's.)"""
    _check_device(device)
    n_rows = operator.index(n_rows)
    n_cols = n_rows if n_cols is None else operator.index(n_cols)
    if n_rows < 0 or n_cols < 0:
        raise ValueError("negative dimensions are not allowed")
    # A pair is one rule per axis (as for any 2-d array); anything else cuts both axes alike.
    per_axis = isinstance(chunks, (tuple, list)) and len(chunks) == 2
    row_chunks, col_chunks = chunks if per_axis else (chunks, chunks)
    on_diagonal = _diagonal_offsets(n_rows, n_cols, row_chunks, col_chunks) == operator.index(k)
    return _on(device, on_diagonal.astype(float64 if dtype is None else dtype))


def tri(N, M=None, k=0, dtype=float, chunks="auto", *, like=None):
    """NumPy's ``tri``: ones at and below the ``k``-th diagonal of an ``N`` by ``M`` array
    (``M`` defaults to ``N``; negative sizes are empty, as NumPy's), generated block by block;
    ``chunks`` as Dask's."""
    n_rows = max(operator.index(N), 0)
    n_cols = n_rows if M is None else max(operator.index(M), 0)
    rows, cols = normalize_chunks(chunks, (n_rows, n_cols), dtype=dtype)
    below = _diagonal_offsets(n_rows, n_cols, rows, cols) <= operator.index(k)
    return below.astype(dtype)


def _triangle(x, k, upper):
    x = asarray(x)
    if x.ndim < 2:
        raise ValueError("tril and triu need an array of at least two dimensions")
    # triu keeps the elements on or above diagonal k; tril is the complement of triu(k + 1)
    keep = _diagonal_offsets(x.shape[-2], x.shape[-1], x.chunks[-2], x.chunks[-1]) >= (
        operator.index(k) if upper else operator.index(k) + 1)
    return where(keep if upper else ~keep, x, asarray(0, dtype=x.dtype))


def triu(x, /, k=0):
    """``x`` with the elements below the ``k``-th diagonal of its last two axes set to zero."""
    return _triangle(x, k, True)


def tril(x, /, k=0):
    """``x`` with the elements above the ``k``-th diagonal of its last two axes set to zero."""
    return _triangle(x, k, False)


def meshgrid(*arrays, indexing="xy"):
    """Coordinate arrays from 1-d coordinate vectors (NumPy's ``meshgrid``, ``'xy'`` or ``'ij'``)."""
    if indexing not in ("xy", "ij"):
        raise ValueError("indexing must be 'xy' or 'ij'")
    arrays = [asarray(a) for a in arrays]
    if any(a.ndim != 1 for a in arrays):
        raise ValueError("meshgrid takes 1-d arrays")
    if len({a.dtype for a in arrays}) > 1:
        raise TypeError("meshgrid takes arrays of one dtype")
    shape = [a.shape[0] for a in arrays]
    if indexing == "xy" and len(arrays) > 1:
        shape[0], shape[1] = shape[1], shape[0]
    out = []
    for i, a in enumerate(arrays):
        axis = (1 if i == 0 else 0 if i == 1 else i) if indexing == "xy" and len(arrays) > 1 else i
        key = tuple(slice(None) if d == axis else None for d in range(len(arrays)))
        out.append(broadcast_to(a[key], tuple(shape)))
    return tuple(out)


def indices(dimensions, dtype=int, sparse=False):
    """The grid of each axis' indices over an array of shape ``dimensions``: one array of shape
    ``(len(dimensions), *dimensions)``, or with ``sparse`` a tuple of broadcastable ones."""
    dimensions = tuple(operator.index(d) for d in dimensions)
    if any(d < 0 for d in dimensions):
        raise ValueError("negative dimensions are not allowed")
    n = len(dimensions)
    axes = [arange(d, dtype=dtype).reshape((1,) * i + (d,) + (1,) * (n - i - 1)) for i, d in enumerate(dimensions)]
    if sparse:
        return tuple(axes)
    if n == 0:
        return asarray(np.empty((0,), dtype=dtype))
    return stack(broadcast_arrays(*axes), axis=0)


def matrix_transpose(x, /):
    """The last two axes of ``x`` swapped (a view of every block)."""
    return asarray(x).mT


def vecdot(x1, x2, /, *, axis=-1):
    """The dot product of vectors along ``axis`` (the first argument conjugated), broadcast
    over the other axes."""
    x1, x2 = asarray(x1), asarray(x2)
    n = max(x1.ndim, x2.ndim)
    axis = operator.index(axis)
    if not -min(x1.ndim, x2.ndim) <= axis < 0 and not (0 <= axis < n and x1.ndim == x2.ndim):
        raise ValueError(f"axis {axis} is out of bounds for vecdot of {x1.ndim}-d and {x2.ndim}-d arrays")
    a = axis if axis < 0 else axis - n
    if x1.shape[a] != x2.shape[a]:
        raise ValueError(f"vecdot: the lengths along axis {axis} differ ({x1.shape[a]} and {x2.shape[a]})")
    left = UFUNCS["conj"](x1) if x1.dtype.kind == "c" else x1
    products = left * x2
    return products.sum(axis=a, dtype=products.dtype)  # no widening, as NumPy's vecdot


def vdot(a, b, /):
    """NumPy's ``vdot``: the dot product of the flattened arrays, the first conjugated (a
    ``ValueError`` when their sizes differ); the result is 0-d, in their common dtype."""
    a, b = asarray(a).reshape(-1), asarray(b).reshape(-1)
    if a.shape != b.shape:
        raise ValueError(f"cannot reshape array of size {b.shape[0]} into shape {a.shape}")
    return dot(UFUNCS["conj"](a) if a.dtype.kind == "c" else a, b)


def outer(x1, x2, /):
    """The outer product of two 1-d arrays."""
    x1, x2 = asarray(x1), asarray(x2)
    if x1.ndim != 1 or x2.ndim != 1:
        raise ValueError("outer takes 1-d arrays")
    return x1[:, None] * x2[None, :]


def inner(a, b, /):
    """NumPy's ``inner``: sums of products over the last axes of ``a`` and ``b`` (a product
    when either is 0-d); the result's axes are ``a``'s others, then ``b``'s."""
    a, b = asarray(a), asarray(b)
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    return tensordot(a, b, axes=([-1], [-1]))


def kron(a, b, /):
    """NumPy's ``kron``: the Kronecker product, blocks of ``b`` scaled by each element of
    ``a``. The operand with fewer axes gets leading axes of length 1; the result's extent
    along each axis is the product of the operands'."""
    a, b = asarray(a), asarray(b)
    ndim = max(a.ndim, b.ndim)
    a_shape = (1,) * (ndim - a.ndim) + a.shape
    b_shape = (1,) * (ndim - b.ndim) + b.shape
    # a's axes interleaved with b's: (a0, b0, a1, b1, ...), then each pair merged.
    spread_a = a.reshape(tuple(n for d in a_shape for n in (d, 1)))
    spread_b = b.reshape(tuple(n for d in b_shape for n in (1, d)))
    return (spread_a * spread_b).reshape(tuple(m * n for m, n in zip(a_shape, b_shape)))


def dot(a, b, /):
    """NumPy's ``dot``: a product with a 0-d operand; otherwise the sums of products over the
    last axis of ``a`` and the second-to-last of ``b`` (its only axis when 1-D)."""
    a, b = asarray(a), asarray(b)
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    return tensordot(a, b, axes=([-1], [-2 if b.ndim > 1 else 0]))


def tensordot(x1, x2, /, axes=2):
    """Sums of products over ``axes`` (an int: the last ``axes`` of ``x1`` with the first of
    ``x2``; or two sequences of axes), as a matrix product of the rearranged operands."""
    x1, x2 = asarray(x1), asarray(x2)
    if isinstance(axes, int) or np.ndim(axes) == 0:
        k = operator.index(axes)
        if k < 0 or k > min(x1.ndim, x2.ndim):
            raise ValueError("tensordot axes must be between 0 and the operands' dimensions")
        a1, a2 = list(range(x1.ndim - k, x1.ndim)), list(range(k))
    else:
        a1, a2 = ([operator.index(a) for a in (ax if isinstance(ax, (tuple, list)) else (ax,))] for ax in axes)
        if len(a1) != len(a2):
            raise ValueError("tensordot needs as many axes of each operand")
        a1 = [a % x1.ndim if -x1.ndim <= a < x1.ndim else _bad_axis(a, x1.ndim) for a in a1]
        a2 = [a % x2.ndim if -x2.ndim <= a < x2.ndim else _bad_axis(a, x2.ndim) for a in a2]
    if any(x1.shape[i] != x2.shape[j] for i, j in zip(a1, a2)):
        raise ValueError("shape-mismatch for sum in tensordot")
    free1 = [a for a in range(x1.ndim) if a not in a1]
    free2 = [a for a in range(x2.ndim) if a not in a2]
    m = int(np.prod([x1.shape[a] for a in free1], dtype=np.int64))
    k = int(np.prod([x1.shape[a] for a in a1], dtype=np.int64))
    n = int(np.prod([x2.shape[a] for a in free2], dtype=np.int64))
    left = reshape(x1.transpose(free1 + a1), (m, k))
    right = reshape(x2.transpose(a2 + free2), (k, n))
    out_shape = tuple(x1.shape[a] for a in free1) + tuple(x2.shape[a] for a in free2)
    return reshape(matmul(left, right), out_shape)


def _bad_axis(a, ndim):
    raise np.exceptions.AxisError(a, ndim)
