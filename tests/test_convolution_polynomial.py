"""``convolve``/``correlate`` (every mode, either input longer), ``polyval``/``polyfit`` and
``apply_along_axis`` against NumPy over random lengths, chunkings and dtypes; and their
errors."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

import tegula as tg
from strategies import ALL_DTYPES, COMPLEX, FLOAT, INTEGER, assert_same, chunkings, dtypes, np_arrays, oracle, quiet

MODES = ["full", "same", "valid", 0, 1, 2]


def chunked(data, a):
    return tg.asarray(a, chunks=data.draw(chunkings(a.shape))[0])


def compare(got, want_fn, **tolerance):
    want, error = oracle(want_fn)
    if error is not None:
        with pytest.raises(type(error)), quiet():
            got().compute()
        return
    with quiet():
        assert_same(got().compute(), want, **tolerance)


@given(st.data(), dtypes(ALL_DTYPES), dtypes(ALL_DTYPES), st.integers(1, 9), st.integers(1, 9),
       st.sampled_from(MODES), st.sampled_from(["convolve", "correlate"]))
def test_convolve_and_correlate_match_numpy(data, d1, d2, n, m, mode, name):
    a = data.draw(np_arrays(d1, (n,), integral=True))
    v = data.draw(np_arrays(d2, (m,), integral=True))
    compare(lambda: getattr(tg, name)(chunked(data, a), chunked(data, v), mode),
            lambda: getattr(np, name)(a, v, mode), rtol=1e-5, atol=1e-6)


def test_convolution_errors_as_numpy():
    x = tg.asarray([1.0, 2.0])
    for name in ("convolve", "correlate"):
        for args in ((tg.asarray(np.zeros(0)), x), (x, tg.asarray(np.zeros(0))), (tg.ones((2, 2)), x)):
            with pytest.raises(ValueError):
                getattr(tg, name)(*args)
        with pytest.raises(ValueError, match="mode"):
            getattr(tg, name)(x, x, "bad")


@given(st.data(), dtypes(INTEGER + FLOAT + COMPLEX), dtypes(INTEGER + FLOAT + COMPLEX), st.integers(0, 4),
       st.booleans())
def test_polyval_matches_numpy(data, pdtype, xdtype, degree, two_d):
    p = data.draw(np_arrays(pdtype, (degree + 1, 2) if two_d else (degree + 1,), integral=True))
    x = data.draw(np_arrays(xdtype, (data.draw(st.integers(0, 6)),) + ((1,) if two_d else ()), integral=True))
    compare(lambda: tg.polyval(chunked(data, p), chunked(data, x)), lambda: np.polyval(p, x))


@given(st.data(), st.integers(0, 4), st.integers(6, 12), st.booleans(), st.booleans(),
       st.sampled_from([False, True, "unscaled"]), st.integers(0, 2**32 - 1))
def test_polyfit_matches_numpy(data, degree, n, two_d, weighted, cov, seed):
    rng = np.random.default_rng(seed)
    x = np.sort(rng.uniform(-2, 2, n))
    y = rng.standard_normal((n, 2) if two_d else n)
    w = rng.uniform(0.5, 2, n) if weighted else None
    got = tg.polyfit(chunked(data, x), chunked(data, y), degree, w=None if w is None else chunked(data, w), cov=cov)
    want = np.polyfit(x, y, degree, w=w, cov=cov)
    for g, e in zip(got if cov else [got], want if cov else [want]):
        assert_same(g.compute(), e, rtol=1e-7, atol=1e-9)


def test_polyfit_full_and_errors_as_numpy():
    x, y = np.arange(6.0), np.arange(6.0) ** 2
    got, want = tg.polyfit(tg.asarray(x, chunks=2), y, 2, full=True), np.polyfit(x, y, 2, full=True)
    for g, e in zip(got, want):
        np.testing.assert_allclose(g.compute() if isinstance(g, tg.Array) else g, e, rtol=1e-7, atol=1e-9)
    with pytest.warns(np.exceptions.RankWarning):
        tg.polyfit(np.array([0.0, 0.0, 1.0, 1.0]), np.arange(4.0), 2)  # x squared is x: rank 2
    with pytest.raises(ValueError, match="deg >= 0"):
        tg.polyfit(x, y, -1)
    with pytest.raises(TypeError, match="1D vector"):
        tg.polyfit(np.ones((2, 3)), y, 1)
    with pytest.raises(TypeError, match="same length"):
        tg.polyfit(x, y[:3], 1)
    with pytest.raises(ValueError, match="exceed order"):
        tg.polyfit(x[:3], y[:3], 2, cov=True)


FUNCTIONS = {"sum": np.sum, "reversed": lambda v: v[::-1], "outer": lambda v: np.outer(v, v),
             "extremes": lambda v: np.array([v.min(), v.max()]), "mean": np.mean}


@given(st.data(), dtypes(INTEGER + FLOAT), st.sampled_from(sorted(FUNCTIONS)))
def test_apply_along_axis_matches_numpy(data, dtype, name):
    a = data.draw(np_arrays(dtype, data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple)),
                            integral=True))
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    compare(lambda: tg.apply_along_axis(FUNCTIONS[name], axis, chunked(data, a)),
            lambda: np.apply_along_axis(FUNCTIONS[name], axis, a))


def test_apply_along_axis_passes_arguments_and_refuses_empty_iteration():
    a = np.arange(12.0).reshape(3, 4)
    got = tg.apply_along_axis(np.percentile, 1, tg.asarray(a, chunks=2), 25, method="lower")
    assert_same(got.compute(), np.apply_along_axis(np.percentile, 1, a, 25, method="lower"))
    with pytest.raises(ValueError, match="iteration dimensions are 0"):
        tg.apply_along_axis(np.sum, 0, tg.ones((3, 0)))
