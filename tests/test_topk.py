"""Dask's ``topk``/``argtopk`` against NumPy: the ``k`` largest along an axis, largest first
(``k > 0``), or the ``-k`` smallest, smallest first (``k < 0``), from NumPy's sort."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tegula as tg
from strategies import FLOAT, INTEGER, chunkings, dtypes, np_arrays, shapes


def numpy_topk(a, k, axis):
    ordered = np.sort(a, axis=axis, kind="stable")
    if k > 0:
        ordered = np.flip(ordered, axis=axis)
    return np.take(ordered, np.arange(min(abs(k), a.shape[axis])), axis=axis)


@settings(max_examples=60)
@given(shape=shapes(1, 3, 1, 7), data=st.data())
def test_topk_matches_numpy(shape, data):
    a = data.draw(np_arrays(data.draw(dtypes(INTEGER + FLOAT)), shape))
    spec, _ = data.draw(chunkings(shape))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    k = data.draw(st.integers(-shape[axis] - 1, shape[axis] + 1))
    out = tg.topk(tg.asarray(a, chunks=spec), k, axis=axis)
    assert out.dtype == a.dtype
    np.testing.assert_array_equal(out.compute(), numpy_topk(a, k, axis))


@settings(max_examples=60)
@given(shape=shapes(1, 3, 1, 7), data=st.data())
def test_argtopk_picks_the_topk_elements(shape, data):
    a = data.draw(np_arrays(data.draw(dtypes(INTEGER + FLOAT)), shape))
    spec, _ = data.draw(chunkings(shape))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    k = data.draw(st.integers(-shape[axis], shape[axis]).filter(bool))
    index = tg.argtopk(tg.asarray(a, chunks=spec), k, axis=axis).compute()
    assert index.dtype == np.int64
    np.testing.assert_array_equal(np.take_along_axis(a, index, axis=axis), numpy_topk(a, k, axis))
    assert all(len(set(lane)) == len(lane) for lane in np.moveaxis(index, axis, -1).reshape(-1, abs(k)))


def test_topk_documented_examples_and_errors():
    x = tg.asarray(np.array([5, 1, 3, 6]), chunks=2)
    np.testing.assert_array_equal(tg.topk(x, 2).compute(), [6, 5])
    np.testing.assert_array_equal(tg.topk(x, -2).compute(), [1, 3])
    np.testing.assert_array_equal(tg.argtopk(x, 2).compute(), [3, 0])
    np.testing.assert_array_equal(tg.argtopk(x, -2).compute(), [1, 2])
    with pytest.raises(np.exceptions.AxisError):
        tg.topk(x, 1, axis=1)
    with pytest.raises(ValueError):
        tg.topk(tg.asarray(np.float64(1.0)), 1)
    with pytest.raises(TypeError):
        tg.topk(x, 1.5)
