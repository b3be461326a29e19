"""``insert``, ``delete`` and ``block`` against NumPy over random shapes, chunkings, dtypes,
positions (ints, slices, lists, masks, negative and repeated ones) and values; and their
errors."""

import numpy as np
import pytest
from hypothesis import assume, given, strategies as st

import tegula as tg
from strategies import (ALL_DTYPES, assert_same, chunkings, dtypes, float_to_int_defined, np_arrays, oracle, quiet,
                        shapes)


def chunked(data, a):
    return tg.asarray(a, chunks=data.draw(chunkings(a.shape))[0])


def compare(got, want_fn):
    want, error = oracle(want_fn)
    if error is not None:
        with pytest.raises(type(error)), quiet():
            got().compute()
        return
    with quiet():
        assert_same(got().compute(), want, exact=True)


@st.composite
def positions(draw, n, allow_mask=True):
    kinds = ["int", "slice", "list"] + (["mask"] if allow_mask else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "int":
        return draw(st.integers(-n - 1, n + 1))
    if kind == "slice":
        bound = st.one_of(st.none(), st.integers(-n - 1, n + 1))
        return slice(draw(bound), draw(bound), draw(st.one_of(st.none(), st.sampled_from([1, 2, -1, -3]))))
    if kind == "mask":
        return np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
    return draw(st.lists(st.integers(-n, max(n - 1, 0)), max_size=4)) if n else []


@given(st.data(), dtypes(ALL_DTYPES))
def test_delete_matches_numpy(data, dtype):
    a = data.draw(np_arrays(dtype, data.draw(shapes(min_dims=1))))
    axis = data.draw(st.one_of(st.none(), st.integers(-a.ndim, a.ndim - 1)))
    n = a.size if axis is None else a.shape[axis]
    obj = data.draw(positions(n))
    lazy_obj = data.draw(st.booleans()) and isinstance(obj, np.ndarray)
    x = chunked(data, a)
    compare(lambda: tg.delete(x, tg.asarray(obj) if lazy_obj else obj, axis=axis),
            lambda: np.delete(a, obj, axis=axis))


@given(st.data(), dtypes(ALL_DTYPES), dtypes(ALL_DTYPES))
def test_insert_matches_numpy(data, dtype, value_dtype):
    a = data.draw(np_arrays(dtype, data.draw(shapes(min_dims=1, max_dims=2))))
    axis = data.draw(st.one_of(st.none(), st.integers(-a.ndim, a.ndim - 1)))
    n = a.size if axis is None else a.shape[axis]
    obj = data.draw(positions(n, allow_mask=False))
    # (NumPy's assignment of empty values is lenient in ways of its own: not tested.)
    values = data.draw(np_arrays(value_dtype, data.draw(shapes(max_dims=2, min_side=1, max_side=3)), integral=True,
                                 small=True))
    assume(float_to_int_defined(values, dtype))  # C leaves other casts undefined
    x = chunked(data, a)
    compare(lambda: tg.insert(x, obj, chunked(data, values), axis=axis),
            lambda: np.insert(a, obj, values, axis=axis))


def test_insert_and_delete_errors_as_numpy():
    x = tg.asarray(np.arange(6).reshape(2, 3), chunks=1)
    with pytest.raises(IndexError):
        tg.delete(x, 3, axis=1)
    with pytest.raises(IndexError):
        tg.delete(x, [0, 5], axis=1)
    with pytest.raises(ValueError, match="boolean array"):
        tg.delete(x, np.array([True, False]), axis=1)
    with pytest.raises(IndexError):
        tg.insert(x, 4, 0, axis=1)
    with pytest.raises(IndexError):
        tg.insert(x, [0, 5], 0, axis=1)
    with pytest.raises(ValueError, match="one dimensional"):
        tg.insert(x, [[0]], 0, axis=1)
    with pytest.raises(np.exceptions.AxisError):
        tg.delete(x, 0, axis=2)


@st.composite
def block_layouts(draw):
    """Nested lists of blocks that fit: a grid of row heights and column widths (2-d), or a
    row of 1-d arrays, with scalars and lower-dimensional blocks where NumPy raises them."""
    dtype = draw(dtypes(ALL_DTYPES))
    if draw(st.booleans()):
        widths = draw(st.lists(st.integers(0, 3), min_size=1, max_size=3))
        return [draw(np_arrays(dtype, (w,))) for w in widths]
    heights = draw(st.lists(st.integers(1, 3), min_size=1, max_size=3))
    widths = draw(st.lists(st.integers(1, 3), min_size=1, max_size=3))
    rows = []
    for h in heights:
        row = []
        for w in widths:
            shape = (w,) if h == 1 and draw(st.booleans()) else (h, w)
            row.append(draw(np_arrays(draw(dtypes(ALL_DTYPES)), shape)))
        rows.append(row)
    return rows


def as_tegula(layout, data):
    if isinstance(layout, list):
        return [as_tegula(item, data) for item in layout]
    return chunked(data, layout)


@given(st.data(), block_layouts())
def test_block_matches_numpy(data, layout):
    compare(lambda: tg.block(as_tegula(layout, data)), lambda: np.block(layout))


def test_block_errors_as_numpy():
    a = tg.ones((2, 2))
    with pytest.raises(TypeError, match="tuple"):
        tg.block((a, a))
    with pytest.raises(ValueError, match="cannot be empty"):
        tg.block([[], [a]])
    with pytest.raises(ValueError, match="depths are mismatched"):
        tg.block([[a], a])
    with pytest.raises(ValueError):
        tg.block([[a, tg.ones((3, 1))]])
