"""sort, argsort and searchsorted against NumPy: every dtype with NaN, infinities and many
equal values (so stability shows), any axis of any chunking, descending order (stable: ties
keep their original order), both sides and sorters of searchsorted, sorted arrays split into
several blocks."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

import tegula as tg
from tegula._sorting import argsort, searchsorted, sort
from strategies import assert_same, chunkings, dtypes, error_class, np_arrays, oracle, quiet, shapes


def numpy_sort(x, axis, descending):
    """The array API's order from NumPy: stable ascending, or its mirror image (as
    array-api-strict: descending keeps ties in their original order, NaN first)."""
    if not descending:
        return np.sort(x, axis=axis, kind="stable")
    return np.flip(np.sort(np.flip(x, axis=axis), axis=axis, kind="stable"), axis=axis)


def numpy_argsort(x, axis, descending):
    if not descending:
        return np.argsort(x, axis=axis, kind="stable")
    n = x.shape[axis]
    return n - 1 - np.flip(np.argsort(np.flip(x, axis=axis), axis=axis, kind="stable"), axis=axis)


@st.composite
def sort_cases(draw):
    dtype = draw(dtypes())
    shape = draw(shapes())
    # Few distinct values half of the time, so that equal elements meet.
    data = draw(np_arrays(dtype, shape, integral=draw(st.booleans()), small=True))
    spec, _ = draw(chunkings(shape))
    axis = draw(st.integers(-len(shape) - 1, len(shape)))
    return data, spec, axis, draw(st.booleans()), draw(st.booleans())


@given(sort_cases())
def test_sort_matches_numpy(case):
    data, spec, axis, descending, stable = case
    x = tg.asarray(data, chunks=spec)
    expected, err = oracle(numpy_sort, data, axis, descending)
    if err is not None:
        with pytest.raises(error_class(err)):
            sort(x, axis=axis, descending=descending, stable=stable)
        return
    assert_same(sort(x, axis=axis, descending=descending, stable=stable).compute(), expected, exact=True)


@given(sort_cases())
def test_argsort_matches_numpy(case):
    data, spec, axis, descending, stable = case
    x = tg.asarray(data, chunks=spec)
    # NumPy sorts a 0-d array as one element.
    expected, err = oracle(numpy_argsort, data.reshape(1) if data.ndim == 0 else data, axis, descending)
    if err is not None:
        with pytest.raises(error_class(err)):
            argsort(x, axis=axis, descending=descending, stable=stable)
        return
    assert_same(argsort(x, axis=axis, descending=descending, stable=stable).compute(), expected)


def test_sort_order_of_nan_and_complex_classes():
    nan = np.nan
    values = np.array([complex(nan, nan), complex(nan, 1), complex(1, nan), complex(2, 0), complex(nan, -1),
                       complex(0, nan), complex(1, 1), complex(-np.inf, 0)])
    x = tg.asarray(values, chunks=3)
    assert_same(sort(x).compute(), np.sort(values, kind="stable"), exact=True)
    assert_same(argsort(x, descending=True).compute(), numpy_argsort(values, 0, True))
    floats = np.array([nan, 1.0, -np.inf, nan, 0.0, -0.0, np.inf])
    assert_same(argsort(tg.asarray(floats, chunks=2)).compute(), np.argsort(floats, kind="stable"))


@st.composite
def search_cases(draw):
    d1, d2 = draw(dtypes()), draw(dtypes())
    n = draw(st.integers(0, 12))
    data = draw(np_arrays(d1, (n,), integral=draw(st.booleans()), small=True))
    values = draw(np_arrays(d2, draw(shapes()), integral=draw(st.booleans()), small=True))
    spec1, _ = draw(chunkings((n,)))
    spec2, _ = draw(chunkings(values.shape))
    return data, values, spec1, spec2, draw(st.sampled_from(["left", "right"])), draw(st.booleans())


@given(search_cases())
def test_searchsorted_matches_numpy(case):
    data, values, spec1, spec2, side, use_sorter = case
    with quiet():
        sorter = np.argsort(data, kind="stable") if use_sorter else None
        if not use_sorter:
            data = np.sort(data, kind="stable")
        expected, err = oracle(np.searchsorted, data, values, side=side, sorter=sorter)
    x1, x2 = tg.asarray(data, chunks=spec1), tg.asarray(values, chunks=spec2)
    tsorter = None if sorter is None else tg.asarray(sorter, chunks=spec1)
    if err is not None:
        with pytest.raises(error_class(err)):
            searchsorted(x1, x2, side=side, sorter=tsorter).compute()
        return
    with quiet():
        actual = searchsorted(x1, x2, side=side, sorter=tsorter).compute()
    assert_same(actual, expected)


def test_searchsorted_errors():
    x = tg.asarray(np.arange(6.0), chunks=4)
    with pytest.raises(ValueError):
        searchsorted(tg.asarray(np.ones((2, 2))), x)
    with pytest.raises(ValueError):
        searchsorted(tg.asarray(np.float64(1.0)), x)
    with pytest.raises(ValueError, match="side"):
        searchsorted(x, x, side="middle")
    with pytest.raises(TypeError, match="integers"):
        searchsorted(x, x, sorter=x)
    with pytest.raises(ValueError, match="size"):
        searchsorted(x, x, sorter=tg.asarray(np.arange(5)))


def test_sort_errors():
    x = tg.asarray(np.ones((2, 3)), chunks=1)
    with pytest.raises(np.exceptions.AxisError):
        sort(x, axis=2)
    with pytest.raises(np.exceptions.AxisError):
        argsort(x, axis=-3)
    with pytest.raises(np.exceptions.AxisError):
        sort(tg.asarray(np.float64(1.0)))
