"""What ``tegula info PATH`` prints about an array on disk: a Zarr array (format 2 or 3), a Zarr
group (its arrays) or a ``.npy`` file. The metadata is read as JSON (or as the ``.npy``
header); tegula opens the array only to say how it would block it."""

import json
import math
import os

import numpy as np

from ._svg import human_bytes


class NotAnArray(ValueError):
    """The path holds no array that ``info`` knows."""


def describe(path):
    """The lines ``info`` prints for ``path``."""
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
    pairs += [("fill value", json.dumps(meta.get("fill_value"))),
              ("tegula blocks", _blocks(lambda: from_zarr(path)))]
    return _fields(pairs + _sizes(shape, dtype, path))


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
