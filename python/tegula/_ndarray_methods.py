"""NumPy's ndarray methods (and their functions) that tegula composes from lazy operations:
``fill`` (a constant), ``compress`` (a gather at the condition's true positions), ``choose`` (nested ``where``),
``put`` (a scatter into the flattened array), ``partition``/``argpartition`` (a full sort,
which satisfies their contract), ``view`` (between dtypes whose casts keep the bits),
``flat`` (a flattened view object) and the byte dumps ``tobytes``/``tofile``, which compute."""

import operator

import numpy as np

from ._array import Array, refuse_out
from ._creation import asarray, full
from ._deferred_checks import checked
from ._dtypes import dtype_name
from ._functions import result_type, where
from ._gather import nonzero, take
from ._manipulation import broadcast_arrays, clip, unstack
from ._sorting import argsort, sort


def compress(condition, a, axis=None):
    """NumPy's ``compress``: the slices of ``a`` along ``axis`` (of the flattened ``a`` when
    None) where the 1-D ``condition`` is true; a shorter condition counts as false beyond its
    end, a longer one must be false there."""
    a = asarray(a)
    if axis is None:
        a, axis = a.reshape(-1), 0
    axis = _axis(axis, a.ndim)
    if isinstance(condition, Array):
        if condition.ndim != 1:
            raise ValueError("condition must be a 1-d array")
        return take(a, nonzero(condition)[0], axis=axis)
    condition = np.asarray(condition)
    if condition.ndim != 1:
        raise ValueError("condition must be a 1-d array")
    index = np.flatnonzero(condition.astype(bool))
    if index.size and index[-1] >= a.shape[axis]:
        raise IndexError(f"index {index[-1]} is out of bounds for axis {axis} with size {a.shape[axis]}")
    return take(a, index, axis=axis)


def choose(a, choices, out=None, mode="raise"):
    """NumPy's ``choose``: where ``a`` is ``i``, the element of ``choices[i]`` (all broadcast
    together); ``mode``: 'raise' (checked when computed), 'wrap' or 'clip' out-of-range
    indices."""
    refuse_out(out)
    a = asarray(a)
    if a.dtype.kind not in "iub":
        raise TypeError(f"Cannot cast array data from {a.dtype} to int64 according to the rule 'safe'")
    choices = [asarray(c) for c in (choices if not isinstance(choices, Array) else unstack(choices))]
    n = len(choices)
    if n == 0:
        raise ValueError("0-length sequence.")
    if mode == "wrap":
        a = a % n
    elif mode == "clip":
        a = clip(a, 0, n - 1)
    elif mode != "raise":
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")
    a, *choices = broadcast_arrays(a, *choices)
    out = choices[0].astype(result_type(*choices))
    for i, c in enumerate(choices[1:], 1):
        out = where(a == i, c, out)
    if mode == "raise":
        out = checked(out, (a < 0) | (a >= n), ValueError, "invalid entry in choice array")
    return out


def filled(a, value):
    """``a``'s shape, dtype and chunks, holding ``value`` everywhere (NumPy's ``fill``: a NaN
    or infinity is refused by integer dtypes)."""
    if a.dtype.kind in "iu" and isinstance(value, (float, np.floating)) and not np.isfinite(value):
        raise (ValueError if np.isnan(value) else OverflowError)(f"cannot convert float {value} to integer")
    return full(a.shape, value, dtype=a.dtype, chunks=a.chunks)


def put(a, ind, v, mode="raise"):
    """NumPy's ``put``: ``a`` (a tegula array, rebound as assignment does) with the elements at
    flat positions ``ind`` set to ``v`` (repeated as needed; the last of repeated positions
    wins); ``mode`` as ``choose``'s, checked now for known indices."""
    if not isinstance(a, Array):
        raise TypeError("put needs a tegula array to put into")
    ind = np.asarray(ind)
    if ind.dtype.kind not in "iu" and ind.size:
        raise TypeError("indices must be integers")
    ind = ind.astype(np.int64).reshape(-1)
    if ind.size == 0:
        return
    n = a.size
    if mode == "wrap":
        ind = ind % n
    elif mode == "clip":
        ind = np.clip(ind, 0, n - 1)
    elif mode != "raise":
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")
    values = asarray(v).reshape(-1)
    if values.size == 0:
        return
    if values.size != ind.size:
        values = values[np.arange(ind.size) % values.size]
    flat = a.reshape(-1)
    flat[ind] = values
    a._h = flat.reshape(a.shape)._h


def partition(a, kth, axis=-1, kind="introselect", order=None):
    """NumPy's ``partition``, by a full sort along ``axis`` (the flattened array when None):
    every element is in its sorted place, which the contract asks of the ``kth`` ones."""
    a, axis = _partitioned(a, kth, axis, order)
    return sort(a, axis=axis)


def argpartition(a, kth, axis=-1, kind="introselect", order=None):
    """NumPy's ``argpartition``: the indices of a stable full sort along ``axis``."""
    a, axis = _partitioned(a, kth, axis, order)
    return argsort(a, axis=axis)


def _partitioned(a, kth, axis, order):
    """``a`` (flattened for ``axis=None``) and its axis, with ``kth`` checked as NumPy does."""
    if order is not None:
        raise ValueError("order names fields of structured arrays, which tegula does not have")
    a = asarray(a)
    if axis is None:
        a, axis = a.reshape(-1), 0
    if a.ndim == 0:
        raise np.exceptions.AxisError(axis, 0)
    axis = _axis(axis, a.ndim)
    kth = np.asarray(kth)
    if kth.dtype.kind not in "iu":
        raise TypeError("Partition index must be integer")
    n = a.shape[axis]
    for k in kth.reshape(-1).tolist():
        if not -n <= k < n:
            raise ValueError(f"kth(={k}) out of bounds ({n})")
    return a, axis


def view(a, dtype):
    """NumPy's ``view``: the elements' bytes read as ``dtype``, lazily, block by block; with
    another itemsize the last axis scales by the ratio of the itemsizes. Booleans are bytes
    of 0 or 1: viewed as 1-byte integers by value, and bytes viewed as booleans are true where
    nonzero, as NumPy prints them."""
    a = asarray(a)
    if dtype is None:
        return a.copy()
    dtype = np.dtype(dtype)
    if dtype == a.dtype:
        return a.copy()
    if a.dtype == np.bool_:
        a = a.astype(np.uint8)
    wanted = np.uint8 if dtype == np.bool_ else dtype
    out = a if a.dtype == wanted else Array(a._h.bitcast(dtype_name(wanted)))
    return out.astype(np.bool_) if dtype == np.bool_ else out


def _axis(axis, ndim):
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(axis, ndim)
    return axis % ndim


class FlatView:
    """``x.flat``: the array as one flattened axis, indexed (``x.flat[3]``, ``x.flat[::2]``,
    ``x.flat[[0, 5]]``) and assigned (``x.flat[i] = v`` rebinds ``x``) lazily; iterating
    computes the array once."""

    def __init__(self, array):
        self.base = array

    def __len__(self):
        return self.base.size

    @property
    def shape(self):
        return (self.base.size,)

    def __getitem__(self, key):
        return self.base.reshape(-1)[key]

    def __setitem__(self, key, value):
        flat = self.base.reshape(-1)
        flat[key] = value
        self.base._h = flat.reshape(self.base.shape)._h

    def __iter__(self):
        return iter(self.base.compute().reshape(-1))

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self.base.compute().reshape(-1), dtype=dtype)

    def copy(self):
        return self.base.reshape(-1)


def tobytes(a, order="C"):
    """NumPy's ``tobytes``: the computed array's bytes."""
    return asarray(a).compute().tobytes(order)


def tofile(a, fid, sep="", format="%s"):
    """NumPy's ``tofile``: the computed array written to ``fid``."""
    asarray(a).compute().tofile(fid, sep=sep, format=format)
