"""Arrays read lazily from array-like objects that are not NumPy arrays (h5py datasets,
zarr-python arrays): one ``obj[slices]`` per block, when computed."""

import numpy as np

from . import _tegula
from ._array import Array
from ._dtypes import is_supported


def is_sliceable(obj):
    """Whether ``obj`` is an array-like to read lazily: it has a shape and dtype and supports
    NumPy-style slicing, but is not a NumPy array (h5py datasets, zarr-python arrays)."""
    if isinstance(obj, (np.ndarray, np.generic, list, tuple)):
        return False
    return all(hasattr(obj, a) for a in ("shape", "dtype", "__getitem__"))


def from_object(obj, dtype=None, chunks="auto", read_unit=None):
    """A lazy array reading ``obj[slices]`` block by block (one call per block, when needed).
    ``read_unit``: the box ``obj`` reads whole (a compressed chunk), by default its ``chunks``
    when it has them (zarr-python arrays, chunked h5py datasets); parts of one are then read
    once, together, however many selections need them."""
    dt = np.dtype(obj.dtype if dtype is None else dtype)
    if not is_supported(dt):
        raise TypeError(f"tegula does not support dtype {dt}")
    shape = tuple(int(n) for n in obj.shape)
    if read_unit is None:
        read_unit = _own_chunks(obj, len(shape))
    return Array(_tegula.from_object(obj, shape, dt.name, chunks, None, read_unit))


def _own_chunks(obj, ndim):
    """``obj.chunks`` when it is one positive length per axis, else None."""
    chunks = getattr(obj, "chunks", None)
    if isinstance(chunks, tuple) and len(chunks) == ndim and all(isinstance(c, int) and c > 0 for c in chunks):
        return chunks
    return None
