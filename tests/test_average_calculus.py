"""``average``, ``gradient`` and ``trapezoid`` against NumPy over random shapes, chunkings,
dtypes, axes, weights and spacings; and their errors (weights summing to zero are NumPy's
ZeroDivisionError, raised when the average is computed)."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

import tegula as tg
from strategies import (ALL_DTYPES, COMPLEX, FLOAT, INTEGER, assert_same, chunkings, dtypes, np_arrays, oracle,
                        quiet, shapes)

NUMBERS = INTEGER + FLOAT + COMPLEX


def chunked(data, a):
    return tg.asarray(a, chunks=data.draw(chunkings(a.shape))[0])


def compare(got, want_fn, **tolerance):
    want, error = oracle(want_fn)
    if error is not None:
        with pytest.raises(type(error)), quiet():
            out = got()
            (tg.compute(*out) if isinstance(out, tuple) else out.compute())
        return
    with quiet():
        out = got()
        if isinstance(out, tuple):
            assert len(out) == len(want_fn())
            for o, w in zip(out, want_fn()):
                assert_same(o.compute(), w, **tolerance)
        else:
            assert_same(out.compute(), want, **tolerance)


def draw_axis(data, ndim):
    return data.draw(st.one_of(st.none(), st.integers(-ndim, ndim - 1),
                               st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim,
                                        unique=True).map(tuple)))


@given(st.data(), dtypes([np.dtype(bool)] + NUMBERS), st.booleans(), st.booleans())
def test_average_matches_numpy(data, dtype, returned, keepdims):
    a = data.draw(np_arrays(dtype, data.draw(shapes(min_dims=1)), integral=True))
    axis = draw_axis(data, a.ndim)
    compare(lambda: tg.average(chunked(data, a), axis=axis, returned=returned, keepdims=keepdims),
            lambda: np.average(a, axis=axis, returned=returned, keepdims=keepdims))


@given(st.data(), dtypes(NUMBERS), dtypes(INTEGER + FLOAT), st.booleans(), st.booleans(), st.booleans())
def test_weighted_average_matches_numpy(data, dtype, wdtype, full_shape, returned, keepdims):
    a = data.draw(np_arrays(dtype, data.draw(shapes(min_dims=1, min_side=1)), integral=True, small=True))
    axis = draw_axis(data, a.ndim)
    wshape = a.shape if full_shape or axis is None else tuple(
        a.shape[i] for i in ((axis,) if isinstance(axis, int) else axis))
    w = data.draw(np_arrays(wdtype, wshape, integral=True, small=True))
    w = np.where(w == 0, 1, w).astype(wdtype) if wdtype.kind in "iu" else np.abs(w) + 1
    compare(lambda: tg.average(chunked(data, a), axis=axis, weights=chunked(data, w), returned=returned,
                               keepdims=keepdims),
            lambda: np.average(a, axis=axis, weights=w, returned=returned, keepdims=keepdims))


def test_average_errors_as_numpy():
    x = tg.asarray(np.arange(6.0).reshape(2, 3), chunks=1)
    with pytest.raises(TypeError, match="Axis must be specified"):
        tg.average(x, weights=np.ones(3))
    with pytest.raises(ValueError, match="Shape of weights"):
        tg.average(x, axis=1, weights=np.ones(2))
    with pytest.raises(np.exceptions.AxisError):
        tg.average(x, axis=2)
    lazy = tg.average(x, axis=1, weights=np.array([1.0, -1.0, 0.0]))
    with pytest.raises(ZeroDivisionError, match="Weights sum to zero"):
        lazy.compute()


@given(st.data(), dtypes(INTEGER + FLOAT + COMPLEX), st.sampled_from([1, 2]))
def test_gradient_matches_numpy(data, dtype, edge_order):
    a = data.draw(np_arrays(dtype, data.draw(shapes(min_dims=1, min_side=edge_order + 1)), integral=True))
    axis = draw_axis(data, a.ndim)
    axes = range(a.ndim) if axis is None else [axis] if isinstance(axis, int) else axis
    kind = data.draw(st.sampled_from(["none", "scalar", "per-axis"]))
    if kind == "scalar":
        spacing = [data.draw(st.sampled_from([0.5, 2, np.float32(3.0)]))]
    elif kind == "per-axis":
        spacing = [data.draw(st.one_of(
            st.sampled_from([0.25, 3]),
            st.lists(st.floats(0.5, 4), min_size=a.shape[ax], max_size=a.shape[ax]).map(
                lambda steps: np.cumsum(steps)),
            st.just(np.arange(a.shape[ax]) * 2))) for ax in axes]
    else:
        spacing = []
    compare(lambda: tg.gradient(chunked(data, a), *spacing, axis=axis, edge_order=edge_order),
            lambda: np.gradient(a, *spacing, axis=axis, edge_order=edge_order), rtol=1e-5, atol=1e-9)


def test_gradient_errors_as_numpy():
    x = tg.asarray(np.arange(6.0).reshape(2, 3))
    with pytest.raises(ValueError, match="too small"):
        tg.gradient(x, edge_order=2)
    with pytest.raises(ValueError, match="edge_order"):
        tg.gradient(x, edge_order=3)
    with pytest.raises(TypeError, match="invalid number of arguments"):
        tg.gradient(x, 1.0, 2.0, 3.0)
    with pytest.raises(ValueError, match="must match the length"):
        tg.gradient(x, np.arange(5), 1.0)
    with pytest.raises(ValueError, match="scalars or 1d"):
        tg.gradient(x, np.ones((2, 2)), 1.0)


@given(st.data(), dtypes(ALL_DTYPES), st.sampled_from(["dx", "x1d", "xfull", "none"]))
def test_trapezoid_matches_numpy(data, dtype, kind):
    a = data.draw(np_arrays(dtype, data.draw(shapes(min_dims=1)), integral=True))
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    kwargs = {}
    if kind == "dx":
        kwargs["dx"] = data.draw(st.sampled_from([0.5, 2, np.float32(1.5)]))
    elif kind == "x1d":
        kwargs["x"] = data.draw(np_arrays(np.dtype(np.float64), (a.shape[axis],), integral=True))
    elif kind == "xfull":
        kwargs["x"] = data.draw(np_arrays(np.dtype(np.int32), a.shape, integral=True))
    given_x = {k: (chunked(data, v) if isinstance(v, np.ndarray) else v) for k, v in kwargs.items()}
    compare(lambda: tg.trapezoid(chunked(data, a), axis=axis, **given_x),
            lambda: np.trapezoid(a, axis=axis, **kwargs))
