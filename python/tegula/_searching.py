"""Searching functions built from reductions: ``argmax``/``argmin`` find the extreme value, then
the first position holding it (two passes over the input, both chunked and fused)."""

import operator

import numpy as np

from ._array import Array, refuse_out
from ._creation import arange, asarray
from ._functions import UFUNCS, where


def _arg_extreme(x, axis, keepdims, reduce_name):
    x = asarray(x)
    if axis is not None:
        axis = operator.index(axis)
        if not -x.ndim <= axis < max(x.ndim, 1):
            raise np.exceptions.AxisError(axis, x.ndim)
    if x.size == 0 and (axis is None or x.ndim == 0 or x.shape[axis] == 0):
        raise ValueError(f"attempt to get arg{reduce_name} of an empty sequence")
    if x.ndim == 0:
        return asarray(np.int64(0))
    axes = range(x.ndim) if axis is None else [axis % x.ndim]
    extreme = getattr(x, reduce_name)(axis=axis, keepdims=True)
    hit = x == extreme
    if x.dtype.kind in "fcmM":  # NumPy returns the first NaN (NaT), which the extreme then is
        isnan = UFUNCS["isnan"]
        hit = hit | (isnan(extreme) & isnan(x))
    position = _flat_positions(x, axes)
    n = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    return where(hit, position, n).min(axis=axis, keepdims=keepdims)


def _flat_positions(x, axes):
    """Each element's row-major position within the sub-array spanned by ``axes`` (int64),
    as a sum of broadcast ranges, one per axis: generated, never stored."""
    total, stride = None, 1
    for a in reversed(list(axes)):
        key = (None,) * a + (slice(None),) + (None,) * (x.ndim - 1 - a)
        term = arange(x.shape[a], dtype="int64", chunks=(x.chunks[a],))[key] * stride
        total = term if total is None else total + term
        stride *= x.shape[a]
    return total


def argmax(x, /, axis=None, out=None, *, keepdims=False):
    """Index of the first maximum along ``axis`` (of the flattened array when None); NaN counts
    as the maximum, as in NumPy."""
    refuse_out(out)
    return _arg_extreme(x, axis, keepdims, "max")


def argmin(x, /, axis=None, out=None, *, keepdims=False):
    """Index of the first minimum along ``axis``; NaN counts as the minimum, as in NumPy."""
    refuse_out(out)
    return _arg_extreme(x, axis, keepdims, "min")


def count_nonzero(x, /, axis=None, *, keepdims=False):
    """Number of non-zero elements along ``axis`` (int64)."""
    x = asarray(x)
    return (x != 0).sum(axis=axis, keepdims=keepdims, dtype="int64")


def isin(x1, x2, /, assume_unique=False, invert=False):
    """Whether each element of ``x1`` is among the elements of ``x2``: a comparison of ``x1``
    against every element of ``x2`` along a new axis, reduced by ``any``; each task holds one
    block of each (NaN is in nothing, as in NumPy). ``assume_unique`` is NumPy's speed hint,
    which changes nothing here."""
    from ._dtypes import is_python_scalar

    if is_python_scalar(x2):
        found = asarray(x1) == x2  # compared as a weak scalar, like NumPy's
    elif is_python_scalar(x1):
        flat = asarray(x2).reshape(-1)
        found = (flat == x1).any() if flat.shape[0] else asarray(False)
    else:
        x1 = asarray(x1)
        flat = asarray(x2).reshape(-1)
        if flat.shape[0] == 0:
            from ._creation import full

            found = full(x1.shape, False, chunks=x1.chunks)
        else:
            found = (x1[..., None] == flat[(None,) * x1.ndim]).any(axis=-1)
    return ~found if invert else found
