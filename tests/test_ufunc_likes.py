"""NumPy's element-wise functions composed in Python (``fmax``, ``fmin``, ``fmod``, ``cbrt``,
``exp2``, the angle conversions, ``isposinf``/``isneginf``) against NumPy: every dtype,
broadcast shapes, chunkings and Python scalars; NumPy's result dtypes and exception types."""

import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

import tegula as tg
from strategies import ALL_DTYPES, assert_same, chunkings, dtypes, error_class, np_arrays, oracle, python_scalars, quiet

BINARY = ["fmax", "fmin", "fmod"]
UNARY = ["cbrt", "exp2", "deg2rad", "rad2deg", "radians", "degrees", "isposinf", "isneginf"]


def chunked(data, a):
    return tg.asarray(a, chunks=data.draw(chunkings(a.shape))[0])


def compare(got, expected, error, **tolerance):
    if error is not None:
        with pytest.raises(error_class(error)), quiet():
            got().compute()
        return
    with quiet():
        assert_same(got().compute(), expected, **tolerance)


@given(st.data(), st.sampled_from(BINARY), dtypes(), dtypes(),
       hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=4))
def test_binary_against_numpy(data, name, d1, d2, shapes):
    a = data.draw(np_arrays(d1, shapes.input_shapes[0]))
    b = data.draw(np_arrays(d2, shapes.input_shapes[1]))
    expected, error = oracle(getattr(np, name), a, b)
    compare(lambda: getattr(tg, name)(chunked(data, a), chunked(data, b)), expected, error, exact=name != "fmod")


@given(st.data(), st.sampled_from(BINARY), dtypes(), python_scalars(), st.booleans())
def test_binary_with_python_scalars(data, name, dtype, scalar, scalar_first):
    a = data.draw(np_arrays(dtype, data.draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=4))))
    args = (scalar, a) if scalar_first else (a, scalar)
    expected, error = oracle(getattr(np, name), *args)
    x = chunked(data, a)
    got_args = (scalar, x) if scalar_first else (x, scalar)
    compare(lambda: getattr(tg, name)(*got_args), expected, error, exact=name != "fmod")


@given(st.data(), st.sampled_from(UNARY), dtypes(ALL_DTYPES))
def test_unary_against_numpy(data, name, dtype):
    a = data.draw(np_arrays(dtype, data.draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5))))
    expected, error = oracle(getattr(np, name), a)
    compare(lambda: getattr(tg, name)(chunked(data, a)), expected, error)


def test_fmod_follows_the_dividend_and_fmax_ignores_nan():
    a = np.array([-7, 7, -7, 7, -128, 5], dtype=np.int8)
    b = np.array([2, -2, -2, 2, -1, 0], dtype=np.int8)
    with quiet():
        assert_same(tg.fmod(tg.asarray(a, chunks=2), tg.asarray(b, chunks=3)).compute(), np.fmod(a, b))
    f = np.array([-7.5, 7.5, -0.0, 1e-20, np.inf, 3.0])
    g = np.array([2.0, -2.0, 3.0, 1.0, 2.0, np.inf])
    with quiet():
        assert_same(tg.fmod(tg.asarray(f, chunks=2), g).compute(), np.fmod(f, g), exact=True)
    nan = np.array([np.nan, 1.0, np.nan])
    assert_same(tg.fmin(tg.asarray(nan, chunks=1), np.array([2.0, np.nan, np.nan])).compute(),
                np.fmin(nan, [2.0, np.nan, np.nan]), exact=True)


def test_cbrt_of_exact_cubes_is_exact():
    # The integers are the oracle: NumPy's own cbrt is one ulp off for some cubes on CPUs
    # where it takes its AVX2 loop (-5832 gives -18.000000000000004).
    roots = np.arange(-20, 21, dtype=np.float64)
    got = tg.cbrt(tg.asarray(roots**3, chunks=7)).compute()
    np.testing.assert_array_equal(got, roots)
    np.testing.assert_array_max_ulp(got, np.cbrt(roots**3), maxulp=1)


def test_numpy_ufuncs_dispatch_to_them():
    a = np.array([1.0, np.nan, -8.0])
    x = tg.asarray(a, chunks=2)
    for ufunc in (np.fmax, np.fmin, np.fmod):
        out = ufunc(x, 2.0)
        assert isinstance(out, tg.Array)
        assert_same(out.compute(), ufunc(a, 2.0), exact=True)
    for ufunc in (np.cbrt, np.exp2, np.deg2rad, np.degrees):
        assert isinstance(ufunc(x), tg.Array)
    assert isinstance(np.isposinf(x), tg.Array)


def test_errors_as_numpy():
    z = tg.asarray(np.array([1 + 1j]))
    for fn in (tg.cbrt, tg.deg2rad, tg.rad2deg):
        with pytest.raises(TypeError):
            fn(z)
    with pytest.raises(TypeError, match="ambiguous"):
        tg.isposinf(z)
    with pytest.raises(TypeError):
        tg.fmod(z, z)
    with pytest.raises(TypeError):
        tg.isneginf(tg.asarray([1.0]), out=np.empty(1))
