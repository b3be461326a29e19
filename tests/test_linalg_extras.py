"""``linalg.multi_dot``, ``linalg.cond`` and ``einsum_path`` against NumPy: random chains of
matrices (vectors at the ends), random well-conditioned stacks in random chunkings, every norm
order; and their errors."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

import tegula as tg
import tegula.linalg as la
from strategies import chunkings

INEXACT = [np.dtype(d) for d in ("float32", "float64", "complex64", "complex128")]
ORDERS = [None, 2, -2, "fro", "nuc", 1, -1, np.inf, -np.inf]


def chunked(data, a):
    return tg.asarray(a, chunks=data.draw(chunkings(a.shape))[0])


def random(rng, shape, dtype):
    a = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def close(actual, expected):
    expected = np.asarray(expected)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    tol = 2e-3 if expected.dtype in (np.float32, np.complex64) else 1e-9
    np.testing.assert_allclose(actual, expected, rtol=tol, atol=tol)


@given(st.data(), st.lists(st.integers(1, 5), min_size=3, max_size=6), st.booleans(), st.booleans(),
       st.sampled_from(INEXACT + [np.dtype(np.int64)]), st.integers(0, 2**32 - 1))
def test_multi_dot_matches_numpy(data, dims, row_first, column_last, dtype, seed):
    rng = np.random.default_rng(seed)
    mats = [random(rng, (m, n), dtype) for m, n in zip(dims, dims[1:])]
    if row_first:
        mats[0] = mats[0][0]
    if column_last:
        mats[-1] = mats[-1][:, 0]
    close(la.multi_dot([chunked(data, m) for m in mats]).compute(), np.linalg.multi_dot(mats))


@given(st.data(), st.sampled_from(ORDERS), st.sampled_from(INEXACT + [np.dtype(np.int32)]),
       st.lists(st.integers(1, 3), max_size=2).map(tuple), st.integers(1, 4), st.integers(0, 2**32 - 1))
def test_cond_matches_numpy(data, p, dtype, stack, n, seed):
    rng = np.random.default_rng(seed)
    # Off-diagonal parts within [-2, 2] and a diagonal of 3n: never singular, integers too.
    base = random(rng, stack + (n, n), np.complex128 if np.dtype(dtype).kind == "c" else np.float64)
    a = (np.clip(base.real, -2, 2) + 1j * np.clip(base.imag, -2, 2) + 3 * n * np.eye(n))
    a = (a if np.dtype(dtype).kind == "c" else a.real).astype(dtype)
    close(la.cond(chunked(data, a), p).compute(), np.linalg.cond(a, p))


def test_cond_of_singular_matrices_and_nan():
    singular = np.array([[1.0, 2.0], [2.0, 4.0]])
    for p in (None, 2):  # rounding decides between a huge number and inf
        assert la.cond(tg.asarray(singular), p).compute() > 1e15 and np.linalg.cond(singular, p) > 1e15
    with np.errstate(all="ignore"):
        for a in (np.zeros((2, 2)), np.array([[0.0, 0.0], [0.0, 1.0]]), np.array([[np.nan, 0.0], [0.0, 1.0]]),
                  np.array([[np.inf, 0.0], [0.0, 1.0]])):
            for p in ("fro", 1, -1, np.inf, -np.inf):  # (NumPy's "nuc" fails on the NaN inverse)
                np.testing.assert_array_equal(la.cond(tg.asarray(a), p).compute(), np.linalg.cond(a, p))
    with pytest.raises(np.linalg.LinAlgError, match="SVD did not converge"):  # as NumPy's
        la.cond(tg.asarray(np.array([[np.nan, 0.0], [0.0, 1.0]]))).compute()


def test_errors_as_numpy():
    with pytest.raises(ValueError, match="at least two arrays"):
        la.multi_dot([tg.ones((2, 2))])
    with pytest.raises(np.linalg.LinAlgError):
        la.multi_dot([tg.ones((2, 2)), tg.ones((2, 2, 2)), tg.ones((2, 2))])
    with pytest.raises(ValueError):
        la.multi_dot([tg.ones((2, 3)), tg.ones((2, 2)), tg.ones((2, 2))])
    with pytest.raises(np.linalg.LinAlgError, match="empty"):
        la.cond(tg.ones((0, 0)))
    with pytest.raises(np.linalg.LinAlgError, match="square"):
        la.cond(tg.ones((2, 3)), "fro")
    with pytest.raises(np.linalg.LinAlgError):
        la.cond(tg.ones(3))


@given(st.sampled_from([("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]), ("ii->i", [(3, 3)]),
                        ("ijk,jl,kl", [(2, 3, 4), (3, 5), (4, 5)]), ("...i,i", [(2, 3, 4), (4,)])]),
       st.sampled_from(["greedy", "optimal", False, True]))
def test_einsum_path_is_numpys_plan(case, optimize):
    subscripts, shapes = case
    arrays = [np.ones(s) for s in shapes]
    got = tg.einsum_path(subscripts, *[tg.asarray(a, chunks=2) for a in arrays], optimize=optimize)
    assert got == np.einsum_path(subscripts, *arrays, optimize=optimize)


@pytest.mark.parametrize("shape, dtype", [((700, 600), "float64"), ((520, 1100), "float32")])
def test_singular_values_of_big_matrices_by_two_stages(shape, dtype):
    """Matrices of 512 rows and columns or more take the two-stage reduction (a band, then a
    bidiagonal): NumPy's values within LAPACK's error bound, a repeated column's (row's) zero
    included, and NumPy's rank."""
    rng = np.random.default_rng(sum(shape))
    a = rng.standard_normal(shape).astype(dtype)
    if shape[0] >= shape[1]:
        a[:, 7] = a[:, 3]
    else:
        a[7] = a[3]
    x = tg.asarray(a, chunks=(300, 400))
    want = np.linalg.svd(a.astype(np.float64), compute_uv=False)
    got = la.svdvals(x).compute()
    assert got.dtype == np.dtype(dtype)
    assert np.abs(got - want).max() <= 20 * max(shape) * np.finfo(dtype).eps * want[0]
    assert la.matrix_rank(x).compute() == np.linalg.matrix_rank(a) == min(shape) - 1
