"""``solve``, ``inv``, ``det`` and ``slogdet`` of matrices in several blocks by tiles (an LU
factorisation with partial pivoting by panels) against NumPy: random general matrices (their
pivots are not on the diagonal), ill-conditioned and singular ones, in blocks of any shape,
the size limit lowered so small matrices take the path of big ones."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

import tegula as tg
import tegula.linalg as la
from test_linalg_api import INEXACT, random, seeds, tiles_for_any_size

EPS = {np.dtype(d): np.finfo(d).eps for d in INEXACT}


def by_tiles(fn, *args):
    """``fn(*args)`` with every matrix in several blocks taken by tiles of its first block
    length, computed."""
    with tiles_for_any_size():
        out = fn(*args)
    return tuple(o.compute() for o in out) if isinstance(out, tuple) else out.compute()


def blocks(data, n):
    return data.draw(st.integers(max(1, n // 6), n)), data.draw(st.integers(max(1, n // 6), n))


def backward_error(a, x, b):
    """``|b - a x| / (|a| |x| + |b|)`` in the max norm of rows: how far the system ``x`` solves
    exactly is from the one asked."""
    a, x, b = (np.asarray(v, dtype=np.complex128) for v in (a, x, b))
    residual = np.abs(b - a @ x).max()
    return residual / (np.abs(a).sum(axis=1).max() * np.abs(x).max() + np.abs(b).max())


def no_worse_than_numpy(a, x, b, expected, dtype):
    """``x`` solves ``a x = b`` within NumPy's own backward error (or a few rounding errors of
    the dtype per row, where NumPy's is smaller still)."""
    floor = 8 * a.shape[0] * EPS[np.dtype(dtype)]
    assert backward_error(a, x, b) <= max(4 * backward_error(a, expected, b), floor)


@given(data=st.data(), n=st.integers(1, 24), k=st.integers(0, 5), dtype=st.sampled_from(INEXACT), seed=seeds)
def test_solve_and_inv_of_random_matrices(data, n, k, dtype, seed):
    rng = np.random.default_rng(seed)
    a, b = random(rng, (n, n), dtype), random(rng, (n, k) if k else (n,), dtype)
    rows, cols = blocks(data, n)
    x = by_tiles(la.solve, tg.asarray(a, chunks=(rows, cols)), tg.asarray(b, chunks=rows))
    expected = np.linalg.solve(a, b)
    assert (x.shape, x.dtype) == (expected.shape, expected.dtype)
    no_worse_than_numpy(a, x, b, expected, dtype)
    inverse = by_tiles(la.inv, tg.asarray(a, chunks=(rows, cols)))
    assert inverse.dtype == np.dtype(dtype)
    no_worse_than_numpy(a, inverse, np.eye(n, dtype=dtype), np.linalg.inv(a), dtype)


@given(data=st.data(), n=st.integers(1, 24), dtype=st.sampled_from(INEXACT), seed=seeds)
def test_det_and_slogdet_of_random_matrices(data, n, dtype, seed):
    a = random(np.random.default_rng(seed), (n, n), dtype)
    x = tg.asarray(a, chunks=blocks(data, n))
    sign, log = by_tiles(la.slogdet, x)
    expected = np.linalg.slogdet(a)
    tol = 1e-3 if EPS[np.dtype(dtype)] > 1e-10 else 1e-10
    assert (sign.dtype, log.dtype) == (expected.sign.dtype, expected.logabsdet.dtype)
    np.testing.assert_allclose(sign, expected.sign, rtol=tol, atol=tol)
    np.testing.assert_allclose(log, expected.logabsdet, rtol=tol, atol=tol * n)
    det = by_tiles(la.det, x)
    assert det.dtype == np.dtype(dtype)
    np.testing.assert_allclose(det, np.linalg.det(a), rtol=tol * n, atol=0)


@pytest.mark.parametrize("chunks", [(7, 7), (5, 9), (16, 3), (40, 40)])
def test_ill_conditioned_systems_are_solved_as_accurately_as_numpys(chunks):
    """Condition number 1e10: the answers differ from NumPy's by as much as the condition
    allows, but each solves its system as well as NumPy's does."""
    rng = np.random.default_rng(7)
    n = 40
    u, _ = np.linalg.qr(rng.standard_normal((n, n)))
    v, _ = np.linalg.qr(rng.standard_normal((n, n)))
    a = (u * np.logspace(0, -10, n)) @ v.T
    assert np.linalg.cond(a) > 1e9
    b = rng.standard_normal((n, 3))
    x = by_tiles(la.solve, tg.asarray(a, chunks=chunks), tg.asarray(b, chunks=(chunks[0], 2)))
    no_worse_than_numpy(a, x, b, np.linalg.solve(a, b), np.float64)
    no_worse_than_numpy(a, by_tiles(la.inv, tg.asarray(a, chunks=chunks)), np.eye(n), np.linalg.inv(a), np.float64)
    np.testing.assert_allclose(by_tiles(la.slogdet, tg.asarray(a, chunks=chunks)), np.linalg.slogdet(a), rtol=1e-8)


@pytest.mark.parametrize("zero", ["column", "row"])
def test_singular_matrices(zero):
    """A zero column or row: NumPy's solve and inv raise, its determinant is 0."""
    a = np.random.default_rng(3).standard_normal((9, 9))
    if zero == "column":
        a[:, 4] = 0
    else:
        a[6] = 0
    x = tg.asarray(a, chunks=4)
    for fn, args in [(la.solve, (x, tg.ones(9, chunks=4))), (la.inv, (x,))]:
        with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
            by_tiles(fn, *args)
    assert by_tiles(la.det, x) == np.linalg.det(a) == 0
    assert by_tiles(la.slogdet, x) == tuple(np.linalg.slogdet(a)) == (0, -np.inf)


def test_pivots_off_the_diagonal_integers_and_bad_shapes():
    # A permutation matrix: every pivot from another row, det the permutation's sign.
    p = np.eye(7)[[3, 0, 6, 1, 5, 2, 4]]
    x = tg.asarray(p, chunks=2)
    np.testing.assert_array_equal(by_tiles(la.inv, x), p.T)
    assert by_tiles(la.det, x) == np.linalg.det(p)
    integers = np.array([[2, 1, 0], [1, 3, 1], [0, 1, 4]])
    solved = by_tiles(la.solve, tg.asarray(integers, chunks=2), tg.asarray(np.array([1, 2, 3]), chunks=2))
    assert solved.dtype == np.float64
    np.testing.assert_allclose(solved, np.linalg.solve(integers, [1, 2, 3]))
    with pytest.raises(np.linalg.LinAlgError, match="must be square"):
        by_tiles(la.solve, tg.ones((4, 3), chunks=2), tg.ones(4, chunks=2))
    with pytest.raises(ValueError, match="mismatch"):
        by_tiles(la.solve, tg.ones((4, 4), chunks=2), tg.ones(5, chunks=2))


@pytest.mark.parametrize("p", [1, -1, np.inf, -np.inf, "fro", "nuc"])
@pytest.mark.parametrize("chunks", [4, (5, 3)])
def test_condition_numbers_from_the_tiled_inverse(p, chunks):
    """``cond`` in a norm other than 2 from the norms of the matrix and of its inverse by
    tiles; inf for a singular matrix (a zero column), as NumPy's (which raises for the nuclear
    norm); a tiny determinant (one that underflows) is not taken for a singular one."""
    rng = np.random.default_rng(4)
    a = rng.standard_normal((13, 13))
    np.testing.assert_allclose(by_tiles(la.cond, tg.asarray(a, chunks=chunks), p), np.linalg.cond(a, p), rtol=1e-10)
    tiny = a * 1e-30  # det ~ 1e-390: 0 in float64
    assert np.linalg.det(tiny) == 0
    np.testing.assert_allclose(by_tiles(la.cond, tg.asarray(tiny, chunks=chunks), p), np.linalg.cond(tiny, p), rtol=1e-10)
    a[:, 7] = 0
    assert by_tiles(la.cond, tg.asarray(a, chunks=chunks), p) == np.inf
    if p != "nuc":  # NumPy's raises there: the SVD of its inverse, all NaN, does not converge
        assert np.linalg.cond(a, p) == np.inf


@given(data=st.data(), stack=st.sampled_from([(1,), (3,), (2, 2)]), n=st.integers(2, 12), k=st.integers(1, 3),
       dtype=st.sampled_from(INEXACT), seed=seeds)
def test_stacks_of_big_matrices_are_factorised_matrix_by_matrix(data, stack, n, k, dtype, seed):
    """A stack of matrices, each in several blocks, takes each matrix by tiles: ``solve`` (its
    right-hand sides broadcast over the stack), ``inv``, ``slogdet``, ``det`` and ``cholesky``
    of each equal NumPy's of the stack."""
    rng = np.random.default_rng(seed)
    a, b = random(rng, stack + (n, n), dtype), random(rng, (n, k), dtype)
    rows, cols = blocks(data, n)
    chunks = (1,) * (len(stack) - 1) + (data.draw(st.integers(1, stack[-1])), rows, cols)
    x = tg.asarray(a, chunks=chunks)
    solved = by_tiles(la.solve, x, tg.asarray(b, chunks=(rows, 1)))
    inverse = by_tiles(la.inv, x)
    assert solved.shape == stack + (n, k) and inverse.shape == a.shape
    for i in np.ndindex(*stack):
        no_worse_than_numpy(a[i], solved[i], b, np.linalg.solve(a[i], b), dtype)
        no_worse_than_numpy(a[i], inverse[i], np.eye(n, dtype=dtype), np.linalg.inv(a[i]), dtype)
    tol = 1e-3 if EPS[np.dtype(dtype)] > 1e-10 else 1e-10
    sign, log = by_tiles(la.slogdet, x)
    expected = np.linalg.slogdet(a)
    np.testing.assert_allclose(sign, expected.sign, rtol=tol, atol=tol)
    np.testing.assert_allclose(log, expected.logabsdet, rtol=tol, atol=tol * n)
    np.testing.assert_allclose(by_tiles(la.det, x), np.linalg.det(a), rtol=tol * n, atol=0)
    spd = a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n, dtype=dtype)
    factor = by_tiles(la.cholesky, tg.asarray(spd, chunks=chunks))
    np.testing.assert_allclose(factor, np.linalg.cholesky(spd), rtol=tol, atol=tol * np.abs(spd).max())


def test_a_singular_matrix_in_a_stack_is_refused_as_numpy_refuses_it():
    a = np.random.default_rng(5).standard_normal((3, 9, 9))
    a[1, :, 4] = 0
    x = tg.asarray(a, chunks=(1, 4, 4))
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        by_tiles(la.inv, x)
    np.testing.assert_array_equal(by_tiles(la.det, x) == 0, np.linalg.det(a) == 0)
