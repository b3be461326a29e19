"""``map_blocks``'s ``block_info`` (Dask's dict of where each block lies) and its cast of blocks
to the declared dtype, against NumPy's blocks of the same boundaries."""

import numpy as np
from hypothesis import given, settings, strategies as st

import tegula as tg
from strategies import chunkings, dtypes, np_arrays, shapes


def starts(chunks):
    return [np.concatenate([[0], np.cumsum(c)[:-1]]).astype(int) for c in chunks]


@settings(max_examples=40)
@given(shape=shapes(1, 3, 1, 7), data=st.data())
def test_block_info_describes_each_block(shape, data):
    a = np.zeros(shape)
    spec, chunks = data.draw(chunkings(shape))
    x = tg.asarray(a, chunks=spec)
    seen = {}

    def record(block, block_info=None):
        info = block_info[0]
        assert block_info[None]["chunk-shape"] == block.shape
        assert block_info[None]["dtype"] == np.dtype(np.int64)
        assert info["shape"] == block_info[None]["shape"] == shape
        assert info["num-chunks"] == tuple(len(c) for c in chunks)
        # Each element: the linear position of its block's first element.
        first = tuple(lo for lo, _ in info["array-location"])
        assert info["chunk-location"] == block_info[None]["chunk-location"]
        return np.full(block.shape, np.ravel_multi_index(first, shape), dtype=np.int64)

    out = x.map_blocks(record, dtype=np.int64).compute()
    expected = np.zeros(shape, dtype=np.int64)
    for index in np.ndindex(*[len(c) for c in chunks]):
        region = tuple(slice(s[i], s[i] + c[i]) for s, c, i in zip(starts(chunks), chunks, index))
        expected[region] = np.ravel_multi_index(tuple(r.start for r in region), shape)
    np.testing.assert_array_equal(out, expected)


def test_block_info_of_several_arrays_and_dropped_axes():
    a, b = np.arange(12.0).reshape(3, 4), np.arange(4.0)

    def f(u, scale, v, block_info=None):
        assert set(block_info) == {0, 2, None}
        assert block_info[2]["array-location"][1] == block_info[0]["array-location"][1]
        return (u * scale + v).sum(axis=0)

    out = tg.map_blocks(f, tg.asarray(a, chunks=(2, 3)), 2.0, b, drop_axis=0, dtype=np.float64)
    np.testing.assert_array_equal(out.compute(), (a * 2.0 + b).sum(axis=0))


@settings(max_examples=40)
@given(shape=shapes(0, 3), data=st.data())
def test_blocks_are_cast_to_the_declared_dtype(shape, data):
    source, target = data.draw(dtypes()), data.draw(dtypes())
    a = data.draw(np_arrays(source, shape, allow_nan=False, allow_infinity=False, integral=True, small=True))
    spec, _ = data.draw(chunkings(shape))
    out = tg.asarray(a, chunks=spec).map_blocks(lambda block: block, dtype=target)
    assert out.dtype == target
    with np.errstate(all="ignore"):
        expected = a.astype(target)
    np.testing.assert_array_equal(out.compute(), expected)
