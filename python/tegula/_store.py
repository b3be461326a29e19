"""Dask's ``store``: tegula arrays computed into targets that take ``target[region] = values``
(NumPy arrays, zarr-python arrays) slab by slab, each slab computed then written (never the
whole result at once), or into ``.npy`` files and Zarr arrays named by path, written by tegula's
own writers block by block."""

import os
import threading

from ._creation import asarray
from ._io import from_npy, from_zarr, to_npy, to_zarr
from ._xarray_store import store_regions


def _listed(value):
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _is_path(target):
    return isinstance(target, (str, os.PathLike))


def store(sources, targets, lock=True, regions=None, compute=True, return_stored=False, **kwargs):
    """Dask's ``store``: each source (a tegula array or array-like) written into its target;
    ``regions``: a tuple of slices of the target per source (or one for all); ``lock``: True
    (a new lock), False, or a lock held around each write. A target given as a path is a
    ``.npy`` file (by its suffix) or a Zarr array, replaced whole. ``return_stored=True``
    returns the stored values as tegula arrays reading the targets. Other keywords go to
    ``compute``. Everything is computed now: ``compute=False`` is refused."""
    if not compute:
        raise ValueError("tegula's store computes at once; call it with compute=True when the values are wanted")
    single = not isinstance(sources, (list, tuple))
    sources, targets = [asarray(s) for s in _listed(sources)], _listed(targets)
    if len(sources) != len(targets):
        raise ValueError(f"Different number of sources [{len(sources)}] and targets [{len(targets)}]")
    if regions is None or isinstance(regions, tuple):
        regions = [regions] * len(sources)
    if len(regions) != len(sources):
        raise ValueError(f"Different number of sources [{len(sources)}] and regions [{len(regions)}]")
    if lock is True:
        lock = threading.Lock()
    items = []
    for source, target, region in zip(sources, targets, regions):
        if _is_path(target):
            _store_path(source, target, region)
        else:
            items.append((source, target, region))
    store_regions(items, lock=lock or None, **kwargs)
    if not return_stored:
        return None
    stored = tuple(_stored(t, r) for t, r in zip(targets, regions))
    return stored[0] if single else stored


def _store_path(source, path, region):
    """``source`` written by tegula into a new ``.npy`` file or Zarr array at ``path``."""
    if region is not None:
        raise ValueError("a target given as a path is written whole: regions apply to array targets")
    if os.fspath(path).endswith(".npy"):
        to_npy(source, path, overwrite=True)
    else:
        to_zarr(source, path, overwrite=True)


def _stored(target, region):
    """A tegula array reading what ``store`` wrote into ``target``."""
    if _is_path(target):
        return from_npy(target) if os.fspath(target).endswith(".npy") else from_zarr(target)
    stored = asarray(target)
    return stored if region is None else stored[tuple(region)]
