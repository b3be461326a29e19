"""Dask's ``fromfunction``: an array whose every element is ``func`` of its coordinates, the
function called once per block on that block's coordinate arrays (``map_blocks`` over a lazy
grid of coordinates, as Dask's ``blockwise`` over ``meshgrid``)."""

import functools

from ._creation import arange
from ._map_blocks import map_blocks
from ._matrices import meshgrid
from ._xarray_chunks import normalize_chunks


def fromfunction(func, chunks="auto", shape=None, dtype=None, **kwargs):
    """``func(*coordinates, **kwargs)`` of a block's coordinate arrays (one per axis, of
    ``dtype``, float64 by default; NumPy's ``fromfunction`` gives the whole array's at once),
    for every block of an array of ``shape`` in blocks of ``chunks``. ``func`` must work
    element-wise; the result's dtype is what it returns (Dask's)."""
    if shape is None:
        raise TypeError("fromfunction needs a shape")
    dtype = dtype or float
    shape = tuple(shape)
    chunks = normalize_chunks(chunks, shape, dtype=dtype)
    if not shape:
        raise ValueError("fromfunction needs a shape of at least one axis")
    grids = meshgrid(*(arange(n, dtype=dtype, chunks=(c,)) for n, c in zip(shape, chunks)), indexing="ij")
    call = functools.partial(_coordinates, func, kwargs)
    call.__name__ = getattr(func, "__name__", "fromfunction")
    return map_blocks(call, *grids)


def _coordinates(func, kwargs, *grids):
    return func(*grids, **kwargs)
