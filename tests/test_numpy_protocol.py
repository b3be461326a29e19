"""NumPy functions and ufuncs called on tegula arrays (``__array_function__``,
``__array_ufunc__``): they build lazy tegula arrays equal to NumPy's results, mixed with NumPy
arrays too, or raise a TypeError that says to compute first. Also NumPy's nan-reductions."""

import warnings

import numpy as np
import pytest
from hypothesis import given, strategies as st

import tegula as tg
from strategies import FLOAT, INTEGER, assert_same, chunked_arrays, chunkings, np_arrays, shapes


def lazy(result):
    assert isinstance(result, tg.Array), type(result)
    return result.compute()


UNARY = [np.negative, np.abs, np.sqrt, np.exp, np.sin, np.floor, np.isnan, np.square, np.sign]
BINARY = [np.add, np.subtract, np.multiply, np.divide, np.maximum, np.minimum, np.less, np.equal,
          np.power, np.arctan2]


@given(pair=chunked_arrays(dtype="float64", small=True), ufunc=st.sampled_from(UNARY))
def test_unary_ufuncs(pair, ufunc):
    a, t = pair
    with np.errstate(all="ignore"):
        assert_same(lazy(ufunc(t)), ufunc(a))


@given(data=st.data(), ufunc=st.sampled_from(BINARY), dtype=st.sampled_from(["float32", "float64", "int64"]))
def test_binary_ufuncs_mixed_with_numpy(data, ufunc, dtype):
    """Each operand a tegula or a NumPy array, broadcast: the result is tegula's, lazily."""
    a, t = data.draw(chunked_arrays(dtype=dtype, shape=data.draw(shapes(min_dims=1)), small=True))
    b = data.draw(np_arrays(np.dtype(dtype), a.shape[1:], small=True))
    if ufunc is np.power and dtype == "int64":
        b = np.abs(b)
    with np.errstate(all="ignore"):
        expected = ufunc(a, b)
        assert_same(lazy(ufunc(t, b)), expected)
        assert_same(lazy(ufunc(a, tg.asarray(b))), expected)


def test_operators_with_numpy_on_the_left():
    a = np.arange(12.0).reshape(3, 4)
    t = tg.asarray(a, chunks=2)
    assert_same(lazy(a + t), a + a)
    assert_same(lazy(a[0] * t), a[0] * a)
    assert_same(lazy(np.float32(2) * t), np.float32(2) * a)
    assert_same(lazy(a @ t.T), a @ a.T)
    assert_same(lazy(a > t), np.zeros_like(a, dtype=bool))


@given(data=st.data(), dtype=st.sampled_from(FLOAT + INTEGER), axis=st.sampled_from([0, 1, 2, -1, None]),
       name=st.sampled_from(["add", "multiply", "maximum", "minimum", "logical_and", "logical_or"]))
def test_ufunc_reduce(data, dtype, axis, name):
    a, t = data.draw(chunked_arrays(dtype=dtype, shape=(4, 3, 5), small=True))
    ufunc = getattr(np, name)
    with np.errstate(all="ignore"):
        assert_same(lazy(ufunc.reduce(t, axis=axis)), ufunc.reduce(a, axis=axis))
        assert_same(lazy(ufunc.reduce(t, axis=axis, keepdims=True)), ufunc.reduce(a, axis=axis, keepdims=True))
    assert_same(lazy(np.add.reduce(t)), np.add.reduce(a))  # axis 0 by default


@given(data=st.data(), dtype=st.sampled_from(["float64", "int32"]), axis=st.sampled_from([0, 1]))
def test_ufunc_accumulate_and_outer(data, dtype, axis):
    a, t = data.draw(chunked_arrays(dtype=dtype, shape=(6, 4), small=True))
    assert_same(lazy(np.add.accumulate(t, axis=axis)), np.add.accumulate(a, axis=axis))
    with np.errstate(all="ignore"):  # products overflow to inf, then inf * 0
        assert_same(lazy(np.multiply.accumulate(t)), np.multiply.accumulate(a))
    assert_same(lazy(np.subtract.outer(t[0], t[:, 1])), np.subtract.outer(a[0], a[:, 1]))


FUNCTIONS = [
    (np.sum, {"axis": 0}), (np.sum, {}), (np.mean, {"axis": 1, "keepdims": True}), (np.std, {"ddof": 1}),
    (np.var, {"axis": (0, 1)}), (np.max, {"axis": -1}), (np.amin, {}), (np.prod, {"axis": 0}),
    (np.any, {"axis": 0}), (np.transpose, {}), (np.cumsum, {"axis": 1}), (np.sort, {"axis": 0}),
    (np.argmax, {"axis": 1}), (np.flip, {}), (np.round, {"decimals": 1}), (np.around, {}),
    (np.clip, {"a_min": -1.0, "a_max": 1.0}), (np.diff, {"axis": 0}), (np.ravel, {}), (np.copy, {}),
    (np.squeeze, {}), (np.expand_dims, {"axis": 0}), (np.moveaxis, {"source": 0, "destination": -1}),
    (np.nansum, {"axis": 0}), (np.nanmean, {}), (np.nanmax, {"axis": 1}), (np.median, {"axis": 0}),
]


@given(data=st.data(), case=st.sampled_from(FUNCTIONS))
def test_numpy_functions_dispatch_to_tegula(data, case):
    func, kwargs = case
    a, t = data.draw(chunked_arrays(dtype="float64", shape=data.draw(shapes(min_dims=2, min_side=1)), small=True))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # nan-reductions of empty slices
        assert_same(lazy(func(t, **kwargs)), func(a, **kwargs))


def test_positional_arguments_and_mixed_sequences():
    a = np.arange(24.0).reshape(4, 6)
    t = tg.asarray(a, chunks=(3, 4))
    assert_same(lazy(np.sum(t, 0)), np.sum(a, 0))
    assert_same(lazy(np.concatenate([t, a])), np.concatenate([a, a]))
    assert_same(lazy(np.concatenate((a, t), axis=1)), np.concatenate((a, a), axis=1))
    assert_same(lazy(np.stack([t, a])), np.stack([a, a]))
    assert_same(lazy(np.where(t > 5, t, a * 2)), np.where(a > 5, a, a * 2))
    assert_same(lazy(np.take(t, [0, 2], 1)), np.take(a, [0, 2], 1))
    assert_same(lazy(np.linalg.norm(t)), np.linalg.norm(a))
    assert_same(lazy(np.fft.fft(t)), np.fft.fft(a))
    assert_same(lazy(np.reshape(t, (6, 4), order="C")), a.reshape(6, 4))
    assert_same(lazy(np.zeros_like(t)), np.zeros_like(a))


def test_metadata_functions_do_not_compute():
    t = tg.asarray(np.zeros((3, 4), dtype="complex64"), chunks=2)
    assert np.shape(t) == (3, 4) and np.ndim(t) == 2 and np.size(t) == 12 and np.size(t, 1) == 4
    assert np.iscomplexobj(t) and not np.isrealobj(t)
    assert np.result_type(t, np.float64) == np.complex128


def test_asarray_still_computes():
    a = np.arange(6).reshape(2, 3)
    out = np.asarray(tg.asarray(a, chunks=1))
    assert type(out) is np.ndarray
    np.testing.assert_array_equal(out, a)


@pytest.mark.parametrize("call, names", [
    (lambda t: np.unwrap(t), "numpy.unwrap"),
    (lambda t: np.heaviside(t, 1), "numpy.heaviside"),
    (lambda t: np.add(t, 1, dtype="float32"), "numpy.add"),
    (lambda t: np.add.reduceat(t, [0, 1]), "numpy.add.reduceat"),
    (lambda t: np.subtract.reduce(t), "numpy.subtract.reduce"),
    (lambda t: np.sum(t, where=np.ones(t.shape, bool)), "numpy.sum"),
    (lambda t: np.sort(t, kind="heapsort"), "numpy.sort"),
    (lambda t: np.where(t), "numpy.where"),
])
def test_unimplemented_functions_raise_type_error(call, names):
    t = tg.asarray(np.arange(6.0).reshape(2, 3), chunks=1)
    with pytest.raises(TypeError, match=rf"{names}.*np\.asarray\(x\) first"):
        call(t)


def test_out_raises_type_error():
    t = tg.asarray(np.arange(6.0), chunks=2)
    with pytest.raises(TypeError, match="out="):
        np.add(t, 1, out=np.empty(6))
    with pytest.raises(TypeError, match="out="):
        np.sum(t, out=np.empty(()))


def test_other_array_types_are_left_to_their_own_protocols():
    class Other:
        def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
            return "other"

        def __array_function__(self, func, types, args, kwargs):
            return "other"

    t = tg.asarray(np.arange(3.0))
    assert np.add(t, Other()) == "other"
    assert np.concatenate([t, Other()]) == "other"


@given(data=st.data(), dtype=st.sampled_from(["float32", "float64", "complex128", "int16"]),
       name=st.sampled_from(["nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmin", "nanmax",
                             "nancumsum", "nancumprod"]))
def test_nan_reductions(data, dtype, name):
    """NaNs (many, whole slices of them too) ignored as NumPy ignores them."""
    shape = data.draw(shapes(min_dims=1, max_dims=3, min_side=1))
    a = data.draw(np_arrays(np.dtype(dtype), shape, small=True))
    if a.dtype.kind in "fc":
        a[data.draw(np_arrays(np.dtype(bool), shape))] = np.nan
    t = tg.asarray(a, chunks=data.draw(chunkings(shape))[0])
    axis = data.draw(st.sampled_from([None] + list(range(a.ndim))))
    kwargs = {"axis": axis}
    if name in ("nanvar", "nanstd"):
        kwargs["ddof"] = data.draw(st.integers(0, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        expected = getattr(np, name)(a, **kwargs)
    rtol = 1e-3 if dtype == "float32" else None
    assert_same(lazy(getattr(tg, name)(t, **kwargs)), expected, rtol=rtol, atol=rtol)
