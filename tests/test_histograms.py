"""``digitize``, ``bincount``, ``histogram``, ``histogram2d`` and ``histogramdd`` against NumPy
over random shapes, chunkings, dtypes (ties on bin edges, NaN and infinities where NumPy takes
them), bins (counts and edges), ranges, weights and densities; and their errors."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

import tegula as tg
from strategies import FLOAT, INTEGER, SIGNED, assert_same, chunkings, dtypes, np_arrays, quiet, shapes

REAL = INTEGER + FLOAT


def chunked(data, a):
    return tg.asarray(a, chunks=data.draw(chunkings(a.shape))[0])


def compare_all(got, want_fn, **tolerance):
    """NumPy's result (an array or a tuple of arrays and lists of arrays) or its exception."""
    try:
        with quiet():
            want = want_fn()
    except Exception as e:  # noqa: BLE001 - NumPy's exception is the expected one
        with pytest.raises(type(e)), quiet():
            out = got()
            tg.compute(*_flat(out))
        return
    with quiet():
        out = got()
        for g, w in zip(_flat(out), _flat(want), strict=True):
            assert_same(g.compute(), np.asarray(w), **tolerance)


def _flat(result):
    if isinstance(result, (tuple, list)):
        return [x for item in result for x in _flat(item)]
    return [result]


@given(st.data(), dtypes(REAL), st.booleans(), st.booleans())
def test_digitize_matches_numpy(data, dtype, right, decreasing):
    x = data.draw(np_arrays(dtype, data.draw(shapes()), integral=True))
    bins = np.unique(data.draw(np_arrays(np.dtype(np.float64), (data.draw(st.integers(0, 5)),), integral=True,
                                         allow_nan=False)))
    bins = bins[::-1] if decreasing else bins
    compare_all(lambda: tg.digitize(chunked(data, x), bins, right=right), lambda: np.digitize(x, bins, right=right))


@given(st.data(), dtypes([np.dtype(bool), np.dtype(np.uint8)] + SIGNED), st.integers(0, 12), st.booleans())
def test_bincount_matches_numpy(data, dtype, minlength, weighted):
    x = data.draw(np_arrays(dtype, (data.draw(st.integers(0, 10)),), integral=True, small=True))
    x = np.abs(x).astype(dtype) if dtype.kind == "i" and data.draw(st.booleans()) else x
    w = data.draw(np_arrays(np.dtype(np.float64), x.shape, integral=True)) if weighted else None
    compare_all(lambda: tg.bincount(chunked(data, x), None if w is None else chunked(data, w), minlength=minlength),
                lambda: np.bincount(x, w, minlength=minlength))


def test_bincount_errors_as_numpy():
    with pytest.raises(ValueError, match="negative"):
        tg.bincount(tg.asarray(np.array([1, -1]), chunks=1))
    with pytest.raises(TypeError):
        tg.bincount(tg.asarray(np.array([1.0])))
    with pytest.raises(ValueError):
        tg.bincount(tg.ones((2, 2), dtype=np.int64))
    with pytest.raises(ValueError, match="minlength"):
        tg.bincount(tg.asarray(np.array([1])), minlength=-1)
    with pytest.raises(ValueError, match="same length"):
        tg.bincount(tg.asarray(np.array([1])), weights=np.ones(2))


@st.composite
def bins_and_ranges(draw):
    kind = draw(st.sampled_from(["count", "edges"]))
    if kind == "edges":
        edges = np.unique(draw(st.lists(st.integers(-6, 6), min_size=1, max_size=5))).astype(np.float64)
        return edges, None
    count = draw(st.integers(1, 6))
    value_range = draw(st.one_of(st.none(), st.tuples(st.integers(-5, 0), st.integers(0, 5)),
                                 st.sampled_from([(1.5, 1.5), (-0.25, 2.75)])))
    return count, value_range


@given(st.data(), dtypes(REAL), bins_and_ranges(), st.booleans(), st.booleans())
def test_histogram_matches_numpy(data, dtype, bins_range, density, weighted):
    bins, value_range = bins_range
    a = data.draw(np_arrays(dtype, data.draw(shapes()), integral=True, small=True,
                            allow_nan=value_range is not None, allow_infinity=value_range is not None))
    w = data.draw(np_arrays(np.dtype(np.float64), a.shape, integral=True, allow_nan=False,
                            allow_infinity=False)) if weighted else None
    compare_all(lambda: tg.histogram(chunked(data, a), bins, value_range, density,
                                     None if w is None else chunked(data, w)),
                lambda: np.histogram(a, bins, value_range, density, w), rtol=1e-6, atol=1e-9)


def test_histogram_of_data_not_finite_raises_when_computed():
    x = tg.asarray(np.array([1.0, np.inf, 3.0]), chunks=1)
    counts, edges = tg.histogram(x, 4)
    with pytest.raises(ValueError, match="not finite"):
        counts.compute()
    with pytest.raises(ValueError, match="not finite"):
        tg.histogram(x, 4, range=(0, np.inf))
    with pytest.raises(ValueError, match="max must be larger"):
        tg.histogram(x, 4, range=(2, 1))
    with pytest.raises(ValueError, match="monotonically"):
        tg.histogram(x, [1, 0, 2])
    with pytest.raises(ValueError, match="positive"):
        tg.histogram(x, 0)
    with pytest.raises(ValueError, match="same shape"):
        tg.histogram(x, 2, weights=np.ones(2))


@given(st.data(), dtypes(REAL), st.integers(1, 3), st.booleans(), st.booleans(), st.booleans())
def test_histogramdd_matches_numpy(data, dtype, d, density, weighted, as_columns):
    n = data.draw(st.integers(1, 12))
    sample = data.draw(np_arrays(dtype, (n, d), integral=True, small=True, allow_nan=False, allow_infinity=False))
    bins = [data.draw(st.one_of(st.integers(1, 4), st.lists(st.integers(-5, 5), min_size=1, max_size=4, unique=True)
                                .map(lambda e: np.sort(np.array(e, dtype=np.float64))))) for _ in range(d)]
    w = data.draw(np_arrays(np.dtype(np.float64), (n,), integral=True, allow_nan=False,
                            allow_infinity=False)) if weighted else None
    given_sample = [chunked(data, sample[:, i]) for i in range(d)] if as_columns else chunked(data, sample)
    compare_all(lambda: tg.histogramdd(given_sample, bins, density=density, weights=w),
                lambda: np.histogramdd([sample[:, i] for i in range(d)] if as_columns else sample, bins,
                                       density=density, weights=w), rtol=1e-6, atol=1e-9)


@given(st.data(), dtypes(FLOAT), st.sampled_from([3, (2, 4), [0.0, 1.0, 2.5]]))
def test_histogram2d_matches_numpy(data, dtype, bins):
    x = data.draw(np_arrays(dtype, (data.draw(st.integers(1, 10)),), integral=True, allow_nan=False,
                            allow_infinity=False))
    y = data.draw(np_arrays(dtype, x.shape, integral=True, allow_nan=False, allow_infinity=False))
    compare_all(lambda: tg.histogram2d(chunked(data, x), chunked(data, y), bins),
                lambda: np.histogram2d(x, y, bins))


@given(st.data(), dtypes(INTEGER + [np.dtype(np.float32), np.dtype(np.float64)]),
       st.sampled_from(["auto", "fd", "doane", "scott", "rice", "sturges", "sqrt", "stone"]),
       st.sampled_from([None, (-3, 10), (2, 2)]))
def test_histogram_estimators_match_numpy(data, dtype, name, value_range):
    a = data.draw(np_arrays(dtype, (data.draw(st.integers(0, 40)),), integral=True, small=True))
    compare_all(lambda: tg.histogram(chunked(data, a), name, value_range), lambda: np.histogram(a, name, value_range))


def test_histogram_estimator_errors_as_numpy():
    x = tg.asarray(np.array([1.0, 2.0, 4.0]), chunks=1)
    with pytest.raises(ValueError, match="not a valid estimator"):
        tg.histogram(x, "best")
    with pytest.raises(TypeError, match="weighted data"):
        tg.histogram(x, "auto", weights=np.ones(3))
    with pytest.raises(ValueError, match="not finite"):
        tg.histogram(tg.asarray(np.array([1.0, np.nan])), "auto")
    with pytest.raises(ValueError, match="not finite"):
        tg.histogram(tg.asarray(np.array([1.0, np.inf])), "stone")
