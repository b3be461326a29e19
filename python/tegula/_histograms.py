"""NumPy's counting functions: ``digitize``, ``bincount``, ``histogram``, ``histogram2d`` and
``histogramdd``. The algorithms are the Rust crate's (``Array::histogram`` and friends: counts
from a sort, edges as NumPy's ``linspace`` makes them, NumPy's bin estimators on statistics
computed when the expression is built); these functions normalise the arguments NumPy's way."""

import operator
import warnings

import numpy as np

from . import _tegula
from ._array import Array
from ._creation import asarray
from ._reshape import reshape


def digitize(x, bins, right=False):
    """NumPy's ``digitize``: the index of the bin of each value of ``x`` (``bins`` increasing
    or decreasing, checked when the expression is built)."""
    return Array(_tegula.digitize(asarray(x)._h, asarray(bins)._h, bool(right)))


def bincount(x, weights=None, minlength=0):
    """NumPy's ``bincount``: how often each value ``0..max(x)`` occurs in the non-negative
    integers ``x`` (or the sum of their ``weights``, float64), at least ``minlength`` of them.
    The length of the result, and whether a value is negative, are computed now."""
    minlength = operator.index(minlength)
    if minlength < 0:
        raise ValueError("'minlength' must not be negative")
    weights = None if weights is None else asarray(weights)._h
    return Array(_tegula.bincount(asarray(x)._h, weights, minlength))


def _bins(bins):
    """``bins`` as the Rust binding takes it: (count, edges, estimator), one of them set."""
    if isinstance(bins, str):
        return None, None, bins
    if np.ndim(bins) == 0:
        return operator.index(bins), None, None
    edges = asarray(bins)
    if edges.ndim != 1:
        raise ValueError("`bins` must be 1d, when an array")
    return None, edges._h, None


def _range(value_range):
    """A histogram's range as two floats (or ``None``)."""
    if value_range is None:
        return None
    first, last = value_range
    return float(first), float(last)


def histogram(a, bins=10, range=None, density=None, weights=None):
    """NumPy's ``histogram``: the (weighted) counts of the flattened ``a`` in ``bins`` equal
    bins over ``range`` (the data's by default), between given edges, or as many as NumPy's
    estimator ``bins`` ("auto", "fd", ...) gives, whose statistics are computed now; and the
    edges. ``density`` divides by the total and the bins' widths."""
    weights = None if weights is None else asarray(weights)._h
    counts, edges, suboptimal = _tegula.histogram(asarray(a)._h, *_bins(bins), _range(range), bool(density), weights)
    if suboptimal:
        warnings.warn("The number of bins estimated may be suboptimal.", RuntimeWarning, stacklevel=2)
    return Array(counts), Array(edges)


def histogramdd(sample, bins=10, range=None, density=None, weights=None):
    """NumPy's ``histogramdd``: the (weighted) counts of ``D``-dimensional points (rows of an
    ``(N, D)`` array, or a sequence of ``D`` 1-d arrays) in a grid of bins, and each axis's
    edges."""
    columns = _columns(sample)
    d = len(columns)
    bins = list(bins) if hasattr(bins, "__len__") else [bins] * d
    if len(bins) != d:
        raise ValueError("The dimension of bins must be equal to the dimension of the sample x.")
    ranges = [None] * d if range is None else [_range(r) for r in range]
    per_axis = [_bins(operator.index(b) if isinstance(b, str) else b) for b in bins]
    weights = None if weights is None else reshape(asarray(weights), (-1,))._h
    hist, edges = _tegula.histogramdd([c._h for c in columns], [b[0] for b in per_axis], [b[1] for b in per_axis],
                                      ranges, bool(density), weights)
    return Array(hist), [Array(e) for e in edges]


def _columns(sample):
    """The points' coordinates, one 1-d array per dimension (NumPy stacks them)."""
    if isinstance(sample, (list, tuple)):
        return [asarray(c) for c in sample]
    points = asarray(sample)
    points = reshape(points, (-1, 1)) if points.ndim == 1 else points
    return [points[:, i] for i in np.arange(points.shape[1])]


def histogram2d(x, y, bins=10, range=None, density=None, weights=None):
    """NumPy's ``histogram2d``: ``histogramdd`` of the points ``(x, y)``; the counts and the
    edges along ``x`` and ``y``. ``bins``: one number or array of edges for both axes, or a
    pair of them."""
    several = hasattr(bins, "__len__") and len(bins) not in (1, 2)  # one array of edges for both
    hist, (x_edges, y_edges) = histogramdd([x, y], [bins, bins] if several else bins, range, density, weights)
    return hist, x_edges, y_edges
