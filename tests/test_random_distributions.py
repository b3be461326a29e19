"""tegula.random's distributions composed from uniform and normal draws, and NumPy's legacy
module-level functions: each distribution equals NumPy's transformation (computed by NumPy) of
the uniform or normal draws of the same seed, whatever the chunking; samples and permutations
against NumPy's rules; errors of NumPy's types."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tegula as tg
from strategies import chunkings, shapes

seeds = st.integers(0, 2**64 - 1)


def uniform(seed, shape):
    return tg.random.default_rng(seed).random(shape).compute()


def normals(seed, shape):
    """The first two standard normal draws of a generator of ``seed``."""
    g = tg.random.default_rng(seed)
    return g.standard_normal(shape).compute(), g.standard_normal(shape).compute()


def exponential(u):
    return -np.log1p(-u)


# name -> (tegula draw, NumPy's transformation of the first uniform draw ``u`` or normal draws ``n``)
FROM_UNIFORM = {
    "standard_exponential": (lambda g, s, c: g.standard_exponential(s, chunks=c), exponential),
    "exponential": (lambda g, s, c: g.exponential(2.5, s, chunks=c), lambda u: exponential(u) * 2.5),
    "laplace": (lambda g, s, c: g.laplace(1.0, 2.0, s, chunks=c),
                lambda u: 1.0 + 2.0 * np.where(u >= 0.5, -np.log(2.0 - 2.0 * u), np.log(2.0 * u))),
    "logistic": (lambda g, s, c: g.logistic(-1.0, 0.5, s, chunks=c), lambda u: -1.0 + 0.5 * np.log(u / (1.0 - u))),
    "gumbel": (lambda g, s, c: g.gumbel(3.0, 2.0, s, chunks=c), lambda u: 3.0 - 2.0 * np.log(-np.log1p(-u))),
    "weibull": (lambda g, s, c: g.weibull(1.5, s, chunks=c), lambda u: exponential(u) ** (1.0 / 1.5)),
    "pareto": (lambda g, s, c: g.pareto(3.0, s, chunks=c), lambda u: np.expm1(exponential(u) / 3.0)),
    "rayleigh": (lambda g, s, c: g.rayleigh(2.0, s, chunks=c), lambda u: 2.0 * np.sqrt(2.0 * exponential(u))),
    "power": (lambda g, s, c: g.power(0.5, s, chunks=c), lambda u: (-np.expm1(-exponential(u))) ** 2.0),
    "triangular": (lambda g, s, c: g.triangular(-1.0, 0.5, 2.0, s, chunks=c),
                   lambda u: np.where(u <= 0.5, -1.0 + np.sqrt(u * 4.5), 2.0 - np.sqrt((1.0 - u) * 4.5))),
}
FROM_NORMAL = {
    "lognormal": (lambda g, s, c: g.lognormal(0.5, 2.0, s, chunks=c), lambda n1, n2: np.exp(n1 * 2.0 + 0.5)),
    "standard_cauchy": (lambda g, s, c: g.standard_cauchy(s, chunks=c), lambda n1, n2: n1 / n2),
}


@settings(max_examples=60)
@given(data=st.data(), seed=seeds, name=st.sampled_from(sorted(FROM_UNIFORM) + sorted(FROM_NORMAL)),
       shape=shapes(max_side=7))
def test_distributions_are_numpys_transformations_whatever_the_chunks(data, seed, name, shape):
    draw, transform = {**FROM_UNIFORM, **FROM_NORMAL}[name]
    spec1, _ = data.draw(chunkings(shape))
    spec2, chunks2 = data.draw(chunkings(shape))
    x = draw(tg.random.default_rng(seed), shape, spec1)
    y = draw(tg.random.default_rng(seed), shape, spec2)
    assert isinstance(x, tg.Array) and x.shape == shape and x.dtype == np.float64 and y.chunks == chunks2
    with np.errstate(all="ignore"):
        expected = transform(uniform(seed, shape)) if name in FROM_UNIFORM else transform(*normals(seed, shape))
    np.testing.assert_allclose(x.compute(), expected, rtol=1e-12, atol=0)
    np.testing.assert_array_equal(x.compute(), y.compute())


@pytest.mark.parametrize("name", sorted(FROM_UNIFORM) + sorted(FROM_NORMAL))
def test_distribution_medians_match_numpys(name):
    """Each distribution's sample median against NumPy's generator's (same parameters)."""
    draw, _ = {**FROM_UNIFORM, **FROM_NORMAL}[name]
    calls = {"standard_exponential": ((), {}), "exponential": ((2.5,), {}), "laplace": ((1.0, 2.0), {}),
             "logistic": ((-1.0, 0.5), {}), "gumbel": ((3.0, 2.0), {}), "weibull": ((1.5,), {}), "pareto": ((3.0,), {}),
             "rayleigh": ((2.0,), {}), "power": ((0.5,), {}), "triangular": ((-1.0, 0.5, 2.0), {}),
             "lognormal": ((0.5, 2.0), {}), "standard_cauchy": ((), {})}
    args, _ = calls[name]
    n = 200_000
    ours = np.median(draw(tg.random.default_rng(7), n, "auto").compute())
    theirs = np.median(getattr(np.random.default_rng(7), name)(*args, size=n))
    np.testing.assert_allclose(ours, theirs, rtol=0.05, atol=0.02)


def test_parameters_broadcast_as_arrays():
    scale = np.array([1.0, 2.0, 3.0])
    x = tg.random.default_rng(3).exponential(scale)
    assert x.shape == (3,)
    np.testing.assert_allclose(x.compute(), exponential(uniform(3, (3,))) * scale, rtol=1e-12)
    w = tg.random.default_rng(3).weibull(np.array([0.0, 2.0]), size=(4, 2)).compute()
    assert (w[:, 0] == 0).all() and (w[:, 1] > 0).all()
    np.testing.assert_array_equal(tg.random.default_rng(3).weibull(0, size=3).compute(), np.zeros(3))


def test_normal_and_uniform_take_array_parameters():
    loc, scale = np.array([[-1.0], [4.0]]), np.array([0.5, 2.0, 0.0])
    z = normals(3, (2, 3))[0]
    x = tg.random.default_rng(3).normal(loc, tg.asarray(scale))
    assert x.shape == np.random.default_rng(3).normal(loc, scale).shape == (2, 3)
    np.testing.assert_allclose(x.compute(), loc + scale * z, rtol=1e-12)
    low, high = np.array([0.0, -5.0]), 1.0
    y = tg.random.default_rng(3).uniform(low, high, size=(3, 2))
    np.testing.assert_allclose(y.compute(), low + (high - low) * uniform(3, (3, 2)), rtol=1e-12)
    with pytest.raises(ValueError, match="scale < 0"):
        tg.random.default_rng(3).normal(0.0, np.array([1.0, -1.0]))


@settings(max_examples=40)
@given(seed=seeds, n=st.integers(0, 30), data=st.data())
def test_permutation(seed, n, data):
    spec, _ = data.draw(chunkings((n,)))
    p = tg.random.default_rng(seed).permutation(n, chunks=spec).compute()
    np.testing.assert_array_equal(np.sort(p), np.arange(n))
    a = np.arange(3 * n).reshape(n, 3) * 2
    shuffled = tg.random.default_rng(seed).permutation(tg.asarray(a, chunks=2)).compute()
    np.testing.assert_array_equal(shuffled, a[p])
    columns = tg.random.default_rng(seed).permutation(a.T, axis=1).compute()
    np.testing.assert_array_equal(columns, a.T[:, p])


@settings(max_examples=40)
@given(seed=seeds, n=st.integers(1, 12), size=shapes(0, 2, 0, 4), replace=st.booleans())
def test_choice(seed, n, size, replace):
    count = int(np.prod(size))
    g = tg.random.default_rng(seed)
    if not replace and count > n:
        with pytest.raises(ValueError):
            np.random.default_rng(0).choice(n, size, replace=False)
        with pytest.raises(ValueError):
            g.choice(n, size, replace=False)
        return
    picked = g.choice(n, size, replace=replace).compute()
    assert picked.shape == size and ((0 <= picked) & (picked < n)).all()
    if not replace:
        assert len(np.unique(picked)) == count
    population = np.linspace(-1.0, 1.0, n)
    values = tg.random.default_rng(seed).choice(population, size, replace=replace).compute()
    np.testing.assert_array_equal(values, population[picked])
    p = np.zeros(n)
    p[::2] = 1.0 / len(p[::2])
    weighted = tg.random.default_rng(seed).choice(n, size, replace=True, p=p).compute()
    assert (weighted % 2 == 0).all()
    if count <= np.count_nonzero(p):
        unique = tg.random.default_rng(seed).choice(n, size, replace=False, p=p).compute()
        assert (unique % 2 == 0).all() and len(np.unique(unique)) == count


def test_weighted_choice_frequencies():
    p = np.array([0.1, 0.2, 0.7])
    picked = tg.random.default_rng(1).choice(3, 100_000, p=p).compute()
    np.testing.assert_allclose(np.bincount(picked, minlength=3) / picked.size, p, atol=0.01)


@pytest.mark.parametrize("call", [
    lambda g: g.choice(0, 3), lambda g: g.choice([], 2), lambda g: g.choice(3, 2, p=[0.5, 0.5]),
    lambda g: g.choice(3, 2, p=[0.5, 0.6, -0.1]), lambda g: g.choice(3, 2, p=[0.2, 0.2, 0.2]),
    lambda g: g.choice(3, 3, replace=False, p=[0.5, 0.5, 0.0]), lambda g: g.exponential(-1.0, 2),
    lambda g: g.triangular(2, 1, 3, 2), lambda g: g.triangular(0, 4, 3, 2), lambda g: g.triangular(1, 1, 1, 2),
    lambda g: g.pareto(0.0, 2), lambda g: g.power(-1.0, 2), lambda g: g.rayleigh(-2.0, 2),
])
def test_errors_match_numpy(call):
    with pytest.raises(Exception) as expected:
        call(np.random.default_rng(0))
    with pytest.raises(type(expected.value)):
        call(tg.random.default_rng(0))


def test_module_level_functions_follow_seed():
    tg.random.seed(42)
    first = [tg.random.random((3, 4)), tg.random.normal(1.0, 2.0, 5), tg.random.uniform(-1, 1, 3),
             tg.random.randint(3, 9, size=6), tg.random.standard_normal(4), tg.random.exponential(2.0, 3)]
    tg.random.seed(42)
    again = [tg.random.random((3, 4), chunks=2), tg.random.normal(1.0, 2.0, 5, chunks=2), tg.random.uniform(-1, 1, 3),
             tg.random.randint(3, 9, size=6, chunks=4), tg.random.standard_normal(4), tg.random.exponential(2.0, 3)]
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a.compute(), b.compute())
    values = first[3].compute()
    assert ((3 <= values) & (values < 9)).all()
    assert ((0 <= first[0].compute()) & (first[0].compute() < 1)).all()
    assert tg.random.randint(5, size=100).compute().max() < 5
    assert tg.random.rand(2, 3).shape == (2, 3) and tg.random.randn(4).shape == (4,)
    with pytest.raises(ValueError):
        np.random.randint(5, 5)
    with pytest.raises(ValueError):
        tg.random.randint(5, 5)


def test_choice_edge_cases_match_numpy():
    np.testing.assert_array_equal(tg.random.default_rng(0).choice(np.array(5), 2).compute(),
                                  tg.random.default_rng(0).choice(5, 2).compute())
    for call in [lambda g: g.choice(np.float64(3.0), 2), lambda g: g.choice(np.array(5.5), 2)]:
        with pytest.raises(ValueError):
            call(np.random.default_rng(0))
        with pytest.raises(ValueError):
            call(tg.random.default_rng(0))
    for replace in (True, False):
        assert tg.random.default_rng(0).choice(0, 0, replace=replace).compute().shape == (0,)
        assert tg.random.default_rng(0).choice(np.zeros((0, 2)), 0, replace=replace).compute().shape == (0, 2)
