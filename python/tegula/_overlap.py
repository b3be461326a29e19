"""Dask's ``overlap``, ``trim_internal`` and ``map_overlap``: every block extended by its
neighbours' edges (the array's own ends padded by a boundary mode), a function mapped over the
extended blocks, and the extensions trimmed off again.

Along each axis the array is padded (NumPy's ``pad``), then each block's extended range is one
slice of it and the slices are concatenated (which copies nothing), one block each; trimming is
the same with shorter slices. Extensions may be longer than the neighbouring blocks."""

import operator

import numpy as np

from ._array import Array

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


def _padded(x, axis, before, after, boundary):
    """``x`` padded along ``axis`` by ``boundary`` (unpadded for 'none')."""
    from ._pad import pad

    if boundary == "none" or not before and not after:
        return x
    widths = [(0, 0)] * x.ndim
    widths[axis] = (before, after)
    if isinstance(boundary, str):
        return pad(x, widths, mode=_PAD_MODES[boundary])
    return pad(x, widths, mode="constant", constant_values=boundary)


def _along(x, axis, ranges):
    """The slices ``[start, stop)`` of ``x`` along ``axis``, concatenated, one block each."""
    import tegula

    ranges = list(ranges)
    pieces = [x[(slice(None),) * axis + (slice(int(a), int(b)),)] for a, b in ranges]
    out = pieces[0] if len(pieces) == 1 else tegula.concatenate(pieces, axis=axis)
    chunks = tuple(int(b - a) for a, b in ranges)
    return out if out.chunks[axis] == chunks else out.rechunk({axis: chunks})


def _ends_at_least(lengths, before, after):
    """Block lengths with the first block at least ``before`` long and the last at least
    ``after`` (end blocks merged with their neighbours), so that with boundary 'none' every
    other block has its whole extension and ``trim_internal`` knows what to trim."""
    lengths = list(lengths)
    while len(lengths) > 1 and lengths[0] < before:
        lengths[:2] = [lengths[0] + lengths[1]]
    while len(lengths) > 1 and lengths[-1] < after:
        lengths[-2:] = [lengths[-2] + lengths[-1]]
    return tuple(lengths)


def _overlap_axis(x, axis, before, after, boundary, allow_rechunk):
    n = x.shape[axis]
    if n == 0 or not before and not after:
        return x
    if boundary == "none":
        ends = _ends_at_least(x.chunks[axis], before, after)
        if ends != x.chunks[axis]:
            if not allow_rechunk:
                raise ValueError(f"the end blocks along axis {axis} are shorter than the depth; "
                                 "pass allow_rechunk=True")
            x = x.rechunk({axis: ends})
    lengths = np.asarray(x.chunks[axis])
    stops = np.cumsum(lengths)
    starts = stops - lengths
    if boundary == "none":
        return _along(x, axis, zip(np.maximum(starts - before, 0), np.minimum(stops + after, n)))
    return _along(_padded(x, axis, before, after, boundary), axis, zip(starts, stops + before + after))


def overlap(x, depth, boundary=None, *, allow_rechunk=True):
    """Dask's ``overlap``: each block extended by ``depth`` elements of its neighbours along each
    axis; at the array's ends by ``boundary`` ('reflect': mirrored, edge included; 'periodic':
    from the other end; 'nearest': the edge repeated; a constant; 'none': not extended, and
    end blocks shorter than the depth merged with their neighbours first, as Dask rechunks,
    unless ``allow_rechunk=False``, which refuses)."""
    from ._creation import asarray

    x = asarray(x)
    depths, boundaries = _depths(depth, x.ndim), _boundaries(boundary, x.ndim)
    for axis, ((before, after), b) in enumerate(zip(depths, boundaries)):
        x = _overlap_axis(x, axis, before, after, b, allow_rechunk)
    return x


def trim_internal(x, axes, boundary=None):
    """Dask's ``trim_internal``: ``axes`` (depths as ``overlap`` takes them) removed from both
    sides of every block, except the array's ends with boundary 'none', which had none."""
    depths, boundaries = _depths(axes, x.ndim), _boundaries(boundary, x.ndim)
    for axis, ((before, after), b) in enumerate(zip(depths, boundaries)):
        x = _trim_axis(x, axis, before, after, b)
    return x


def _trim_axis(x, axis, before, after, boundary):
    lengths = np.asarray(x.chunks[axis])
    if x.shape[axis] == 0 or not before and not after:
        return x
    stops = np.cumsum(lengths)
    starts = stops - lengths
    cut_before = np.full(len(lengths), before)
    cut_after = np.full(len(lengths), after)
    if boundary == "none":
        cut_before[0] = cut_after[-1] = 0
    if (cut_before + cut_after > lengths).any():
        raise ValueError(f"blocks along axis {axis} are shorter than the depth to trim")
    return _along(x, axis, zip(starts + cut_before, stops - cut_after))


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
    import tegula

    from ._map_blocks import _one_grid, map_blocks

    positions = [i for i, a in enumerate(args) if isinstance(a, (Array, np.ndarray))]
    if not positions:
        raise ValueError("map_overlap needs at least one array argument")
    arrays = tegula.broadcast_arrays(*[tegula.asarray(args[i]) for i in positions])
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
