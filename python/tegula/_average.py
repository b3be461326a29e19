"""NumPy's ``average``: the mean, or a weighted sum divided by the sum of the weights, in
NumPy's result dtype. Weights summing to zero are NumPy's ZeroDivisionError, raised when the
average is computed (``_deferred_checks.py``): checking them now would compute them."""

import numpy as np
from numpy.lib.array_utils import normalize_axis_tuple

from ._creation import asarray, full
from ._deferred_checks import checked
from ._manipulation import broadcast_to
from ._statistics import aligned_weights


def average(a, axis=None, weights=None, returned=False, *, keepdims=False):
    """NumPy's ``average`` along ``axis`` (an int or a tuple), with ``weights`` of ``a``'s shape
    or of the shape of the reduced axes; ``returned`` adds the sum of the weights (the count
    without weights), broadcast to the average's shape."""
    x = asarray(a)
    axes = None if axis is None else normalize_axis_tuple(axis, x.ndim, argname="axis")
    if weights is None:
        avg = x.mean(axis=axes, keepdims=keepdims)
        scale = full(avg.shape, x.size / avg.size, dtype=avg.dtype)
    else:
        w = aligned_weights(asarray(weights), x, axes)
        floats = (x.dtype, w.dtype, np.float64) if x.dtype.kind in "biu" else (x.dtype, w.dtype)
        dtype = np.result_type(*floats)
        scale = w.sum(axis=axes, dtype=dtype, keepdims=keepdims)
        total = (x.astype(dtype) * w.astype(dtype)).sum(axis=axes, keepdims=keepdims)
        avg = checked(total / scale, scale == 0, ZeroDivisionError, "Weights sum to zero, can't be normalized")
    if not returned:
        return avg
    return avg, scale if scale.shape == avg.shape else broadcast_to(scale, avg.shape)
