"""NumPy's order statistics: ``median``, ``quantile`` and ``percentile``: the few positions each
quantile needs of each lane along the reduced axes in sorted order, found by selection
(``sorted_take``) without sorting the lanes. Which positions, and the
interpolation weights between them, depend only on the lane length and ``q``, so they are
computed here with NumPy on ``q``; the data stays lazy and chunked. Weighted quantiles
(``inverted_cdf`` only, as NumPy) sort each lane once, carry the weights along and pick the
first element whose cumulative weight reaches ``q``."""

import operator

import numpy as np
from numpy.lib.array_utils import normalize_axis_tuple

from ._array import Array, refuse_out
from ._creation import asarray
from ._functions import REDUCTIONS, UFUNCS, compute, permute_dims, where
from ._gather import take_along_axis
from ._manipulation import broadcast_to, moveaxis
from ._reshape import reshape
from ._sorting import argsort, cumulative_sum

isnan = UFUNCS["isnan"]


def ptp(a, axis=None, out=None, keepdims=False):
    """The range of values (maximum minus minimum) along ``axis``, in the input's dtype (so
    integers wrap as NumPy's do)."""
    refuse_out(out)
    x = asarray(a)
    return REDUCTIONS["max"](x, axis=axis, keepdims=keepdims) - REDUCTIONS["min"](x, axis=axis, keepdims=keepdims)


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """The median along ``axis`` (all axes by default; a tuple of axes too): the mean of the
    middle one or two elements of each sorted lane, NaN where a lane holds NaN."""
    refuse_out(out)
    x = asarray(a)
    lanes, kept, kept_dims = _lanes(x, axis)
    n = lanes.shape[-1]
    # One middle element when n is odd (its mean is itself, even near overflow), two when even.
    middle = [n // 2] if n % 2 else [n // 2 - 1, n // 2] if n else []
    if not middle:
        return reshape(REDUCTIONS["mean"](lanes, axis=-1), kept_dims if keepdims else kept)
    taken = sorted_take(lanes, np.array(middle + [n - 1]))
    result = REDUCTIONS["mean"](taken[..., :-1], axis=-1)
    result = _nan_where_lane_has_nan(result, taken[..., -1])
    return reshape(result, kept_dims if keepdims else kept)


def sorted_take(lanes, positions):
    """``take_along_axis(sort(lanes, axis=-1), positions, axis=-1)`` by selection: the elements
    at ``positions`` (int64 in ``[0, n)``; a 1-D NumPy array, the same for every lane, or a
    lazy array of the lanes' ndim) of each lane in sorted order (NaN last)."""
    if isinstance(positions, np.ndarray):
        positions = positions.astype(np.int64).reshape((1,) * (lanes.ndim - 1) + (-1,))
    return Array(lanes._h.sorted_take(asarray(positions)._h, -1))


def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *, weights=None):
    """The ``q``-th quantiles (``0 <= q <= 1``) along ``axis``, with NumPy's nine
    Hyndman–Fan methods and ``lower``, ``higher``, ``nearest``, ``midpoint``. The result has
    ``q``'s axes first, as NumPy's. ``weights`` (``method="inverted_cdf"`` only): non-negative,
    of ``a``'s shape or of the shape of the reduced axes; checking them computes them once."""
    return _quantiles(a, q, 1, "Quantiles must be in the range [0, 1]", axis, out, method, keepdims, weights)


def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *, weights=None):
    """``quantile`` with ``q`` in percent (``0 <= q <= 100``)."""
    return _quantiles(a, q, 100, "Percentiles must be in the range [0, 100]", axis, out, method, keepdims, weights)


def _quantiles(a, q, scale, out_of_range, axis, out, method, keepdims, weights):
    """The checks quantile and percentile share, then ``q / scale`` quantiles."""
    x, q, weak = checked_quantiles(a, q, scale, out_of_range, out)
    if weights is not None:
        return _weighted_quantile(x, q, _weights(weights, x, axis, method), axis, keepdims)
    return _quantile(x, q, weak, axis, method, keepdims)


def checked_quantiles(a, q, scale, out_of_range, out):
    """``a`` as an array and ``q / scale`` as a NumPy array, checked as NumPy checks them, and
    whether ``q`` was a Python number (whose interpolation weights promote weakly)."""
    refuse_out(out)
    x = asarray(a)
    if x.dtype.kind == "c":
        raise TypeError("a must be an array of real numbers")
    weak = type(q) in (int, float)
    q = np.true_divide(q, scale) if scale != 1 else np.asanyarray(q)
    if not ((q >= 0) & (q <= 1)).all():
        raise ValueError(out_of_range)
    return x, q, weak


def _lanes(x, axis):
    """``x`` with the reduced axes merged into one last axis, the shape without them and the
    shape with them kept as length one."""
    axes = range(x.ndim) if axis is None else axis if isinstance(axis, (tuple, list)) else (axis,)
    axes = sorted({_normalize(a, x.ndim) for a in axes})
    if axis is not None and isinstance(axis, (tuple, list)) and len(axes) != len(axis):
        raise ValueError("duplicate value in 'axis'")
    kept = tuple(n for i, n in enumerate(x.shape) if i not in axes)
    kept_dims = tuple(1 if i in axes else n for i, n in enumerate(x.shape))
    moved = moveaxis(x, axes, list(range(x.ndim - len(axes), x.ndim)))
    length = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    return reshape(moved, kept + (length,)), kept, kept_dims


def _normalize(axis, ndim):
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(axis, ndim)
    return axis % ndim


def _nan_where_lane_has_nan(result, last):
    """NaN (NaT for times) sorts last: a lane whose last sorted element (``last``, one per
    lane) is NaN has NaN statistics."""
    if last.dtype.kind not in "fcmM":
        return result
    return where(isnan(last), missing_value(result.dtype), result)


def missing_value(dtype):
    """NaN, or for a time ``dtype`` NaT of its unit."""
    return np.array("NaT", dtype)[()] if dtype.kind in "mM" else np.nan


def _quantile(x, q, weak, axis, method, keepdims):
    """``weak``: ``q`` was a Python number, whose weights take the array's float dtype (NumPy's
    weak promotion); an array ``q`` promotes with the array."""
    lanes, kept, kept_dims = _lanes(x, axis)
    n = lanes.shape[-1]
    if n == 0:
        raise IndexError("cannot do a non-empty take from an empty axes.")
    index, gamma = _positions(method, n, q)
    # The positions each q reads (below and above it when interpolating), then the last.
    flat = [index.reshape(-1)] if gamma is None else [index[0].reshape(-1), index[1].reshape(-1)]
    m = flat[0].size
    taken = sorted_take(lanes, np.concatenate(flat + [np.array([n - 1])]))
    below = moveaxis(taken[..., :m], -1, 0)
    if gamma is None:
        result = below
    else:
        above = moveaxis(taken[..., m:2 * m], -1, 0)
        result = _lerp(below, above, gamma.reshape((-1,) + (1,) * len(kept)), weak)
    result = _nan_where_lane_has_nan(result, taken[..., -1])
    return reshape(result, q.shape + (kept_dims if keepdims else kept))


def _weights(weights, x, axis, method):
    """``weights`` checked as NumPy checks them and broadcast to ``x``'s shape."""
    if method != "inverted_cdf":
        raise ValueError(f"Only method 'inverted_cdf' supports weights. Got: {method}.")
    axes = None if axis is None else normalize_axis_tuple(axis, x.ndim, argname="axis")
    return broadcast_to(aligned_weights(asarray(weights), x, axes), x.shape)


def aligned_weights(w, x, axes):
    """Weights of ``x``'s shape, or of the reduced axes' lengths (in ``axes``' order) given
    length-one axes elsewhere so they broadcast against ``x``, with NumPy's errors (shared by
    the weighted quantiles and ``average``)."""
    if w.shape == x.shape:
        return w
    if axes is None:
        raise TypeError("Axis must be specified when shapes of a and weights differ.")
    if w.shape != tuple(x.shape[i] for i in axes):
        raise ValueError("Shape of weights must be consistent with shape of a along specified axis.")
    # The weights' axes follow ``axes``' order; put them in the array's.
    w = permute_dims(w, tuple(int(i) for i in np.argsort(axes)))
    return reshape(w, tuple(n if i in axes else 1 for i, n in enumerate(x.shape)))


def _weighted_quantile(x, q, w, axis, keepdims, skip_nan=False):
    """NumPy's weighted ``inverted_cdf``: in each lane sorted by value, the first element whose
    cumulative weight (float64, divided by the lane's total) reaches ``q``, leading elements
    of zero weight never chosen. The cumulative sums are NumPy's exactly while a lane is one
    block (always for whole-number weights). ``skip_nan``: NaN elements weigh nothing (NumPy's
    nanquantile removes them), and a lane of NaNs only gives NaN."""
    lanes, kept, kept_dims = _lanes(x, axis)
    weight_lanes = _lanes(w, axis)[0].astype(np.float64)
    n = lanes.shape[-1]
    if skip_nan:
        present = REDUCTIONS["any"](~isnan(lanes), axis=-1)
        weight_lanes = where(isnan(lanes), 0.0, weight_lanes)
    total = REDUCTIONS["sum"](weight_lanes, axis=-1)
    unusable = ~UFUNCS["isfinite"](total) | (total == 0)
    negative, unusable = compute(REDUCTIONS["any"](w < 0),
                                 REDUCTIONS["any"](unusable & present if skip_nan else unusable))
    if negative:
        raise ValueError("Weights must be non-negative.")
    if n == 0:
        raise IndexError("cannot do a non-empty take from an empty axes.")
    if unusable:
        raise ValueError("Weights included NaN, inf or were all zero.")
    order = argsort(lanes, axis=-1)
    ordered = take_along_axis(lanes, order, axis=-1)
    cumulative = cumulative_sum(take_along_axis(weight_lanes, order, axis=-1), axis=-1)
    cdf = cumulative / cumulative[..., -1:]
    if q.dtype.kind == "f":  # compared in q's precision, as NumPy's searchsorted
        cdf = cdf.astype(q.dtype)
    # NumPy's searchsorted(cdf, q, side="left"): the count of cdf values below q, with the
    # zeros of leading zero weights counted as below q = 0 too.
    cdf = reshape(cdf, kept + (1, n))
    below = (cdf < asarray(q.reshape(-1, 1))) | (cdf == 0)
    index = UFUNCS["minimum"](REDUCTIONS["sum"](below, axis=-1), n - 1)
    result = moveaxis(take_along_axis(ordered, index, axis=-1), -1, 0)
    result = where(present, result, np.nan) if skip_nan else _nan_where_lane_has_nan(result, ordered[..., -1])
    return reshape(result, q.shape + (kept_dims if keepdims else kept))


def _lerp(a, b, gamma, weak):
    """NumPy's interpolation: from ``a`` below the midpoint, from ``b`` above it, so that
    ``gamma = 0`` and ``gamma = 1`` give ``a`` and ``b`` exactly."""
    dtype = (a.dtype if a.dtype.kind == "f" else np.dtype(np.float64)) if weak else gamma.dtype
    diff = b - a
    t, rest = asarray(gamma.astype(dtype)), asarray((1 - gamma).astype(dtype))
    return where(asarray(gamma >= 0.5), b - diff * rest, a + diff * t)


# The virtual index (a position between sorted elements) of each Hyndman–Fan method: for the
# continuous ones n*q + alpha + q*(1 - alpha - beta) - 1.
_CONTINUOUS = {"interpolated_inverted_cdf": (0, 1), "hazen": (0.5, 0.5), "weibull": (0, 0),
               "median_unbiased": (1 / 3.0, 1 / 3.0), "normal_unbiased": (3 / 8.0, 3 / 8.0)}


def _positions(method, n, q):
    """The sorted positions ``method`` reads for each ``q`` and the weights between them:
    ``(index, None)`` for methods that pick one element, ``((below, above), gamma)`` for
    those that interpolate. ``n`` is the lane length: an int (NumPy arrays result), or a lazy
    array of lengths per lane (the NaN-ignoring quantiles; NumPy's functions then build
    tegula expressions through its dispatch protocols)."""
    if method == "lower":
        return np.floor((n - 1) * q).astype(np.int64), None
    if method == "higher":
        return np.ceil((n - 1) * q).astype(np.int64), None
    if method == "nearest":
        return np.around((n - 1) * q).astype(np.int64), None
    if method == "inverted_cdf":
        return _discrete(n * q - 1, lambda gamma, virtual: gamma == 0), None
    if method == "closest_observation":
        # Ties between two observations go to the even one.
        return _discrete(n * q - 1.5, lambda gamma, virtual: (gamma == 0) & (np.floor(virtual) % 2 == 1)), None
    if method == "linear":
        virtual = (n - 1) * q
        if virtual.dtype.kind in "iu":
            return virtual.astype(np.int64), None
    elif method == "midpoint":
        virtual = 0.5 * (np.floor((n - 1) * q) + np.ceil((n - 1) * q))
    elif method == "averaged_inverted_cdf":
        virtual = n * q - 1
    elif method in _CONTINUOUS:
        alpha, beta = _CONTINUOUS[method]
        virtual = n * q + (alpha + q * (1 - alpha - beta)) - 1
    else:
        raise ValueError(f"'{method}' is not a valid method. Use one of: "
                         f"{sorted(['linear', 'lower', 'higher', 'nearest', 'midpoint', 'inverted_cdf', 'closest_observation', 'averaged_inverted_cdf', *_CONTINUOUS])}")
    virtual = virtual if isinstance(virtual, Array) else np.asanyarray(virtual)
    floor = np.floor(virtual)
    # Past either end, both positions are the end element.
    clipped = np.where(virtual >= n - 1, n - 1, np.where(virtual < 0, 0, floor))
    below = clipped.astype(np.int64)
    above = np.where((virtual >= n - 1) | (virtual < 0), below, below + 1)
    gamma = (virtual - below).astype(virtual.dtype)
    if method == "averaged_inverted_cdf":
        gamma = np.where(gamma == 0, 0.5, 1.0).astype(virtual.dtype)
    elif method == "midpoint":
        gamma = np.where(virtual % 1 == 0, 0.0, 0.5).astype(virtual.dtype)
    return (below, above), gamma


def _discrete(virtual, take_below):
    """The index of the discontinuous methods: the position after ``virtual``, or the one
    before it where ``take_below(fraction, virtual)``; never below the first."""
    below = np.floor(virtual)
    index = np.where(take_below(virtual - below, virtual), below, below + 1).astype(np.int64)
    return np.maximum(index, 0)
