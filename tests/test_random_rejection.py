"""tegula.random's distributions drawn by rejection in Rust (gamma, beta, chi-square, Student's
t, Poisson, binomial) and those built on them (multivariate normal, shuffle): values that
do not depend on the chunking, samples that NumPy's own generator cannot tell apart (a
two-sample Kolmogorov-Smirnov test against NumPy's draws, and exact moments), NumPy's
dtypes and NumPy's errors."""

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tegula as tg
from strategies import chunkings, shapes

N = 40_000

# name -> (tegula draw of `size`, NumPy's draw of `size`, mean, variance)
CASES = {
    "gamma(0.4, 2)": (lambda g, n, c: g.gamma(0.4, 2.0, n, chunks=c), lambda r, n: r.gamma(0.4, 2.0, n), 0.8, 1.6),
    "gamma(7.5)": (lambda g, n, c: g.standard_gamma(7.5, n, chunks=c), lambda r, n: r.standard_gamma(7.5, n), 7.5, 7.5),
    "beta(0.5, 3)": (lambda g, n, c: g.beta(0.5, 3.0, n, chunks=c), lambda r, n: r.beta(0.5, 3.0, n),
                     0.5 / 3.5, 0.5 * 3 / (3.5 ** 2 * 4.5)),
    "chisquare(3)": (lambda g, n, c: g.chisquare(3.0, n, chunks=c), lambda r, n: r.chisquare(3.0, n), 3.0, 6.0),
    "standard_t(6)": (lambda g, n, c: g.standard_t(6.0, n, chunks=c), lambda r, n: r.standard_t(6.0, n), 0.0, 1.5),
    "poisson(3.5)": (lambda g, n, c: g.poisson(3.5, n, chunks=c), lambda r, n: r.poisson(3.5, n), 3.5, 3.5),
    "poisson(250)": (lambda g, n, c: g.poisson(250.0, n, chunks=c), lambda r, n: r.poisson(250.0, n), 250.0, 250.0),
    "binomial(20, 0.3)": (lambda g, n, c: g.binomial(20, 0.3, n, chunks=c), lambda r, n: r.binomial(20, 0.3, n), 6.0, 4.2),
    "binomial(900, 0.75)": (lambda g, n, c: g.binomial(900, 0.75, n, chunks=c), lambda r, n: r.binomial(900, 0.75, n),
                            675.0, 168.75),
}


def ks_statistic(a, b):
    """The two-sample Kolmogorov-Smirnov distance (ties of discrete samples counted together)."""
    a, b = np.sort(a), np.sort(b)
    values = np.union1d(a, b)
    fa = np.searchsorted(a, values, side="right") / a.size
    fb = np.searchsorted(b, values, side="right") / b.size
    return np.abs(fa - fb).max()


@pytest.mark.parametrize("name", sorted(CASES))
def test_samples_match_numpys_generator_and_the_moments(name):
    ours_fn, theirs_fn, mean, var = CASES[name]
    ours = ours_fn(tg.random.default_rng(11), N, 7_000)
    assert isinstance(ours, tg.Array)
    ours = ours.compute()
    theirs = theirs_fn(np.random.default_rng(11), N)
    assert ours.dtype == theirs.dtype
    # At alpha = 1e-6 the critical distance is sqrt(-ln(alpha / 2) / 2) * sqrt(2 / N).
    assert ks_statistic(ours, theirs) < math.sqrt(-math.log(0.5e-6) / 2) * math.sqrt(2 / N)
    # Mean within 6 standard errors; variance within 10%.
    assert abs(ours.mean() - mean) < 6 * math.sqrt(var / N)
    assert abs(ours.var() - var) < 0.1 * var


@settings(max_examples=30)
@given(st.data(), st.sampled_from(sorted(CASES)))
def test_values_do_not_depend_on_the_chunking(data, name):
    shape = data.draw(shapes(min_dims=1, max_dims=3, max_side=7))
    spec, _ = data.draw(chunkings(shape))
    draw = CASES[name][0]
    whole = draw(tg.random.default_rng(5), shape, -1).compute()
    chunked = draw(tg.random.default_rng(5), shape, spec).compute()
    np.testing.assert_array_equal(chunked, whole)


def test_edge_parameters_as_numpy():
    g = tg.random.default_rng(0)
    np.testing.assert_array_equal(g.standard_gamma(0.0, 5).compute(), np.zeros(5))
    np.testing.assert_array_equal(g.poisson(0.0, 5).compute(), np.zeros(5, dtype=np.int64))
    np.testing.assert_array_equal(g.binomial(12, 1.0, 5).compute(), np.full(5, 12))
    np.testing.assert_array_equal(g.binomial(0, 0.5, 5).compute(), np.zeros(5, dtype=np.int64))
    tiny = g.beta(1e-3, 1e-3, 1000).compute()
    assert ((tiny >= 0) & (tiny <= 1)).all() and np.isfinite(tiny).all()
    assert g.standard_gamma(2.0, (3, 4), dtype="float32").dtype == np.float32
    # NaN shapes draw NaNs (NumPy's behaviour), never a rejection loop that cannot end.
    for draw in (g.standard_gamma(np.nan, 3), g.beta(1.0, np.nan, 3), g.chisquare(np.nan, 3), g.standard_t(np.nan, 3)):
        assert np.isnan(draw.compute()).all()


@pytest.mark.parametrize("call", [
    lambda g: g.standard_gamma(-1.0), lambda g: g.gamma(1.0, -2.0), lambda g: g.beta(0.0, 1.0),
    lambda g: g.beta(1.0, -2.0), lambda g: g.chisquare(0.0), lambda g: g.standard_t(-3.0),
    lambda g: g.poisson(-1.0), lambda g: g.poisson(1e19), lambda g: g.binomial(-1, 0.5),
    lambda g: g.binomial(5, 1.5),
])
def test_bad_parameters_are_numpys_errors(call):
    with pytest.raises(ValueError):
        call(np.random.default_rng(0))
    with pytest.raises(ValueError):
        call(tg.random.default_rng(0))


def test_array_shape_parameters_are_refused_clearly():
    with pytest.raises(NotImplementedError, match="scalar"):
        tg.random.default_rng(0).poisson(np.array([1.0, 2.0]))
    scaled = tg.random.default_rng(0).gamma(2.0, np.array([1.0, 10.0]), chunks=1).compute()
    assert scaled.shape == (2,)


def test_multivariate_normal_has_the_mean_and_covariance():
    mean = np.array([1.0, -2.0, 0.5])
    cov = np.array([[2.0, 0.6, 0.0], [0.6, 1.0, -0.3], [0.0, -0.3, 0.5]])
    for method in ("svd", "eigh", "cholesky"):
        x = tg.random.default_rng(3).multivariate_normal(mean, cov, size=50_000, method=method, chunks=(8000, 3))
        assert isinstance(x, tg.Array) and x.shape == (50_000, 3)
        x = x.compute()
        np.testing.assert_allclose(x.mean(axis=0), mean, atol=0.05)
        np.testing.assert_allclose(np.cov(x.T), cov, atol=0.05)
    with pytest.raises(ValueError):
        tg.random.default_rng(0).multivariate_normal([0.0], [[1.0, 0.0]])
    with pytest.warns(RuntimeWarning):
        tg.random.default_rng(0).multivariate_normal([0.0, 0.0], [[1.0, 2.0], [2.0, 1.0]])


def test_shuffle_permutes_in_place():
    x = tg.arange(100, chunks=30)
    earlier = x + 0  # made before the shuffle: keeps the old values
    assert tg.random.default_rng(4).shuffle(x) is None
    shuffled = x.compute()
    assert sorted(shuffled) == list(range(100)) and (shuffled != np.arange(100)).any()
    np.testing.assert_array_equal(earlier.compute(), np.arange(100))
    with pytest.raises(TypeError):
        tg.random.default_rng(0).shuffle(np.arange(3))


def test_module_level_functions_forward_to_the_default_generator():
    tg.random.seed(9)
    a = tg.random.poisson(4.0, 10).compute()
    tg.random.seed(9)
    np.testing.assert_array_equal(tg.random.poisson(4.0, 10).compute(), a)
    assert tg.random.binomial(10, 0.5, 3).dtype == np.int64
