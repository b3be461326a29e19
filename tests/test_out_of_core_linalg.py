"""Factorisations of a matrix stored as Zarr and larger than the memory budget: Cholesky (written
back to Zarr) and LU-based `solve` run within the budget, spill what does not fit, and give the
same bits as the unbounded computation (the budget changes the order, never the arithmetic),
within NumPy's accuracy."""

import numpy as np
import pytest

import tegula as tg
import tegula.linalg as la
from test_linalg_api import tiles_for_any_size


def stored_spd(path, n, block, seed):
    """A symmetric positive definite matrix of `n`² as Zarr in `block`² chunks, and its values."""
    rng = np.random.default_rng(seed)
    g = rng.standard_normal((n, n))
    a = g @ g.T / n + np.eye(n)
    tg.asarray(a, chunks=block).to_zarr(path)
    return tg.from_zarr(path, chunks=block), a


def by_tiles(fn, *args):
    """`fn(*args)` planned by tiles of the matrix's blocks (the size limit lowered, so small
    matrices take the path of big ones)."""
    with tiles_for_any_size():
        return fn(*args)


def widest_task(n, block):
    """Room for the widest task (a column of blocks, the panel beside it and the result, and a
    kernel's scratch) and a little more: less than half the matrix for the sizes below."""
    return 3 * n * block * 8 + (3 << 19)


def spilled_within(budget, spill, fn):
    """`fn()`'s report under `budget`, checked: spilled, held within the budget, spill removed."""
    with tg.config.set(memory=budget, spill_dir=spill):
        out, report = fn()
    assert report["spilled_bytes"] > 0, report
    assert report["peak_bytes"] <= report["memory"] == budget, report
    assert list(spill.iterdir()) == []
    return out


@pytest.mark.parametrize("n, block", [(1200, 100), (1450, 150), (1600, 200)])
def test_cholesky_of_a_stored_matrix_twice_the_budget(tmp_path, n, block):
    a, values = stored_spd(tmp_path / "a.zarr", n, block, seed=n)
    budget = widest_task(n, block)
    spill = tmp_path / "spill"
    spill.mkdir()
    factor = by_tiles(la.cholesky, a)
    # On threads: the process pool's plan for it projects up to 4% past the budget (noted in
    # the issue; its `solve` below stays within).
    with tg.config.set(scheduler="threads"):
        spilled_within(budget, spill, lambda: (None, factor.to_zarr(tmp_path / "l.zarr")))
    got = np.asarray(tg.from_zarr(tmp_path / "l.zarr"))
    assert got.tobytes() == np.asarray(factor).tobytes()
    np.testing.assert_allclose(got @ got.T, values, rtol=0, atol=1e-13 * n)
    np.testing.assert_allclose(got, np.linalg.cholesky(values), rtol=0, atol=1e-12)


@pytest.mark.parametrize("n, block, k, scheduler", [(1200, 100, 16, "threads"), (1450, 150, 3, "threads"),
                                                    (1600, 200, 1, "threads"), (1200, 100, 5, "processes")])
def test_solve_of_a_stored_matrix_twice_the_budget(tmp_path, n, block, k, scheduler):
    a, values = stored_spd(tmp_path / "a.zarr", n, block, seed=n + k)
    rng = np.random.default_rng(k)
    # A general matrix (pivots off the diagonal), not only the symmetric one.
    a = a + tg.asarray(rng.standard_normal((n, n)), chunks=block)
    values = np.asarray(a)
    b = rng.standard_normal((n, k))
    budget = widest_task(n, block)
    spill = tmp_path / "spill"
    spill.mkdir()
    x = by_tiles(la.solve, a, tg.asarray(b, chunks=(block, k)))
    (got,) = spilled_within(budget, spill, lambda: tg.compute(x, report=True, scheduler=scheduler))
    assert got.tobytes() == np.asarray(x).tobytes()
    expected = np.linalg.solve(values, b)
    scale = np.linalg.norm(values, 1) * np.abs(expected).max()
    assert np.abs(values @ got - b).max() <= 10 * np.abs(values @ expected - b).max() + 1e-14 * scale
