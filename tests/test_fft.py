"""``tegula.fft`` against ``numpy.fft`` over random shapes, chunkings, lengths, axes and norms."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

import tegula as tg
from strategies import assert_same, chunkings, np_arrays, oracle, error_class

TOL = {"complex64": 2e-4, "complex128": 1e-10, "float16": 2e-3, "float32": 2e-4, "float64": 1e-10}
COMPLEX_IN = ["fft", "ifft", "irfft", "hfft"]
REAL_IN = ["rfft", "ihfft"]


def check(name, a, x, **kwargs):
    expected, error = oracle(getattr(np.fft, name), a, **kwargs)
    if error is not None:
        with pytest.raises(error_class(error)):
            getattr(tg.fft, name)(x, **kwargs).compute()
        return
    out = getattr(tg.fft, name)(x, **kwargs)
    assert out.shape == expected.shape and out.dtype == expected.dtype
    scale = max(1.0, float(np.abs(a).max(initial=0.0))) * max(1, a.size)
    tol = TOL[expected.dtype.name]
    assert_same(out.compute(), expected, rtol=tol, atol=tol * scale)


@given(data=st.data(), name=st.sampled_from(COMPLEX_IN + REAL_IN), norm=st.sampled_from(["backward", "ortho", "forward"]),
       wide=st.booleans())
def test_one_dimensional_transforms(data, name, norm, wide):
    dtype = np.dtype(("complex128" if wide else "complex64") if name in COMPLEX_IN else ("float64" if wide else "float32"))
    shape = tuple(data.draw(st.lists(st.integers(1, 6), min_size=1, max_size=3)))
    a = data.draw(np_arrays(dtype, shape, max_magnitude=10.0, allow_nan=False, allow_infinity=False))
    x = tg.asarray(a, chunks=data.draw(chunkings(shape))[0])
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    n = data.draw(st.one_of(st.none(), st.integers(1, 9)))
    if name in ("irfft", "hfft") and n is None and shape[axis] == 1:
        n = 2  # the default length 2 * (1 - 1) is NumPy's error, tested below
    check(name, a, x, n=n, axis=axis, norm=norm)


@given(data=st.data(), name=st.sampled_from(["fftn", "ifftn", "rfftn", "irfftn"]))
def test_n_dimensional_transforms(data, name):
    real = name == "rfftn"
    shape = tuple(data.draw(st.lists(st.integers(2, 5), min_size=1, max_size=3)))
    a = data.draw(np_arrays(np.float64 if real else np.complex128, shape, max_magnitude=10.0, allow_nan=False,
                            allow_infinity=False))
    x = tg.asarray(a, chunks=data.draw(chunkings(shape))[0])
    axes = tuple(data.draw(st.permutations(range(len(shape))))[:data.draw(st.integers(1, len(shape)))])
    s = tuple(data.draw(st.integers(2, 6)) for _ in axes) if data.draw(st.booleans()) else None
    check(name, a, x, s=s, axes=axes)


@given(data=st.data(), name=st.sampled_from(COMPLEX_IN + REAL_IN + ["fftn", "ifftn", "rfftn", "irfftn", "fft2", "ifft2",
                                                                   "rfft2", "irfft2"]),
       dtype=st.sampled_from(["float16", "float32", "float64", "int8", "int64", "uint16", "bool", "complex64"]))
def test_every_input_dtype_gives_numpys_result_dtype(data, name, dtype):
    """Integers and bools transform in complex128, float16 in complex64, and NumPy's real
    inverses of float16 (one axis) are float16; n-dimensional forms over 2-d arrays."""
    shape = tuple(data.draw(st.lists(st.integers(2, 5), min_size=2, max_size=3)))
    a = data.draw(np_arrays(np.dtype(dtype), shape, max_magnitude=10.0, allow_nan=False, allow_infinity=False))
    x = tg.asarray(a, chunks=data.draw(chunkings(shape))[0])
    check(name, a, x)


def test_transform_parameters_by_position_as_numpys():
    a = np.arange(12.0).reshape(3, 4)
    x = tg.asarray(a, chunks=2)
    for name, args in (("fft", (6, 0, "ortho")), ("ihfft", (5, 1, None)), ("hfft", (6, 0, "forward")),
                       ("fftn", ((3, 5), (1, 0), None)), ("irfft2", ((4, 4), (0, 1), "ortho"))):
        want = getattr(np.fft, name)(a, *args)
        got = getattr(tg.fft, name)(x, *args).compute()
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, atol=1e-10)
    np.testing.assert_allclose(tg.fft.fftfreq(8, 0.5).compute(), np.fft.fftfreq(8, 0.5))
    np.testing.assert_array_equal(tg.fft.fftshift(x, 1).compute(), np.fft.fftshift(a, 1))


@given(n=st.integers(1, 20), d=st.floats(0.1, 10.0))
def test_frequencies(n, d):
    assert_same(tg.fft.fftfreq(n, d=d).compute(), np.fft.fftfreq(n, d=d))
    assert_same(tg.fft.rfftfreq(n, d=d).compute(), np.fft.rfftfreq(n, d=d))


@given(data=st.data())
def test_shifts(data):
    shape = tuple(data.draw(st.lists(st.integers(0, 6), min_size=1, max_size=3)))
    a = data.draw(np_arrays(np.float64, shape))
    x = tg.asarray(a, chunks=data.draw(chunkings(shape))[0])
    axes = data.draw(st.one_of(st.none(), st.integers(0, len(shape) - 1)))
    assert_same(tg.fft.fftshift(x, axes=axes).compute(), np.fft.fftshift(a, axes=axes), exact=True)
    assert_same(tg.fft.ifftshift(x, axes=axes).compute(), np.fft.ifftshift(a, axes=axes), exact=True)


def test_errors():
    x = tg.asarray(np.ones(4, dtype=np.complex128))
    with pytest.raises(ValueError):
        tg.fft.fft(x, n=0)
    with pytest.raises(ValueError):
        tg.fft.fft(x, norm="sideways")
    with pytest.raises(ValueError):
        tg.fft.irfft(tg.asarray(np.ones(1, dtype=np.complex128)))
    with pytest.raises(TypeError):
        tg.fft.rfft(x)
    with pytest.raises(np.exceptions.AxisError):
        tg.fft.fft(x, axis=1)
