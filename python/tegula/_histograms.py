"""NumPy's counting functions: ``digitize`` (``searchsorted`` into the bins), ``bincount``,
``histogram``, ``histogram2d`` and ``histogramdd``. Counts come from a sort: the number of
values below each bin edge is a ``searchsorted`` of the edges into the sorted values, and a
bin's count the difference of its two edges' (weighted: of a running sum of the weights in
sorted order, as NumPy's ``histogram`` with explicit edges). ``bincount``'s length depends on
the largest value, which is computed when the expression is built, as ``unique``'s length
is; a histogram's range, from the data's minimum and maximum, stays lazy, and a range that is
not finite is NumPy's ValueError when computed."""

import operator

import numpy as np

from ._array import Array
from ._creation import arange, asarray, zeros
from ._deferred_checks import checked
from ._functions import UFUNCS, compute, concatenate, where
from ._gather import take
from ._histogram_bins import data_range, estimated_bins
from ._index_arrays import ravel_multi_index
from ._manipulation import diff
from ._reshape import reshape
from ._sorting import argsort, cumulative_sum, searchsorted, sort


def digitize(x, bins, right=False):
    """NumPy's ``digitize``: the index of the bin of each value of ``x`` (``bins`` increasing
    or decreasing, known when the expression is built)."""
    x = asarray(x)
    if x.dtype.kind == "c":
        raise TypeError("x may not be complex")
    edges = np.asarray(bins)
    if edges.ndim != 1:
        raise ValueError("object too deep for desired array" if edges.ndim else "object of too small depth for desired array")
    steps = np.diff(edges)
    side = "left" if right else "right"
    if (steps >= 0).all():
        return searchsorted(*_common(asarray(edges), x), side=side)
    if (steps <= 0).all():
        return len(edges) - searchsorted(*_common(asarray(edges[::-1]), x), side=side)
    raise ValueError("bins must be monotonically increasing or decreasing")


def _common(*arrays):
    """The arrays in their common dtype, as NumPy's ``searchsorted`` compares them."""
    dtype = np.result_type(*(a.dtype for a in arrays))
    return [a.astype(dtype) for a in arrays]


def _below(ordered, edges):
    """For each edge, how many sorted values lie below it; the last edge counts values equal
    to it too (the last bin is closed), as NumPy's ``histogram``."""
    ordered, edges = _common(ordered, edges)
    return concatenate([searchsorted(ordered, edges[:-1], side="left"),
                        searchsorted(ordered, edges[-1:], side="right")])


def _counts(values, edges, weights):
    """The (weighted) count of ``values`` (1-d) in each bin between consecutive ``edges``."""
    if weights is None:
        return diff(_below(sort(values), edges))
    order = argsort(values, stable=True)
    wide = np.result_type(weights.dtype, np.int64 if weights.dtype.kind in "biu" else np.float64)
    running = cumulative_sum(take(weights, order, axis=0).astype(wide), include_initial=True)
    return diff(take(running, _below(take(values, order, axis=0), edges), axis=0)).astype(weights.dtype)


def bincount(x, weights=None, minlength=0):
    """NumPy's ``bincount``: how often each value ``0..max(x)`` occurs in the non-negative
    integers ``x`` (or the sum of their ``weights``, float64), at least ``minlength`` of them.
    The length of the result, and whether a value is negative, are computed now."""
    x = asarray(x)
    minlength = operator.index(minlength)
    if minlength < 0:
        raise ValueError("'minlength' must not be negative")
    if x.ndim != 1:
        raise ValueError("object too deep for desired array" if x.ndim else "object of too small depth for desired array")
    if not np.can_cast(x.dtype, np.intp, "safe"):
        raise TypeError(f"Cannot cast array data from {x.dtype!r} to dtype('int64') according to the rule 'safe'")
    if weights is not None:
        weights = asarray(weights)
        if weights.shape != x.shape:
            raise ValueError("The weights and list don't have the same length.")
        if not np.can_cast(weights.dtype, np.float64, "safe"):
            raise TypeError(f"Cannot cast array data from {weights.dtype!r} to dtype('float64') according to the "
                            "rule 'safe'")
        weights = weights.astype(np.float64)
    if x.shape[0] == 0:
        return zeros((minlength,), dtype=np.int64)  # NumPy's, weights or not
    x = x.astype(np.int64)
    low, high = compute(x.min(), x.max())
    if low < 0:
        raise ValueError("'list' argument must have no negative elements")
    return _counts(x, arange(max(int(high) + 1, minlength) + 1, dtype=np.int64), weights)


def _outer_edges(a, value_range):
    """NumPy's outer edges of ``a``'s histogram: ``range`` (numbers), else the data's minimum
    and maximum (lazy 0-d arrays; a range that is not finite raises when computed), widened
    by a half on each side when equal."""
    if value_range is not None:
        first, last = value_range
        if first > last:
            raise ValueError("max must be larger than min in range parameter.")
        if not (np.isfinite(first) and np.isfinite(last)):
            raise ValueError(f"supplied range of [{first}, {last}] is not finite")
        return (first - 0.5, last + 0.5) if first == last else (first, last)
    if a.size == 0:
        return 0, 1
    first, last = a.min(), a.max()
    finite = UFUNCS["isfinite"]
    first = checked(first, ~(finite(first) & finite(last)), ValueError, "autodetected range is not finite")
    same = first == last
    return where(same, first - 0.5, first), where(same, last + 0.5, last)


def _typed(value):
    """What NumPy's promotion sees of an outer edge: a number as it is (Python's are weak),
    a lazy array by its dtype."""
    return value.dtype if isinstance(value, Array) else value


def _even_edges(a, count, value_range):
    """``count + 1`` evenly spaced edges between the outer edges, as NumPy's ``linspace``
    makes them (in the edges' own float type, the last exactly the end), cast to NumPy's
    edge dtype (the data's float type, float64 for integers)."""
    first, last = _outer_edges(a, value_range)
    bin_type = np.result_type(_typed(first), _typed(last), a.dtype)
    bin_type = np.dtype(np.float64) if bin_type.kind in "biu" else bin_type
    computed = np.result_type(_typed(first), _typed(last), 0.0)
    first, last = asarray(first).astype(computed), asarray(last).astype(computed)
    step = (last - first) / count
    inner = arange(count, dtype=computed) * step + first
    return concatenate([inner, reshape(last, (1,))]).astype(bin_type)


def _edges(a, bins, value_range):
    """NumPy's bin edges: ``bins`` equal bins over the range, or the given increasing edges."""
    if np.ndim(bins) == 0:
        count = operator.index(bins)
        if count < 1:
            raise ValueError("`bins` must be positive, when an integer")
        return _even_edges(a, count, value_range)
    edges = asarray(bins)
    if edges.ndim != 1:
        raise ValueError("`bins` must be 1d, when an array")
    known = np.asarray(edges.compute() if isinstance(bins, Array) else bins)
    if np.any(known[:-1] > known[1:]):
        raise ValueError("`bins` must increase monotonically, when an array")
    return edges


def histogram(a, bins=10, range=None, density=None, weights=None):
    """NumPy's ``histogram``: the (weighted) counts of the flattened ``a`` in ``bins`` equal
    bins over ``range`` (the data's by default), between given edges, or as many as NumPy's
    estimator ``bins`` ("auto", "fd", ...) gives, whose statistics are computed now; and the
    edges. ``density`` divides by the total and the bins' widths."""
    values = reshape(asarray(a), (-1,))
    if weights is not None:
        weights = asarray(weights)
        if weights.shape != asarray(a).shape:
            raise ValueError("weights should have the same shape as a.")
        weights = reshape(weights, (-1,))
    if isinstance(bins, str):
        if weights is not None:
            raise TypeError("Automated estimation of the number of bins is not supported for weighted data")
        range = data_range(values) if range is None else range
        bins = estimated_bins(values, bins, *_outer_edges(values, range))
    edges = _edges(values, bins, range)
    counts = _counts(values, edges, weights)
    if density:
        counts = counts / diff(edges).astype(np.float64) / counts.sum()
    return counts, edges


def histogramdd(sample, bins=10, range=None, density=None, weights=None):
    """NumPy's ``histogramdd``: the (weighted) counts of ``D``-dimensional points (rows of an
    ``(N, D)`` array, or a sequence of ``D`` 1-d arrays) in a grid of bins, and each axis's
    edges. Each point's cell is found by ``searchsorted`` per axis, its flat position counted
    over all cells (a length known from the grid)."""
    columns = _columns(sample)
    d = len(columns)
    bins = list(bins) if hasattr(bins, "__len__") else [bins] * d
    if len(bins) != d:
        raise ValueError("The dimension of bins must be equal to the dimension of the sample x.")
    ranges = [None] * d if range is None else list(range)
    if len(ranges) != d:
        raise ValueError("range argument must have one entry per dimension")
    edges = [_edges(c, b, r) for c, b, r in zip(columns, bins, ranges)]
    cells = [_cell(c, e) for c, e in zip(columns, edges)]
    shape = tuple(e.shape[0] + 1 for e in edges)  # with an outlier bin at each end
    flat = ravel_multi_index(tuple(cells), shape, mode="clip")  # (every cell is inside)
    w = None if weights is None else reshape(asarray(weights), (-1,)).astype(np.float64)
    size = int(np.prod(shape, dtype=np.int64))
    hist = reshape(_counts(flat, arange(size + 1, dtype=np.int64), w), shape).astype(np.float64)
    hist = hist[tuple(slice(1, -1) for _ in shape)]
    if density:
        total = hist.sum()
        for i, e in enumerate(edges):
            widths = diff(e).astype(np.float64)
            hist = hist / reshape(widths, tuple(-1 if j == i else 1 for j in np.arange(d)))
        hist = hist / total
    return hist, edges


def _columns(sample):
    """The points' coordinates, one 1-d array per dimension, in their common dtype (NumPy
    stacks them)."""
    if isinstance(sample, (list, tuple)):
        columns = [asarray(c) for c in sample]
        if len({c.shape for c in columns}) > 1 or any(c.ndim > 1 for c in columns):
            raise ValueError("the coordinates of the sample must be 1-d arrays of one length")
        return _common(*columns)
    points = asarray(sample)
    points = reshape(points, (-1, 1)) if points.ndim == 1 else points
    return [points[:, i] for i in np.arange(points.shape[1])]


def _cell(values, edges):
    """Each value's bin along one axis, 1 for the first bin (0 below the first edge, one past
    the last bin above the last edge), the last edge belonging to the last bin, as NumPy's."""
    values, edges = _common(values, edges)
    cell = searchsorted(edges, values, side="right")
    return where(values == edges[-1], cell - 1, cell)


def histogram2d(x, y, bins=10, range=None, density=None, weights=None):
    """NumPy's ``histogram2d``: ``histogramdd`` of the points ``(x, y)``; the counts and the
    edges along ``x`` and ``y``. ``bins``: one number or array of edges for both axes, or a
    pair of them."""
    several = hasattr(bins, "__len__") and len(bins) not in (1, 2)  # one array of edges for both
    hist, (x_edges, y_edges) = histogramdd([x, y], [bins, bins] if several else bins, range, density, weights)
    return hist, x_edges, y_edges
