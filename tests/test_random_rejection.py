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


# name -> (draw with parameters a and b, valid values of a, of b); b unused by one-parameter ones
PER_ELEMENT = {
    "standard_gamma": (lambda g, a, b, **k: g.standard_gamma(a, **k), [0.0, 0.3, 1.0, 7.5, np.nan], [0]),
    "gamma": (lambda g, a, b, **k: g.gamma(a, b, **k), [0.3, 2.0, 40.0], [0.0, 0.5, 3.0]),
    "beta": (lambda g, a, b, **k: g.beta(a, b, **k), [0.2, 1.0, 6.0, np.nan], [0.5, 4.0]),
    "chisquare": (lambda g, a, b, **k: g.chisquare(a, **k), [0.5, 3.0, 30.0], [0]),
    "standard_t": (lambda g, a, b, **k: g.standard_t(a, **k), [1.0, 6.0, np.nan], [0]),
    "poisson": (lambda g, a, b, **k: g.poisson(a, **k), [0.0, 3.5, 9.9, 10.0, 250.0], [0]),
    "binomial": (lambda g, a, b, **k: g.binomial(a, b, **k), [0, 1, 20, 900], [0.0, 0.3, 0.5, 0.75, 1.0]),
}


def _parameters(data, values, shape):
    picks = data.draw(st.lists(st.sampled_from(range(len(values))), min_size=math.prod(shape),
                               max_size=math.prod(shape)))
    return np.asarray(values)[np.asarray(picks, dtype=np.int64)].reshape(shape)


@settings(max_examples=40)
@given(st.data(), st.sampled_from(sorted(PER_ELEMENT)), st.booleans())
def test_array_parameters_draw_each_element_with_its_own(data, name, as_tegula):
    """Element i of a draw with parameter arrays is the value the same call draws at i with
    those parameters as numbers, whatever the chunking and broadcasting."""
    draw, a_values, b_values = PER_ELEMENT[name]
    shape = data.draw(shapes(min_dims=1, max_dims=3, max_side=5))
    spec, _ = data.draw(chunkings(shape))
    a = _parameters(data, a_values, shape)
    b = _parameters(data, b_values, shape[-1:])  # broadcast along the leading axes
    given_a, given_b = (tg.asarray(a, chunks=spec), tg.asarray(b)) if as_tegula else (a, b)
    got = draw(tg.random.default_rng(3), given_a, given_b, chunks=spec)
    assert isinstance(got, tg.Array) and got.shape == shape
    got = got.compute()
    theirs = draw(np.random.default_rng(3), a, b)
    assert got.dtype == theirs.dtype and got.shape == theirs.shape
    want = np.empty(shape, dtype=got.dtype)
    bb = np.broadcast_to(b, shape)
    for pair in {(x, y) for x, y in zip(a.ravel().tolist(), bb.ravel().tolist())}:
        at = ((a == pair[0]) | (np.isnan(a) & np.isnan(pair[0]))) & (bb == pair[1])
        want[at] = draw(tg.random.default_rng(3), pair[0], pair[1], size=shape).compute()[at]
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name, a, b", [("poisson", [2.0, 300.0], None), ("binomial", [10, 4000], 0.4),
                                         ("gamma", [0.5, 9.0], 2.0), ("beta", [0.5, 5.0], 2.0)])
def test_array_parameters_match_numpys_generator(name, a, b):
    draw = PER_ELEMENT[name][0]
    a = np.tile(np.asarray(a), N // 2)
    ours = draw(tg.random.default_rng(9), a, b, chunks=6_000).compute()
    theirs = draw(np.random.default_rng(9), a, b)
    assert ours.dtype == theirs.dtype
    for k in range(2):  # each parameter value's draws against NumPy's
        assert ks_statistic(ours[k::2], theirs[k::2]) < math.sqrt(-math.log(0.5e-6) / 2) * math.sqrt(4 / N)


@pytest.mark.parametrize("call", [
    lambda g, wrap: g.standard_gamma(wrap([1.0, -1.0])), lambda g, wrap: g.gamma(wrap([1.0, 2.0]), -1.0),
    lambda g, wrap: g.beta(wrap([1.0, 0.0]), 1.0), lambda g, wrap: g.beta(1.0, wrap([-1.0])),
    lambda g, wrap: g.chisquare(wrap([0.0, 1.0])), lambda g, wrap: g.standard_t(wrap([2.0, -1.0])),
    lambda g, wrap: g.poisson(wrap([1.0, -1.0])), lambda g, wrap: g.poisson(wrap([1.0, np.nan])),
    lambda g, wrap: g.poisson(wrap([1e19])), lambda g, wrap: g.binomial(wrap([3, -1]), 0.5),
    lambda g, wrap: g.binomial(3, wrap([0.5, 1.5])), lambda g, wrap: g.binomial(3, wrap([np.nan])),
    lambda g, wrap: g.gamma(wrap(np.ones(3)), size=(2,)),
])
def test_bad_array_parameters_are_numpys_errors(call):
    with pytest.raises(ValueError) as theirs:
        call(np.random.default_rng(0), np.asarray)
    with pytest.raises(ValueError) as ours:
        call(tg.random.default_rng(0), np.asarray)
    if "mismatch" not in str(theirs.value):
        assert str(ours.value) == str(theirs.value)
    # Parameters in a tegula array are read when the blocks are drawn.
    with pytest.raises(ValueError, match=str(theirs.value)[:8]):
        call(tg.random.default_rng(0), tg.asarray).compute()


def test_binomial_counts_must_be_integers_as_numpy():
    for g in (np.random.default_rng(0), tg.random.default_rng(0)):
        with pytest.raises(TypeError, match="safe"):
            g.binomial(np.array([2.5, 3.0]), 0.5)
    with pytest.raises(TypeError, match="safe"):
        tg.random.default_rng(0).binomial(tg.asarray(np.array([2.0])), 0.5)


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
