"""Dask's ``reduction``: a user's reduction given as two NumPy functions, ``chunk`` (run on
every block, keeping the reduced axes) and ``aggregate`` (run on the partial results
concatenated along the reduced axes). Both are ``map_blocks`` calls, so the functions run once
per block; ``aggregate`` sees all the partials at once (Dask's tree with ``split_every`` at
least the number of blocks, so no ``combine`` step is needed)."""

import functools

import numpy as np

from ._array import refuse_out
from ._creation import asarray
from ._manipulation import _axis_list
from ._map_blocks import map_blocks


def reduction(x, chunk, aggregate, axis=None, keepdims=False, dtype=None, split_every=None, combine=None,
              name=None, out=None, concatenate=True, output_size=1, meta=None, weights=None):
    """``aggregate(concatenated partials, axis=axes, keepdims=keepdims)`` of the partials
    ``chunk(block, axis=axes, keepdims=True)`` of every block of ``x`` (``axes``: ``axis`` as a
    tuple of non-negative axes, all by default). ``chunk`` must leave ``output_size`` elements
    along each reduced axis (1, as NumPy's reductions with ``keepdims=True``); the result has
    ``output_size`` there with ``keepdims``, else loses those axes. ``dtype`` (the result's) is
    required, as Dask's. ``split_every`` and ``combine`` are accepted and not needed;
    ``concatenate=False`` (partials that are not arrays) and ``weights`` are not supported."""
    refuse_out(out)
    if dtype is None:
        raise ValueError("Must specify dtype")
    if not concatenate:
        raise ValueError("tegula's reduction concatenates the partial results (concatenate=True): they must be "
                         "arrays")
    if weights is not None:
        raise ValueError("tegula's reduction does not take weights; multiply them in first")
    x = asarray(x)
    axes = tuple(_axis_list(axis, x.ndim))
    size = int(output_size)
    label = name or getattr(chunk, "__name__", "reduction")
    partial_dtype = _partial_dtype(chunk, x, axes)
    partials = map_blocks(functools.partial(_call, chunk, axes, True), x, dtype=partial_dtype,
                          chunks=tuple((size,) * len(c) if i in axes else c for i, c in enumerate(x.chunks)),
                          name=label)
    partials = partials.rechunk(tuple(-1 if i in axes else c for i, c in enumerate(partials.chunks)))
    if keepdims:
        chunks = tuple((size,) if i in axes else c for i, c in enumerate(partials.chunks))
        return map_blocks(functools.partial(_call, aggregate, axes, True), partials, dtype=dtype, chunks=chunks,
                          name=label)
    return map_blocks(functools.partial(_call, aggregate, axes, False), partials, dtype=dtype,
                      drop_axis=axes or None, name=label)


def _call(func, axes, keepdims, block):
    return func(block, axis=axes, keepdims=keepdims)


def _partial_dtype(chunk, x, axes):
    """The dtype ``chunk`` gives a block of ``x``'s (read off a call on a one-element block)."""
    sample = np.ones((1,) * x.ndim, x.dtype)
    return np.asarray(chunk(sample, axis=axes, keepdims=True)).dtype
