"""Dask's ``overlap``, ``trim_internal`` and ``map_overlap``: every block extended by its
neighbours' edges (the array's own ends padded by a boundary mode), a function mapped over the
extended blocks, and the extensions trimmed off again. The algorithms are the Rust crate's
(``Array::overlap``, ``Array::trim_internal``); here Dask's forms of ``depth`` and
``boundary`` become one pair and one boundary per axis, and ``map_overlap`` maps a Python
function with ``map_blocks``'s options."""

import operator

import numpy as np

from . import _tegula
from ._array import Array
from ._creation import asarray
from ._manipulation import broadcast_arrays
from ._map_blocks import _one_grid, map_blocks

_PAD_MODES = {"reflect": "symmetric", "periodic": "wrap", "nearest": "edge"}


def _depths(depth, ndim):
    """``depth`` (an int, a tuple per axis, or a dict ``{axis: depth}``; each depth an int or a
    ``(before, after)`` pair) as one ``(before, after)`` pair per axis."""
    if isinstance(depth, dict):
        per_axis = [0] * ndim
        for axis, d in depth.items():
            axis = operator.index(axis)
            if not -ndim <= axis < ndim:
                raise np.exceptions.AxisError(axis, ndim)
            per_axis[axis % ndim] = d
    elif isinstance(depth, (tuple, list)):
        if len(depth) != ndim:
            raise ValueError(f"depth has {len(depth)} entries for an array of {ndim} axes")
        per_axis = list(depth)
    else:
        per_axis = [0 if depth is None else depth] * ndim
    pairs = [(d, d) if not isinstance(d, (tuple, list)) else tuple(d) for d in per_axis]
    out = []
    for pair in pairs:
        if len(pair) != 2:
            raise ValueError(f"an axis's depth is an int or a (before, after) pair, not {pair!r}")
        before, after = operator.index(pair[0]), operator.index(pair[1])
        if before < 0 or after < 0:
            raise ValueError("depth must be non-negative")
        out.append((before, after))
    return out


def _boundaries(boundary, ndim):
    """One boundary per axis: 'reflect', 'periodic', 'nearest', 'none' or a constant."""
    if isinstance(boundary, dict):
        out = ["none"] * ndim
        for axis, b in boundary.items():
            axis = operator.index(axis)
            if not -ndim <= axis < ndim:
                raise np.exceptions.AxisError(axis, ndim)
            out[axis % ndim] = b
    else:
        out = ["none" if boundary is None else boundary] * ndim
    for b in out:
        if isinstance(b, str) and b not in _PAD_MODES and b != "none":
            raise ValueError(f"boundary must be 'reflect', 'periodic', 'nearest', 'none' or a constant, not {b!r}")
    return out


def _boundary_args(boundaries):
    """Boundaries for the Rust functions: the names, or a constant as a 0-d array."""
    return [b if isinstance(b, str) else asarray(np.asarray(b))._h for b in boundaries]


def overlap(x, depth, boundary=None, *, allow_rechunk=True):
    """Dask's ``overlap``: each block extended by ``depth`` elements of its neighbours along each
    axis; at the array's ends by ``boundary`` ('reflect': mirrored, edge included; 'periodic':
    from the other end; 'nearest': the edge repeated; a constant; 'none': not extended, and
    end blocks shorter than the depth merged with their neighbours first, as Dask rechunks,
    unless ``allow_rechunk=False``, which refuses). (The Rust crate's ``Array::overlap``.)"""
    x = asarray(x)
    depths, boundaries = _depths(depth, x.ndim), _boundaries(boundary, x.ndim)
    return Array(_tegula.overlap(x._h, depths, _boundary_args(boundaries), bool(allow_rechunk)))


def trim_internal(x, axes, boundary=None):
    """Dask's ``trim_internal``: ``axes`` (depths as ``overlap`` takes them) removed from both
    sides of every block, except the array's ends with boundary 'none', which had none."""
    depths, boundaries = _depths(axes, x.ndim), _boundaries(boundary, x.ndim)
    return Array(_tegula.trim_internal(x._h, depths, _boundary_args(boundaries)))


def trim_overlap(x, depth, boundary=None):
    """Dask's ``trim_overlap``: ``trim_internal`` with ``overlap``'s arguments."""
    return trim_internal(x, depth, boundary)


def map_overlap(func, *args, depth=None, boundary=None, trim=True, align_arrays=True, allow_rechunk=True,
                **kwargs):
    """Dask's ``map_overlap``: ``func`` of each block extended by ``depth`` of its neighbours
    (``overlap``), lazily, the extensions trimmed from the results (``trim=True``). Array
    arguments are broadcast and put on one block grid first (``align_arrays``); ``depth`` and
    ``boundary`` may be lists, one per array (the depths equal); other keywords go to
    ``map_blocks``.
    ``allow_rechunk``: as ``overlap``'s (an extension longer than a neighbouring block needs
    no rechunk; only end blocks shorter than the depth with boundary 'none' do)."""
    positions = [i for i, a in enumerate(args) if isinstance(a, (Array, np.ndarray))]
    if not positions:
        raise ValueError("map_overlap needs at least one array argument")
    arrays = broadcast_arrays(*[asarray(args[i]) for i in positions])
    if align_arrays:
        arrays = _one_grid(arrays)
    elif len({a.chunks for a in arrays}) > 1:
        raise ValueError("the arrays' chunks differ; pass align_arrays=True")
    depths = depth if isinstance(depth, list) else [depth] * len(arrays)
    boundaries = boundary if isinstance(boundary, list) else [boundary] * len(arrays)
    if len(depths) != len(arrays) or len(boundaries) != len(arrays):
        raise ValueError(f"depth and boundary lists need one entry per array ({len(arrays)})")
    if any(_depths(d, arrays[0].ndim) != _depths(depths[0], arrays[0].ndim) for d in depths):
        raise ValueError("tegula's map_overlap gives every array the same depth (blocks meet the function on one grid)")
    call_args = list(args)
    for i, a, d, b in zip(positions, arrays, depths, boundaries):
        call_args[i] = overlap(a, d, b, allow_rechunk=allow_rechunk)
    out = map_blocks(func, *call_args, **kwargs)
    if not trim:
        return out
    if out.ndim != arrays[0].ndim:
        raise ValueError("map_overlap trims results of the inputs' axes; pass trim=False with drop_axis/new_axis")
    return trim_internal(out, depths[0], boundaries[0])
