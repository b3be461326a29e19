"""NumPy's ``apply_along_axis``: a user's function of 1-d lanes, run by ``map_blocks`` on
blocks holding whole lanes (NumPy's own ``apply_along_axis`` inside each). As NumPy, the
result's shape and dtype are those of the function's result on the first lane, which is
computed when the expression is built (only the blocks it needs). And NumPy's
``apply_over_axes``, whose function takes the whole (lazy) array and an axis."""

import functools
import operator

import numpy as np

from ._creation import asarray
from ._functions import expand_dims
from ._manipulation import _normalize
from ._map_blocks import map_blocks


def _apply_lanes(func1d, axis, dtype, args, kwargs, block):
    return np.apply_along_axis(func1d, axis, block, *args, **kwargs).astype(dtype, copy=False)


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """NumPy's ``apply_along_axis``: ``func1d`` of every 1-d lane of ``arr`` along ``axis``,
    its result's axes in place of ``axis`` (``args`` and ``kwargs`` are passed on)."""
    x = asarray(arr)
    axis = _normalize(operator.index(axis), x.ndim)
    others = x.shape[:axis] + x.shape[axis + 1:]
    if 0 in others:
        raise ValueError("Cannot apply_along_axis when any iteration dimensions are 0")
    first = np.asanyarray(func1d(x[(0,) * axis + (slice(None),) + (0,) * (x.ndim - axis - 1)].compute(),
                                 *args, **kwargs))
    lanes = x.rechunk(tuple(-1 if i == axis else c for i, c in enumerate(x.chunks)))
    chunks = lanes.chunks[:axis] + tuple((n,) for n in first.shape) + lanes.chunks[axis + 1:]
    call = functools.partial(_apply_lanes, func1d, axis, first.dtype, args, kwargs)
    return map_blocks(call, lanes, dtype=first.dtype, chunks=chunks, drop_axis=axis,
                      new_axis=list(range(axis, axis + first.ndim)) or None,
                      name=getattr(func1d, "__name__", "apply_along_axis"))


def apply_over_axes(func, a, axes):
    """NumPy's ``apply_over_axes``: ``func(a, axis)`` for each axis of ``axes`` in turn, each
    on the previous result; a result with one axis fewer gets it back (length one). ``func``
    is called once per axis on a tegula array (NumPy's reductions, such as ``np.sum``,
    dispatch to tegula's, so the result stays lazy); a result of another number of axes is a
    ``ValueError``."""
    val = asarray(a)
    n = val.ndim
    for axis in (axes,) if np.ndim(axes) == 0 else axes:
        axis = operator.index(axis)
        if axis < 0:
            axis += n
        res = asarray(func(val, axis))
        if res.ndim != val.ndim:
            res = expand_dims(res, axis=axis)
            if res.ndim != val.ndim:
                raise ValueError("function is not returning an array of the correct shape")
        val = res
    return val
