"""Dask's helpers that NumPy has no counterpart for: ``unify_chunks`` (arrays rechunked to
common block boundaries per index label), ``shuffle`` (an axis regrouped by lists of
positions), ``assert_eq`` (Dask's test helper: compute and compare) and its
``PerformanceWarning``."""

import math
import warnings

import numpy as np

from ._array import Array
from ._creation import asarray
from ._gather import take
from ._xarray_chunks import unify_chunks as _unify


class PerformanceWarning(Warning):
    """A computation that may run slowly, such as one rechunking to many more blocks (Dask's
    warning of that name)."""


def unify_chunks(*args, **kwargs):
    """Dask's ``unify_chunks``: ``args`` alternate arrays and their index labels (``x, "ij",
    y, "jk"``; ``None`` for an argument that is not an array). Returns ``(chunkss, arrays)``:
    each label's block lengths (every array's boundaries along it merged; a length-one axis
    broadcasts and keeps its own) and the arrays rechunked to them. Warns with
    ``PerformanceWarning`` when that makes ten times as many blocks as the largest array has
    (unless ``warn=False``)."""
    if not args:
        return {}, []
    pairs = [(asarray(a) if ind is not None else a, ind) for a, ind in zip(args[::2], args[1::2])]
    for a, ind in pairs:
        if ind is not None and len(ind) != a.ndim:
            raise ValueError(f"index {ind!r} does not match an array of {a.ndim} axes")
    chunkss, arrays = _unify([v for pair in pairs for v in pair], warn=False)
    chunkss = dict(chunkss)
    for a, ind in pairs:
        for label, chunks in zip(ind or (), a.chunks if ind is not None else ()):
            chunkss.setdefault(label, chunks)
    blocks = [a.npartitions for a, ind in pairs if ind is not None]
    parts = math.prod(len(c) for c in chunkss.values())
    if kwargs.get("warn", True) and blocks and parts and parts >= max(blocks) * 10:
        warnings.warn(f"Increasing number of chunks by factor of {parts // max(blocks)}", PerformanceWarning,
                      stacklevel=2)
    return chunkss, list(arrays)


def shuffle(x, indexer, axis, chunks="auto"):
    """Dask's ``shuffle``: ``x`` with axis ``axis`` reordered to the positions of ``indexer``
    (a list of lists of positions, the groups Dask keeps within one block each), concatenated:
    a ``take``. ``chunks`` is accepted for Dask's signature."""
    x = asarray(x)
    if not isinstance(indexer, list) or not all(isinstance(i, list) for i in indexer):
        raise ValueError("indexer must be a list of lists of positional indices")
    if not isinstance(axis, (int, np.integer)):
        raise TypeError("axis must be an integer")
    if not -x.ndim <= axis < x.ndim:
        raise np.exceptions.AxisError(axis, x.ndim)
    positions = [int(i) for group in indexer for i in group]
    n = x.shape[axis]
    if any(i >= n for i in positions):
        raise IndexError(f"Indexer contains out of bounds index. Dimension only has {n} elements.")
    return take(x, np.asarray(positions, dtype=np.int64), axis=axis)


def assert_eq(a, b, check_shape=True, check_graph=True, check_meta=True, check_chunks=True, check_ndim=True,
              check_type=True, check_dtype=True, equal_nan=True, scheduler="sync", **kwargs):
    """Dask's ``assert_eq``: ``a`` and ``b`` (tegula arrays are computed; NumPy arrays, lists
    and scalars taken as they are) have the same dtype (with ``check_dtype``) and shape and
    equal values, NaN equal to NaN with ``equal_nan``, within ``np.allclose``'s tolerance
    (``rtol``/``atol`` in ``kwargs``). Returns True, or raises ``AssertionError``.
    ``check_chunks`` checks that a tegula array's block lengths add up to its shape; the
    other ``check_*`` arguments and ``scheduler`` are accepted for Dask's signature."""
    a, b = (_computed(v, check_chunks) for v in (a, b))
    if check_dtype and str(a.dtype) != str(b.dtype):
        raise AssertionError(f"a and b have different dtypes: (a: {a.dtype}, b: {b.dtype})")
    if check_shape and a.shape != b.shape:
        raise AssertionError(f"a and b have different shapes (a: {a.shape}, b: {b.shape})")
    try:
        same = np.allclose(a, b, equal_nan=equal_nan, **kwargs)
    except TypeError:
        same = bool(np.all(a == b))
    if not same:
        raise AssertionError("found values in 'a' and 'b' which differ by more than the allowed amount")
    return True


def _computed(value, check_chunks):
    if isinstance(value, Array):
        if check_chunks and tuple(sum(c) for c in value.chunks) != value.shape:
            raise AssertionError(f"chunks {value.chunks} do not add up to the shape {value.shape}")
        return np.asarray(value.compute())
    return np.asarray(value)
