"""NumPy's bin-count estimators for ``histogram(a, bins="auto")`` and the others: the number
of bins, hence the result's shape, depends on the data, so the statistics each estimator
needs (size, range, standard deviation, skewness, quartiles) are computed when the expression
is built, together in one computation, as ``unique``'s length is; the formulas are NumPy's,
on those numbers. ``"stone"`` minimises NumPy's estimate of the integrated squared error over
its trial histograms (1 to ``max(100, sqrt(n))`` bins), all counted in one computation.
"""

import warnings

import numpy as np

from ._functions import compute
from ._gather import getitem
from ._statistics import percentile

ESTIMATORS = ("auto", "fd", "doane", "scott", "rice", "sturges", "sqrt", "stone")


def _statistics(x, name):
    """The numbers ``name``'s formula reads, computed together."""
    lazy = {"ptp": x.max() - x.min()}
    if name in ("scott", "doane"):
        lazy["std"] = x.std()
    if name == "doane":
        deviation = x - x.mean()
        lazy["skew"] = ((deviation / x.std()) ** 3).mean()
    if name in ("fd", "auto"):
        lazy["quartiles"] = percentile(x, [75, 25])
    return dict(zip(lazy, compute(*lazy.values())))


def _width(name, n, s):
    """NumPy's bin width of the estimator ``name`` for ``n`` values with statistics ``s``."""
    sturges = s["ptp"] / (np.log2(n) + 1.0)
    if name == "sqrt":
        return s["ptp"] / np.sqrt(n)
    if name == "sturges":
        return sturges
    if name == "rice":
        return s["ptp"] / (2.0 * n ** (1.0 / 3))
    if name == "scott":
        return (24.0 * np.pi ** 0.5 / n) ** (1.0 / 3.0) * s["std"]
    if name == "doane":
        if n <= 2 or not s["std"] > 0.0:
            return 0.0
        sg1 = np.sqrt(6.0 * (n - 2) / ((n + 1.0) * (n + 3)))
        return s["ptp"] / (1.0 + np.log2(n) + np.log2(1.0 + np.absolute(s["skew"]) / sg1))
    fd = 2.0 * np.subtract(*s["quartiles"]) * n ** (-1.0 / 3.0)
    if name == "fd":
        return fd
    return min(max(fd, s["ptp"] / np.sqrt(n) / 2), sturges)  # "auto": at most twice sqrt's bins


def data_range(values):
    """The data's minimum and maximum, computed now (an estimator needs them as numbers), with
    NumPy's error when they are not finite; ``(0, 1)`` for no data."""
    if values.size == 0:
        return 0, 1
    first, last = compute(values.min(), values.max())
    if not (np.isfinite(first) and np.isfinite(last)):
        raise ValueError(f"autodetected range of [{first}, {last}] is not finite")
    return first, last


def estimated_bins(values, name, first, last):
    """How many equal bins NumPy's estimator ``name`` gives ``values`` (1-d) between the outer
    edges ``first`` and ``last`` (numbers): the values outside are left out first."""
    if name not in ESTIMATORS:
        raise ValueError(f"{name!r} is not a valid estimator for `bins`")
    x = getitem(values, (values >= first) & (values <= last))
    if x.size == 0:
        return 1
    width = _stone_width(x, first, last) if name == "stone" else _width(name, x.size, _statistics(x, name))
    if not width:
        return 1
    if x.dtype.kind in "iu" and width < 1:
        width = 1
    return int(np.ceil(_difference(last, first) / width))


def _stone_width(x, first, last):
    """NumPy's "stone" bin width: the data's range over the trial number of bins whose
    estimated integrated squared error, from the trial's counts, is least (the first such)."""
    from ._histograms import histogram

    n = x.size
    upper = max(100, int(np.sqrt(n)))
    trials = [histogram(x, bins=b, range=(first, last))[0] for b in range(1, upper + 1)]
    high, low, *counts = compute(x.max(), x.min(), *trials)
    ptp = _difference(high, low)
    if n <= 1 or ptp == 0:
        return 0

    def error(b):
        p = counts[b - 1] / n
        return (2 - (n + 1) * p.dot(p)) / (ptp / b)

    best = min(range(1, upper + 1), key=error)
    if best == upper:
        warnings.warn("The number of bins estimated may be suboptimal.", RuntimeWarning, stacklevel=4)
    return ptp / best


def _difference(last, first):
    """``last - first`` as NumPy's histogram takes it: signed integers in their unsigned type,
    so that the difference cannot overflow."""
    dtype = np.result_type(last, first)
    if dtype.kind != "i":
        return np.subtract(last, first, dtype=dtype)
    return np.subtract(np.asarray(last, dtype), np.asarray(first, dtype), casting="unsafe", dtype=f"u{dtype.itemsize}")
