"""Rechunks under a memory budget smaller than one stage needs: planned in stages (``explain``
lists them), run within the budget (spilling what waits), values equal to NumPy's."""

import os

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tegula as tg

BUDGET = 16 << 20


def rechunk_ops(x):
    return sum(line.split("=", 1)[1].lstrip().startswith("rechunk(") for line in x.explain().splitlines() if "=" in line)


def sums(y, a):
    weights = np.arange(a.shape[1], dtype=np.int64)
    results, report = tg.compute(y.sum(axis=1), y.sum(axis=0), (y * weights).sum(), report=True)
    np.testing.assert_array_equal(results[0], a.sum(axis=1))
    np.testing.assert_array_equal(results[1], a.sum(axis=0))
    assert results[2] == (a * weights).sum()
    return report


def staged_sums(y, a, budget):
    """`sums` under `budget`, checking that the rechunk is staged and the measured peak stays
    within the budget; the run's report."""
    with tg.config.set(memory=budget):
        assert rechunk_ops(y) >= 2
        report = sums(y, a)
    assert report["peak_bytes"] <= budget
    return report


def blocks(n, draw):
    return draw(st.sampled_from([1, 2, 3, 7, 16, 33, 64, 99, 100, 128, 257, n]))


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_any_rechunk_within_a_small_budget_keeps_values(data):
    rows = data.draw(st.integers(1, 1500), label="rows")
    cols = data.draw(st.integers(1, 1500), label="cols")
    a = np.random.default_rng(data.draw(st.integers(0, 9))).integers(-1000, 1000, (rows, cols))
    before = (blocks(rows, data.draw), blocks(cols, data.draw))
    after = (blocks(rows, data.draw), blocks(cols, data.draw))
    if max(np.prod(before), np.prod(after)) * 8 > 1 << 20:
        return  # blocks of more than 1 MiB are too big to stage within this budget
    with tg.config.set(memory=BUDGET):
        y = tg.asarray(a, chunks=before).rechunk(after)
        assert y.chunks == tg.asarray(a, chunks=after).chunks
        report = sums(y, a)
    assert report["peak_bytes"] <= BUDGET


def test_column_strips_to_row_strips_are_staged_and_spill_within_the_budget():
    a = np.random.default_rng(0).integers(-1000, 1000, (2048, 2048))
    y = tg.asarray(a, chunks=(2048, 64)).rechunk((64, 2048))
    assert staged_sums(y, a, BUDGET)["spilled_bytes"] > 0
    assert rechunk_ops(y) == 1  # under the default budget one stage fits


def test_relatively_prime_blocks_across_a_transpose():
    a = np.random.default_rng(1).integers(-1000, 1000, (3000, 3000))
    y = tg.asarray(a, chunks=(3000, 100)).rechunk((999, 301))
    staged_sums(y, a, BUDGET)


def test_a_stored_array_rechunked_within_the_budget(tmp_path):
    a = np.random.default_rng(2).standard_normal((2048, 1536))
    path = os.path.join(tmp_path, "a.zarr")
    tg.asarray(a, chunks=(2048, 64)).to_zarr(path, chunks=(2048, 64))
    with tg.config.set(memory=BUDGET):
        x = tg.from_zarr(path, chunks=(2048, 64))
        y = x.rechunk((64, 1536))
        assert rechunk_ops(y) >= 2
        (got,), report = tg.compute(y.sum(axis=1), report=True)
    np.testing.assert_allclose(got, a.sum(axis=1), rtol=1e-12, atol=1e-12)
    assert report["peak_bytes"] <= BUDGET


def test_blocks_bigger_than_the_budget_allows_are_refused_before_running():
    a = np.zeros((2000, 2000))
    y = tg.asarray(a, chunks=1000).rechunk(999).sum()
    with tg.config.set(memory=8 << 20), pytest.raises(MemoryError, match="memory budget"):
        y.compute()


def test_1000_to_999_within_a_budget_smaller_than_one_stage():
    a = np.random.default_rng(3).integers(-1000, 1000, (3000, 3000))
    y = tg.asarray(a, chunks=(1000, 100)).rechunk(999)
    staged_sums(y, a, 32 << 20)
