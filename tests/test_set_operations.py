"""``union1d``, ``intersect1d`` and ``setdiff1d`` against NumPy over random shapes, chunkings
and dtypes (many ties, NaNs and signed zeros), with NumPy's ``unique`` semantics (one NaN of
many) and ``assume_unique``/``return_indices``."""

import numpy as np
from hypothesis import given, strategies as st

import tegula as tg
from strategies import ALL_DTYPES, assert_same, chunkings, dtypes, np_arrays, shapes


def chunked(data, a):
    return tg.asarray(a, chunks=data.draw(chunkings(a.shape))[0])


@st.composite
def pairs(draw, dtype_choices=ALL_DTYPES):
    dtype1, dtype2 = draw(dtypes(dtype_choices)), draw(dtypes(dtype_choices))
    small = draw(st.booleans())
    a = draw(np_arrays(dtype1, draw(shapes(max_dims=2)), integral=small, small=small))
    b = draw(np_arrays(dtype2, draw(shapes(max_dims=2)), integral=small, small=small))
    return a, b


@given(st.data(), pairs())
def test_union1d_matches_numpy(data, pair):
    a, b = pair
    assert_same(tg.union1d(chunked(data, a), chunked(data, b)).compute(), np.union1d(a, b), exact=True)


@given(st.data(), pairs(), st.booleans())
def test_intersect1d_matches_numpy(data, pair, return_indices):
    a, b = pair
    got = tg.intersect1d(chunked(data, a), chunked(data, b), return_indices=return_indices)
    want = np.intersect1d(a, b, return_indices=return_indices)
    for g, w in zip(got if return_indices else [got], want if return_indices else [want]):
        assert_same(g.compute(), w, exact=True)


@given(st.data(), pairs())
def test_setdiff1d_matches_numpy(data, pair):
    a, b = pair
    assert_same(tg.setdiff1d(chunked(data, a), chunked(data, b)).compute(), np.setdiff1d(a, b), exact=True)


@given(st.data(), st.lists(st.integers(-5, 5), unique=True), st.lists(st.integers(-5, 5), unique=True),
       st.booleans())
def test_assume_unique_matches_numpy(data, a, b, return_indices):
    a, b = np.array(a, dtype=np.int64), np.array(b, dtype=np.int64)
    x, y = chunked(data, a), chunked(data, b)
    assert_same(tg.setdiff1d(x, y, assume_unique=True).compute(), np.setdiff1d(a, b, assume_unique=True))
    got = tg.intersect1d(x, y, assume_unique=True, return_indices=return_indices)
    want = np.intersect1d(a, b, assume_unique=True, return_indices=return_indices)
    for g, w in zip(got if return_indices else [got], want if return_indices else [want]):
        assert_same(g.compute(), w)


def test_one_nan_of_many_as_numpys_unique():
    a = np.array([np.nan, 1.0, np.nan, -0.0, 0.0])
    assert_same(tg.union1d(tg.asarray(a, chunks=2), [np.nan]).compute(), np.union1d(a, [np.nan]), exact=True)
    assert_same(tg.setdiff1d(tg.asarray(a, chunks=2), [1.0]).compute(), np.setdiff1d(a, [1.0]), exact=True)
    assert_same(tg.intersect1d(tg.asarray(a, chunks=2), a).compute(), np.intersect1d(a, a), exact=True)
