"""Dask's ``coarsen``: a reduction over non-overlapping windows, each axis ``i`` cut into
windows of ``axes[i]`` elements. The array is reshaped so every window gets axes of its own
(``(n, f) -> (n // f, f)``, blocks first made whole numbers of windows) and the reduction is
called once, on that lazy array, over the window axes."""

import numpy as np

from ._creation import asarray
from ._manipulation import _normalize


def coarsen(reduction, x, axes, trim_excess=False, **kwargs):
    """``reduction`` (such as ``np.sum`` or ``tg.mean``: it must take ``axis=`` a tuple, and
    NumPy's functions dispatch to tegula's) over windows of ``axes[i]`` elements along each
    axis ``i`` of ``axes`` (a dict); ``kwargs`` are passed to it. A window factor that does
    not divide its axis is a ``ValueError``, unless ``trim_excess`` drops the elements past
    the last whole window."""
    x = asarray(x)
    factors = [1] * x.ndim
    for axis, factor in axes.items():
        factors[_normalize(axis, x.ndim)] = int(factor)
    if any(f < 1 for f in factors):
        raise ValueError(f"Coarsening factors {axes} must be positive")
    if not trim_excess and any(n % f for n, f in zip(x.shape, factors)):
        raise ValueError(f"Coarsening factors {axes} do not align with array shape {x.shape}.")
    if getattr(reduction, "__module__", None) and reduction.__module__.startswith("dask."):
        reduction = getattr(np, reduction.__name__)  # as Dask: its own reductions mean NumPy's
    x = x[tuple(slice(0, n - n % f) for n, f in zip(x.shape, factors))]
    x = x.rechunk(tuple(_whole_windows(c, f) for c, f in zip(x.chunks, factors)))
    windows = x.reshape(tuple(v for n, f in zip(x.shape, factors) for v in (n // f, f)))
    return asarray(reduction(windows, axis=tuple(range(1, 2 * x.ndim, 2)), **kwargs))


def _whole_windows(chunks, factor):
    """Block lengths along one axis that are whole numbers of windows, about as long as the
    longest block now."""
    n = sum(chunks)
    if factor == 1 or all(c % factor == 0 for c in chunks):
        return chunks
    size = max(factor, max(chunks) // factor * factor)
    return (size,) * (n // size) + ((n % size,) if n % size else ())
