"""NumPy's ``insert`` and ``delete``: the positions are known when the expression is built (a
lazy ``obj`` is computed then, as the result's length depends on it), so the result is a
gather of the kept elements (``delete``) or of the input joined with the new values
(``insert``) at positions worked out with NumPy on ``obj`` alone."""

import numpy as np

from ._array import Array
from ._creation import asarray
from ._functions import concatenate
from ._gather import take
from ._manipulation import _normalize, broadcast_to, moveaxis
from ._reshape import reshape


def _along(arr, axis):
    """``arr`` as an array and the axis worked on (the flattened array's when None)."""
    x = asarray(arr)
    if axis is None:
        return reshape(x, (-1,)), 0
    return x, _normalize(axis, x.ndim)


def _known(obj):
    return np.asarray(obj.compute() if isinstance(obj, Array) else obj)


def _integer_positions(positions):
    if positions.dtype.kind not in "iu":
        raise IndexError("arrays used as indices must be of integer (or boolean) type")
    return positions.astype(np.int64)


def delete(arr, obj, axis=None):
    """NumPy's ``delete``: ``arr`` without the entries ``obj`` (an int, a slice, integer
    positions or a boolean mask of the axis) along ``axis`` (of the flattened array when
    None)."""
    x, axis = _along(arr, axis)
    n = x.shape[axis]
    keep = np.ones(n, dtype=bool)
    if isinstance(obj, slice):
        keep[obj] = False
    else:
        given = _known(obj)
        if given.dtype == bool:
            if given.shape != (n,):
                raise ValueError("boolean array argument obj to delete must be one dimensional and match the "
                                 f"axis length of {n}")
            keep = ~given
        else:
            positions = _integer_positions(given if given.size else given.astype(np.int64))
            outside = (positions < -n) | (positions >= n)
            if outside.any():
                raise IndexError(f"index {positions[outside].flat[0]} is out of bounds for axis {axis} with size {n}")
            keep[positions.reshape(-1)] = False
    return take(x, np.flatnonzero(keep), axis=axis)


def insert(arr, obj, values, axis=None):
    """NumPy's ``insert``: ``values`` (cast to ``arr``'s dtype, broadcast as NumPy does) put
    before the entries ``obj`` (an int, a slice or integer positions) along ``axis`` (of the
    flattened array when None)."""
    x, axis = _along(arr, axis)
    n = x.shape[axis]
    if isinstance(obj, slice):
        positions = np.arange(*obj.indices(n), dtype=np.int64)
    else:
        given = _known(obj)
        if given.ndim > 1:
            raise ValueError("index array argument obj to insert must be one dimensional or scalar")
        positions = _integer_positions(given.astype(np.int64) if given.dtype == bool or not given.size else given)
        if positions.size == 1:
            return _insert_one(x, int(positions.item()), given.ndim == 0, values, axis)
    outside = (positions < -n) | (positions > n)
    if outside.any():
        raise IndexError(f"index {positions[outside].flat[0]} is out of bounds for axis {axis} with size {n + 1}")
    new = _assigned(asarray(values).astype(x.dtype), x.shape[:axis] + (positions.size,) + x.shape[axis + 1:])
    if positions.size == 0:
        return x
    positions = np.where(positions < 0, positions + n, positions)
    # Each new value's place in the result: its position plus the values before it.
    placed = np.empty_like(positions)
    placed[np.argsort(positions, kind="stable")] = np.sort(positions, kind="stable") + np.arange(positions.size)
    source = np.empty(n + positions.size, dtype=np.int64)
    old = np.ones(source.size, dtype=bool)
    old[placed] = False
    source[old] = np.arange(n)
    source[placed] = n + np.arange(positions.size)
    return take(concatenate([x, new], axis=axis), source, axis=axis)


def _assigned(values, shape):
    """``values`` as NumPy's assignment to a region of ``shape`` takes them: leading
    length-one axes beyond the region's dropped, then broadcast."""
    while values.ndim > len(shape) and values.shape[0] == 1:
        values = values[0]
    return broadcast_to(values, shape)


def _insert_one(x, index, scalar_obj, values, axis):
    """NumPy's single-position insert: ``values`` with at least ``x``'s number of axes (an
    int ``obj`` reads their first axis as the inserted axis), broadcast to ``x`` elsewhere."""
    n = x.shape[axis]
    if not -n <= index <= n:
        raise IndexError(f"index {index} is out of bounds for axis {axis} with size {n}")
    index += n if index < 0 else 0
    v = asarray(values).astype(x.dtype)
    v = reshape(v, (1,) * (x.ndim - v.ndim) + v.shape)
    if scalar_obj:
        v = moveaxis(v, 0, axis)
    shape = x.shape[:axis] + (v.shape[axis],) + x.shape[axis + 1:]
    before, after = [slice(None)] * x.ndim, [slice(None)] * x.ndim
    before[axis], after[axis] = slice(None, index), slice(index, None)
    return concatenate([x[tuple(before)], _assigned(v, shape), x[tuple(after)]], axis=axis)
