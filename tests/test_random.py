"""tegula.random: values depend on the seed, the call and the element's position only, so
every chunking of the same shape gives identical arrays; ranges, dtypes and rough
distribution checks."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

import tegula as tg
from strategies import INTEGER, chunkings, shapes

seeds = st.integers(0, 2**64 - 1)

DRAWS = {
    "random": lambda g, size, chunks: g.random(size=size, chunks=chunks),
    "random32": lambda g, size, chunks: g.random(size=size, dtype="float32", chunks=chunks),
    "uniform": lambda g, size, chunks: g.uniform(-3.0, 5.0, size=size, chunks=chunks),
    "standard_normal": lambda g, size, chunks: g.standard_normal(size=size, chunks=chunks),
    "standard_normal32": lambda g, size, chunks: g.standard_normal(size=size, dtype=np.float32, chunks=chunks),
    "normal": lambda g, size, chunks: g.normal(2.0, 3.0, size=size, chunks=chunks),
    "integers": lambda g, size, chunks: g.integers(-50, 50, size=size, chunks=chunks),
    "integers-uint8": lambda g, size, chunks: g.integers(0, 256, size=size, dtype="uint8", chunks=chunks),
}


@given(data=st.data(), seed=seeds, method=st.sampled_from(sorted(DRAWS)), shape=shapes(max_side=7))
def test_values_do_not_depend_on_chunking(data, seed, method, shape):
    spec1, chunks1 = data.draw(chunkings(shape))
    spec2, chunks2 = data.draw(chunkings(shape))
    x = DRAWS[method](tg.random.default_rng(seed), shape, spec1)
    y = DRAWS[method](tg.random.default_rng(seed), shape, spec2)
    assert x.chunks == chunks1 and y.chunks == chunks2
    assert x.shape == shape
    a, b = x.compute(), y.compute()
    assert a.dtype == b.dtype
    np.testing.assert_array_equal(a, b, strict=True)
    if a.ndim:  # a slice reads the same values, whatever blocks it touches
        np.testing.assert_array_equal(y[1::2].compute(), a[1::2])


@given(seed=seeds, size=st.integers(0, 50) | shapes(max_side=6) | st.none())
def test_size_forms(seed, size):
    x = tg.random.default_rng(seed).random(size=size, chunks=3)
    expected_shape = () if size is None else (size,) if isinstance(size, int) else size
    assert x.shape == expected_shape
    assert x.compute().shape == expected_shape


@given(seed=seeds, method=st.sampled_from(sorted(DRAWS)))
def test_same_seed_same_values_and_calls_are_independent_streams(seed, method):
    g1, g2 = tg.random.default_rng(seed), tg.random.default_rng(seed)
    first1, first2 = DRAWS[method](g1, (40,), 7).compute(), DRAWS[method](g2, (40,), 13).compute()
    np.testing.assert_array_equal(first1, first2)
    second = DRAWS[method](g1, (40,), 7).compute()
    assert not np.array_equal(first1, second)  # each call draws a fresh stream
    other = DRAWS[method](tg.random.default_rng(seed ^ 1), (40,), 7).compute()
    assert not np.array_equal(first1, other)


@given(seed=seeds, dtype=st.sampled_from(["float32", "float64"]))
def test_random_is_in_unit_interval(seed, dtype):
    a = tg.random.default_rng(seed).random(size=(64, 64), dtype=dtype, chunks=17).compute()
    assert a.dtype == np.dtype(dtype)
    assert (a >= 0).all() and (a < 1).all()


@given(seed=seeds, low=st.floats(-1e6, 1e6), width=st.floats(1e-3, 1e6))
def test_uniform_is_in_its_interval(seed, low, width):
    high = low + width
    a = tg.random.default_rng(seed).uniform(low, high, size=1000, chunks=99).compute()
    assert a.dtype == np.float64
    assert (a >= low).all() and (a <= high).all()


@given(seed=seeds, dtype=st.sampled_from(INTEGER), data=st.data(), endpoint=st.booleans())
def test_integers_are_in_their_interval(seed, dtype, data, endpoint):
    info = np.iinfo(dtype)
    low = data.draw(st.integers(int(info.min), int(info.max) - 1))
    high = data.draw(st.integers(low + 1, int(info.max) + (0 if endpoint else 1)))
    a = tg.random.default_rng(seed).integers(low, high, size=(30, 7), dtype=dtype, endpoint=endpoint,
                                             chunks=(4, 3)).compute()
    assert a.dtype == dtype
    top = high if endpoint else high - 1
    assert (a >= low).all() and (a <= top).all()


def test_integers_without_high_draw_from_zero():
    a = tg.random.default_rng(3).integers(5, size=10_000, chunks=1000).compute()
    assert a.dtype == np.int64
    assert set(np.unique(a)) == {0, 1, 2, 3, 4}


def test_distributions_are_roughly_right():
    g = tg.random.default_rng(12345)
    n = 10**5
    z = g.standard_normal(size=n, chunks=9999).compute()
    assert abs(z.mean()) < 0.02 and abs(z.std() - 1) < 0.02
    assert abs(np.mean(np.abs(z) < 1.96) - 0.95) < 0.01
    y = g.normal(10.0, 0.5, size=n, chunks=4096).compute()
    assert abs(y.mean() - 10) < 0.01 and abs(y.std() - 0.5) < 0.01
    u = g.random(size=n, chunks=777).compute()
    assert abs(u.mean() - 0.5) < 0.01 and abs(u.var() - 1 / 12) < 0.005
    counts = np.bincount(g.integers(0, 10, size=n, chunks=5000).compute(), minlength=10)
    expected = n / 10
    assert ((counts - expected) ** 2 / expected).sum() < 40  # chi-square, 9 dof: p < 1e-5
    # computed lazily by tegula's own reductions too
    assert abs(float(g.standard_normal(size=n, chunks=10_000).mean())) < 0.02


@pytest.mark.parametrize("bad, error", [
    (lambda g: g.integers(5, 5), ValueError),
    (lambda g: g.integers(10, 3), ValueError),
    (lambda g: g.integers(0, 300, dtype="uint8"), ValueError),
    (lambda g: g.integers(-1, 3, dtype="uint16"), ValueError),
    (lambda g: g.integers(0, 3, dtype="float64"), TypeError),
    (lambda g: g.random(dtype="int32"), TypeError),
    (lambda g: g.standard_normal(dtype="complex128"), TypeError),
    (lambda g: g.normal(0.0, -1.0), ValueError),
    (lambda g: g.random(size=(2, -1)), ValueError),
    (lambda g: g.random(size=(4, 4), chunks=(2, 2, 2)), ValueError),
])
def test_bad_arguments(bad, error):
    with pytest.raises(error):
        bad(tg.random.default_rng(0))


def test_bad_seed():
    for seed in (-1, 2**64):
        with pytest.raises(ValueError):
            tg.random.default_rng(seed)
    assert tg.random.default_rng().random(3).shape == (3,)  # OS entropy
