"""``median``, ``quantile`` and ``percentile`` against NumPy over random shapes, chunkings,
dtypes (NaN, infinities and many ties included), axes (None, one, several), every method and
keepdims; and their errors."""

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
