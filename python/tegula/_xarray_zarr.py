"""Zarr arrays that xarray opened, read by tegula's own Zarr reader.

``xr.open_zarr`` hands the chunk manager a stack of lazy wrappers over a zarr-python array.
Reading blocks through them is one ``data[slices]`` call per block into zarr-python, under the
GIL; when the stack only selects (no CF decoding between the stored values and xarray's), the
same values come from opening the stored array natively: decoded in Rust, in parallel, and
read once per stored chunk however many blocks share it. Anything else keeps the general route.
"""

import os

import numpy as np

# xarray's wrappers that pass values through unchanged (on reads), by class name: the module
# does not import xarray's internals, which move between releases.
_PASS_THROUGH = {"ImplicitToExplicitIndexingAdapter", "CopyOnWriteArray", "MemoryCachedArray"}


def native_zarr(data, chunks):
    """A tegula array of ``data``'s values in blocks ``chunks``, read from the Zarr store
    underneath by tegula, or None when ``data`` is not a plain selection of a local Zarr array
    (a decoding wrapper, a vectorised selection, a store that is not a directory, a codec the
    native reader lacks)."""
    key, stored = _selection_of_zarr(data)
    if stored is None or np.dtype(stored.dtype) != np.dtype(data.dtype):
        return None
    path = _local_path(stored)
    if path is None:
        return None
    from ._io import from_zarr

    whole = key is None or all(k == slice(None) for k in key)
    try:
        array = from_zarr(path, chunks=chunks if whole else None)
    except (OSError, ValueError, TypeError, NotImplementedError):
        return None  # the store holds something tegula's reader does not open: the general route
    if not whole:
        array = array[key].rechunk(chunks)
    if array.shape != tuple(data.shape) or array.dtype != np.dtype(data.dtype):
        return None
    return array


def _selection_of_zarr(data):
    """(basic selection or None, zarr-python array) under xarray's wrappers, else (None, None)."""
    key = None
    while True:
        name = type(data).__name__
        if name in _PASS_THROUGH:
            data = data.array
        elif name == "LazilyIndexedArray":
            if key is not None:
                return None, None  # selections of selections: xarray composes them, so never seen
            key = _basic_key(data.key)
            if key is None:
                return None, None
            data = data.array
        elif name == "ZarrArrayWrapper":
            stored = getattr(data, "_array", None)
            return (key, stored) if _is_zarr_array(stored) else (None, None)
        else:
            return None, None


def _basic_key(indexer):
    """The tuple of slices and integers of a basic indexer, else None."""
    if type(indexer).__name__ != "BasicIndexer":
        return None
    key = tuple(indexer.tuple)
    if all(isinstance(k, slice) or isinstance(k, (int, np.integer)) for k in key):
        return key
    return None


def _is_zarr_array(obj):
    return type(obj).__module__.startswith("zarr.") and hasattr(obj, "store") and hasattr(obj, "path")


def _local_path(stored):
    """The directory of a zarr-python array in a local store, else None."""
    store = stored.store
    if type(store).__name__ != "LocalStore":
        return None
    return os.path.join(os.fspath(store.root), stored.path) if stored.path else os.fspath(store.root)
