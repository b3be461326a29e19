"""Arrays on disk: Zarr (format 2 and 3) and NumPy's ``.npy``, read lazily and written as they
are computed. Reads and writes run in Rust, in parallel, without the GIL."""

import json
import os

from . import _tegula, config
from ._array import Array
from ._compute import executor_name
from ._creation import asarray
from ._storage_options import REMOTE_SCHEMES, is_remote, join, object_store_options


def _location(path_or_url, component=None, storage_options=None):
    """The path or URL the Rust store opens, and its storage options as pairs of strings."""
    path = os.fspath(path_or_url)
    if is_remote(path):
        return join(path, component and _checked_component(component, remote=True)), object_store_options(path, storage_options)
    if "://" in path:
        scheme, rest = path.split("://", 1)
        if scheme != "file":
            schemes = ", ".join(f"{s}://" for s in REMOTE_SCHEMES)
            raise ValueError(f"tegula reads local paths, file:// URLs and object storage ({schemes}), not {scheme}://")
        path = rest
    if storage_options:
        raise ValueError(f"{path} is a local path: storage_options apply to object storage URLs only")
    if component:
        path = os.path.join(path, _checked_component(component))
    return path, []


def _checked_component(component, remote=False):
    """A path inside a group: relative, without ``..``, so it cannot name anything outside the
    store (``component=".."`` would read the group's parent). In a URL it is checked as the
    store sees it, percent-escapes decoded (``%2e%2e`` is ``..`` there)."""
    from urllib.parse import unquote

    text = os.fspath(component) if isinstance(component, os.PathLike) else str(component)
    seen = unquote(text) if remote else text
    parts = text.replace(os.sep, "/").split("/")
    seen_parts = seen.replace(os.sep, "/").replace("\\", "/").split("/")
    if seen.startswith(("/", os.sep)) or os.path.isabs(seen) or ".." in seen_parts or "\0" in seen:
        raise ValueError(f"component {text!r} must be a relative path inside the store, without '..'")
    return "/".join(p for p in parts if p not in ("", "."))


def from_zarr(path_or_url, component=None, chunks=None, *, storage_options=None):
    """A lazy array over the Zarr array at ``path_or_url``: a directory, a ``file://`` URL or
    object storage (``s3://``, ``gs://``, ``az://``, ``http(s)://``, with fsspec-style
    ``storage_options`` such as ``key``, ``secret``, ``endpoint_url``, ``anon``;
    ``component``: the array's path inside a group). Nothing but metadata is read until the
    array is computed, and then only the stored chunks a result needs, by the threads (or
    workers) that need them. ``chunks=None`` keeps whole stored chunks per block (several
    while a block is small); the array's ``attrs`` are the stored attributes."""
    path, options = _location(path_or_url, component, storage_options)
    handle, attributes = _tegula.open_zarr(path, chunks, options)
    return Array(handle, json.loads(attributes))


def from_npy(path, chunks="auto"):
    """A lazy array over the ``.npy`` file at ``path``: blocks are read from the file when a
    computation needs them, never the whole file at once."""
    return Array(_tegula.open_npy(os.fspath(path), chunks))


def _compute_settings():
    settings = config.explicit()
    return {"memory": settings.get("memory"), "spill_dir": settings.get("spill_dir"),
            "scheduler": executor_name(), "num_workers": config.get("num_workers")}


def to_zarr(x, path, chunks=None, compressor=None, overwrite=False, *, zarr_format=3, shards=None,
            fill_value=None, attrs=None, compression_level=None, component=None, fuse=True, storage_options=None):
    """Computes ``x`` into a new Zarr array at ``path``, writing each block as soon as it is
    computed (the result never needs to fit in memory). ``chunks``: the stored chunk shape
    (default: ``x``'s largest block); ``compressor``: ``None``, ``"zstd"``, ``"gzip"`` or
    ``"blosc"`` (level ``compression_level``); ``shards``: the shard shape (format 3), a
    multiple of ``chunks``; ``attrs``: attributes to store (default ``x.attrs``). An existing
    array is replaced only with ``overwrite=True``. ``path`` may be object storage (see
    ``from_zarr``): each stored chunk is one PUT and the metadata is put last, so readers see
    no array until it is complete. Returns the execution report (a dict)."""
    x = x if isinstance(x, Array) else asarray(x)
    attrs = x.attrs if attrs is None else attrs
    path, options = _location(path, component, storage_options)
    return _tegula.to_zarr(
        x._h, path, chunks=chunks, compressor=compressor, level=compression_level,
        shards=shards, fill_value=_stored_fill(fill_value, x.dtype), attributes=json.dumps(attrs), overwrite=overwrite,
        zarr_format=zarr_format, fuse=fuse, storage_options=options, **_compute_settings())


def _stored_fill(fill_value, dtype):
    """``fill_value`` as the Rust writer takes it: a time (``NaT`` too) as its count of the
    array's unit, as times are stored."""
    import numpy as np

    if isinstance(fill_value, (np.datetime64, np.timedelta64)):
        if dtype.kind not in "mM":
            raise TypeError(f"fill_value {fill_value!r} is a time, but the array's dtype is {dtype}")
        return int(np.asarray(fill_value).astype(dtype).view("i8"))
    return fill_value


def to_npy(x, path, overwrite=False):
    """Computes ``x`` into a ``.npy`` file at ``path``; the file appears (replacing an old
    one only with ``overwrite=True``) once every block is written."""
    x = x if isinstance(x, Array) else asarray(x)
    return _tegula.to_npy(x._h, os.fspath(path), overwrite=overwrite, **_compute_settings())
