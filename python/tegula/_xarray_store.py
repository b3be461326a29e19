"""Writing tegula arrays into arrays that take ``target[slices] = values`` (zarr-python arrays
for xarray's ``to_zarr``): each source is cut into slabs aligned with its target's chunks (or
shards) and at most a quarter of the memory budget; consecutive slabs, of one source or several,
are computed together in one tegula computation, then written one slab at a time."""

import contextlib
import itertools
import math

import numpy as np

from . import config
from ._functions import compute


def store_regions(items, lock=None, **compute_kwargs):
    """``items``: (source, target, region) triples; ``region`` is a tuple of slices of the
    target that the source fills (None: the whole target)."""
    budget = max(1, config.get("memory") // 4)
    slabs = [slab for source, target, region in items for slab in _slabs(source, target, region, budget)]
    for group in _groups(slabs, budget):
        values = compute(*(source[key] for source, key, _, _ in group), **compute_kwargs)
        for (_, _, target, target_key), value in zip(group, values):
            with lock if lock is not None else contextlib.nullcontext():
                target[target_key] = value


def _slabs(source, target, region, budget):
    """(source, source key, target, target key) for each slab of ``source``."""
    offsets = _offsets(region, target.shape, source.shape)
    chunk = _write_chunk(target, source.ndim)
    lengths = _slab_lengths(source.shape, chunk, source.dtype.itemsize, budget)
    per_axis = [_cuts(n, off, length) for n, off, length in zip(source.shape, offsets, lengths)]
    for starts_stops in itertools.product(*per_axis):
        key = tuple(slice(a, b) for a, b in starts_stops)
        target_key = tuple(slice(a + off, b + off) for (a, b), off in zip(starts_stops, offsets))
        yield source, key, target, target_key


def _offsets(region, target_shape, source_shape):
    region = tuple(region or ()) + (slice(None),) * (len(target_shape) - len(region or ()))
    offsets = []
    for axis, (s, n, m) in enumerate(zip(region, target_shape, source_shape)):
        start, stop, step = s.indices(n)
        if step != 1 or stop - start != m:
            raise ValueError(f"region {region} does not fit a source of shape {source_shape} "
                             f"(axis {axis})")
        offsets.append(start)
    return offsets


def _write_chunk(target, ndim):
    """The target's unit of writing: its shards, else its chunks (1 where it has neither)."""
    chunk = getattr(target, "shards", None) or getattr(target, "chunks", None)
    if not chunk or len(chunk) != ndim or not all(isinstance(c, (int, np.integer)) for c in chunk):
        return (1,) * ndim
    return tuple(int(c) for c in chunk)


def _slab_lengths(shape, chunk, itemsize, budget):
    """Slab lengths, whole multiples of ``chunk``: the last axes whole as far as ``budget``
    bytes allow, the others one chunk long (or more, to fill the budget)."""
    lengths = [min(c, n) or 1 for c, n in zip(chunk, shape)]
    for axis in reversed(range(len(shape))):
        rest = itemsize * math.prod(lengths[:axis] + lengths[axis + 1:])
        fit = budget // rest // chunk[axis] * chunk[axis]
        lengths[axis] = max(lengths[axis], min(shape[axis], fit))
        if lengths[axis] < shape[axis]:
            break
    return lengths


def _cuts(n, offset, length):
    """(start, stop) along an axis of the source, cut where the target's slab grid (multiples
    of ``length`` in target coordinates) crosses it."""
    cuts, start = [], 0
    while start < n:
        stop = min(n, (offset + start) // length * length + length - offset)
        cuts.append((start, stop))
        start = stop
    return cuts


def _groups(slabs, budget):
    """Consecutive slabs of at most ``budget`` bytes together (a larger one alone)."""
    group, size = [], 0
    for slab in slabs:
        source, key = slab[0], slab[1]
        nbytes = source.dtype.itemsize * math.prod(s.stop - s.start for s in key)
        if group and size + nbytes > budget:
            yield group
            group, size = [], 0
        group.append(slab)
        size += nbytes
    if group:
        yield group
