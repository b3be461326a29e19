"""Small places where tegula once answered differently from NumPy, each against NumPy itself."""

import warnings

import numpy as np
import pytest
from hypothesis import given, strategies as st

import tegula as tg

A = np.arange(12.0).reshape(3, 4)


@pytest.mark.parametrize("axis", [1.5, "1", 1.0, [0.0]])
def test_a_non_integer_axis_is_a_type_error(axis):
    with pytest.raises(TypeError):
        A.sum(axis=tuple(axis) if isinstance(axis, list) else axis)
    x = tg.asarray(A, chunks=2)
    for reduce in (x.sum, x.mean, x.max, x.var, x.any):
        with pytest.raises(TypeError):
            reduce(axis=tuple(axis) if isinstance(axis, list) else axis)
    assert x.sum(axis=np.int64(1)).compute().tolist() == A.sum(axis=1).tolist()


def test_negative_sizes_are_value_errors():
    for make in (lambda m: m.eye(-1), lambda m: m.eye(2, -1), lambda m: m.zeros(-1), lambda m: m.ones((2, -3))):
        with pytest.raises(ValueError, match="negative dimensions"):
            make(np)
        with pytest.raises(ValueError, match="negative dimensions"):
            make(tg)


def test_positional_parameters_as_numpys():
    x = tg.asarray(A, chunks=2)
    np.testing.assert_array_equal(tg.tril(x, 1).compute(), np.tril(A, 1))
    np.testing.assert_array_equal(tg.triu(x, -1).compute(), np.triu(A, -1))
    np.testing.assert_array_equal(tg.eye(3, 4, 1).compute(), np.eye(3, 4, 1))
    np.testing.assert_array_equal(tg.eye(3, 4, -1, np.int32).compute(), np.eye(3, 4, -1, np.int32))
    np.testing.assert_array_equal(tg.diagonal(x, 1).compute(), np.diagonal(A, 1))
    assert tg.trace(x, 1).compute() == np.trace(A, 1)


def test_numpy_integers_are_chunk_sizes():
    for chunks in ((np.int64(3),), np.int32(3), [np.uint8(3)], (np.int64(3), -1)):
        shape = (6,) if not isinstance(chunks, tuple) or len(chunks) == 1 else (6, 4)
        x = tg.ones(shape, chunks=chunks)
        assert x.chunks[0] == (3, 3)
    with pytest.raises(ValueError):
        tg.ones(6, chunks=True)


def test_a_float_index_is_numpys_index_error():
    with pytest.raises(IndexError) as np_error:
        A[1.5]
    with pytest.raises(IndexError) as tg_error:
        tg.asarray(A)[1.5]
    assert str(tg_error.value) == str(np_error.value)


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64])
def test_integer_reciprocal_of_zero_as_numpy(dtype):
    a = np.array([0, 1, 2, 3, 0], dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = np.reciprocal(a)
    np.testing.assert_array_equal(tg.reciprocal(tg.asarray(a, chunks=2)).compute(), want)


@given(n=st.integers(1, 40), chunk=st.integers(1, 40), dtype=st.sampled_from([np.float16, np.float32, np.float64, np.complex128]))
def test_sums_of_negative_zeros_are_positive_zeros(n, chunk, dtype):
    a = np.full(n, -0.0, dtype)
    x = tg.asarray(a, chunks=chunk)
    for got, want in ((x.sum(), a.sum()), (x.mean(), a.mean()), ((x * 1).sum(), a.sum()),
                      (x.reshape(1, n).sum(axis=1), a.reshape(1, n).sum(axis=1))):
        got = np.asarray(got.compute())
        np.testing.assert_array_equal(np.signbit(got.real), np.signbit(np.asarray(want).real))
    np.testing.assert_array_equal(np.signbit(tg.cumsum(x).compute().real), np.signbit(np.cumsum(a).real))  # kept


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int8, np.int64, np.uint16, bool, np.complex64])
def test_fft_dtypes_as_numpys(dtype):
    a = (np.arange(8) % 3).astype(dtype)
    for f in ("fft", "ifft"):
        want = getattr(np.fft, f)(a)
        got = getattr(tg.fft, f)(tg.asarray(a, chunks=3)).compute()
        assert got.dtype == want.dtype, f
        np.testing.assert_allclose(got, want, rtol=1e-3 if want.dtype == np.complex64 else 1e-12, atol=1e-5)
    if np.dtype(dtype).kind != "c":
        want = np.fft.rfft(a)
        got = tg.fft.rfft(tg.asarray(a, chunks=3)).compute()
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-5)


def test_round_of_bools_is_float16_as_numpys():
    a = np.array([True, False, True])
    got = tg.round(tg.asarray(a)).compute()
    want = np.round(a)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    assert tg.asarray(a).round().dtype == want.dtype


@pytest.mark.parametrize("a", [np.full(100, 60000, np.float16), np.array([60000, -60000], np.float16),
                               np.tile(np.array([30, -30], np.float16), 50), np.array([1, 2, 3], np.float16),
                               np.full((4, 100), 700, np.float16), np.array([np.nan, 1], np.float16)])
def test_float16_var_and_std_overflow_as_numpys(a):
    x = tg.asarray(a, chunks=7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in ("var", "std"):
            for axis in (None, -1):
                want = getattr(a, name)(axis=axis)
                got = getattr(x, name)(axis=axis).compute()
                assert got.dtype == want.dtype
                np.testing.assert_allclose(got.astype(float), np.asarray(want, float), rtol=2e-3)


def test_messages_name_chunks_as_python_writes_them():
    with pytest.raises(ValueError) as info:
        tg.ones((10, 10), chunks=(10, 10, 10))
    message = str(info.value)
    assert "Size(" not in message and "(10, 10, 10)" in message
    with pytest.raises(ValueError) as info:
        tg.ones((10,), chunks=((3, 3),))
    assert "[" not in str(info.value) and "(3, 3)" in str(info.value)


def test_negative_sizes_of_indices_are_value_errors():
    for m in (np, tg):
        with pytest.raises(ValueError, match="negative dimensions"):
            m.indices((2, -1))


B = np.arange(24.0).reshape(2, 3, 4) % 5


@pytest.mark.parametrize("call", [
    lambda m, a: m.sum(a, 1, None, None, True),
    lambda m, a: m.prod(a, 0, np.float32),
    lambda m, a: m.mean(a, 2, None, None, True),
    lambda m, a: m.var(a, 1, None, None, 1),
    lambda m, a: m.std(a, 1, None, None, 2, True),
    lambda m, a: m.min(a, 1, None, True),
    lambda m, a: m.max(a, -1, None, True),
    lambda m, a: m.any(a, 0, None, True),
    lambda m, a: m.all(a, 2, None, True),
    lambda m, a: m.argmax(a, 1),
    lambda m, a: m.argmin(a, 2),
    lambda m, a: m.count_nonzero(a, 1),
    lambda m, a: m.nansum(a, 1, None, None, True),
    lambda m, a: m.nanmean(a, 1, None, None, True),
    lambda m, a: m.nanvar(a, 1, None, None, 1, True),
    lambda m, a: m.nanstd(a, 0, None, None, 1),
    lambda m, a: m.nanmax(a, 1, None, True),
    lambda m, a: m.nanmin(a, 1, None, True),
    lambda m, a: m.nancumsum(a, 1),
    lambda m, a: m.flip(a, 1),
    lambda m, a: m.roll(a, 2, 1),
    lambda m, a: m.diff(a, 2, 1),
    lambda m, a: m.repeat(a, 2, 1),
    lambda m, a: m.tensordot(a, m.moveaxis(a, 2, 0), 1),
    lambda m, a: m.zeros_like(a, np.int32),
    lambda m, a: m.ones_like(a, np.float32),
    lambda m, a: m.full_like(a, 7, np.int16),
    lambda m, a: m.linspace(0, 1, 5, False),
    lambda m, a: m.isin(a, [1, 3], False, True),
    lambda m, a: a.sum(1, None, None, True),
    lambda m, a: a.var(0, None, None, 1),
    lambda m, a: a.std(None, np.float32, None, 1),
    lambda m, a: a.max(1, None, True),
    lambda m, a: a.argmin(1),
])
def test_positional_arguments_land_where_numpy_puts_them(call):
    want = call(np, B)
    got = call(tg, tg.asarray(B, chunks=2))
    got = got.compute()
    assert got.dtype == np.asarray(want).dtype and got.shape == np.shape(want)
    np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.mark.parametrize("call", [
    lambda m, a: m.sum(a, 1, None, a),
    lambda m, a: m.nanvar(a, 1, None, a),
    lambda m, a: m.max(a, 1, a),
    lambda m, a: m.argmax(a, 1, a),
    lambda m, a: a.var(0, None, a),
])
def test_an_out_array_is_refused_not_taken_for_a_later_parameter(call):
    with pytest.raises(TypeError, match="out="):
        call(tg, tg.asarray(B, chunks=2))


@pytest.mark.parametrize("chunks, text", [("2GBx", "'2GBx'"), ("12 parsecs", "'12 parsecs'"), (("lots",), "'lots'")])
def test_messages_quote_text_as_python_does(chunks, text):
    with pytest.raises(ValueError) as info:
        tg.ones(10, chunks=chunks)
    assert text in str(info.value) and '"' not in str(info.value)

