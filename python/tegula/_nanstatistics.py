"""NumPy's NaN-ignoring order statistics: ``nanmedian``, ``nanquantile``, ``nanpercentile``.
As the ordinary ones (``_statistics.py``), positions of the lanes along the reduced axes in
sorted order, where NaN sorts last; each lane's count of values that are not NaN is lazy, so
the positions and interpolation weights are lazy arrays per lane, read by ``sorted_take``. A
lane of NaNs only gives NaN (NumPy warns there). Inputs without NaN (integers, booleans) take
the ordinary functions; empty inputs give ``nanmean``'s result, as NumPy's."""

import numpy as np

from ._array import refuse_out
from ._creation import asarray
from ._functions import REDUCTIONS, UFUNCS, concatenate, where
from ._manipulation import moveaxis
from ._nanfunctions import nanmean
from ._reshape import reshape
from ._statistics import (_lanes, _lerp, _positions, _quantile, _weighted_quantile, _weights, checked_quantiles,
                          median, missing_value, sorted_take)

isnan, maximum = UFUNCS["isnan"], UFUNCS["maximum"]


def _counted_lanes(x, axis):
    """The lanes, their counts of values that are not NaN (int64, with a length-one last
    axis), the shape kept and the shape with the reduced axes as length one."""
    lanes, kept, kept_dims = _lanes(x, axis)
    count = (~isnan(lanes)).sum(axis=-1, dtype="int64", keepdims=True)
    return lanes, count, kept, kept_dims


def _gather(lanes, *indices):
    """The sorted lanes' values at lazy positions (one array of positions per lane in each of
    ``indices``), in one selection; a lane without values (index below 0) reads its first
    element, which the caller replaces by NaN."""
    taken = sorted_take(lanes, maximum(concatenate(indices, axis=-1), 0))
    bounds = np.cumsum([0] + [i.shape[-1] for i in indices])
    return [taken[..., a:b] for a, b in zip(bounds[:-1], bounds[1:])]


def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """NumPy's ``nanmedian``: the median of the values that are not NaN along ``axis`` (a
    tuple of axes too), NaN where there is none."""
    refuse_out(out)
    x = asarray(a)
    if x.dtype.kind not in "fcmM":
        return median(x, axis=axis, keepdims=keepdims)
    if x.size == 0:
        return nanmean(x, axis=axis, keepdims=keepdims)
    lanes, count, kept, kept_dims = _counted_lanes(x, axis)
    low, high = _gather(lanes, (count - 1) // 2, count // 2)
    mean = REDUCTIONS["mean"](concatenate([low, high], axis=-1), axis=-1, keepdims=True)
    # One middle element when the count is odd: itself, even where the mean would overflow.
    result = where(count == 0, missing_value(mean.dtype), where(count % 2 == 1, low, mean))[..., 0]
    return reshape(result, kept_dims if keepdims else kept)


def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
                weights=None):
    """NumPy's ``nanquantile``: ``quantile`` of the values that are not NaN (every method, and
    ``weights`` with ``inverted_cdf``); NaN for a lane of NaNs only."""
    return _nan_quantiles(a, q, 1, "Quantiles must be in the range [0, 1]", axis, out, method, keepdims, weights)


def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
                  weights=None):
    """NumPy's ``nanpercentile``: ``nanquantile`` with ``q`` in percent."""
    return _nan_quantiles(a, q, 100, "Percentiles must be in the range [0, 100]", axis, out, method, keepdims,
                          weights)


def _nan_quantiles(a, q, scale, out_of_range, axis, out, method, keepdims, weights):
    x, q, weak = checked_quantiles(a, q, scale, out_of_range, out)
    if weights is not None:
        w = _weights(weights, x, axis, method)
        if x.size == 0:
            return nanmean(x, axis=axis, keepdims=keepdims)
        return _weighted_quantile(x, q, w, axis, keepdims, skip_nan=x.dtype.kind == "f")
    if x.size == 0:
        return nanmean(x, axis=axis, keepdims=keepdims)
    if x.dtype.kind not in "fmM":
        return _quantile(x, q, weak, axis, method, keepdims)
    return _nan_quantile(x, q, weak, axis, method, keepdims)


def _nan_quantile(x, q, weak, axis, method, keepdims):
    """The quantiles of each lane's values that are not NaN: positions from each lane's count
    (in ``q``'s precision, as NumPy computes them from an int length), gathered per lane."""
    lanes, count, kept, kept_dims = _counted_lanes(x, axis)
    n = count.astype(q.dtype) if q.dtype.kind == "f" else count
    index, gamma = _positions(method, n, q.reshape(-1))
    if gamma is None:
        [result] = _gather(lanes, index)
    else:
        result = _lerp(*_gather(lanes, *index), gamma, weak)
    result = moveaxis(where(count == 0, missing_value(result.dtype), result), -1, 0)
    return reshape(result, q.shape + (kept_dims if keepdims else kept))
