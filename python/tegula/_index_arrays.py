"""NumPy's functions between positions and index arrays: ``argwhere``, ``flatnonzero``,
``extract``, ``ravel_multi_index``,
``unravel_index`` and the triangle indices (``tril_indices``, ``triu_indices`` and their
``_from`` forms). Flat positions and coordinates are element-wise integer arithmetic; the
triangles' coordinates are generated from a range and the (small) row lengths, so nothing
the size of the result is made here. Out-of-range coordinates given as NumPy arrays are
refused now; in lazy arrays, when computed (``_deferred_checks.py``)."""

import operator

import numpy as np

from ._array import Array
from ._creation import arange, asarray
from ._deferred_checks import checked
from ._functions import REDUCTIONS, UFUNCS, stack
from ._gather import nonzero, take
from ._manipulation import broadcast_arrays, ravel
from ._sorting import searchsorted

_MODES = ("raise", "wrap", "clip")


def argwhere(a):
    """NumPy's ``argwhere``: the coordinates of the non-zero elements, one row each (int64, of
    shape ``(N, a.ndim)``). Their number is computed now, as ``nonzero``'s."""
    x = asarray(a)
    if x.ndim == 0:
        return argwhere(x.reshape((1,)))[:, :0]
    return stack(nonzero(x), axis=1)


def flatnonzero(a):
    """NumPy's ``flatnonzero``: the int64 positions of the non-zero elements of the flattened
    array (their number computed now, as ``nonzero``'s)."""
    return nonzero(ravel(a))[0]


def extract(condition, arr):
    """NumPy's ``extract``: the elements of the flattened ``arr`` where the flattened
    ``condition`` is non-zero. As NumPy, ``condition`` may be shorter than ``arr``; a non-zero
    element past ``arr``'s end is an ``IndexError`` (when computed, where ``condition`` is
    lazy)."""
    return take(ravel(arr), flatnonzero(condition), axis=0)


def _strides(dims, order):
    """Row-major (``"C"``) or column-major (``"F"``) strides of ``dims``, in elements."""
    if order not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")
    size = 1
    strides = [0] * len(dims)
    for i in (reversed(range(len(dims))) if order == "C" else range(len(dims))):
        strides[i] = size
        size *= dims[i]
    if size > np.iinfo(np.intp).max:
        raise ValueError("invalid dims: array size defined by dims is larger than the maximum possible size.")
    return strides


def _integer_indices(a):
    """``a`` as an int64 tegula array; inexact values are NumPy's TypeError."""
    x = asarray(a)
    if x.dtype.kind not in "biu":
        raise TypeError("only int indices permitted")
    return x.astype(np.int64)


def _dims(dims):
    dims = (dims,) if np.ndim(dims) == 0 else tuple(dims)
    dims = tuple(operator.index(d) for d in dims)
    if any(d < 0 for d in dims):
        raise ValueError("dimensions must be non-negative")
    return dims


def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    """NumPy's ``ravel_multi_index``: the flat positions (int64) of coordinates into an array
    of shape ``dims``. ``mode``: ``"raise"`` (ValueError for a coordinate outside, when
    computed for lazy coordinates), ``"wrap"`` or ``"clip"``, or one per axis."""
    dims = _dims(dims)
    if len(multi_index) != len(dims):
        raise ValueError(f"parameter multi_index must be a sequence of length {len(dims)}")
    modes = (mode,) * len(dims) if isinstance(mode, str) else tuple(mode)
    if len(modes) != len(dims) or any(m not in _MODES for m in modes):
        raise ValueError("clipmode must be one of 'clip', 'raise', or 'wrap'")
    strides = _strides(dims, order)
    coordinates = broadcast_arrays(*[_integer_indices(i) for i in multi_index])
    flat, outside = asarray(np.int64(0)), None
    for c, n, m, stride in zip(coordinates, dims, modes, strides):
        if m == "wrap":
            c = c % n if n else c
        elif m == "clip":
            c = UFUNCS["minimum"](UFUNCS["maximum"](c, 0), n - 1)
        else:
            bad = (c < 0) | (c >= n)
            outside = bad if outside is None else outside | bad
        flat = flat + c * stride
    if outside is None:
        return flat
    return _refuse_outside(flat, outside, multi_index, "invalid entry in coordinates array")


def _refuse_outside(result, outside, given, message):
    """``result``, with NumPy's ValueError now where the inputs are all known, or when
    computed."""
    if any(isinstance(g, Array) for g in given):
        return checked(result, outside, ValueError, message)
    if REDUCTIONS["any"](outside).compute():
        raise ValueError(message)
    return result


def unravel_index(indices, shape, order="C"):
    """NumPy's ``unravel_index``: the coordinates (a tuple of int64 arrays of ``indices``'s
    shape) of flat positions into an array of ``shape``; a position outside is a ValueError
    (when computed, for lazy positions)."""
    dims = _dims(shape)
    strides = _strides(dims, order)
    flat = _integer_indices(indices)
    size = int(np.prod(dims, dtype=np.int64))
    flat = _refuse_outside(flat, (flat < 0) | (flat >= size), [indices],
                           f"index out of bounds for array with size {size}")
    return tuple((flat // stride) % n for n, stride in zip(dims, strides))


def _triangle(n, m, lo, hi):
    """The coordinates of the cells ``lo[i] <= j < hi[i]`` of each row ``i`` of an ``n × m``
    grid, row by row: each position's row found among the rows' ends by ``searchsorted``,
    its column from its row's start."""
    counts = np.maximum(hi - lo, 0)
    ends = np.cumsum(counts)
    total = int(ends[-1]) if n else 0
    positions = arange(total, dtype=np.int64)
    rows = searchsorted(asarray(ends), positions, side="right")
    cols = positions + take(asarray(lo - (ends - counts)), rows, axis=0)
    return rows, cols


def _grid(n, k, m):
    n, k = operator.index(n), operator.index(k)
    m = n if m is None else operator.index(m)
    return n, k, m, np.arange(n, dtype=np.int64)


def tril_indices(n, k=0, m=None):
    """NumPy's ``tril_indices``: the coordinates of the lower triangle (on and below diagonal
    ``k``) of an ``n × m`` array, row by row."""
    n, k, m, i = _grid(n, k, m)
    return _triangle(n, m, np.zeros_like(i), np.clip(i + k + 1, 0, m))


def triu_indices(n, k=0, m=None):
    """NumPy's ``triu_indices``: the coordinates of the upper triangle (on and above diagonal
    ``k``) of an ``n × m`` array, row by row."""
    n, k, m, i = _grid(n, k, m)
    return _triangle(n, m, np.clip(i + k, 0, m), np.full_like(i, m))


def _square_shape(arr):
    shape = np.shape(arr) if not isinstance(arr, Array) else arr.shape
    if len(shape) != 2:
        raise ValueError("input array must be 2-d")
    return shape


def tril_indices_from(arr, k=0):
    """NumPy's ``tril_indices_from``: ``tril_indices`` of a 2-d array's shape."""
    n, m = _square_shape(arr)
    return tril_indices(n, k=k, m=m)


def triu_indices_from(arr, k=0):
    """NumPy's ``triu_indices_from``: ``triu_indices`` of a 2-d array's shape."""
    n, m = _square_shape(arr)
    return triu_indices(n, k=k, m=m)
