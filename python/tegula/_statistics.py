"""NumPy's order statistics: ``median``, ``quantile``, ``percentile`` and ``ptp``, and their
NaN-skipping variants (``nanmedian``, ``nanquantile``, ``nanpercentile``). The algorithms are
the Rust crate's (``Array::quantile``, ``Array::median``): each lane along the reduced axes
gives up the few positions each quantile needs in sorted order, found by selection without
sorting the lanes. Here the arguments are normalised and checked as NumPy checks them."""

import numpy as np

from . import _tegula
from ._array import Array, _axes, refuse_out
from ._creation import asarray


def ptp(a, axis=None, out=None, keepdims=False):
    """The range of values (maximum minus minimum) along ``axis``, in the input's dtype (so
    integers wrap as NumPy's do)."""
    refuse_out(out)
    x = asarray(a)
    if x.ndim == 0 and not isinstance(axis, (tuple, list)) and axis in (0, -1):
        axis = None  # as NumPy's ufunc reductions, which take axis 0 or -1 of a 0-d array as all
    return Array(_tegula.ptp(x._h, _axes(axis), bool(keepdims)))


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """The median along ``axis`` (all axes by default; a tuple of axes too): the mean of the
    middle one or two elements of each sorted lane, NaN where a lane holds NaN."""
    refuse_out(out)
    return Array(_tegula.median(asarray(a)._h, _axes(axis), bool(keepdims), False))


def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """NumPy's ``nanmedian``: the median of the values that are not NaN along ``axis`` (a
    tuple of axes too), NaN where there is none."""
    refuse_out(out)
    return Array(_tegula.median(asarray(a)._h, _axes(axis), bool(keepdims), True))


def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *, weights=None):
    """The ``q``-th quantiles (``0 <= q <= 1``) along ``axis``, with NumPy's nine
    Hyndman–Fan methods and ``lower``, ``higher``, ``nearest``, ``midpoint``. The result has
    ``q``'s axes first, as NumPy's. ``weights`` (``method="inverted_cdf"`` only): non-negative,
    of ``a``'s shape or of the shape of the reduced axes; checking them computes them once."""
    return _quantiles(a, q, 1, "Quantiles must be in the range [0, 1]", axis, out, method, keepdims, weights, False)


def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *, weights=None):
    """``quantile`` with ``q`` in percent (``0 <= q <= 100``)."""
    return _quantiles(a, q, 100, "Percentiles must be in the range [0, 100]", axis, out, method, keepdims, weights,
                      False)


def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
                weights=None):
    """NumPy's ``nanquantile``: ``quantile`` of the values that are not NaN (every method, and
    ``weights`` with ``inverted_cdf``); NaN for a lane of NaNs only."""
    return _quantiles(a, q, 1, "Quantiles must be in the range [0, 1]", axis, out, method, keepdims, weights, True)


def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
                  weights=None):
    """NumPy's ``nanpercentile``: ``nanquantile`` with ``q`` in percent."""
    return _quantiles(a, q, 100, "Percentiles must be in the range [0, 100]", axis, out, method, keepdims, weights,
                      True)


def _quantiles(a, q, scale, out_of_range, axis, out, method, keepdims, weights, skip_nan):
    """``q / scale`` checked as NumPy checks it (a Python number's weights promote weakly),
    then one call of ``Array::quantile``."""
    refuse_out(out)
    x = asarray(a)
    if x.dtype.kind == "c":
        raise TypeError("a must be an array of real numbers")
    weak = type(q) in (int, float)
    q = np.true_divide(q, scale) if scale != 1 else np.asanyarray(q)
    if not ((q >= 0) & (q <= 1)).all():
        raise ValueError(out_of_range)
    w = None if weights is None else asarray(weights)._h
    return Array(_tegula.quantile(x._h, np.asarray(q, dtype=np.float64), str(q.dtype), weak, _axes(axis),
                                  str(method), bool(keepdims), w, skip_nan))


def aligned_weights(w, x, axes):
    """Weights of ``x``'s shape, or of the reduced axes' lengths (in ``axes``' order) placed to
    broadcast against ``x``, with NumPy's errors (shared with ``average``)."""
    return Array(_tegula.aligned_weights(x._h, asarray(w)._h, None if axes is None else [int(a) for a in axes]))
