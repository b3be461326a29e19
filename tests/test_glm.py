"""``tegula.glm`` against the same algorithms written with NumPy: logistic regression by
Newton's method and least squares, on random data in random chunkings."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

import tegula as tg
from strategies import chunkings


def numpy_newton(X, y, steps):
    beta = np.zeros(X.shape[1])
    for _ in range(steps):
        mu = 1 / (1 + np.exp(-(X @ beta)))
        beta = beta - np.linalg.solve((X.T * (mu * (1 - mu))) @ X, X.T @ (mu - y))
    return beta


def data(seed, n, d):
    rng = np.random.default_rng(seed)
    X = np.c_[np.ones(n), rng.standard_normal((n, d - 1))]
    truth = rng.standard_normal(d)
    y = (rng.random(n) < 1 / (1 + np.exp(-(X @ truth)))).astype(np.float64)
    return X, y


@given(seed=st.integers(0, 2**32 - 1), n=st.integers(40, 200), d=st.integers(1, 5), steps=st.integers(1, 6),
       data_=st.data())
def test_logistic_regression_matches_numpy_newton(seed, n, d, steps, data_):
    X, y = data(seed, n, d)
    x = tg.asarray(X, chunks=data_.draw(chunkings(X.shape))[0])
    model = tg.glm.LogisticRegression(max_iter=steps, tol=0).fit(x, tg.asarray(y, chunks=data_.draw(chunkings(y.shape))[0]))
    want = numpy_newton(X, y, steps)
    np.testing.assert_allclose(model.coef_, want, rtol=1e-8, atol=1e-8)
    p = 1 / (1 + np.exp(-(X @ want)))
    np.testing.assert_allclose(model.predict_proba(x).compute(), p, rtol=1e-8, atol=1e-10)
    np.testing.assert_array_equal(model.predict(x).compute(), (p > 0.5).astype(np.float64))


@given(seed=st.integers(0, 2**32 - 1), n=st.integers(10, 200), d=st.integers(1, 6),
       solver=st.sampled_from(["normal", "qr"]), data_=st.data())
def test_linear_regression_matches_numpy_lstsq(seed, n, d, solver, data_):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = X @ rng.standard_normal(d) + 0.1 * rng.standard_normal(n)
    x = tg.asarray(X, chunks=data_.draw(chunkings(X.shape))[0])
    model = tg.glm.LinearRegression(solver=solver).fit(x, y)
    want = np.linalg.lstsq(X, y, rcond=None)[0]
    np.testing.assert_allclose(model.coef_, want, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(model.predict(x).compute(), X @ want, rtol=1e-7, atol=1e-9)


def test_converges_and_stops_early():
    X, y = data(0, 500, 3)
    model = tg.glm.LogisticRegression(max_iter=50, tol=1e-10).fit(tg.asarray(X, chunks=100), y)
    assert model.n_iter_ < 50
    np.testing.assert_allclose(model.coef_, numpy_newton(X, y, model.n_iter_ + 5), rtol=1e-9, atol=1e-12)


def test_errors():
    with pytest.raises(ValueError, match="not fitted"):
        tg.glm.LogisticRegression().predict(tg.ones((3, 2)))
    with pytest.raises(ValueError, match="2-D"):
        tg.glm.LinearRegression().fit(tg.ones(3), tg.ones(3))
    with pytest.raises(ValueError, match="one value per row"):
        tg.glm.LogisticRegression().fit(tg.ones((3, 2)), tg.ones(4))
    with pytest.raises(ValueError, match="max_iter"):
        tg.glm.LogisticRegression(max_iter=0)
    with pytest.raises(np.linalg.LinAlgError):
        tg.glm.LinearRegression().fit(tg.zeros((4, 2)), tg.ones(4))
    with pytest.raises(np.linalg.LinAlgError):
        tg.glm.LinearRegression(solver="qr").fit(tg.zeros((4, 2)), tg.ones(4))
    with pytest.raises(ValueError, match="solver"):
        tg.glm.LinearRegression(solver="svd")


def test_qr_solver_keeps_accuracy_the_normal_equations_lose():
    """Columns nearly dependent (condition number about 1e6): the normal equations square it
    and lose about half the digits NumPy's lstsq keeps; QR keeps them."""
    rng = np.random.default_rng(1)
    base = rng.standard_normal((400, 1))
    X = np.hstack([base, base + 1e-6 * rng.standard_normal((400, 1)), rng.standard_normal((400, 1))])
    y = X @ np.array([1.0, 2.0, 3.0]) + 0.01 * rng.standard_normal(400)
    want = np.linalg.lstsq(X, y, rcond=None)[0]
    x = tg.asarray(X, chunks=(64, 3))
    scale = np.abs(want).max()
    qr_error = np.abs(tg.glm.LinearRegression(solver="qr").fit(x, y).coef_ - want).max() / scale
    normal_error = np.abs(tg.glm.LinearRegression().fit(x, y).coef_ - want).max() / scale
    assert qr_error < 1e-8 and normal_error > 1e-6
