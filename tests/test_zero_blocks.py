"""Blocks of zeros in a returned array are not written where the array's pages hold zeros
already (never touched), and are written wherever anything else was: pages that took memory
the computation freed (old values), or that blocks beside them share. Arrays of several
megabytes, so their pages are tracked."""
import numpy as np
import pytest
import tegula as tg


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int16, np.bool_, np.complex128])
@pytest.mark.parametrize("chunks", [(700, 500), (512, 1000), (333, 250)])
def test_zero_blocks_among_others_equal_numpy(dtype, chunks):
    rng = np.random.default_rng(5)
    a = (rng.standard_normal((1400, 1000)) * 100).astype(dtype)
    x = tg.asarray(a, chunks=chunks)
    # The intermediate blocks (x * 3, unfused, then + 1) are freed while the result is
    # written, so its pages take their old values; the zeros lie beside those blocks in every
    # row.
    parts = [x * 3 + 1, tg.zeros((1400, 1500), dtype=dtype, chunks=chunks), x.T[:, :1400].T * 2, tg.zeros((1400, 333), dtype=dtype, chunks=chunks)]
    (got,) = tg.compute(tg.concatenate(parts, axis=1), fuse=False)
    expected = np.concatenate([a * 3 + 1, np.zeros((1400, 1500), dtype), a.T[:, :1400].T * 2, np.zeros((1400, 333), dtype)], axis=1)
    np.testing.assert_array_equal(got, expected)


def test_negative_zero_blocks_keep_their_sign():
    x = tg.full((2000, 1500), -0.0, chunks=(500, 300))
    y = tg.concatenate([x, tg.zeros((2000, 700), chunks=(500, 300)), tg.ones((2000, 100), chunks=(500, 300))], axis=1)
    got = y.compute()
    assert np.signbit(got[:, :1500]).all() and not np.signbit(got[:, 1500:]).any()
    np.testing.assert_array_equal(got[:, 2200:], 1.0)


def test_an_array_of_zeros_alone_and_a_factor_with_zeros_above():
    np.testing.assert_array_equal(tg.zeros((3000, 2000), chunks=(1000, 700)).compute(), np.zeros((3000, 2000)))
    rng = np.random.default_rng(1)
    b = rng.standard_normal((1500, 1500))
    spd = b @ b.T + 1500 * np.eye(1500)
    for blocks in (500, 400):
        got = tg.linalg.cholesky(tg.asarray(spd, chunks=blocks)).compute()
        assert (np.triu(got, 1) == 0).all()
        np.testing.assert_allclose(got, np.linalg.cholesky(spd), rtol=1e-10, atol=1e-10)
