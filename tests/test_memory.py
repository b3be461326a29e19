"""The memory budget: settings, plans refused before running, spilling, and results that do
not depend on the budget. Expected values come from NumPy or from the same plan computed
without a budget."""

import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, strategies as st

import tegula as tg
from strategies import ALL_DTYPES, chunkings, shapes
from test_execution import expressions

KERNEL_SCRATCH = 1 << 20  # what the projection allows a kernel beside its inputs and result


def test_config_set_get_and_restore():
    default = tg.config.get("memory")
    assert default > 0
    with tg.config.set(memory="1.5GB") as ctx:
        assert tg.config.get("memory") == 1_500_000_000
        with tg.config.set(memory=12345, spill_dir="/somewhere"):
            assert tg.config.get("memory") == 12345 and tg.config.get("spill_dir") == "/somewhere"
        assert tg.config.get("memory") == 1_500_000_000
    assert ctx is not None and tg.config.get("memory") == default
    tg.config.set(memory="2GiB")
    try:
        assert tg.config.get("memory") == 2 << 30
    finally:
        tg.config._settings.clear()
    assert tg.config.get("memory") == default


@pytest.mark.parametrize("bad, exc", [("lots", ValueError), ("0", ValueError), (-5, ValueError), (0, ValueError),
                                      (True, ValueError), (None, TypeError)])
def test_bad_budgets_are_refused(bad, exc):
    with pytest.raises(exc):
        tg.config.set(memory=bad)
    assert "memory" not in tg.config.explicit()


def test_unknown_settings_are_refused():
    with pytest.raises(TypeError):
        tg.config.set(memroy="1GB")
    with pytest.raises(KeyError):
        tg.config.get("memroy")


def _python(code, **env):
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("TEGULA_")} | env
    return subprocess.run([sys.executable, "-c", code], env=full_env, capture_output=True, text=True)


def test_the_environment_sets_the_default():
    out = _python("import tegula as tg; print(tg.config.get('memory'), tg.config.get('spill_dir'))",
                  TEGULA_MEMORY="123MB", TEGULA_SPILL_DIR="/spill/here")
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["123000000", "/spill/here"]
    bad = _python("import tegula as tg; tg.ones(3).sum().compute()", TEGULA_MEMORY="plenty")
    assert bad.returncode != 0 and "ValueError" in bad.stderr and "TEGULA_MEMORY" in bad.stderr


def test_a_task_that_cannot_fit_is_refused_before_running():
    x = tg.ones((4000, 4000), chunks=-1)  # one 128 MB block
    with tg.config.set(memory="64MB"):
        with pytest.raises(MemoryError, match="smaller chunks") as info:
            (x * 2).compute()
        assert "multiply" in str(info.value) and "122.1 MiB" in str(info.value)
        # Summing never holds the block: the fused reduction reads the constant in place.
        assert float((x * 2).sum().compute()) == 32_000_000
        # The same data in smaller blocks fits (a quarter of it: the whole result would not).
        assert (tg.ones((4000, 4000), chunks=1000) * 2)[:1000].compute().sum() == 8_000_000


def test_explain_shows_projected_peak_and_budget():
    x = tg.ones((1000, 1000), chunks=250)
    with tg.config.set(memory="3GB"):
        text = (x + 1).sum().explain()
    assert "projected peak memory" in text and "memory budget 2.8 GiB" in text


@given(expr=expressions(), workers=st.sampled_from([1, 2, 4]))
def test_results_do_not_depend_on_the_budget(expr, workers, tmp_path_factory):
    spill = tmp_path_factory.mktemp("spill")
    free = expr.x.compute(num_workers=workers)
    budget = KERNEL_SCRATCH + (64 << 10)
    with tg.config.set(memory=budget, spill_dir=spill):
        (bounded,), report = tg.compute(expr.x, num_workers=workers, report=True)
    assert bounded.dtype == free.dtype and bounded.tobytes() == free.tobytes()
    assert report["peak_bytes"] <= report["projected_peak_bytes"] <= report["memory"] == budget
    assert list(spill.iterdir()) == []


def smallest_budget(run, low, high, spill):
    """The least memory budget in (low, high] under which `run` is not refused as too big for
    it, found by bisection (a refused plan does not run; an accepted one runs, spilling to
    `spill`)."""
    while high - low > 1:
        mid = (low + high) // 2
        try:
            with tg.config.set(memory=mid, spill_dir=spill):
                run()
            high = mid
        except MemoryError:
            low = mid
    return high


@given(dtype=st.sampled_from(ALL_DTYPES), data=st.data())
def test_spilled_chunks_round_trip_bit_exactly(dtype, data, tmp_path_factory):
    shape = data.draw(shapes(min_dims=1, max_dims=3, min_side=2, max_side=6))
    # Blocks of at least two elements along the first axis (so at least two bytes).
    shape = (2 * shape[0],) + shape[1:]
    chunks = (2 * data.draw(st.integers(1, shape[0] // 2 - 1)),) + data.draw(chunkings(shape[1:]))[1]
    raw = np.random.default_rng(data.draw(st.integers(0, 2**32))).integers(0, 256, size=int(np.prod(shape)) * dtype.itemsize,
                                                                             dtype=np.uint8)
    a = (raw % 2).astype(bool).reshape(shape) if dtype == bool else raw.view(dtype).reshape(shape)
    key = tuple(slice(None, None, -1) for _ in shape)
    spill = tmp_path_factory.mktemp("spill")
    # Blocks of their own (`where` copies each element's bits, unfused), not views of `a`,
    # which are dropped and taken again rather than spilled; each is an output that a
    # comparison with a reduction of all of them reads, so each waits for the others.
    v = tg.asarray(a, chunks=chunks)[key]
    x = tg.where(True, v, v)

    def run():
        return tg.compute(x, (x == x) | (x != x).any(), report=True, scheduler="threads", fuse=False)

    # The least budget the plan is accepted with (room for its biggest task): every block but
    # those being read goes to disk and comes back.
    budget = smallest_budget(run, KERNEL_SCRATCH, KERNEL_SCRATCH + 8 * x.nbytes + 1024, spill)
    # The threaded executor's spilling (the process pool's is tested in test_executors.py).
    with tg.config.set(memory=budget, spill_dir=spill):
        (out, same), report = run()
    assert out.dtype == a.dtype and out.tobytes() == np.ascontiguousarray(a[key]).tobytes()
    np.testing.assert_array_equal(same, (a[key] == a[key]) | (a != a).any())
    assert report["spilled_bytes"] > 0
    assert list(spill.iterdir()) == []


def test_spilling_happens_and_the_process_stays_usable_after_a_failure(tmp_path):
    rng = tg.random.default_rng(1)
    # sin(...) makes u and v stored blocks (random numbers alone are generated again in each
    # consumer); u[::-1] * v pairs the first blocks of v with the last of u, so most of u must
    # be held at once: more than the budget, whatever the timing of the threads.
    u = tg.sin(rng.random(2_000_000, chunks=100_000))
    v = tg.sin(rng.random(2_000_000, chunks=100_000))
    exprs = [(u * v).mean(), u.mean(), v.mean(), (u ** 2).mean(), (u[::-1] * v).sum()]
    expected = tg.compute(*exprs)
    with tg.config.set(memory="4MB", spill_dir=tmp_path):
        got, report = tg.compute(*exprs, report=True)
    assert [g.tobytes() for g in got] == [e.tobytes() for e in expected]
    assert report["spilled_bytes"] > 0 and report["projected_peak_bytes"] <= 4_000_000
    assert list(tmp_path.iterdir()) == []
    not_a_dir = tmp_path / "file"
    not_a_dir.write_bytes(b"x")
    with tg.config.set(memory="4MB", spill_dir=not_a_dir):
        with pytest.raises(OSError):
            tg.compute(*exprs)
    assert [g.tobytes() for g in tg.compute(*exprs)] == [e.tobytes() for e in expected]


@pytest.mark.parametrize("workers, blocks", [(1, 2), (2, 4), (4, 8)])
def test_shared_inputs_are_consumed_block_by_block(workers, blocks):
    """The "quadratic means": each block of u and v feeds four means; a block must feed them
    all and be freed before the next one is made, whatever the number of threads."""
    rng = tg.random.default_rng(3)
    # sin(...) so that u and v are stored blocks (random numbers alone are generated again
    # inside each consumer and never held).
    u, v = tg.sin(rng.random(400_000, chunks=20_000)), tg.sin(rng.random(400_000, chunks=20_000))
    means = [(u * v).mean(), u.mean(), v.mean(), (u ** 2).mean()]
    _, report = tg.compute(*means, scheduler="threads", num_workers=workers, report=True)
    block = 20_000 * 8
    assert report["peak_bytes"] <= blocks * block + 4096, report


def test_two_reductions_of_stacked_rows_hold_a_few_row_blocks():
    """Dask's ordering example in small: three reductions over arrays that share inputs, each
    output block depending on one row block of every input."""
    rng = tg.random.default_rng(4)
    x1, y1, x2, y2 = (tg.sin(rng.random((400, 300), chunks=(20, 300))) for _ in range(4))
    pairs = [(x1, y1), (x2, y2), (x1 ** 2 + x2 ** 2, y1 ** 2 + y2 ** 2)]
    results, report = tg.compute(*[abs(a - b).mean(axis=-1) for a, b in pairs], scheduler="threads", num_workers=1,
                                 report=True)
    total = 4 * 400 * 300 * 8
    assert report["peak_bytes"] <= total / 5, report
    a1, b1, a2, b2 = (np.asarray(t) for t in (x1, y1, x2, y2))
    np.testing.assert_allclose(results[2], np.abs(a1 ** 2 + a2 ** 2 - b1 ** 2 - b2 ** 2).mean(axis=-1), rtol=1e-12)
