"""The ``tegula.linalg`` namespace against ``numpy.linalg``: random well-conditioned stacks of
matrices in random chunkings, float32/float64/complex64/complex128. Where a decomposition is not
unique (signs and phases of QR, SVD and eigenvectors), the invariants are checked instead."""

import contextlib

import numpy as np
import pytest
from hypothesis import given, strategies as st

import tegula as tg
import tegula.linalg as la
from strategies import chunkings

INEXACT = [np.dtype(d) for d in ("float32", "float64", "complex64", "complex128")]
DOUBLE = [np.dtype("float64"), np.dtype("complex128")]


def tolerance(dtype):
    return 2e-3 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-9


def close(actual, expected, dtype=None, scale=1.0):
    actual = actual.compute() if isinstance(actual, tg.Array) else actual
    expected = np.asarray(expected)
    assert actual.shape == expected.shape
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    tol = tolerance(dtype or expected.dtype)
    np.testing.assert_allclose(actual, expected, rtol=tol, atol=tol * scale)


def chunked(data, a):
    return tg.asarray(a, chunks=data.draw(chunkings(a.shape))[0])


def random(rng, shape, dtype):
    a = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def hermitian_pd(rng, shape, dtype):
    """``B B^H + n I``: Hermitian, positive definite and well conditioned."""
    b = random(rng, shape, dtype)
    n = shape[-1]
    return (b @ np.conj(np.swapaxes(b, -1, -2)) + n * np.eye(n)).astype(dtype)


def well_conditioned(rng, shape, dtype):
    """A random matrix plus a dominant diagonal."""
    return (random(rng, shape, dtype) + 2 * shape[-1] * np.eye(shape[-1])).astype(dtype)


stacks = st.lists(st.integers(0, 3), max_size=2).map(tuple)
sides = st.integers(1, 4)
seeds = st.integers(0, 2**32 - 1)


def adjoint(a):
    return np.conj(np.swapaxes(a, -1, -2))


# --- factorisations with unique results ------------------------------------------------------

@given(data=st.data(), stack=stacks, n=sides, dtype=st.sampled_from(INEXACT), upper=st.booleans(), seed=seeds)
def test_cholesky(data, stack, n, dtype, upper, seed):
    a = hermitian_pd(np.random.default_rng(seed), stack + (n, n), dtype)
    close(la.cholesky(chunked(data, a), upper=upper), np.linalg.cholesky(a, upper=upper), scale=n)


@given(data=st.data(), stack=stacks, n=sides, dtype=st.sampled_from(INEXACT), seed=seeds)
def test_inv_det_slogdet(data, stack, n, dtype, seed):
    a = well_conditioned(np.random.default_rng(seed), stack + (n, n), dtype)
    x = chunked(data, a)
    close(la.inv(x), np.linalg.inv(a))
    close(la.det(x), np.linalg.det(a), scale=float(np.abs(np.linalg.det(a)).max(initial=1)))
    sign, logabsdet = la.slogdet(x)
    expected = np.linalg.slogdet(a)
    close(sign, expected.sign)
    close(logabsdet, expected.logabsdet, scale=10)


@given(data=st.data(), stack=stacks, other=stacks, n=sides, k=st.integers(0, 3), dtype=st.sampled_from(INEXACT),
       vector=st.booleans(), seed=seeds)
def test_solve_broadcasts_stacks(data, stack, other, n, k, dtype, vector, seed):
    rng = np.random.default_rng(seed)
    a = well_conditioned(rng, stack + (n, n), dtype)
    other = data.draw(st.sampled_from([stack, stack[1:], (1,) * len(stack), other]))
    b = random(rng, (n,) if vector else other + (n, k), dtype)
    try:
        expected = np.linalg.solve(a, b)
    except ValueError:  # stacks that do not broadcast
        with pytest.raises(ValueError):
            la.solve(chunked(data, a), chunked(data, b))
        return
    close(la.solve(chunked(data, a), chunked(data, b)), expected, scale=10)


@given(data=st.data(), stack=stacks, n=sides, dtype=st.sampled_from(INEXACT), seed=seeds)
def test_eigvalsh_and_pinv_of_full_rank(data, stack, n, dtype, seed):
    a = hermitian_pd(np.random.default_rng(seed), stack + (n, n), dtype)
    x = chunked(data, a)
    close(la.eigvalsh(x), np.linalg.eigvalsh(a), scale=10 * n)
    close(la.pinv(x), np.linalg.pinv(a, rtol=None))


def test_integer_input_computes_in_float64():
    a = np.array([[4, 1], [2, 3]], dtype=np.int32)
    x = tg.asarray(a)
    for name in ("inv", "det", "svdvals", "eigvalsh", "pinv"):
        out = getattr(la, name)(x)
        expected = getattr(np.linalg, name)(a)
        assert out.dtype == expected.dtype == np.float64
        np.testing.assert_allclose(out.compute(), expected, rtol=1e-12)


# --- decompositions checked by their invariants ----------------------------------------------

@given(data=st.data(), stack=stacks, m=sides, n=sides, rank=sides, dtype=st.sampled_from(INEXACT),
       mode=st.sampled_from(["reduced", "complete"]), seed=seeds)
def test_qr(data, stack, m, n, rank, dtype, mode, seed):
    rng = np.random.default_rng(seed)
    a = random(rng, stack + (m, min(rank, m, n)), dtype) @ random(rng, stack + (min(rank, m, n), n), dtype)
    q, r = la.qr(chunked(data, a), mode=mode)
    expected = np.linalg.qr(a, mode=mode)
    q, r = q.compute(), r.compute()
    assert q.shape == expected.Q.shape and r.shape == expected.R.shape
    assert q.dtype == r.dtype == a.dtype
    assert (np.triu(r) == r).all()
    close(q @ r, a, scale=10)
    close(adjoint(q) @ q, np.broadcast_to(np.eye(q.shape[-1]), stack + (q.shape[-1],) * 2).astype(dtype))


@given(data=st.data(), stack=stacks, m=sides, n=sides, rank=sides, dtype=st.sampled_from(INEXACT),
       full=st.booleans(), seed=seeds)
def test_svd(data, stack, m, n, rank, dtype, full, seed):
    rng = np.random.default_rng(seed)
    a = random(rng, stack + (m, min(rank, m, n)), dtype) @ random(rng, stack + (min(rank, m, n), n), dtype)
    x = chunked(data, a)
    u, s, vh = la.svd(x, full_matrices=full)
    expected = np.linalg.svd(a, full_matrices=full)
    scale = 10 * float(np.abs(a).max(initial=1))
    close(s, expected.S, scale=scale)
    close(la.svdvals(x), np.linalg.svdvals(a), scale=scale)
    u, vh = u.compute(), vh.compute()
    assert u.shape == expected.U.shape and vh.shape == expected.Vh.shape
    assert u.dtype == vh.dtype == a.dtype
    k = min(m, n)
    close(u[..., :k] * s.compute()[..., None, :].astype(dtype) @ vh[..., :k, :], a, scale=scale)
    for factor in (adjoint(u) @ u, vh @ adjoint(vh)):
        close(factor, np.broadcast_to(np.eye(factor.shape[-1]), factor.shape).astype(dtype))


@contextlib.contextmanager
def linalg_limit(name, limit):
    """Runs with ``tegula.linalg``'s size limit ``name`` lowered, so small inputs take the paths
    of big ones: ``_TSQR_BLOCK_BYTES`` (TSQR in several levels), ``_WHOLE_MATRIX_BYTES`` (QR and
    Cholesky in tiles), ``_MIN_TILE`` (tiles smaller than 512)."""
    saved = getattr(la, name)
    setattr(la, name, limit)
    try:
        yield
    finally:
        setattr(la, name, saved)


@contextlib.contextmanager
def tiles_for_any_size():
    """Runs with every matrix in several blocks taken by tiles of its blocks, however small."""
    with linalg_limit("_WHOLE_MATRIX_BYTES", 0), linalg_limit("_MIN_TILE", 1):
        yield


@given(data=st.data(), extra=st.integers(1, 75), n=st.integers(1, 6), rank=st.integers(0, 6),
       dtype=st.sampled_from(INEXACT), level_bytes=st.sampled_from([1, 200, 2**30]), seed=seeds)
def test_tall_skinny_qr_and_svd_in_row_blocks(data, extra, n, rank, dtype, level_bytes, seed):
    """Tall matrices in several row blocks (some shorter than the matrix is wide) go through
    TSQR, in one level or several; rank-deficient ones too."""
    rng = np.random.default_rng(seed)
    m = n + extra
    r = min(rank, n)
    a = random(rng, (m, r), dtype) @ random(rng, (r, n), dtype) if r < n else random(rng, (m, n), dtype)
    rows = data.draw(st.integers(1, m - 1))
    x = tg.asarray(a, chunks=(rows, data.draw(st.integers(1, n))))
    scale = 10 * float(np.abs(a).max(initial=1))
    with linalg_limit("_TSQR_BLOCK_BYTES", level_bytes):
        q, r_ = (f.compute() for f in la.qr(x))
        u, s, vh = (f.compute() for f in la.svd(x, full_matrices=False))
        sv = la.svdvals(x).compute()
    assert q.shape == (m, n) and r_.shape == (n, n) and q.dtype == r_.dtype == a.dtype
    assert (np.triu(r_) == r_).all()
    close(q @ r_, a, scale=scale)
    close(adjoint(q) @ q, np.eye(n, dtype=dtype))
    expected = np.linalg.svd(a, full_matrices=False)
    assert u.shape == expected.U.shape and vh.shape == expected.Vh.shape and s.dtype == expected.S.dtype
    close(s, expected.S, scale=scale)
    close(sv, expected.S, scale=scale)
    close(u * s[None, :].astype(dtype) @ vh, a, scale=scale)
    close(adjoint(u) @ u, np.eye(n, dtype=dtype))
    close(vh @ adjoint(vh), np.eye(n, dtype=dtype))


@given(data=st.data(), n=st.integers(1, 30), dtype=st.sampled_from(INEXACT), upper=st.booleans(), seed=seeds)
def test_tiled_cholesky(data, n, dtype, upper, seed):
    """Hermitian positive-definite matrices in blocks of any shape, factorised by tiles of the
    smaller first block length: NumPy's factor, with the strict upper triangle (NaN here)
    never read."""
    a = hermitian_pd(np.random.default_rng(seed), (n, n), dtype)
    garbage = np.where(np.triu(np.ones((n, n), dtype=bool), 1), np.nan, a).astype(dtype)
    x = tg.asarray(garbage, chunks=(data.draw(st.integers(max(1, n // 5), n)), data.draw(st.integers(max(1, n // 5), n))))
    with tiles_for_any_size():
        factor = la.cholesky(x, upper=upper)
    close(factor, np.linalg.cholesky(a, upper=upper), scale=n)


def test_tiled_cholesky_of_integers_and_of_indefinite_matrices():
    a = np.array([[4, 2, 0], [2, 5, 3], [0, 3, 10]])
    with tiles_for_any_size():
        factor = la.cholesky(tg.asarray(a, chunks=2))
        assert factor.dtype == np.float64
        close(factor, np.linalg.cholesky(a))
        indefinite = la.cholesky(tg.asarray(np.array([[1.0, 2.0], [2.0, 1.0]]), chunks=1))
        with pytest.raises(np.linalg.LinAlgError, match=r"not positive definite \(in diagonal tile 1 "):
            indefinite.compute()
        with pytest.raises(np.linalg.LinAlgError, match="must be square"):
            la.cholesky(tg.ones((4, 3), chunks=2))


@given(data=st.data(), m=st.integers(1, 30), n=st.integers(1, 30), rank=st.integers(0, 30),
       dtype=st.sampled_from(INEXACT), mode=st.sampled_from(["reduced", "complete"]), seed=seeds)
def test_tiled_qr(data, m, n, rank, dtype, mode, seed):
    """Matrices in blocks of any shape (wide, tall, square, rank-deficient) factorised in
    tiles: ``Q R`` is the matrix, ``Q`` has orthonormal columns, ``R`` is upper triangular
    with NumPy's shapes, and ``|R|``'s diagonal is NumPy's where the rank is full."""
    rng = np.random.default_rng(seed)
    r = min(rank, m, n)
    a = random(rng, (m, r), dtype) @ random(rng, (r, n), dtype)
    x = tg.asarray(a, chunks=(data.draw(st.integers(max(1, m // 4), m)), data.draw(st.integers(max(1, n // 4), n))))
    with linalg_limit("_WHOLE_MATRIX_BYTES", 0):
        q, r_ = (f.compute() for f in la.qr(x, mode=mode))
    expected = np.linalg.qr(a, mode=mode)
    assert q.shape == expected.Q.shape and r_.shape == expected.R.shape and q.dtype == r_.dtype == a.dtype
    assert (np.triu(r_) == r_).all()
    scale = 10 * float(np.abs(a).max(initial=1))
    close(q @ r_, a, scale=scale)
    close(adjoint(q) @ q, np.eye(q.shape[1], dtype=dtype))
    if r == min(m, n):
        close(np.abs(np.diagonal(r_)), np.abs(np.diagonal(expected.R)), scale=scale)


def test_tall_skinny_integer_input_factorises_in_float64():
    a = np.arange(40, dtype=np.int32).reshape(20, 2) % 7
    q, r = la.qr(tg.asarray(a, chunks=(3, 2)))
    assert q.dtype == r.dtype == np.float64
    np.testing.assert_allclose(q.compute() @ r.compute(), a, atol=1e-12)
    np.testing.assert_allclose(la.svdvals(tg.asarray(a, chunks=(3, 2))).compute(), np.linalg.svdvals(a), rtol=1e-12)


@given(data=st.data(), stack=stacks, n=sides, dtype=st.sampled_from(INEXACT), seed=seeds)
def test_eigh(data, stack, n, dtype, seed):
    a = hermitian_pd(np.random.default_rng(seed), stack + (n, n), dtype)
    w, v = la.eigh(chunked(data, a))
    expected = np.linalg.eigh(a)
    close(w, expected.eigenvalues, scale=10 * n)
    v = v.compute()
    assert v.shape == a.shape and v.dtype == a.dtype
    close(a @ v, v * w.compute()[..., None, :].astype(dtype), scale=10 * n)


def same_values(actual, expected, tol):
    """Each value of the last axis of ``expected`` is within ``tol`` of one of ``actual``'s, and
    the other way round (eigenvalues in no specified order)."""
    distance = np.abs(actual[..., :, None] - expected[..., None, :])
    assert (distance.min(axis=-1, initial=0) <= tol).all() and (distance.min(axis=-2, initial=0) <= tol).all()


@given(data=st.data(), stack=stacks, n=sides, dtype=st.sampled_from(INEXACT), seed=seeds)
def test_eig_and_eigvals(data, stack, n, dtype, seed):
    a = random(np.random.default_rng(seed), stack + (n, n), dtype)
    x = chunked(data, a)
    w, v = la.eig(x)
    complex_dtype = np.result_type(dtype, np.complex64)
    assert w.dtype == v.dtype == complex_dtype and w.shape == a.shape[:-1] and v.shape == a.shape
    w, v = w.compute(), v.compute()
    tol = 10 * n * tolerance(dtype)
    same_values(w, np.linalg.eigvals(a), tol)
    same_values(la.eigvals(x).compute(), np.linalg.eigvals(a), tol)
    close(a @ v, v * w[..., None, :], dtype=dtype, scale=10 * n)
    close(np.linalg.norm(v, axis=-2), np.ones(a.shape[:-1], dtype=np.dtype(dtype).type(0).real.dtype),
          dtype=dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_matrices_near_overflow_are_scaled(dtype):
    big = np.finfo(dtype).max / 4
    a = (np.array([[1.0, 0.5], [0.25, 1.0]]) * big).astype(dtype)
    with np.errstate(over="ignore"):
        close(la.svdvals(tg.asarray(a)), np.linalg.svd(a.astype(np.float64), compute_uv=False).astype(dtype))
    close(la.eigvalsh(tg.asarray(a + a.T / 2)), np.linalg.eigvalsh((a + a.T / 2).astype(np.float64)).astype(dtype))
    same_values(la.eigvals(tg.asarray(a)).compute() / big, np.linalg.eigvals(a.astype(np.float64)) / big, 1e-3)
    u, s, vh = (f.compute() for f in la.svd(tg.asarray(a)))
    close(u @ np.diag(s.astype(np.float64) / big) @ vh, a.astype(np.float64) / big, dtype=dtype)


@given(data=st.data(), stack=stacks, m=sides, n=sides, rank=st.integers(0, 4), dtype=st.sampled_from(DOUBLE),
       seed=seeds)
def test_rank_deficient_pinv_and_matrix_rank(data, stack, m, n, rank, dtype, seed):
    rng = np.random.default_rng(seed)
    r = min(rank, m, n)
    a = random(rng, stack + (m, r), dtype) @ random(rng, stack + (r, n), dtype)
    x = chunked(data, a)
    close(la.pinv(x), np.linalg.pinv(a, rtol=None), scale=10)
    rank_ = la.matrix_rank(x)
    assert rank_.dtype == np.int64
    np.testing.assert_array_equal(rank_.compute(), np.linalg.matrix_rank(a, rtol=None))
    assert (rank_.compute() == r).all()
    rtol = rng.uniform(0, 1, stack)
    close(la.pinv(x, rtol=tg.asarray(rtol)), np.linalg.pinv(a, rtol=rtol), scale=10)
    np.testing.assert_array_equal(la.matrix_rank(x, rtol=0.5).compute(), np.linalg.matrix_rank(a, rtol=0.5))


def test_empty_matrices():
    for shape in ((0, 0), (2, 0, 0)):
        a = np.zeros(shape)
        close(la.det(tg.asarray(a)), np.linalg.det(a))
        close(la.inv(tg.asarray(a)), np.linalg.inv(a))
    for shape in ((0, 3), (3, 0)):
        a = np.zeros(shape)
        for full in (True, False):
            for got, want in zip(la.svd(tg.asarray(a), full_matrices=full), np.linalg.svd(a, full_matrices=full)):
                close(got, want)
        close(la.pinv(tg.asarray(a)), np.linalg.pinv(a, rtol=None))
        close(la.svdvals(tg.asarray(a)), np.linalg.svdvals(a))


def test_result_tuples_have_the_standard_field_names():
    x = tg.asarray(np.eye(3) * 2)
    assert la.eigh(x)._fields == la.eig(x)._fields == ("eigenvalues", "eigenvectors")
    assert la.qr(x)._fields == ("Q", "R")
    assert la.slogdet(x)._fields == ("sign", "logabsdet")
    assert la.svd(x)._fields == ("U", "S", "Vh")


# --- errors ----------------------------------------------------------------------------------

@pytest.mark.parametrize("fn", [la.inv, la.det, la.cholesky, la.eigh, la.eigvalsh, la.eig, la.eigvals, la.slogdet,
                                lambda x: la.solve(x, x), lambda x: la.matrix_power(x, 2)])
def test_non_square_is_a_linalg_error(fn):
    with pytest.raises(np.linalg.LinAlgError):
        fn(tg.asarray(np.ones((2, 3))))


@pytest.mark.parametrize("fn", [la.inv, la.svd, la.qr, la.pinv, la.det])
def test_one_dimensional_input_is_a_linalg_error(fn):
    with pytest.raises(np.linalg.LinAlgError):
        fn(tg.asarray(np.ones(3)))


def test_singular_matrices_fail_when_computed():
    singular = tg.asarray(np.stack([np.eye(2), [[1.0, 2.0], [2.0, 4.0]]]), chunks=(1, 2, 2))
    for out in (la.inv(singular), la.solve(singular, tg.ones((2, 2, 1)))):
        with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
            out.compute()
        with pytest.raises(ValueError):  # LinAlgError is a ValueError
            out.compute()
    np.testing.assert_array_equal(la.det(singular).compute(), [1.0, 0.0])
    sign, logabsdet = la.slogdet(singular)
    np.testing.assert_array_equal(sign.compute(), [1.0, 0.0])
    np.testing.assert_array_equal(logabsdet.compute(), [0.0, -np.inf])


def test_not_positive_definite_cholesky_fails_when_computed():
    with pytest.raises(np.linalg.LinAlgError):
        la.cholesky(tg.asarray(np.array([[1.0, 2.0], [2.0, 1.0]]))).compute()


def test_float16_is_a_type_error():
    with pytest.raises(TypeError):
        la.inv(tg.asarray(np.eye(2, dtype=np.float16)))


def test_bad_qr_mode():
    with pytest.raises(ValueError):
        la.qr(tg.asarray(np.eye(2)), mode="r")


# --- compositions ----------------------------------------------------------------------------

@given(data=st.data(), stack=stacks, m=st.integers(0, 4), n=st.integers(0, 4), offset=st.integers(-5, 5),
       dtype=st.sampled_from(["int8", "float64", "complex64", "bool"]), seed=seeds)
def test_diagonal_and_trace(data, stack, m, n, offset, dtype, seed):
    a = random(np.random.default_rng(seed), stack + (m, n), "complex128" if dtype == "complex64" else "float64")
    a = (a * 10).astype(dtype)
    x = chunked(data, a)
    np.testing.assert_array_equal(la.diagonal(x, offset=offset).compute(), np.linalg.diagonal(a, offset=offset))
    out, expected = la.trace(x, offset=offset), np.linalg.trace(a, offset=offset)
    assert out.dtype == expected.dtype
    np.testing.assert_allclose(out.compute(), expected, rtol=1e-5)
    if dtype != "bool":
        assert la.trace(x, offset=offset, dtype="float64").dtype == np.float64


@given(data=st.data(), stack=stacks, dtype=st.sampled_from(["int32", "float32", "float64", "complex128"]),
       axis=st.sampled_from([-1, -2]), seed=seeds)
def test_cross(data, stack, dtype, axis, seed):
    rng = np.random.default_rng(seed)
    shape = (3, 2) if axis == -2 else (2, 3)
    a = (random(rng, stack + shape, "float64") * 10).astype(dtype)
    b = (random(rng, shape, "float64") * 10).astype(dtype)
    close(la.cross(chunked(data, a), chunked(data, b), axis=axis), np.linalg.cross(a, b, axis=axis))


def test_cross_needs_three_elements():
    with pytest.raises(ValueError):
        la.cross(tg.ones((2,)), tg.ones((2,)))


@given(data=st.data(), shape=st.lists(st.integers(0, 4), min_size=1, max_size=3).map(tuple),
       dtype=st.sampled_from(["int16", "float32", "float64", "complex64"]),
       ord=st.sampled_from([2, 1, 0, np.inf, -np.inf, 3, 0.5]), keepdims=st.booleans(), seed=seeds,
       axis_choice=st.integers(0, 2))
def test_vector_norm(data, shape, dtype, ord, keepdims, seed, axis_choice):
    a = (random(np.random.default_rng(seed), shape, "complex128" if dtype == "complex64" else "float64") * 5).astype(dtype)
    axis = [None, -1, tuple(range(len(shape)))][axis_choice]
    sizes = shape if axis is None else (shape[-1],) if axis == -1 else shape
    if ord in (np.inf, -np.inf) and 0 in sizes:
        return  # NumPy: zero-size reduction without identity
    expected = np.linalg.vector_norm(a, axis=axis, keepdims=keepdims, ord=ord)
    close(la.vector_norm(chunked(data, a), axis=axis, keepdims=keepdims, ord=ord), expected,
          scale=float(np.abs(expected).max(initial=1)))


@given(data=st.data(), stack=stacks, m=sides, n=sides, dtype=st.sampled_from(INEXACT + [np.dtype("int64")]),
       ord=st.sampled_from(["fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf]), keepdims=st.booleans(), seed=seeds)
def test_matrix_norm(data, stack, m, n, dtype, ord, keepdims, seed):
    a = (random(np.random.default_rng(seed), stack + (m, n), "complex128" if dtype.kind == "c" else "float64") * 5)
    a = a.astype(dtype)
    expected = np.linalg.matrix_norm(a, keepdims=keepdims, ord=ord)
    close(la.matrix_norm(chunked(data, a), keepdims=keepdims, ord=ord), expected,
          scale=float(np.abs(expected).max(initial=1)))


@given(data=st.data(), stack=stacks, n=sides, power=st.integers(-3, 5), dtype=st.sampled_from(["int64", "float64", "complex128"]),
       seed=seeds)
def test_matrix_power(data, stack, n, power, dtype, seed):
    rng = np.random.default_rng(seed)
    if dtype == "int64":
        # Diagonally dominant: whether a singular matrix's LU pivot comes out exactly zero
        # depends on rounding, so faer and LAPACK need not agree on singular ones.
        a = rng.integers(-3, 4, stack + (n, n)) + 4 * n * np.eye(n, dtype=np.int64)
    else:
        a = well_conditioned(rng, stack + (n, n), dtype) / n
    expected = np.linalg.matrix_power(a, power)
    close(la.matrix_power(chunked(data, a), power), expected, scale=float(np.abs(expected).max(initial=1)))


def test_reexported_matrix_functions():
    a, b = np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(3, 4)
    close(la.matmul(tg.asarray(a), tg.asarray(b)), np.linalg.matmul(a, b))
    close(la.matrix_transpose(tg.asarray(a)), np.linalg.matrix_transpose(a))
    close(la.outer(tg.asarray(a[0]), tg.asarray(b[0])), np.linalg.outer(a[0], b[0]))
    close(la.vecdot(tg.asarray(a), tg.asarray(a)), np.linalg.vecdot(a, a))
    close(la.tensordot(tg.asarray(a), tg.asarray(b), axes=1), np.linalg.tensordot(a, b, axes=1))


# --- NumPy's extras: norm and lstsq ------------------------------------------------------------

@given(data=st.data(), shape=st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple),
       dtype=st.sampled_from(INEXACT), keepdims=st.booleans(), seed=seeds)
def test_norm_matches_numpy(data, shape, dtype, keepdims, seed):
    a = random(np.random.default_rng(seed), shape, dtype)
    x = chunked(data, a)
    form = data.draw(st.sampled_from(["all", "vector", "matrix"] if a.ndim >= 2 else ["all", "vector"]))
    if form == "all":
        ord_, axis = None, None
    elif form == "vector":
        ord_, axis = data.draw(st.sampled_from([None, 1, 2, 3, np.inf, -np.inf, 0])), data.draw(st.integers(-a.ndim, a.ndim - 1))
    else:
        ord_ = data.draw(st.sampled_from([None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf]))
        axis = tuple(data.draw(st.permutations(range(a.ndim)))[:2])
    close(la.norm(x, ord=ord_, axis=axis, keepdims=keepdims), np.linalg.norm(a, ord=ord_, axis=axis, keepdims=keepdims),
          dtype=dtype, scale=10)


@given(data=st.data(), m=st.integers(1, 6), n=sides, k=st.integers(0, 3), rank=st.integers(0, 4),
       dtype=st.sampled_from(DOUBLE), seed=seeds)
def test_lstsq_matches_numpy(data, m, n, k, rank, dtype, seed):
    rng = np.random.default_rng(seed)
    r = min(rank, m, n)
    a = random(rng, (m, r), dtype) @ random(rng, (r, n), dtype)
    b = random(rng, (m,) if k == 0 else (m, k), dtype)
    got = la.lstsq(chunked(data, a), chunked(data, b))
    want = np.linalg.lstsq(a, b, rcond=None)
    close(got[0], want[0], scale=10)
    close(got[1], want[1], scale=10)
    assert got[2] == want[2]
    close(got[3], want[3], scale=10)


def test_norm_and_lstsq_errors():
    with pytest.raises(ValueError, match="Improper number of dimensions"):
        la.norm(tg.ones((2, 2, 2)), ord=2)
    with pytest.raises(ValueError, match="Duplicate axes"):
        la.norm(tg.ones((2, 2)), axis=(0, 0))
    with pytest.raises(np.exceptions.AxisError):
        la.norm(tg.ones((2, 2)), axis=2)
    with pytest.raises(np.linalg.LinAlgError):
        la.lstsq(tg.ones((3, 2)), tg.ones(4))


# --- randomized SVD -------------------------------------------------------------------------

def with_singular_values(rng, m, n, values, dtype):
    """An ``m``×``n`` matrix whose non-zero singular values are ``values``."""
    r = len(values)
    u = np.linalg.qr(random(rng, (m, r), dtype)).Q
    v = np.linalg.qr(random(rng, (n, r), dtype)).Q
    return ((u * np.asarray(values)) @ adjoint(v)).astype(dtype)


@given(data=st.data(), m=st.integers(1, 40), n=st.integers(1, 40), dtype=st.sampled_from(INEXACT),
       iterator=st.sampled_from(["power", "QR"]), power=st.integers(0, 2), seed=seeds)
def test_svd_compressed_of_a_matrix_of_low_rank_is_exact(data, m, n, dtype, iterator, power, seed):
    """When the rank is at most the sample width, the basis spans the whole range: the ``k``
    triplets reproduce the matrix, the singular values are NumPy's (zeros past the rank) and
    the singular vectors are orthonormal."""
    rng = np.random.default_rng(seed)
    k = data.draw(st.integers(1, min(m, n)))
    rank = data.draw(st.integers(0, k))
    a = with_singular_values(rng, m, n, np.linspace(2, 1, rank), dtype)
    x = chunked(data, a)
    oversamples = data.draw(st.integers(0, 5))
    u, s, vh = (f.compute() for f in la.svd_compressed(
        x, k, n_power_iter=power, n_oversamples=oversamples, iterator=iterator, seed=seed))
    expected = np.linalg.svd(a, compute_uv=False)[:k]
    assert u.shape == (m, k) and s.shape == (k,) and vh.shape == (k, n)
    assert u.dtype == vh.dtype == a.dtype and s.dtype == expected.dtype
    close(s, expected, scale=2)
    close(u * s.astype(dtype) @ vh, a, scale=2)
    close(adjoint(u) @ u, np.eye(k, dtype=dtype))
    close(vh @ adjoint(vh), np.eye(k, dtype=dtype))
    assert (vh.sum(axis=1).real >= -tolerance(dtype)).all()  # coerce_signs


@given(data=st.data(), m=st.integers(30, 80), n=st.integers(30, 80), k=st.integers(1, 5), seed=seeds)
def test_svd_compressed_finds_the_leading_values_of_a_decaying_spectrum(data, m, n, k, seed):
    """A full-rank matrix whose singular values halve one after another: ten extra samples and
    two power iterations leave the leading ``k`` values and the best rank-``k`` approximation
    within 1e-6 of the exact ones."""
    rng = np.random.default_rng(seed)
    values = 0.5 ** np.arange(min(m, n))
    a = with_singular_values(rng, m, n, values, np.float64)
    u, s, vh = (f.compute() for f in la.svd_compressed(chunked(data, a), k, n_power_iter=2, seed=seed))
    np.testing.assert_allclose(s, values[:k], rtol=0, atol=1e-6)
    eu, es, evh = np.linalg.svd(a, full_matrices=False)
    np.testing.assert_allclose(u * s @ vh, eu[:, :k] * es[:k] @ evh[:k], rtol=0, atol=1e-6)


def test_svd_compressed_depends_on_the_seed_only():
    a = np.random.default_rng(5).standard_normal((50, 30))
    first = [f.compute() for f in la.svd_compressed(tg.asarray(a, chunks=(7, 11)), 3, seed=42)]
    again = [f.compute() for f in la.svd_compressed(tg.asarray(a, chunks=(7, 11)), 3, seed=42)]
    for f, g in zip(first, again):
        np.testing.assert_array_equal(f, g)


def test_svd_compressed_integer_input_factorises_in_float64():
    a = np.arange(60).reshape(12, 5) % 7
    u, s, vh = la.svd_compressed(tg.asarray(a, chunks=4), 5, seed=0)
    assert u.dtype == s.dtype == vh.dtype == np.float64
    np.testing.assert_allclose((u * s @ vh).compute(), a, atol=1e-10)


@pytest.mark.parametrize("args, kwargs", [
    ((tg.ones((4, 3)), 0), {}),
    ((tg.ones((4, 3)), 4), {}),
    ((tg.ones(4), 1), {}),
    ((tg.ones((4, 3)), 2), {"iterator": "lanczos"}),
    ((tg.ones((4, 3)), 2), {"n_power_iter": -1}),
    ((tg.ones((4, 3)), 2), {"n_oversamples": -1}),
])
def test_svd_compressed_refuses_bad_arguments(args, kwargs):
    with pytest.raises(ValueError):
        la.svd_compressed(*args, **kwargs)


@given(data=st.data(), stack=stacks, m=sides, n=sides, dtype=st.sampled_from(INEXACT), full=st.booleans(),
       seed=seeds)
def test_results_computed_together_equal_each_computed_alone(data, stack, m, n, dtype, full, seed):
    # Computed together, the results of one factorisation come from one task per block with
    # several outputs; each must be what that result computed alone is (values alone are
    # computed without vectors, so to rounding), and NumPy's where the result is unique.
    rng = np.random.default_rng(seed)
    square = well_conditioned(rng, stack + (n, n), dtype)
    cases = [la.svd(chunked(data, random(rng, stack + (m, n), dtype)), full_matrices=full),
             la.qr(chunked(data, random(rng, stack + (m, n), dtype)), mode="complete" if full else "reduced"),
             la.eigh(chunked(data, hermitian_pd(rng, stack + (n, n), dtype))),
             la.eig(chunked(data, square)),
             la.slogdet(chunked(data, square))]
    for results in cases:
        together = tg.compute(*results)
        for result, value in zip(results, together):
            close(value, result.compute(), scale=10 * max(m, n))
    sign, logdet = tg.compute(*cases[-1])
    expected = np.linalg.slogdet(square)
    close(sign, expected.sign)
    close(logdet, expected.logabsdet, scale=10)
