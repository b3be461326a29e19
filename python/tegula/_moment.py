"""Dask's ``moment``: the central moment of a given order over axes, ``sum((x - mean)**order)
/ (N - ddof)``, in two lazy passes (the mean, then the sum of powers), with Dask's dtypes."""

import math
import numbers

import numpy as np

from ._array import refuse_out
from ._creation import asarray, full
from ._manipulation import _axis_list


def moment(a, order, axis=None, dtype=None, keepdims=False, ddof=0, split_every=None, out=None):
    """The ``order``-th central moment of ``a`` over ``axis`` (all axes by default), as
    ``dask.array.moment``: the mean of ``(a - mean)**order`` with divisor ``N - ddof`` (NaN where
    that is negative); of ``|a - mean|`` for complex ``a``. By definition order 0 gives 1 and
    order 1 gives 0 (float64). The result's dtype is ``dtype``, by default NumPy's ``var``'s for
    ``a``'s (float64 for integers, the real dtype of a complex one). ``split_every`` is that of
    the sums."""
    refuse_out(out)
    if not isinstance(order, numbers.Integral) or order < 0:
        raise ValueError("Order must be an integer >= 0")
    x = asarray(a)
    axes = tuple(_axis_list(axis, x.ndim))
    if order < 2:
        shape = tuple(1 if i in axes else n for i, n in enumerate(x.shape)) if keepdims else tuple(
            n for i, n in enumerate(x.shape) if i not in axes)
        return full(shape, float(order == 0), np.float64)
    result = np.dtype(dtype) if dtype is not None else np.var(np.ones(1, x.dtype)).dtype
    # float16 is summed in float32, as NumPy's reductions of float16 do
    work = np.dtype(np.float32) if result == np.float16 else result
    if x.dtype.kind != "c":
        x = x.astype(work)
    mean = x.mean(axis=axes, keepdims=True, split_every=split_every)
    deviations = x - mean
    if x.dtype.kind == "c":
        deviations = abs(deviations).astype(work)
    total = (deviations ** order).sum(axis=axes, keepdims=keepdims, split_every=split_every)
    n = math.prod(x.shape[i] for i in axes) - ddof
    return (total / (n if n >= 0 else np.nan)).astype(result)
