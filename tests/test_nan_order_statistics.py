"""``nanargmax``/``nanargmin`` and ``nanmedian``/``nanquantile``/``nanpercentile`` against
NumPy over random shapes, chunkings, dtypes (many NaNs, whole lanes of them, ties and
infinities), axes, methods and keepdims; and their errors. A slice of NaNs only is NumPy's
ValueError for the arg-functions, raised when computed (as Dask's)."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

import tegula as tg
from strategies import FLOAT, INTEGER, assert_same, chunkings, dtypes, np_arrays, oracle, quiet, shapes

METHODS = ["linear", "lower", "higher", "nearest", "midpoint", "inverted_cdf", "averaged_inverted_cdf",
           "closest_observation", "interpolated_inverted_cdf", "hazen", "weibull", "median_unbiased",
           "normal_unbiased"]
REAL = [np.dtype(bool)] + INTEGER + FLOAT


@st.composite
def nan_arrays(draw, dtype_choices=REAL, min_side=0, max_dims=3):
    """A NumPy array (floats: NaN in a random share of places, whole lanes included), its
    chunked tegula copy and an axis argument (None, an int or a tuple)."""
    dtype = draw(dtypes(dtype_choices))
    shape = draw(shapes(min_dims=1, max_dims=max_dims, min_side=min_side))
    a = draw(np_arrays(dtype, shape, **({"integral": True} if draw(st.booleans()) else {})))
    if dtype.kind == "f" and a.size:
        mask = draw(np_arrays(np.dtype(bool), shape))
        a = np.where(mask, np.nan, a).astype(dtype)
    x = tg.asarray(a, chunks=draw(chunkings(a.shape))[0])
    axis = draw(st.one_of(st.none(), st.integers(-a.ndim, a.ndim - 1),
                          st.lists(st.integers(0, a.ndim - 1), min_size=1, max_size=a.ndim, unique=True).map(tuple)))
    return a, x, axis


def compare(got, want_fn, **tolerance):
    want, error = oracle(want_fn)
    if error is not None:
        with pytest.raises(type(error)), quiet():
            got().compute()
        return
    with quiet():
        assert_same(got().compute(), want, **tolerance)


@given(nan_arrays(REAL + [np.dtype("complex128")]), st.booleans(), st.sampled_from(["nanargmax", "nanargmin"]))
def test_nanarg_matches_numpy(case, keepdims, name):
    a, x, axis = case
    axis = axis if not isinstance(axis, tuple) else axis[0]
    compare(lambda: getattr(tg, name)(x, axis=axis, keepdims=keepdims),
            lambda: getattr(np, name)(a, axis=axis, keepdims=keepdims))


def test_an_all_nan_slice_raises_when_computed():
    a = np.array([[np.nan, 1.0], [np.nan, np.nan]])
    x = tg.asarray(a, chunks=1)
    lazy = tg.nanargmax(x, axis=1)  # building is fine
    with pytest.raises(ValueError, match="All-NaN slice encountered"):
        lazy.compute()
    np.testing.assert_array_equal(tg.nanargmin(x, axis=None).compute(), np.nanargmin(a))


@given(nan_arrays(REAL), st.booleans())
def test_nanmedian_matches_numpy(case, keepdims):
    a, x, axis = case
    compare(lambda: tg.nanmedian(x, axis=axis, keepdims=keepdims),
            lambda: np.nanmedian(a, axis=axis, keepdims=keepdims))


def numpy_nanquantile(a, q, axis, method, keepdims, name="quantile"):
    """NumPy's nanquantile (or ``nanpercentile``), its result cast to the dtype of lanes that
    hold values: NumPy's dtype follows its first lane's, which is the array's own for a lane of
    NaNs only."""
    out = getattr(np, f"nan{name}")(a, q, axis=axis, method=method, keepdims=keepdims)
    typical = getattr(np, name)(np.zeros_like(a[(0,) * a.ndim], shape=(1,)), q, method=method).dtype
    return np.asarray(out).astype(np.result_type(out, typical))


@given(nan_arrays(INTEGER + FLOAT, min_side=1), st.sampled_from(METHODS), st.booleans(), st.data())
def test_nanquantile_matches_numpy(case, method, keepdims, data):
    a, x, axis = case
    q = data.draw(st.one_of(st.floats(0, 1), st.lists(st.floats(0, 1), min_size=1, max_size=3).map(np.array),
                            st.sampled_from([0, 1, 0.5])))
    compare(lambda: tg.nanquantile(x, q, axis=axis, method=method, keepdims=keepdims),
            lambda: numpy_nanquantile(a, q, axis, method, keepdims))
    p = np.asarray(q) * 100
    compare(lambda: tg.nanpercentile(x, p, axis=axis, method=method),
            lambda: numpy_nanquantile(a, p, axis, method, False, name="percentile"))


@given(nan_arrays(FLOAT, min_side=1, max_dims=2), st.data())
def test_weighted_nanquantile_matches_numpy(case, data):
    a, x, axis = case
    axis = axis if not isinstance(axis, tuple) else axis[0]
    w = data.draw(np_arrays(np.dtype(np.float64), a.shape, integral=True)) ** 2
    q = data.draw(st.lists(st.floats(0, 1), min_size=1, max_size=3).map(np.array))
    compare(lambda: tg.nanquantile(x, q, axis=axis, method="inverted_cdf", weights=w),
            lambda: np.nanquantile(a, q, axis=axis, method="inverted_cdf", weights=w))


def test_empty_inputs_give_nanmeans_result_as_numpy():
    a = np.zeros((0, 3))
    with quiet():
        assert_same(tg.nanmedian(tg.asarray(a), axis=0).compute(), np.nanmedian(a, axis=0))
        assert_same(tg.nanquantile(tg.asarray(a), 0.5, axis=1).compute(), np.nanquantile(a, 0.5, axis=1))


def test_errors_as_numpy():
    x = tg.asarray(np.array([1.0, np.nan, 3.0]), chunks=2)
    with pytest.raises(ValueError, match="Quantiles must be in the range"):
        tg.nanquantile(x, 1.5)
    with pytest.raises(ValueError, match="Percentiles must be in the range"):
        tg.nanpercentile(x, -1)
    with pytest.raises(ValueError, match="not a valid method"):
        tg.nanquantile(x, 0.5, method="best")
    with pytest.raises(TypeError, match="real numbers"):
        tg.nanquantile(tg.asarray(np.ones(3, complex)), 0.5)
    with pytest.raises(ValueError, match="inverted_cdf"):
        tg.nanquantile(x, 0.5, weights=np.ones(3))
    with pytest.raises(np.exceptions.AxisError):
        tg.nanargmax(x, axis=1)
