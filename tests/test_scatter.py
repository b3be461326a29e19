"""``x[key] = value`` through integer arrays (repeated and negative indices: the last
assignment wins, as NumPy's) and boolean masks with array values, against NumPy's assignment
on a copy, over random shapes, chunkings and dtypes; the array assigned into before is
unchanged."""

import numpy as np
import pytest
from hypothesis import assume, given, strategies as st

import tegula as tg
from strategies import assert_same, chunkings, dtypes, np_arrays, shapes


def chunked(draw, a):
    return tg.asarray(a, chunks=draw(chunkings(a.shape))[0])


@st.composite
def index_array(draw, n, size):
    return np.array(draw(st.lists(st.integers(-n, n - 1), min_size=size, max_size=size)), dtype=np.int64)


@st.composite
def advanced_keys(draw, shape):
    """An integer array on one axis (with slices around it), integer arrays on two axes, or a
    mask of the leading axes."""
    kind = draw(st.sampled_from(["one", "two", "mask"] if len(shape) >= 2 else ["one", "mask"]))
    if kind == "mask":
        lead = draw(st.integers(1, len(shape)))
        return draw(np_arrays(np.dtype(bool), shape[:lead]))
    if kind == "two":
        size = draw(st.integers(0, 4))
        return (draw(index_array(shape[0], size)), draw(index_array(shape[1], size)))
    axis = draw(st.integers(0, len(shape) - 1))
    index = draw(index_array(shape[axis], draw(st.integers(0, 5))))
    return tuple([slice(None)] * axis + [index])


@given(st.data())
def test_assignment_matches_numpy(data):
    dtype = data.draw(dtypes())
    shape = data.draw(shapes(min_dims=1, min_side=1))
    a = data.draw(np_arrays(dtype, shape))
    key = data.draw(advanced_keys(shape))
    target = a[key].shape
    value_shape = data.draw(st.sampled_from([target, target[1:], (), (1,) + target]))
    value = data.draw(np_arrays(dtype, value_shape))
    expected = a.copy()
    try:
        expected[key] = value
    except (TypeError, ValueError) as e:
        with pytest.raises(type(e)):
            tg.asarray(a)[key] = value
        return
    x = chunked(data.draw, a)
    before = x[...]  # a new array: later assignments to x do not reach it
    if data.draw(st.booleans()):
        # Index arrays as (lazy) tegula arrays.
        key = tuple(tg.asarray(k) if isinstance(k, np.ndarray) else k for k in key) if isinstance(key, tuple) else tg.asarray(key)
    x[key] = chunked(data.draw, value) if value.ndim else value
    assert_same(x.compute(), expected, exact=True)
    assert_same(before.compute(), a, exact=True)


@given(st.data())
def test_mask_from_the_array_itself(data):
    a = data.draw(np_arrays(np.dtype("float64"), data.draw(shapes(min_dims=1)), allow_nan=False))
    x = chunked(data.draw, a)
    expected = a.copy()
    expected[a > 0] = -a[a > 0]
    x[x > 0] = -x[x > 0]
    assert_same(x.compute(), expected, exact=True)


def test_errors_as_numpy():
    x = tg.asarray(np.zeros((3, 4)), chunks=2)
    with pytest.raises(IndexError, match="out of bounds"):
        x[[0, 3]] = 1.0
    with pytest.raises(ValueError, match="shape mismatch"):
        x[[0, 1]] = np.ones(3)
    with pytest.raises(ValueError, match="shape mismatch"):
        x[np.eye(3, 4, dtype=bool)] = np.ones(4)
    with pytest.raises(IndexError):
        x[np.ones((2, 2), dtype=bool)] = np.ones(2)
    with pytest.raises(IndexError):
        x[[0.5]] = 1.0
