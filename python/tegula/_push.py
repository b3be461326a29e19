"""``push``: bottleneck's forward fill (``bottleneck.push``, ``dask.array.push``) of a lazy
array, which xarray's ``ffill`` and ``bfill`` run: the Rust core's `forward_fill` scan (each
block filled on its own, then the last value of the blocks before carried into the NaNs that
open it), no Python call per block."""

import numpy as np

from ._array import Array
from ._creation import arange, asarray
from ._functions import UFUNCS, where
from ._manipulation import broadcast_to

isnan = UFUNCS["isnan"]


def push(x, n=None, axis=-1):
    """``x`` with each NaN replaced by the last non-NaN value before it along ``axis``, if that
    value is at most ``n`` positions back (any distance when ``n`` is None), as
    ``bottleneck.push``; arrays that cannot hold NaN (integers, bools) are returned as they
    are."""
    x = asarray(x)
    axis = _axis(axis, x.ndim)
    if n is not None:
        n = int(n)
        if n < 0:
            raise ValueError("n must be nonnegative")
    if x.dtype.kind not in "fc":
        return x
    filled = _push_all(x, axis)
    length = x.shape[axis]
    if n is None or n >= length:
        return filled
    shape = tuple(length if i == axis else 1 for i in range(x.ndim))
    positions = broadcast_to(arange(length, dtype="float64", chunks=(x.chunks[axis],)).reshape(shape),
                             x.shape).rechunk(x.chunks)
    last = _push_all(where(isnan(x), np.nan, positions), axis)
    return where(positions - last <= n, filled, np.array(np.nan, x.dtype))


def _axis(axis, ndim):
    axis = int(axis)
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(axis, ndim)
    return axis % ndim


def _push_all(x, axis):
    """The forward fill without a limit: a running scan in Rust, block by block, each block's
    leading NaNs filled from the last value of the blocks before it."""
    return Array(x._h.cumulative("forward_fill", axis, None, False))
