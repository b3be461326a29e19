"""Factorisation-based linear algebra on singular, near-singular and well-conditioned matrices
(one block and several, single matrices and stacks) against NumPy: where NumPy raises
``LinAlgError``, so does tegula; where it returns numbers, tegula's agree."""

import numpy as np
import pytest

import tegula as tg

RNG = np.random.default_rng(7)


def _low_rank(n, r):
    return RNG.random((n, r)) @ RNG.random((r, n))


def _conditioned(n, cond):
    q = np.linalg.qr(RNG.random((n, n)))[0]
    return q @ np.diag(np.logspace(0, -np.log10(cond), n)) @ q.T


SINGULAR = {
    "arange36": np.arange(36.0).reshape(6, 6),
    "arange16": np.arange(16.0).reshape(4, 4),
    "zero_column": np.c_[np.ones((4, 3)), np.zeros(4)],
    "repeated_row": np.array([[1.0, 2.0], [2.0, 4.0]]),
    "ones": np.ones((5, 5)),
    "zeros": np.zeros((3, 3)),
}
# Products of thin factors: singular in exact arithmetic, but LAPACK may or may not round a
# pivot to exactly zero (NumPy then returns noise). tegula follows LAPACK's order of operations
# where a pivot is that small, so it may raise or return numbers; either way its determinant is
# as small as NumPy's and its rank NumPy's.
NUMERICALLY_SINGULAR = {"low_rank": _low_rank(6, 3), "low_rank_40": _low_rank(40, 10), "low_rank_9": _low_rank(9, 8)}
# Regular matrices whose pivots differ by more than 1 / eps: no pivot is zero, so NumPy inverts
# them (exactly, for diagonal ones), and so must tegula.
BADLY_SCALED = {
    "diag_1e-20": np.diag([1.0, 1e-20]),
    "diag_1e20": np.diag([1e20, 1.0, 3.0]),
    "tiny": np.array([[1e-30, 0.0], [0.0, 1e-30]]),
    "permuted_1e-18": np.array([[0.0, 1e-18, 0.0], [2.0, 0.0, 0.0], [0.0, 0.0, 1.0]]),
    "triangular_1e-17": np.array([[1.0, 2.0, 3.0], [0.0, 1e-17, 1.0], [0.0, 0.0, 4.0]]),
}
REGULAR = {
    "random": RNG.random((6, 6)) + 6 * np.eye(6),
    "cond_1e8": _conditioned(6, 1e8),
    "cond_1e11": _conditioned(8, 1e11),
    "hilbert_8": 1 / (np.arange(8)[:, None] + np.arange(8) + 1),
}


def chunkings(n):
    return sorted({n, max(1, n // 2), 3})


@pytest.mark.parametrize("name", SINGULAR)
def test_singular_matrices_raise_or_give_numpys_numbers(name):
    a = SINGULAR[name]
    n = a.shape[0]
    for chunks in chunkings(n):
        x = tg.asarray(a, chunks=chunks)
        for f in (lambda: tg.linalg.inv(x).compute(), lambda: tg.linalg.solve(x, tg.ones(n)).compute(),
                  lambda: tg.linalg.solve(x, tg.ones((n, 2))).compute()):
            with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
                f()
        with pytest.raises(np.linalg.LinAlgError):
            np.linalg.inv(a)
        assert tg.linalg.det(x).compute() == np.linalg.det(a) == 0.0
        sign, logdet = tg.linalg.slogdet(x)
        assert (sign.compute(), logdet.compute()) == tuple(np.linalg.slogdet(a))
        assert tg.linalg.matrix_rank(x).compute() == np.linalg.matrix_rank(a)
        np.testing.assert_allclose(tg.linalg.pinv(x).compute(), np.linalg.pinv(a), atol=1e-10)
        got = tg.linalg.lstsq(x, tg.asarray(np.arange(n, dtype=float)))
        want = np.linalg.lstsq(a, np.arange(n, dtype=float))
        np.testing.assert_allclose(got[0].compute(), want[0], atol=1e-8)


@pytest.mark.parametrize("name", NUMERICALLY_SINGULAR)
def test_numerically_singular_matrices_give_numpys_determinant_and_rank(name):
    a = NUMERICALLY_SINGULAR[name]
    n = a.shape[0]
    for chunks in chunkings(n):
        x = tg.asarray(a, chunks=chunks)
        try:
            tg.linalg.inv(x).compute()
        except np.linalg.LinAlgError as e:
            assert str(e) == "Singular matrix"
        np.testing.assert_allclose(tg.linalg.det(x).compute(), np.linalg.det(a), atol=1e-12)
        assert tg.linalg.matrix_rank(x).compute() == np.linalg.matrix_rank(a)


@pytest.mark.parametrize("name", BADLY_SCALED)
def test_badly_scaled_regular_matrices_are_inverted_as_numpy(name):
    a = BADLY_SCALED[name]
    n = a.shape[0]
    for chunks in chunkings(n):
        x = tg.asarray(a, chunks=chunks)
        np.testing.assert_allclose(tg.linalg.inv(x).compute(), np.linalg.inv(a), rtol=1e-12)
        b = np.arange(1.0, n + 1)
        np.testing.assert_allclose(tg.linalg.solve(x, tg.asarray(b)).compute(), np.linalg.solve(a, b), rtol=1e-12)
        np.testing.assert_allclose(tg.linalg.det(x).compute(), np.linalg.det(a), rtol=1e-12)
        sign, logdet = tg.linalg.slogdet(x)
        assert sign.compute() == np.linalg.slogdet(a)[0]
        np.testing.assert_allclose(logdet.compute(), np.linalg.slogdet(a)[1], rtol=1e-12)


def test_nan_matrices_give_nans_as_numpy():
    """NaN is no zero pivot: NumPy returns NaNs (where they spread depends on the algorithm, so
    only NumPy's NaNs are checked), not a LinAlgError."""
    a = np.array([[np.nan, 0.0], [0.0, 1.0]])
    x = tg.asarray(a)
    with np.errstate(invalid="ignore"):
        for got, want in ((tg.linalg.inv(x), np.linalg.inv(a)), (tg.linalg.solve(x, tg.ones(2)), np.linalg.solve(a, np.ones(2)))):
            assert np.isnan(got.compute())[np.isnan(want)].all()
        assert np.isnan(tg.linalg.det(x).compute()) and np.isnan(np.linalg.det(a))


@pytest.mark.parametrize("name", [*SINGULAR, *NUMERICALLY_SINGULAR])
def test_eigh_of_singular_symmetric_matrices_as_numpy(name):
    a = {**SINGULAR, **NUMERICALLY_SINGULAR}[name]
    a = a + a.T
    for chunks in chunkings(a.shape[0]):
        w, v = tg.linalg.eigh(tg.asarray(a, chunks=chunks))
        w, v = w.compute(), v.compute()
        scale = max(1.0, np.abs(a).max())
        np.testing.assert_allclose(w, np.linalg.eigvalsh(a), atol=1e-12 * scale * a.shape[0])
        np.testing.assert_allclose(a @ v, v * w, atol=1e-10 * scale * a.shape[0])


def test_stacks_of_singular_and_regular_matrices_as_numpy():
    stack = np.stack([SINGULAR["arange36"], REGULAR["random"], np.ones((6, 6))])
    for chunks in ((1, 6, 6), (2, 3, 3), (3, 6, 6)):
        x = tg.asarray(stack, chunks=chunks)
        np.testing.assert_allclose(tg.linalg.det(x).compute(), np.linalg.det(stack), atol=1e-9)
        assert tg.linalg.matrix_rank(x).compute().tolist() == np.linalg.matrix_rank(stack).tolist()
        np.testing.assert_allclose(tg.linalg.pinv(x).compute(), np.linalg.pinv(stack), atol=1e-10)
        sign, logdet = tg.linalg.slogdet(x)
        want = np.linalg.slogdet(stack)
        assert sign.compute().tolist() == want[0].tolist()
        np.testing.assert_allclose(logdet.compute(), want[1])


@pytest.mark.parametrize("name", REGULAR)
def test_regular_and_near_singular_matrices_match_numpy(name):
    a = REGULAR[name]
    n = a.shape[0]
    cond = np.linalg.cond(a)
    rtol = max(1e-12, cond * 1e-14)
    for chunks in chunkings(n):
        x = tg.asarray(a, chunks=chunks)
        np.testing.assert_allclose(tg.linalg.inv(x).compute() @ a, np.eye(n), atol=rtol * 10)
        b = np.arange(1.0, n + 1)
        np.testing.assert_allclose(a @ tg.linalg.solve(x, tg.asarray(b)).compute(), b, rtol=rtol * 10)
        np.testing.assert_allclose(tg.linalg.det(x).compute(), np.linalg.det(a), rtol=rtol)
        sign, logdet = tg.linalg.slogdet(x)
        assert sign.compute() == np.linalg.slogdet(a)[0]
        np.testing.assert_allclose(logdet.compute(), np.linalg.slogdet(a)[1], rtol=1e-8, atol=1e-8)
        assert tg.linalg.matrix_rank(x).compute() == np.linalg.matrix_rank(a)


def test_a_stack_with_one_singular_matrix_raises_as_numpy():
    stack = np.stack([REGULAR["random"], SINGULAR["arange36"], REGULAR["random"]])
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.inv(stack)
    x = tg.asarray(stack, chunks=(1, 3, 3))
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        tg.linalg.inv(x).compute()
    np.testing.assert_array_equal(tg.linalg.det(x).compute() == 0, np.linalg.det(stack) == 0)


def test_cholesky_of_a_matrix_not_positive_definite_raises_as_numpy():
    for a in (SINGULAR["arange16"], -np.eye(3), SINGULAR["zeros"]):
        with pytest.raises(np.linalg.LinAlgError):
            np.linalg.cholesky(a)
        with pytest.raises(np.linalg.LinAlgError, match="positive definite"):
            tg.linalg.cholesky(tg.asarray(a, chunks=2)).compute()
