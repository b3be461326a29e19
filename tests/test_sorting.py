"""sort, argsort and searchsorted against NumPy: every dtype with NaN, infinities and many
equal values (so stability shows), any axis of any chunking, descending order (stable: ties
keep their original order), both sides and sorters of searchsorted, sorted arrays split into
several blocks; axes longer than the block limit (the sample sort) likewise."""

import numpy as np
import pytest
from hypothesis import assume, given, strategies as st

import tegula as tg
from tegula._sorting import argsort, searchsorted, sort
from strategies import (assert_same, chunkings, dtypes, error_class, explicit_axis, np_arrays, oracle, quiet,
                        shapes)


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


@st.composite
def long_axis_cases(draw):
    """An array whose sorted axis is longer than a block of a tiny ``block_size_limit`` (and
    than the input's largest block), so it is sample-sorted."""
    dtype = draw(dtypes())
    ndim = draw(st.integers(1, 3))
    axis = draw(st.integers(-ndim, ndim - 1))
    shape = list(draw(shapes(min_dims=ndim, max_dims=ndim, min_side=1, max_side=3)))
    shape[axis] = n = draw(st.integers(2, 80))
    data = draw(np_arrays(dtype, tuple(shape), integral=draw(st.booleans()), small=True))
    ones = draw(st.booleans())
    chunks = [draw(explicit_axis(side)) if not ones else (1,) * side for side in shape]
    chunks[axis] = draw(explicit_axis(n))
    arg = draw(st.booleans())
    limit = draw(st.integers(1, 6)) * max(dtype.itemsize, 8 if arg else 1)
    largest = np.prod([max(c) for c in chunks])
    assume(n > max(limit // max(dtype.itemsize, 8 if arg else 1), largest))
    return data, tuple(chunks), axis, draw(st.booleans()), arg, limit


@given(long_axis_cases())
def test_sample_sort_of_a_long_axis_matches_numpy(case):
    data, chunks, axis, descending, arg, limit = case
    x = tg.asarray(data, chunks=chunks)
    if arg:
        result = argsort(x, axis=axis, descending=descending, block_size_limit=limit)
        expected = numpy_argsort(data, axis, descending)
    else:
        result = sort(x, axis=axis, descending=descending, block_size_limit=limit)
        expected = numpy_sort(data, axis, descending)
    assert result.chunks == chunks
    assert_same(result.compute(), expected, exact=True)


def test_sample_sort_of_many_equal_values_and_signed_zeros():
    values = np.array([0.0, -0.0, np.nan, 1.0, -0.0, np.nan, 0.0] * 30)
    x = tg.asarray(values, chunks=9)
    assert_same(sort(x, block_size_limit="40B").compute(), np.sort(values, kind="stable"), exact=True)
    assert_same(argsort(x, descending=True, block_size_limit=80).compute(), numpy_argsort(values, 0, True))
    ones = np.ones((3, 500), dtype=np.int8)
    assert_same(argsort(tg.asarray(ones, chunks=(1, 50)), block_size_limit=800).compute(),
                np.argsort(ones, kind="stable", axis=-1))


@pytest.mark.parametrize("chunk", [250_000, 2_000_000])
def test_default_blocks_fit_a_small_memory_budget(chunk):
    """Without a block_size_limit, a sort under a budget too small to sort the axis (or an
    input block) whole is sample-sorted in blocks the budget holds, however the input is
    chunked, and every task stays within the budget."""
    values = np.random.default_rng(chunk).normal(size=2_000_000)
    x = tg.asarray(values, chunks=chunk)
    with tg.config.set(memory="40MB"):
        (got, order), report = tg.compute(tg.sort(x), tg.argsort(x[:500_000]), report=True)
    assert report["peak_bytes"] <= report["memory"]
    assert_same(got, np.sort(values, kind="stable"), exact=True)
    assert_same(order, np.argsort(values[:500_000], kind="stable"))


def test_block_size_limit_must_be_a_positive_size():
    x = tg.asarray(np.arange(10.0), chunks=3)
    for bad in (0, -8, "0B"):
        with pytest.raises(ValueError):
            sort(x, block_size_limit=bad)
    with pytest.raises(ValueError):
        argsort(x, block_size_limit="many")
    with pytest.raises(TypeError):
        sort(x, block_size_limit=1.5)


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
