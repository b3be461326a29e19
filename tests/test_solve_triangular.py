"""``tegula.linalg.solve_triangular`` and ``cho_solve`` against SciPy's, matrix by matrix: random stacks in random
chunkings, float32/float64/complex64/complex128, every ``trans``, either triangle, with and
without a unit diagonal. The triangle not named holds other values, which must not be read."""

import numpy as np
import pytest
import scipy.linalg
from hypothesis import given, strategies as st

import tegula as tg
import tegula.linalg as la
from test_linalg_api import INEXACT, chunked, close, hermitian_pd, linalg_limit, random, stacks, tiles_for_any_size

TRANS = [0, 1, 2, "N", "T", "C"]


def triangular_system(rng, shape, dtype, unit_diagonal):
    """A random matrix whose triangles are both well conditioned (a dominant diagonal), or with
    zeros on its diagonal where it is taken as ones."""
    a = random(rng, shape, dtype) + 2 * shape[-1] * np.eye(shape[-1])
    if unit_diagonal:
        a = a * (1 - np.eye(shape[-1]))
    return a.astype(dtype)


def scipy_solve(a, b, trans, lower, unit_diagonal, vector):
    """SciPy's solution for each matrix of the (broadcast) stack."""
    stack = np.broadcast_shapes(a.shape[:-2], b.shape[:-1] if vector else b.shape[:-2])
    a = np.broadcast_to(a, stack + a.shape[-2:])
    b = np.broadcast_to(b, stack + b.shape[-1:] if vector else stack + b.shape[-2:])
    out = np.empty(b.shape, dtype=np.result_type(a, b))
    for index in np.ndindex(*stack):
        out[index] = scipy.linalg.solve_triangular(a[index], b[index], trans=trans, lower=lower, unit_diagonal=unit_diagonal)
    return out


@given(data=st.data(), stack=stacks, n=st.integers(1, 5), k=st.integers(0, 3), dtype=st.sampled_from(INEXACT),
       trans=st.sampled_from(TRANS), lower=st.booleans(), unit_diagonal=st.booleans(), vector=st.booleans(),
       seed=st.integers(0, 2**32 - 1))
def test_solve_triangular_matches_scipy(data, stack, n, k, dtype, trans, lower, unit_diagonal, vector, seed):
    rng = np.random.default_rng(seed)
    a = triangular_system(rng, stack + (n, n), dtype, unit_diagonal)
    b_stack = data.draw(st.sampled_from([stack, stack[1:], (1,) * len(stack)]))
    b = random(rng, (n,) if vector else b_stack + (n, k), dtype)
    expected = scipy_solve(a, b, trans, lower, unit_diagonal, vector)
    out = la.solve_triangular(chunked(data, a), chunked(data, b), trans=trans, lower=lower, unit_diagonal=unit_diagonal)
    close(out, expected, scale=10)


@given(data=st.data(), n=st.integers(1, 24), k=st.integers(0, 9), dtype=st.sampled_from(INEXACT),
       trans=st.sampled_from(TRANS), lower=st.booleans(), unit_diagonal=st.booleans(), vector=st.booleans(),
       seed=st.integers(0, 2**32 - 1))
def test_big_matrices_are_solved_by_tiles(data, n, k, dtype, trans, lower, unit_diagonal, vector, seed):
    """A matrix in several blocks past the size limit: blocked substitution by tiles of its
    smaller first block length, SciPy's answer whatever the blocks of either side."""
    rng = np.random.default_rng(seed)
    a = triangular_system(rng, (n, n), dtype, unit_diagonal)
    b = random(rng, (n,) if vector else (n, k), dtype)
    expected = scipy_solve(a, b, trans, lower, unit_diagonal, vector)
    with tiles_for_any_size():
        out = la.solve_triangular(chunked(data, a), chunked(data, b), trans=trans, lower=lower, unit_diagonal=unit_diagonal)
    close(out, expected, scale=10 * n)


@given(data=st.data(), stack=stacks, n=st.integers(1, 12), k=st.integers(0, 4), dtype=st.sampled_from(INEXACT),
       lower=st.booleans(), vector=st.booleans(), tiles=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_cho_solve_matches_scipy(data, stack, n, k, dtype, lower, vector, tiles, seed):
    """The factor ``cholesky`` gives, lower or upper, solved against as SciPy's ``cho_solve``
    does: for 2-d matrices past the size limit (``tiles``), by tiles."""
    rng = np.random.default_rng(seed)
    stack = () if tiles else stack
    a = hermitian_pd(rng, stack + (n, n), dtype)
    b = random(rng, (n,) if vector else stack + (n, k), dtype)
    c = np.linalg.cholesky(a, upper=not lower)
    expected = np.empty(np.broadcast_shapes(a.shape[:-1], b.shape) if vector else b.shape, dtype=dtype)
    for index in np.ndindex(*stack):
        expected[index] = scipy.linalg.cho_solve((c[index], lower), b if vector else b[index])
    with linalg_limit("_WHOLE_MATRIX_BYTES", 0 if tiles else la._WHOLE_MATRIX_BYTES), linalg_limit("_MIN_TILE", 1):
        out = la.cho_solve((chunked(data, c), lower), chunked(data, b))
    close(out, expected, scale=10 * n)
    with pytest.raises(ValueError, match="cho_solve takes"):
        la.cho_solve(chunked(data, c), b)


def test_integers_solve_in_float64():
    a = np.array([[2, 0], [3, 4]], dtype=np.int64)
    b = np.array([2, 11], dtype=np.int32)
    out = la.solve_triangular(tg.asarray(a), tg.asarray(b), lower=True)
    expected = scipy.linalg.solve_triangular(a, b, lower=True)
    assert out.dtype == expected.dtype == np.float64
    np.testing.assert_allclose(out.compute(), expected, rtol=1e-15)


def test_a_zero_on_the_diagonal_is_singular_when_computed():
    a = np.array([[1.0, 0.0, 0.0], [2.0, 0.0, 0.0], [3.0, 4.0, 5.0]])
    with pytest.raises(np.linalg.LinAlgError, match="singular matrix: resolution failed at diagonal 1"):
        scipy.linalg.solve_triangular(a, np.ones(3), lower=True)
    x = la.solve_triangular(tg.asarray(a, chunks=2), tg.ones(3, chunks=2), lower=True)
    with pytest.raises(np.linalg.LinAlgError, match="singular matrix: resolution failed at diagonal 1"):
        x.compute()
    # Taken as ones, the same diagonal is no error.
    np.testing.assert_allclose(la.solve_triangular(tg.asarray(a), np.ones(3), lower=True, unit_diagonal=True).compute(),
                               scipy.linalg.solve_triangular(a, np.ones(3), lower=True, unit_diagonal=True))


def test_bad_arguments_raise_as_scipy_does():
    a, b = tg.eye(3), tg.ones((4, 2))
    with pytest.raises(ValueError, match="mismatch in its core dimension 0"):
        la.solve_triangular(a, b)
    with pytest.raises(ValueError, match="Incorrect value for trans"):
        la.solve_triangular(a, tg.ones(3), trans="X")
    with pytest.raises(np.linalg.LinAlgError, match="must be square"):
        la.solve_triangular(tg.ones((3, 2)), tg.ones(3))
    with pytest.raises(np.linalg.LinAlgError, match="at least two-dimensional"):
        la.solve_triangular(tg.ones(3), tg.ones(3))
