"""Missing values as Dask marks and fills them: ``isnull``/``notnull`` (pandas' test: NaN in a
float or complex array, NaT in a datetime or timedelta one, nothing missing in any other dtype) and ``push`` (bottleneck's forward
fill along an axis, as ``dask.array.push``, by ``_push.py``). All lazy."""

import operator

import numpy as np

from ._creation import asarray, full
from ._functions import UFUNCS
from ._manipulation import _normalize
from ._push import push as fill_forward


def isnull(values):
    """Whether each element is missing: NaN (in either part of a complex number) for float and
    complex dtypes; nothing for the others (pandas' ``isnull``, as ``dask.array.isnull``)."""
    x = asarray(values)
    if x.dtype.kind in "fcmM":
        return UFUNCS["isnan"](x)
    return full(x.shape, False, chunks=x.chunks)


def notnull(values):
    """Whether each element is present: the negation of ``isnull``."""
    return ~isnull(values)


def push(array, n, axis):
    """``dask.array.push``: each NaN along ``axis`` replaced by the last value before it that is
    not NaN (NaN where there is none). With an ``n`` in ``0 < n < array.shape[axis] - 1``, only
    NaNs at most ``n`` positions after that value are filled (others, ``None`` included, fill
    every gap, as Dask). Arrays that cannot hold NaN are returned as they are. The fill is
    ``_push.push``'s (bottleneck's reading of ``n``), which xarray's ``ffill`` runs too."""
    x = asarray(array)
    axis = _normalize(axis, x.ndim)
    limit = None if n is None else operator.index(n)
    if limit is not None and not 0 < limit < x.shape[axis] - 1:
        limit = None
    return fill_forward(x, limit, axis)
