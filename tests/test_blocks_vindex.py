"""Dask's ``x.blocks`` and ``x.vindex`` and ``rechunk``'s dict form against NumPy: the blocks
of NumPy's array cut at the same boundaries, and NumPy's point-wise fancy indexing with the
broadcast axes moved first (Dask's documented layout)."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tegula as tg
from strategies import chunkings, dtypes, np_arrays, shapes


def bounds(chunks):
    return np.concatenate([[0], np.cumsum(chunks)]).astype(int)


def numpy_blocks(a, chunks, numbers_per_axis):
    """``a`` restricted to the listed blocks along each axis, in the order listed."""
    for axis, (c, numbers) in enumerate(zip(chunks, numbers_per_axis)):
        b = bounds(c)
        index = np.concatenate([np.arange(b[n], b[n + 1]) for n in numbers] + [np.zeros(0, int)])
        a = np.take(a, index, axis=axis)
    return a


@st.composite
def block_key(draw, numblocks):
    """A key of ints, slices and lists of block numbers (negative ones too), and the block
    numbers it names per axis."""
    key, numbers = [], []
    for count in numblocks:
        kind = draw(st.sampled_from(["int", "slice", "list"]))
        if kind == "int":
            k = draw(st.integers(-count, count - 1))
            key.append(k)
            numbers.append([k % count])
        elif kind == "slice":
            s = slice(draw(st.one_of(st.none(), st.integers(-count, count))),
                      draw(st.one_of(st.none(), st.integers(-count, count))), draw(st.sampled_from([None, 1, 2, -1])))
            key.append(s)
            numbers.append(list(range(count))[s])
        else:
            ks = draw(st.lists(st.integers(-count, count - 1), min_size=1, max_size=4))
            key.append(ks)
            numbers.append([k % count for k in ks])
    return tuple(key), numbers


@settings(max_examples=60)
@given(shape=shapes(1, 3, 1, 7), data=st.data())
def test_blocks_match_numpy(shape, data):
    dtype = data.draw(dtypes())
    a = data.draw(np_arrays(dtype, shape))
    spec, chunks = data.draw(chunkings(shape))
    x = tg.asarray(a, chunks=spec)
    assert x.blocks.shape == x.numblocks
    key, numbers = data.draw(block_key(x.numblocks))
    out = x.blocks[key]
    assert isinstance(out, tg.Array)
    # No block along an axis leaves one empty block, as tegula writes an empty axis.
    assert out.chunks == tuple(tuple(c[n] for n in ns) or (0,) for c, ns in zip(chunks, numbers))
    np.testing.assert_array_equal(out.compute(), numpy_blocks(a, chunks, numbers))


def test_blocks_shorter_keys_and_errors():
    a = np.arange(30).reshape(5, 6)
    x = tg.asarray(a, chunks=(2, 4))
    np.testing.assert_array_equal(x.blocks[1].compute(), a[2:4])
    np.testing.assert_array_equal(x.blocks[..., 1].compute(), a[:, 4:])
    assert x.blocks[1].chunks == ((2,), (4, 2))
    with pytest.raises(IndexError):
        x.blocks[3]
    with pytest.raises(IndexError):
        x.blocks[0, 0, 0]
    with pytest.raises(IndexError):
        x.blocks[None]
    with pytest.raises(IndexError):
        x.blocks[[0.5]]


@settings(max_examples=60)
@given(shape=shapes(1, 3, 1, 6), data=st.data())
def test_vindex_matches_numpy_pointwise(shape, data):
    a = np.arange(int(np.prod(shape))).reshape(shape)
    spec, _ = data.draw(chunkings(shape))
    x = tg.asarray(a, chunks=spec)
    points = data.draw(st.sampled_from([(3,), (2, 2), (1, 3)]))
    chosen = sorted(data.draw(st.sets(st.integers(0, len(shape) - 1), min_size=1)))
    key, indexed = [], []
    for axis, n in enumerate(shape):
        if axis in chosen:
            index = data.draw(st.lists(st.integers(-n, n - 1), min_size=int(np.prod(points)),
                                       max_size=int(np.prod(points))).map(lambda v: np.array(v).reshape(points)))
            key.append(index)
            indexed.append(axis)
        else:
            key.append(slice(None))
    expected = a[tuple(key)]
    if indexed == list(range(indexed[0], indexed[-1] + 1)) and indexed[0] > 0:
        expected = np.moveaxis(expected, range(indexed[0], indexed[0] + len(points)), range(len(points)))
    out = x.vindex[tuple(key)]
    assert isinstance(out, tg.Array)
    np.testing.assert_array_equal(out.compute(), expected)


def test_vindex_broadcasts_ints_and_errors():
    a = np.arange(24).reshape(2, 3, 4)
    x = tg.asarray(a, chunks=2)
    np.testing.assert_array_equal(x.vindex[[0, 1], [1, 2], [3, 0]].compute(), a[[0, 1], [1, 2], [3, 0]])
    np.testing.assert_array_equal(x.vindex[1, [[0], [2]], [1, 3]].compute(), a[1, [[0], [2]], [1, 3]])
    np.testing.assert_array_equal(x.vindex[:, [0, 2], [1, 3]].compute(), np.moveaxis(a[:, [0, 2], [1, 3]], 1, 0))
    with pytest.raises(IndexError):
        x.vindex[[0, 5]]
    with pytest.raises(IndexError):
        x.vindex[[0, 1], [0, 1, 2]]
    with pytest.raises(IndexError):
        x.vindex[[True, False]]


@settings(max_examples=40)
@given(shape=shapes(1, 3, 1, 8), data=st.data())
def test_rechunk_dict(shape, data):
    a = np.arange(int(np.prod(shape))).reshape(shape)
    spec, chunks = data.draw(chunkings(shape))
    x = tg.asarray(a, chunks=spec)
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    block = data.draw(st.integers(1, shape[axis]))
    y = x.rechunk({axis: block})
    expected = list(chunks)
    n = shape[axis]
    expected[axis] = tuple([block] * (n // block) + ([n % block] if n % block else []))
    assert y.chunks == tuple(expected)
    np.testing.assert_array_equal(tg.rechunk(y, {axis: -1}).compute(), a)
    with pytest.raises(np.exceptions.AxisError):
        x.rechunk({len(shape): 1})
