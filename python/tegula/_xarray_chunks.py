"""Chunk arithmetic for xarray's chunk manager: normalising chunk requests (with stored chunks
as a hint) and unifying the chunks of arrays that share dimensions."""

import functools
import math

import numpy as np

from ._creation import full


@functools.lru_cache(maxsize=1)
def auto_block_bytes():
    """The bytes of a block tegula chooses with ``chunks="auto"`` (read off a lazy array)."""
    return full((2**31,), 0, "uint8", chunks="auto").chunks[0][0]


def normalize_chunks(chunks, shape, limit=None, dtype=None, previous_chunks=None):
    """Block lengths per axis: ``None``/-1 a whole axis, an int regular blocks, a tuple itself,
    ``"auto"`` blocks of about ``limit`` bytes in all (tegula's block size by default), made
    whole multiples of ``previous_chunks`` along each axis where that fits."""
    if shape is None:
        raise ValueError("normalize_chunks needs the array's shape")
    shape = tuple(int(n) for n in shape)
    specs = _per_axis(chunks, len(shape))
    out = [_explicit(spec, n) if spec != "auto" else None for spec, n in zip(specs, shape)]
    auto = [i for i, c in enumerate(out) if c is None]
    if auto:
        itemsize = np.dtype("float64" if dtype is None else dtype).itemsize
        fixed = math.prod(max(c) for c in out if c is not None)
        budget = (limit or auto_block_bytes()) / (itemsize * max(fixed, 1))
        previous = _per_axis(previous_chunks, len(shape)) if previous_chunks is not None else [None] * len(shape)
        for i, size in _auto_sizes(shape, auto, budget, previous).items():
            out[i] = _split(shape[i], size)
    return tuple(out)


def _per_axis(chunks, ndim):
    if isinstance(chunks, dict):
        return [chunks.get(i, chunks.get(i - ndim)) for i in range(ndim)]
    if isinstance(chunks, (list, tuple)):
        if len(chunks) != ndim:
            raise ValueError(f"chunks {chunks!r} give {len(chunks)} axes for an array of {ndim}")
        return list(chunks)
    return [chunks] * ndim


def _explicit(spec, n):
    if spec is None or spec == -1:
        return (n,)
    if isinstance(spec, (tuple, list)):
        spec = tuple(int(c) for c in spec)
        if sum(spec) != n:
            raise ValueError(f"chunks {spec} do not add up to the axis length {n}")
        return spec
    if isinstance(spec, (int, np.integer)) and spec > 0:
        return _split(n, int(spec))
    raise ValueError(f"cannot understand the chunk size {spec!r}")


def _split(n, size):
    if n == 0:
        return (0,)
    return (size,) * (n // size) + ((n % size,) if n % size else ())


def _auto_sizes(shape, axes, budget, previous):
    """Block lengths along ``axes`` whose product is about ``budget`` elements: the shortest
    axes first, each taking its share of what is left."""
    sizes = {}
    order = sorted(axes, key=lambda i: shape[i])
    for k, i in enumerate(order):
        share = max(1, int(budget ** (1 / (len(order) - k))))
        size = max(1, min(share, shape[i]))
        hint = previous[i]
        hint = max(hint) if isinstance(hint, (tuple, list)) else hint
        if hint and size < shape[i]:
            size = max(int(hint), size // int(hint) * int(hint))  # whole stored chunks
        sizes[i] = size
        budget /= size
    return sizes


def unify_chunks(args, warn=True):
    """Arrays and their index labels (``x, "ij", y, "jk", ...``) rechunked to one chunking per
    label: the block boundaries of every array along it, merged. Returns the chunks of each
    label and the arrays (arguments with a ``None`` index are passed through)."""
    pairs = list(zip(args[::2], args[1::2]))
    merged = {}
    for array, index in pairs:
        if index is None:
            continue
        for label, chunks in zip(index, array.chunks):
            if sum(chunks) != 1:  # a length-one axis broadcasts against any chunking
                merged[label] = _merge(merged.get(label), chunks, label)
    arrays = []
    for array, index in pairs:
        if index is None:
            arrays.append(array)
            continue
        wanted = tuple(merged.get(label, c) if sum(c) != 1 else c for label, c in zip(index, array.chunks))
        arrays.append(array if wanted == array.chunks else array.rechunk(wanted))
    return merged, arrays


def _merge(a, b, label):
    if a is None or a == b:
        return tuple(b)
    if sum(a) != sum(b):
        raise ValueError(f"dimension {label!r} has lengths {sum(a)} and {sum(b)}")
    if sum(a) == 0:
        return (0,)  # empty axes cut into different numbers of empty blocks: one
    bounds = sorted(set(np.cumsum(a).tolist()) | set(np.cumsum(b).tolist()))
    return tuple(int(e - s) for s, e in zip([0] + bounds[:-1], bounds))
