"""Dask's ``overlap``, ``trim_internal`` and ``map_overlap`` against NumPy: each block of the
overlapped array is the block's range of NumPy's padded array widened by the depth, and a
stencil mapped with ``map_overlap`` equals the stencil of NumPy's whole (padded) array."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tegula as tg
from strategies import chunkings, dtypes, np_arrays, shapes

NUMPY_MODES = {"reflect": "symmetric", "periodic": "wrap", "nearest": "edge"}
BOUNDARIES = ["reflect", "periodic", "nearest", "none", 0, -7.5]


def numpy_padded(a, axis, before, after, boundary):
    widths = [(0, 0)] * a.ndim
    widths[axis] = (before, after)
    if isinstance(boundary, str):
        return np.pad(a, widths, mode=NUMPY_MODES[boundary])
    return np.pad(a, widths, mode="constant", constant_values=boundary)


def merged_ends(c, before, after):
    """Dask's rechunk for boundary 'none': end blocks shorter than the depth joined to their
    neighbours."""
    c = list(c)
    while len(c) > 1 and c[0] < before:
        c[:2] = [c[0] + c[1]]
    while len(c) > 1 and c[-1] < after:
        c[-2:] = [c[-2] + c[-1]]
    return tuple(c)


def numpy_overlap(a, chunks, depths, boundary):
    """The overlapped array and its chunks, by Dask's definition, with NumPy."""
    out_chunks = []
    for axis, ((before, after), c) in enumerate(zip(depths, chunks)):
        if boundary == "none" and a.shape[axis] and (before or after):
            c = merged_ends(c, before, after)
        stops = np.cumsum(c)
        starts = stops - np.array(c)
        n = a.shape[axis]
        if boundary == "none":
            ranges = list(zip(np.maximum(starts - before, 0), np.minimum(stops + after, n)))
        else:
            ranges = list(zip(starts, stops + before + after))
            a = numpy_padded(a, axis, before, after, boundary)
        a = np.concatenate([np.take(a, np.arange(s, e), axis=axis) for s, e in ranges], axis=axis)
        out_chunks.append(tuple(int(e - s) for s, e in ranges))
    return a, tuple(out_chunks)


@settings(max_examples=60)
@given(shape=shapes(1, 3, 1, 7), data=st.data())
def test_overlap_matches_numpy(shape, data):
    dtype = data.draw(dtypes())
    a = data.draw(np_arrays(dtype, shape))
    spec, chunks = data.draw(chunkings(shape))
    boundary = data.draw(st.sampled_from(BOUNDARIES))
    depths = [(d, d) for d in data.draw(st.lists(st.integers(0, 4), min_size=len(shape), max_size=len(shape)))]
    if boundary == "none":
        depths = [data.draw(st.tuples(st.integers(0, 4), st.integers(0, 4))) for _ in shape]
    if not isinstance(boundary, str) and dtype.kind in "bu":
        boundary = 1  # a constant the dtype holds
    expected, expected_chunks = numpy_overlap(a, chunks, depths, boundary)
    out = tg.overlap(tg.asarray(a, chunks=spec), depth=tuple(depths), boundary=boundary)
    assert out.chunks == expected_chunks
    np.testing.assert_array_equal(out.compute(), expected)
    back = tg.trim_internal(out, {axis: d for axis, d in enumerate(depths)}, boundary=boundary)
    if boundary != "none":
        assert back.chunks == chunks
    np.testing.assert_array_equal(back.compute(), a)


def stencil(radius):
    """A moving sum over ``radius`` neighbours along every axis, the block's own edges repeated:
    a function whose value at a point reads only points within ``radius``."""
    def f(block):
        padded = np.pad(block, radius, mode="edge")
        out = np.zeros(block.shape)
        for offsets in np.ndindex(*(2 * radius + 1,) * block.ndim):
            out += padded[tuple(slice(o, o + n) for o, n in zip(offsets, block.shape))] * (1 + sum(offsets))
        return out
    return f


@settings(max_examples=40)
@given(shape=shapes(1, 2, 1, 9), data=st.data())
def test_map_overlap_stencil_matches_numpy(shape, data):
    a = np.random.default_rng(0).integers(-5, 5, shape).astype(np.float64)
    spec, chunks = data.draw(chunkings(shape))
    radius = data.draw(st.integers(0, 2))
    depth = radius + data.draw(st.integers(0, 1))
    boundary = data.draw(st.sampled_from(BOUNDARIES))
    f = stencil(radius)
    x = tg.asarray(a, chunks=spec)
    out = tg.map_overlap(f, x, depth=depth, boundary=boundary, dtype=np.float64)
    if boundary == "none":
        chunks = tuple(merged_ends(c, depth, depth) if depth else c for c in chunks)
    assert out.chunks == chunks
    if boundary == "none":
        expected = f(a)
    else:
        padded = np.pad(a, depth, mode=NUMPY_MODES[boundary]) if isinstance(boundary, str) else \
            np.pad(a, depth, mode="constant", constant_values=boundary)
        expected = f(padded)[tuple(slice(depth, depth + n) for n in shape)]
    np.testing.assert_array_equal(out.compute(), expected)
    np.testing.assert_array_equal(x.map_overlap(f, depth, boundary, dtype=np.float64).compute(), expected)


def test_map_overlap_aligns_arrays_and_keeps_extensions_without_trim():
    a, b = np.arange(12.0), np.arange(12.0) ** 2
    x, y = tg.asarray(a, chunks=5), tg.asarray(b, chunks=4)
    np.testing.assert_array_equal(tg.map_overlap(np.add, x, y, depth=2, boundary="none").compute(), a + b)
    untrimmed = tg.map_overlap(lambda u: u * 1.0, x, depth=1, boundary="periodic", trim=False)
    expected, chunks = numpy_overlap(a, x.chunks, [(1, 1)], "periodic")
    assert untrimmed.chunks == chunks
    np.testing.assert_array_equal(untrimmed.compute(), expected)
    shifted = tg.map_overlap(lambda u, shift: np.roll(u, shift), x, depth=1, boundary="periodic", shift=1)
    np.testing.assert_array_equal(shifted.compute(), np.roll(a, 1))
    per_array = tg.map_overlap(np.subtract, x, y, depth=[2, 2], boundary=["nearest", "reflect"])
    np.testing.assert_array_equal(per_array.compute(), a - b)
    with pytest.raises(ValueError):
        tg.map_overlap(np.subtract, x, y, depth=[1, 2])


def test_overlap_errors():
    x = tg.asarray(np.arange(10.0), chunks=3)
    with pytest.raises(ValueError):
        tg.overlap(x, depth=1, boundary="mirror")
    with pytest.raises(ValueError):
        tg.overlap(x, depth=-1, boundary="none")
    with pytest.raises(np.exceptions.AxisError):
        tg.overlap(x, depth={1: 1}, boundary="none")
    with pytest.raises(ValueError):
        tg.overlap(x, depth=(1, 1), boundary="none")
    with pytest.raises(ValueError):
        tg.trim_internal(x, {0: 2}, boundary="reflect")
    with pytest.raises(ValueError):
        tg.map_overlap(np.sin, 1.0, depth=1)
    with pytest.raises(ValueError):
        tg.overlap(tg.asarray(np.arange(10.0), chunks=(1, 9)), depth=2, boundary="none", allow_rechunk=False)
    with pytest.raises(ValueError):
        tg.map_overlap(np.add, x, x.rechunk(4), depth=1, align_arrays=False)
