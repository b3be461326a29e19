"""``median``, ``quantile`` and ``percentile`` against NumPy over random shapes, chunkings,
dtypes (NaN, infinities and many ties included), axes (None, one, several), every method and
keepdims; and their errors."""

import re

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
def cases(draw, dtype_choices=REAL, min_side=0):
    dtype = draw(dtypes(dtype_choices))
    a = draw(np_arrays(dtype, draw(shapes(min_dims=1, min_side=min_side)),
                       **({"integral": True} if draw(st.booleans()) else {})))
    x = tg.asarray(a, chunks=draw(chunkings(a.shape))[0])
    axis = draw(st.one_of(st.none(), st.integers(-a.ndim, a.ndim - 1),
                          st.lists(st.integers(0, a.ndim - 1), min_size=1, max_size=a.ndim, unique=True).map(tuple)))
    return a, x, axis


def compare(got, want_fn):
    want, error = oracle(want_fn)
    if error is not None:
        with pytest.raises(type(error)):
            got()
        return
    with quiet():
        assert_same(got().compute(), want, exact=True)


def numpy_median(a, axis, keepdims):
    """NumPy's median; of an empty array over several axes, NumPy's own merge of those axes
    fails (``reshape(0, -1)``), so they are merged here with their explicit length first."""
    if a.size or axis is None or not isinstance(axis, tuple) or len(axis) == 1:
        return np.median(a, axis=axis, keepdims=keepdims)
    axes = [ax % a.ndim for ax in axis]
    kept = [n for i, n in enumerate(a.shape) if i not in axes]
    lanes = np.moveaxis(a, axes, list(range(a.ndim - len(axes), a.ndim))).reshape(kept + [0])
    out = np.median(lanes, axis=-1)
    return out.reshape([1 if i in axes else n for i, n in enumerate(a.shape)]) if keepdims else out


@given(cases(REAL + [np.dtype("complex128")]), st.booleans())
def test_median_matches_numpy(case, keepdims):
    a, x, axis = case
    compare(lambda: tg.median(x, axis=axis, keepdims=keepdims), lambda: numpy_median(a, axis, keepdims))


@given(cases(INTEGER + FLOAT, min_side=1), st.sampled_from(METHODS), st.booleans(), st.data())
def test_quantile_matches_numpy(case, method, keepdims, data):
    a, x, axis = case
    q = data.draw(st.one_of(st.floats(0, 1), st.lists(st.floats(0, 1), min_size=1, max_size=3).map(np.array),
                            st.sampled_from([0, 1, 0.5])))
    compare(lambda: tg.quantile(x, q, axis=axis, method=method, keepdims=keepdims),
            lambda: np.quantile(a, q, axis=axis, method=method, keepdims=keepdims))
    p = np.asarray(q) * 100
    compare(lambda: tg.percentile(x, p, axis=axis, method=method),
            lambda: np.percentile(a, p, axis=axis, method=method))


def test_errors_as_numpy():
    x = tg.asarray(np.arange(6.0).reshape(2, 3), chunks=1)
    with pytest.raises(ValueError, match="Quantiles must be in the range"):
        tg.quantile(x, 1.5)
    with pytest.raises(ValueError, match="Percentiles must be in the range"):
        tg.percentile(x, -1)
    with pytest.raises(ValueError, match="not a valid method"):
        tg.quantile(x, 0.5, method="best")
    with pytest.raises(TypeError, match="real numbers"):
        tg.quantile(tg.asarray(np.ones(3, complex)), 0.5)
    with pytest.raises(np.exceptions.AxisError):
        tg.median(x, axis=2)
    with pytest.raises(IndexError):
        tg.quantile(tg.zeros((0,)), 0.5)


WEIGHT_DTYPES = [np.dtype(t) for t in (np.int64, np.uint8, np.float64, np.float32, np.bool_)]


def weight_values(dtype):
    """Whole numbers with zeros now and then (not as the simplest value, which would make most
    lanes all zero) and ties; fractions for floats."""
    whole = st.integers(1, 4).map(lambda v: v % 4)
    if dtype.kind == "b":
        return st.sampled_from([True, False])
    if dtype.kind == "f":
        return st.one_of(whole.map(float), st.floats(0.25, 10, width=dtype.itemsize * 8))
    return whole


@st.composite
def weights_for(draw, a, axis):
    """``(weights, the same as NumPy)``: of ``a``'s shape, or (with ``axis``) of the reduced
    axes' lengths in ``axis``'s order; a NumPy array or a chunked tegula one."""
    axes = None if axis is None else (axis,) if isinstance(axis, int) else axis
    shape = a.shape if axes is None or draw(st.booleans()) else tuple(a.shape[i] for i in axes)
    dtype = draw(st.sampled_from(WEIGHT_DTYPES))
    size = int(np.prod(shape))
    w = np.array(draw(st.lists(weight_values(dtype), min_size=size, max_size=size)), dtype).reshape(shape)
    return (tg.asarray(w, chunks=draw(chunkings(shape))[0]) if draw(st.booleans()) else w), w


QS = st.one_of(st.floats(0, 1), st.sampled_from([0, 1, 0.5, 0.25, 1 / 3, 0.75]),
               st.lists(st.sampled_from([0.0, 0.2, 0.25, 0.5, 0.6, 2 / 3, 1.0]), min_size=1, max_size=3).map(np.array),
               st.lists(st.floats(0, 1, width=32), min_size=1, max_size=3).map(lambda v: np.array(v, np.float32)))


@given(cases(REAL, min_side=1), QS, st.booleans(), st.data())
def test_weighted_quantile_matches_numpy(case, q, keepdims, data):
    a, x, axis = case
    w, w_numpy = data.draw(weights_for(a, axis))
    compare(lambda: tg.quantile(x, q, axis=axis, method="inverted_cdf", keepdims=keepdims, weights=w),
            lambda: np.quantile(a, q, axis=axis, method="inverted_cdf", keepdims=keepdims, weights=w_numpy))
    p = np.asarray(q) * 100
    compare(lambda: tg.percentile(x, p, axis=axis, method="inverted_cdf", weights=w),
            lambda: np.percentile(a, p, axis=axis, method="inverted_cdf", weights=w_numpy))


@pytest.mark.parametrize("weights, q", [
    ([1, 0, 2, 0, 1], 0),  # a zero weight on the smallest value: never chosen, even for q = 0
    ([0, 0, 2, 1, 1], [0, 0.5]),
    ([1, 1, 1, 1, 1], np.array([0.4, 0.8], np.float32)),  # 0.4 compared in float32, as NumPy
    ([1, 2, 1, 0, 4], np.array([0.25, 0.5, 0.125], np.float16)),
])
def test_weighted_quantile_edges(weights, q):
    a = np.array([[5.0, 1.0, 3.0, 2.0, 4.0], [2.0, 2.0, 7.0, 2.0, 0.0]])
    x = tg.asarray(a, chunks=2)
    for w in (weights, np.tile(weights, (2, 1))):
        compare(lambda: tg.quantile(x, q, axis=1, method="inverted_cdf", weights=w),
                lambda: np.quantile(a, q, axis=1, method="inverted_cdf", weights=w))


@pytest.mark.parametrize("a, kwargs", [
    (np.arange(6.0).reshape(2, 3), dict(weights=np.ones((2, 3)), method="linear")),
    (np.arange(6.0).reshape(2, 3), dict(weights=np.ones(3))),  # no axis: shapes must be equal
    (np.arange(6.0).reshape(2, 3), dict(weights=np.ones(2), axis=1)),
    (np.arange(6.0).reshape(2, 3), dict(weights=np.ones((3, 2)), axis=(0, 1))),
    (np.arange(6.0).reshape(2, 3), dict(weights=np.ones(3), axis=2)),
    (np.arange(6.0).reshape(2, 3), dict(weights=[1, -1, 1], axis=1)),
    (np.arange(6.0).reshape(2, 3), dict(weights=[1, np.nan, 1], axis=1)),
    (np.arange(6.0).reshape(2, 3), dict(weights=[[1, 1, 1], [0, 0, 0]], axis=1)),
    (np.arange(6.0).reshape(2, 3), dict(weights=[[1, np.inf, 1], [1, 1, 1]], axis=1)),
    (np.zeros((2, 0)), dict(weights=np.zeros((2, 0)), axis=1)),
])
def test_weighted_quantile_errors_as_numpy(a, kwargs):
    kwargs = {"method": "inverted_cdf", **kwargs}
    x = tg.asarray(a, chunks=1)
    want, error = oracle(lambda: np.quantile(a, 0.5, **kwargs))
    assert error is not None
    # NumPy's words too, but for its indexing error on an empty lane.
    words = None if isinstance(error, IndexError) else re.escape(str(error))
    with pytest.raises(type(error), match=words):
        tg.quantile(x, 0.5, **kwargs)
