"""Products with a weighted transpose as users write them, ``(X.T * w) @ X`` (the Hessian of
logistic regression), against NumPy; the weights scale X's rows instead of a transposed view's
columns, so no transposed block is written."""

import re

import numpy as np
from hypothesis import given, settings, strategies as st

import tegula as tg
from strategies import axis_chunking


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_weighted_transposed_products_match_numpy(data):
    n, d = data.draw(st.integers(1, 40)), data.draw(st.integers(1, 6))
    dtype = data.draw(st.sampled_from([np.float64, np.float32]))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    X = rng.standard_normal((n, d)).astype(dtype)
    w = rng.random(n).astype(dtype)
    rows = data.draw(axis_chunking(n))[1]
    x = tg.asarray(X, chunks=(rows, data.draw(st.integers(1, d))))
    weights = tg.asarray(w, chunks=(data.draw(axis_chunking(n))[1],))
    shape = data.draw(st.sampled_from(["vector", "row", "reflected"]))
    if shape == "vector":
        scaled, expected = x.T * weights, X.T * w
    elif shape == "row":
        scaled, expected = x.T * weights[None, :], X.T * w[None, :]
    else:
        scaled, expected = weights * x.T, w * X.T
    tol = {"rtol": 1e-4, "atol": 1e-4} if dtype == np.float32 else {"rtol": 1e-10, "atol": 1e-10}
    np.testing.assert_allclose((scaled @ x).compute(), expected @ X, **tol)
    Z = rng.standard_normal((n, 2 * d + 1)).astype(dtype)
    np.testing.assert_allclose((scaled @ tg.asarray(Z, chunks=(rows, 3))).compute(), expected @ Z, **tol)


def test_mixed_dtypes_keep_numpys_result_type():
    X = np.arange(12.0).reshape(6, 2)
    w = np.arange(6, dtype=np.int64)
    x = tg.asarray(X, chunks=3)
    out = (x.T * tg.asarray(w, chunks=2)) @ x
    assert out.dtype == ((X.T * w) @ X).dtype
    np.testing.assert_allclose(out.compute(), (X.T * w) @ X)
    x32 = tg.asarray(X.astype(np.float32), chunks=3)
    out = (x32.T * tg.asarray(w.astype(np.float64), chunks=2)) @ x32
    assert out.dtype == np.float64
    np.testing.assert_allclose(out.compute(), (X.astype(np.float32).T * w.astype(np.float64)) @ X.astype(np.float32))


def test_a_newton_step_in_plain_array_code_writes_no_transposed_block():
    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((4000, 5)), (rng.random(4000) < 0.5).astype(float)
    x, labels = tg.asarray(X, chunks=(1000, 5)), tg.asarray(y, chunks=1000)
    beta = np.full(5, 0.1)
    mu = 1 / (1 + tg.exp(-(x @ beta)))
    hessian = (x.T * (mu * (1 - mu))) @ x
    # The element-wise operations are all on (4000,)- or (4000, 5)-shaped arrays, none on X.T.
    plan = hessian.explain()
    written_transposed = [line for line in plan.splitlines() if "shape=(5, 4000)" in line and "transpose" not in line]
    assert written_transposed == []
    assert re.search(r"matmul\(%\d+, %\d+\)  shape=\(5, 5\)", plan)
    m = 1 / (1 + np.exp(-(X @ beta)))
    np.testing.assert_allclose(hessian.compute(), (X.T * (m * (1 - m))) @ X, rtol=1e-10)
    gradient, hessian = tg.compute(x.T @ (mu - labels), hessian)
    np.testing.assert_allclose(gradient, X.T @ (m - y), rtol=1e-10)
