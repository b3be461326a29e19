"""``lstsq`` of matrices at least as tall as wide in several blocks, through one QR of ``a`` and
``b`` side by side (TSQR for row blocks, tiles for a big matrix in several column blocks),
against NumPy: solutions, residuals within 1e-8 relative, rank and singular values."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

import tegula as tg
import tegula.linalg as la
from test_linalg_api import INEXACT, close, linalg_limit, random, seeds


@given(data=st.data(), m=st.integers(1, 60), n=st.integers(1, 12), k=st.integers(0, 3), rank=st.integers(1, 12),
       dtype=st.sampled_from(INEXACT), tiles=st.booleans(), seed=seeds)
def test_lstsq_of_tall_and_square_matrices_in_blocks(data, m, n, k, rank, dtype, tiles, seed):
    n = min(n, m)
    rng = np.random.default_rng(seed)
    r = min(rank, n)
    a = (random(rng, (m, r), dtype) @ random(rng, (r, n), dtype)).astype(dtype)
    b = random(rng, (m,) if k == 0 else (m, k), dtype)
    rows, cols = data.draw(st.integers(1, m)), data.draw(st.integers(1, n))
    with linalg_limit("_WHOLE_MATRIX_BYTES", 0 if tiles else 2**30), linalg_limit("_MIN_TILE", 1):
        got = la.lstsq(tg.asarray(a, chunks=(rows, cols)), tg.asarray(b, chunks=rows), rcond=None)
        x, residuals, s = (v.compute() for v in (got[0], got[1], got[3]))
    want = np.linalg.lstsq(a, b, rcond=None)
    close(s, want[3], scale=10)
    # NumPy computes in double precision, so its cutoff is double's; a singular value between
    # it and the noise of the dtype's rounding makes the rank and the solution the rounding's.
    cutoff = max(m, n) * np.finfo(np.float64).eps * want[3].max()
    noise = 100 * max(m, n) * np.finfo(dtype).eps * want[3].max()
    if np.any((want[3] > cutoff / 1e3) & (want[3] < noise)):
        return
    assert got[2] == want[2]
    close(x, want[0], scale=10)
    assert residuals.shape == want[1].shape and residuals.dtype == want[1].dtype
    if residuals.size and np.dtype(dtype) in (np.float64, np.complex128):
        np.testing.assert_allclose(residuals, want[1], rtol=1e-8, atol=1e-12 * np.abs(b).max() ** 2)


@pytest.mark.parametrize("chunks", [(250, 20), (100, 7), (1000, 20)])
def test_tall_lstsq_residuals_are_numpys(chunks):
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal((1000, 20)), rng.standard_normal((1000, 3))
    got = la.lstsq(tg.asarray(a, chunks=chunks), tg.asarray(b, chunks=(chunks[0], 3)))
    want = np.linalg.lstsq(a, b, rcond=None)
    np.testing.assert_allclose(got[1].compute(), want[1], rtol=1e-8)
    np.testing.assert_allclose(got[0].compute(), want[0], rtol=1e-8, atol=1e-12)
    assert got[2] == want[2] == 20
