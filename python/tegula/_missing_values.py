"""Missing values as Dask marks and fills them: ``isnull``/``notnull`` (pandas' test: NaN in a
float or complex array, nothing missing in any other dtype) and ``push`` (bottleneck's forward
fill along an axis, as ``dask.array.push``). All lazy: ``push`` finds each element's last valid
position along the axis with a running count of the valid ones and a stable sort that lists
them first, then gathers it."""

import operator

import numpy as np

from ._creation import arange, asarray, full
from ._functions import UFUNCS, where
from ._manipulation import _normalize


def isnull(values):
    """Whether each element is missing: NaN (in either part of a complex number) for float and
    complex dtypes; nothing for the others (pandas' ``isnull``, as ``dask.array.isnull``)."""
    x = asarray(values)
    if x.dtype.kind in "fc":
        return UFUNCS["isnan"](x)
    return full(x.shape, False, chunks=x.chunks)


def notnull(values):
    """Whether each element is present: the negation of ``isnull``."""
    return ~isnull(values)


def push(array, n, axis):
    """``dask.array.push``: each NaN along ``axis`` replaced by the last value before it that is
    not NaN (NaN where there is none). With an ``n`` in ``0 < n < array.shape[axis] - 1``, only
    NaNs at most ``n`` positions after that value are filled (others, ``None`` included, fill
    every gap, as Dask). Arrays that cannot hold NaN are returned as they are."""
    x = asarray(array)
    axis = _normalize(axis, x.ndim)
    if x.dtype.kind not in "fc":
        return x
    from ._gather import take_along_axis
    from ._sorting import argsort, cumulative_sum

    valid = ~UFUNCS["isnan"](x)
    seen = cumulative_sum(valid.astype(np.int64), axis=axis)  # valid elements up to here
    # the positions of the valid elements first, in order: the k-th valid one is at firsts[k]
    firsts = argsort((~valid).astype(np.int8), axis=axis, stable=True)
    last = take_along_axis(firsts, UFUNCS["maximum"](seen - 1, 0), axis=axis)
    keep = seen > 0
    length = x.shape[axis]
    if n is not None and 0 < operator.index(n) < length - 1:
        position = arange(length, dtype=np.int64, chunks=(x.chunks[axis],))
        position = position.reshape(tuple(length if a == axis else 1 for a in range(x.ndim)))
        keep = keep & (position - last <= operator.index(n))
    return where(keep, take_along_axis(x, last, axis=axis), x)
