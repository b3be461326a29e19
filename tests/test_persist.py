"""``tg.persist`` / ``x.persist()``: arrays computed once whose blocks are kept (in memory while
all kept together stay within half the budget, on disk in the spill directory beyond it). Later computations read the
kept blocks and give NumPy's results; the bytes kept in memory count against every later budget
and are freed, with the blocks on disk, when the last array reading them is dropped. (The Ray
and Dask executors persist in their own test files.)"""

import gc
import os
import tempfile

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tegula as tg
from tegula import _tegula
from strategies import chunkings, shapes
from test_executors import SCHEDULERS

DTYPES = ["float64", "float32", "int32", "int64", "bool", "complex128"]


def values(rng, shape, dtype):
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype.startswith("complex"):
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    return (rng.standard_normal(shape) * 100).astype(dtype)


def kept_dirs(spill_dir):
    return [d for d in os.listdir(spill_dir) if d.startswith("tegula-kept-")]


@settings(max_examples=40, deadline=None)
@given(
    data=st.data(),
    shape=shapes(min_dims=1, max_dims=3, min_side=1, max_side=12),
    dtype=st.sampled_from(DTYPES),
    small_budget=st.booleans(),
    scheduler=st.sampled_from(SCHEDULERS),
)
def test_persisted_arrays_give_numpys_results(data, shape, dtype, small_budget, scheduler):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32)))
    a = values(rng, shape, dtype)
    chunks = data.draw(chunkings(shape))[0]
    x = tg.asarray(a, chunks=chunks)
    y = x * 2 if dtype != "bool" else ~x
    expected_y = a * 2 if dtype != "bool" else ~a
    spill_dir = tempfile.mkdtemp()
    arrays = [y, x]
    settings = {"spill_dir": spill_dir}
    if small_budget:
        # A filler persisted first leaves `room` bytes of the share kept in memory (half the
        # budget), so some rows of blocks of y and x (or all of them) are kept on disk.
        gc.collect()
        settings["memory"] = 3 << 20
        share = (3 << 20) // 2 - _tegula.kept_bytes()
        room = data.draw(st.integers(0, 2 * a.nbytes))
        arrays.insert(0, tg.zeros(-(-(share - room) // 8), chunks=-1))  # leaves `room` bytes at most
    with tg.config.set(**settings):
        kept_y, kept_x = tg.persist(*arrays, scheduler=scheduler)[-2:]
        if small_budget and room < y.nbytes + x.nbytes:
            assert len(kept_dirs(spill_dir)) == 1, "nothing was kept on disk"
        assert kept_y.chunks == y.chunks and kept_x.chunks == x.chunks
        assert kept_y.dtype == y.dtype
        np.testing.assert_array_equal(kept_y.compute(), expected_y)
        # The same blocks as x's, so the same reduction tree: the same bits.
        total = kept_x.sum(axis=0).compute()
        assert total.tobytes() == x.sum(axis=0).compute().tobytes()
        np.testing.assert_allclose(total, a.sum(axis=0), rtol=1e-5 if dtype == "float32" else 1e-12)
        flipped = tuple(slice(None, None, -1) for _ in shape)
        np.testing.assert_array_equal(kept_y[flipped].compute(scheduler=scheduler), expected_y[flipped])
    del kept_y, kept_x
    gc.collect()
    assert kept_dirs(spill_dir) == []
    os.rmdir(spill_dir)


def test_a_persisted_array_is_not_computed_again():
    calls = []

    def counted(block):
        calls.append(block.shape)
        return block + 1

    # On threads, so the calls are counted in this process (the suite also runs on processes).
    x = tg.map_blocks(counted, tg.arange(100, chunks=30), dtype="int64")
    kept = x.persist(scheduler="threads")
    assert len(calls) == 4
    np.testing.assert_array_equal(kept.compute(scheduler="threads"), np.arange(100) + 1)
    np.testing.assert_array_equal((kept * kept).sum().compute(scheduler="threads"), ((np.arange(100) + 1) ** 2).sum())
    assert len(calls) == 4


def test_kept_bytes_count_against_the_budget_until_dropped():
    gc.collect()
    before = _tegula.kept_bytes()
    a = np.random.default_rng(1).standard_normal((400, 300))
    with tg.config.set(memory="100MB"):
        kept = tg.asarray(a, chunks=(100, 100)).persist()
        assert _tegula.kept_bytes() == before + a.nbytes
        derived = (kept + 1).T
        _, info = tg.compute(derived, report=True)
        assert info["memory"] == 100_000_000 - before - a.nbytes
        del kept
        gc.collect()
        assert _tegula.kept_bytes() == before + a.nbytes, "a lazy array still reads the kept blocks"
        np.testing.assert_array_equal(derived.compute(), (a + 1).T)
        del derived
        gc.collect()
        assert _tegula.kept_bytes() == before
        _, info = tg.compute(tg.ones(3), report=True)
        assert info["memory"] == 100_000_000 - before


def test_blocks_beyond_half_the_budget_are_kept_on_disk(tmp_path):
    gc.collect()
    before = _tegula.kept_bytes()
    a = np.random.default_rng(2).standard_normal((4000, 200))
    with tg.config.set(memory="3MB", spill_dir=str(tmp_path)):
        kept = tg.persist(tg.asarray(a, chunks=(50, 200)) - 1)[0]
        # 6.4 MB of values in rows of blocks of 80 kB: those that fit beside what is kept,
        # within half the budget, are kept in memory.
        rows = (3_000_000 // 2 - before) // 80_000
        assert 0 < rows < 80 and _tegula.kept_bytes() - before == rows * 80_000
        assert len(kept_dirs(tmp_path)) == 1
        np.testing.assert_allclose((kept * kept).sum().compute(), ((a - 1) ** 2).sum())
    np.testing.assert_array_equal(kept.compute(), a - 1)
    del kept
    gc.collect()
    assert _tegula.kept_bytes() == before
    assert kept_dirs(tmp_path) == []


def test_a_budget_all_kept_is_refused_with_a_memory_error():
    gc.collect()
    with tg.config.set(memory="20MB"):
        kept = tg.ones((1000, 1000), chunks=250).persist()
        assert _tegula.kept_bytes() >= 8_000_000
    with tg.config.set(memory=_tegula.kept_bytes()), pytest.raises(MemoryError, match="persisted arrays keep"):
        (kept + 1).compute()
    del kept


def test_arrays_kept_past_half_a_smaller_budget_send_the_next_persist_to_disk(tmp_path):
    gc.collect()
    a = np.random.default_rng(4).standard_normal((400, 300))
    with tg.config.set(memory=40_000_000):
        first = tg.ones((1000, 1000), chunks=250).persist()
    # Half of this budget is less than the arrays kept: the next array goes to disk whole.
    with tg.config.set(memory=_tegula.kept_bytes() + 6_000_000, spill_dir=str(tmp_path)):
        before = _tegula.kept_bytes()
        second = tg.persist(tg.asarray(a, chunks=(100, 150)) - 1)[0]
        assert _tegula.kept_bytes() == before and len(kept_dirs(tmp_path)) == 1
        np.testing.assert_array_equal(second.compute(), a - 1)
    del first, second


def test_persist_returns_other_arguments_unchanged_and_keeps_attributes(tmp_path):
    tg.to_zarr(tg.arange(10, chunks=5), f"{tmp_path}/a.zarr", attrs={"units": "m"})
    x = tg.from_zarr(f"{tmp_path}/a.zarr")
    kept, three, none = tg.persist(x, 3, None)
    assert (three, none) == (3, None)
    assert kept.attrs == {"units": "m"}
    (_, ), info = tg.persist(x, report=True)
    assert info["tasks"] >= 1 and "peak_bytes" in info
