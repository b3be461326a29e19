"""What ``tegula info PATH`` prints about an array on disk: a Zarr array (format 2 or 3), a Zarr
group (its arrays) or a ``.npy`` file. The metadata is read as JSON (or as the ``.npy``
header); tegula opens the array only to say how it would block it.

For a Zarr array, ``chunks stored`` (``shards stored`` when sharded) says how many of the
grid's chunks have a file, counted by listing the array's directory (never by probing every
key, so huge grids are counted as fast as their files are listed). Zarr reads a chunk without
a file as the fill value, so an array whose writer stopped part-way reads back without an
error: this line is how to tell."""

import json
import math
import os

import numpy as np

from ._svg import human_bytes


class NotAnArray(ValueError):
    """The path holds no array that ``info`` knows."""


def describe(path, storage_options=None):
    """The lines ``info`` prints for ``path`` (a local path or an object storage URL)."""
    from ._storage_options import is_remote

    if is_remote(path):
        return _remote_array(path, storage_options)
    if not os.path.exists(path):
        raise NotAnArray(f"{path}: no such file or directory")
    if os.path.isfile(path):
        if not path.endswith(".npy"):
            raise NotAnArray(f"{path}: not a Zarr array or group, nor a .npy file")
        return _npy(path)
    node = _zarr_node(path)
    if node is None:
        raise NotAnArray(f"{path}: not a Zarr array or group (no .zarray, .zgroup or zarr.json)")
    meta, version, kind = node
    if kind == "group":
        return _group(path, version)
    return _zarr_array(path, meta, version)


def _zarr_node(path):
    """``(metadata, format, "array" or "group")`` of the Zarr node at ``path``, or None."""
    for name, version, kind in ((".zarray", 2, "array"), (".zgroup", 2, "group"), ("zarr.json", 3, None)):
        file = os.path.join(path, name)
        if os.path.isfile(file):
            with open(file) as f:
                meta = json.load(f)
            return meta, version, kind or meta.get("node_type", "array")
    return None


def _fields(pairs):
    width = max(len(key) for key, _ in pairs) + 1
    return [f"{key + ':':<{width}} {value}" for key, value in pairs]


def _sizes(shape, dtype, stored_path):
    """Logical bytes, the bytes of the files under ``stored_path`` and their ratio."""
    logical = math.prod(shape) * np.dtype(dtype).itemsize if dtype is not None else None
    files = [stored_path] if os.path.isfile(stored_path) else [
        os.path.join(root, name) for root, _, names in os.walk(stored_path) for name in names]
    stored = sum(os.path.getsize(f) for f in files)
    pairs = [("bytes", f"{logical} ({human_bytes(logical)})" if logical is not None else "unknown"),
             ("stored", f"{stored} ({human_bytes(stored)}) in {_count(len(files), 'file')}")]
    if logical is not None and stored:
        pairs.append(("ratio", f"{logical / stored:.2f}"))
    return pairs


def _dtype(meta, version):
    """A Zarr array's dtype as NumPy's (None where NumPy has none, as for Zarr v3 extension
    types) and as text."""
    spec = meta["dtype"] if version == 2 else meta["data_type"]
    try:
        dtype = np.dtype(spec)
    except (TypeError, ValueError, KeyError):
        return None, json.dumps(spec)
    return dtype, str(dtype)


def _grid(shape, chunks, noun="chunk"):
    """The number of chunks (or shards) along each axis, and in all."""
    grid = tuple(math.ceil(n / c) if c else 0 for n, c in zip(shape, chunks))
    return f"{grid}, {_count(math.prod(grid), noun)}"


def _count(n, noun):
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _blocks(opened):
    """How tegula would block the array, or why it cannot read it."""
    try:
        x = opened()
    except (OSError, ValueError, TypeError) as e:
        return f"cannot read: {e}"
    return f"{x.chunksize}, grid {x.numblocks}"


# --- Zarr -------------------------------------------------------------------------------------
def _zarr_array(path, meta, version):
    from ._io import from_zarr

    shape = tuple(meta["shape"])
    dtype, dtype_text = _dtype(meta, version)
    pairs = [("path", path), ("format", f"Zarr v{version}"), ("shape", shape), ("dtype", dtype_text)]
    pairs += _zarr2_layout(meta, shape) if version == 2 else _zarr3_layout(meta, shape)
    pairs += _stored_chunks(path, meta, version, shape)
    pairs += [("fill value", json.dumps(meta.get("fill_value"))),
              ("tegula blocks", _blocks(lambda: from_zarr(path)))]
    return _fields(pairs + _sizes(shape, dtype, path))


def _remote_array(url, storage_options):
    """A Zarr array in object storage, from its metadata as the Rust client reads it (stored
    chunks are not listed: a listing of a remote array may take many requests)."""
    from . import _tegula
    from ._io import from_zarr
    from ._storage_options import object_store_options

    meta = json.loads(_tegula.zarr_metadata(url, object_store_options(url, storage_options)))
    version = meta["zarr_format"]
    shape = tuple(meta["shape"])
    dtype, dtype_text = _dtype(meta, version)
    pairs = [("url", url), ("format", f"Zarr v{version}"), ("shape", shape), ("dtype", dtype_text)]
    pairs += _zarr2_layout(meta, shape) if version == 2 else _zarr3_layout(meta, shape)
    logical = math.prod(shape) * dtype.itemsize if dtype is not None else None
    pairs += [("fill value", json.dumps(meta.get("fill_value"))),
              ("tegula blocks", _blocks(lambda: from_zarr(url, storage_options=storage_options))),
              ("bytes", f"{logical} ({human_bytes(logical)})" if logical is not None else "unknown")]
    return _fields(pairs)


def _zarr2_layout(meta, shape):
    chunks = tuple(meta["chunks"])
    codecs = [_codec(f, "id") for f in meta.get("filters") or []]
    if meta.get("compressor"):
        codecs.append(_codec(meta["compressor"], "id"))
    return [("chunks", chunks), ("chunk grid", _grid(shape, chunks)), ("order", meta.get("order", "C")),
            ("codecs", " -> ".join(codecs) or "none")]


def _zarr3_layout(meta, shape):
    grid = meta["chunk_grid"]
    if grid.get("name") != "regular":
        return [("chunk grid", json.dumps(grid)), ("codecs", _chain(meta["codecs"]))]
    outer = tuple(grid["configuration"]["chunk_shape"])
    sharding = next((c for c in meta["codecs"] if c["name"] == "sharding_indexed"), None)
    if sharding is None:
        return [("chunks", outer), ("chunk grid", _grid(shape, outer)), ("codecs", _chain(meta["codecs"]))]
    inner = tuple(sharding["configuration"]["chunk_shape"])
    return [("chunks", inner), ("chunk grid", _grid(shape, inner)), ("shards", outer),
            ("shard grid", _grid(shape, outer, "shard")), ("codecs", _chain(meta["codecs"]))]


def _key_encoding(meta, version):
    """``(prefix, separator)`` of the array's chunk keys: ``c/1/2`` is ``("c", "/")``."""
    if version == 2:
        return None, meta.get("dimension_separator") or "."
    encoding = meta.get("chunk_key_encoding") or {"name": "default"}
    separator = (encoding.get("configuration") or {}).get("separator")
    if encoding.get("name") == "v2":
        return None, separator or "."
    return "c", separator or "/"


def _stored_chunks(path, meta, version, shape):
    """How many of the grid's chunks (or shards) have a file, found by listing the directory;
    the missing ones read as the fill value."""
    if version == 2:
        outer = meta["chunks"]
    else:
        grid = meta["chunk_grid"]
        if grid.get("name") != "regular":
            return []
        outer = grid["configuration"]["chunk_shape"]
    sharded = version == 3 and any(c["name"] == "sharding_indexed" for c in meta["codecs"])
    noun = "shard" if sharded else "chunk"
    grid = tuple(math.ceil(n / c) if c else 0 for n, c in zip(shape, outer))
    total = math.prod(grid)
    prefix, separator = _key_encoding(meta, version)
    present = set()
    for root, dirs, files in os.walk(path):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            if name.startswith("."):
                continue  # metadata, and files being written
            key = os.path.relpath(os.path.join(root, name), path).replace(os.sep, "/")
            index = _parse_key(key, prefix, separator, len(grid))
            if index is not None and all(i < g for i, g in zip(index, grid)):
                present.add(index)
    text = f"{len(present)} of {total}"
    if len(present) < total:
        missing = total - len(present)
        text += f" ({missing} missing: read as the fill value"
        if missing <= 8 and total <= 1_000_000:
            every = np.ndindex(*grid) if grid else [()]
            text += "; " + ", ".join(str(list(i)) for i in every if i not in present)
        text += ")"
    return [(f"{noun}s stored", text)]


def _parse_key(key, prefix, separator, ndim):
    """The grid index a chunk key names, or None."""
    if prefix is not None:
        if key == prefix:
            return () if ndim == 0 else None
        if not key.startswith(prefix + separator):
            return None
        key = key[len(prefix) + len(separator):]
    elif ndim == 0:
        return () if key == "0" else None
    parts = key.split(separator)
    if len(parts) != ndim or not all(p.isdigit() for p in parts):
        return None
    return tuple(int(p) for p in parts)


def _chain(codecs):
    """A v3 codec chain, a sharding codec with its inner chain in brackets."""
    return " -> ".join(_sharding(c) if c["name"] == "sharding_indexed" else _codec(c) for c in codecs)


def _sharding(codec):
    config = codec["configuration"]
    return (f"sharding_indexed[{_chain(config['codecs'])}; index {config.get('index_location', 'end')}: "
            f"{_chain(config.get('index_codecs', []))}]")


def _codec(codec, name_key="name"):
    """``name(key=value, ...)``: a v3 codec (its configuration) or a v2 filter or compressor."""
    config = codec.get("configuration", {}) if name_key == "name" else codec
    args = ", ".join(f"{k}={v if isinstance(v, str) else json.dumps(v)}"
                     for k, v in config.items() if k != name_key)
    return f"{codec[name_key]}({args})" if args else str(codec[name_key])


def _group(path, version):
    """The group's arrays, one line each, found by walking its directory (not into arrays)."""
    arrays = []
    for root, dirs, _ in os.walk(path):
        dirs[:] = [d for d in dirs if not d.startswith(".")]  # arrays being written beside their path
        node = _zarr_node(root) if root != path else None
        if node is not None and node[2] == "array":
            dirs.clear()
            arrays.append((os.path.relpath(root, path), node))
    lines = _fields([("path", path), ("format", f"Zarr v{version} group")]) + ["arrays:"]
    for name, (meta, version_here, _) in sorted(arrays):
        v2 = version_here == 2
        chunks = meta["chunks"] if v2 else meta["chunk_grid"]["configuration"].get("chunk_shape")
        lines.append(f"  {name}  shape {tuple(meta['shape'])}  dtype {_dtype(meta, version_here)[1]}"
                     f"  chunks {tuple(chunks or ())}")
    return lines


# --- npy --------------------------------------------------------------------------------------
def _npy(path):
    from numpy.lib import format as npy

    from ._io import from_npy

    with open(path, "rb") as f:
        try:
            version = npy.read_magic(f)
            read_header = npy.read_array_header_1_0 if version == (1, 0) else npy.read_array_header_2_0
            shape, fortran, dtype = read_header(f)
        except ValueError as e:
            raise NotAnArray(f"{path}: not a .npy file ({e})") from None
        header = f.tell()
    pairs = [("path", path), ("format", f"npy {version[0]}.{version[1]}"), ("shape", shape), ("dtype", dtype),
             ("order", "F" if fortran else "C"), ("header", f"{header} bytes"),
             ("tegula blocks", _blocks(lambda: from_npy(path)))]
    return _fields(pairs + _sizes(shape, dtype, path))
