"""Every executor against the threaded one and NumPy: the process pool (``scheduler="processes"``)
runs the same plans in worker processes, whole fragments at a time, and must give the threaded
executor's results bit for bit; functions, exceptions, stores and spilling cross processes; a
worker killed mid-compute is replaced. (The whole suite also runs under ``TEGULA_SCHEDULER=processes``
in ``scripts/test.sh``.)"""

import os
import signal
import threading
import time

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tegula as tg
from tegula import _tegula
from test_execution import expressions

SCHEDULERS = ["serial", "threads", "processes"]


def worker_pids():
    """This process's pool workers, from /proc."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                parent = int(f.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                command = f.read()
        except OSError:
            continue
        if parent == os.getpid() and b"tegula._worker" in command:
            pids.append(int(entry))
    return pids


@settings(max_examples=40)
@given(expr=expressions(), scheduler=st.sampled_from(SCHEDULERS), workers=st.sampled_from([None, 1, 3]))
def test_every_executor_gives_the_threaded_results_bit_for_bit(expr, scheduler, workers):
    expected = expr.x.compute(scheduler="threads")
    got = expr.x.compute(scheduler=scheduler, num_workers=workers)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert got.tobytes() == expected.tobytes()


def test_factorisations_are_the_same_bits_on_every_executor():
    # Blocks big enough that faer splits its work: the split count is fixed, not the cores'.
    a = np.random.default_rng(3).standard_normal((900, 300))
    x = tg.asarray(a, chunks=(300, 300))
    exprs = [*tg.linalg.qr(x), tg.linalg.svdvals(x), tg.linalg.eigh(x.T @ x)[0], tg.linalg.qr(x[:300])[1]]
    expected = tg.compute(*exprs, scheduler="threads")
    for scheduler in ["serial", "processes"]:
        for e, g in zip(expected, tg.compute(*exprs, scheduler=scheduler, num_workers=2)):
            assert g.tobytes() == e.tobytes(), scheduler


@pytest.mark.parametrize("dtype", ["int8", "uint64", "float16", "complex64", "bool"])
def test_shared_outputs_and_dtypes_cross_processes(dtype):
    a = (np.arange(3 * 70 * 50) % 97).reshape(3, 70, 50).astype(dtype)
    x = tg.asarray(a, chunks=(2, 20, 15))
    y = x[1:] if dtype == "bool" else x[1:] * 3
    exprs = [y, y.sum(axis=1), y.T, tg.sort(y.reshape(-1)) if dtype != "complex64" else y[:, ::-1]]
    expected = tg.compute(*exprs, scheduler="threads")
    got = tg.compute(*exprs, scheduler="processes", num_workers=2)
    for e, g in zip(expected, got):
        assert g.dtype == e.dtype and g.tobytes() == e.tobytes()


_THROUGH_FILES = """
import numpy as np, tegula as tg
for dtype in ["int16", "float64", "bool", "complex128"]:
    a = (np.arange(4 * 60 * 30) % 89).reshape(4, 60, 30).astype(dtype)
    x = tg.asarray(a, chunks=(3, 25, 12))
    y = x[:, ::2] if dtype == "bool" else x[:, ::2] * 2
    exprs = [y, y.sum(axis=2), y.T, x[1:3, 5:40].astype("float32")]
    expected = tg.compute(*exprs, scheduler="threads")
    for e, g in zip(expected, tg.compute(*exprs, scheduler="processes", num_workers=2)):
        assert g.dtype == e.dtype and g.tobytes() == e.tobytes(), dtype
print("same")
"""


def test_arrays_and_results_pass_through_files_where_workers_may_not_read_the_caller():
    # Workers read the caller's arrays and write results into its memory where the kernel
    # lets them (the rest of this module); TEGULA_SHARE_ARRAYS=files takes the way of a
    # machine where it does not.
    import subprocess
    import sys

    env = dict(os.environ, TEGULA_SHARE_ARRAYS="files")
    done = subprocess.run([sys.executable, "-c", _THROUGH_FILES], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "same", done.stderr[-3000:]


def test_map_blocks_with_a_closure_runs_in_the_workers():
    a = np.arange(40 * 30, dtype=np.float64).reshape(40, 30)
    scale = 2.5
    y = tg.map_blocks(lambda b: b * scale + os.getpid() * 0, tg.asarray(a, chunks=(10, 10)))
    pids = tg.map_blocks(lambda b: np.full(b.shape, os.getpid()), tg.asarray(a, chunks=(10, 10)), dtype=np.int64)
    out, where = tg.compute(y, pids, scheduler="processes", num_workers=2)
    np.testing.assert_array_equal(out, a * scale)
    assert os.getpid() not in set(np.unique(where)), "the blocks were computed in worker processes"


def test_an_exception_in_a_worker_is_raised_as_itself():
    class Refused(Exception):
        pass

    def refuse(block):
        if block.sum() > 100:
            raise Refused(f"block summing to {block.sum():g}")
        return block

    y = tg.map_blocks(refuse, tg.asarray(np.arange(100.0), chunks=10), dtype=np.float64)
    with pytest.raises(Refused, match="block summing to"):
        y.compute(scheduler="processes", num_workers=2)
    with pytest.raises(KeyError, match="missing"):
        tg.map_blocks(lambda b: {}["missing"], tg.ones(10, chunks=5), dtype=np.float64).compute(scheduler="processes")
    # The pool is still usable.
    assert float(tg.ones(10, chunks=5).sum().compute(scheduler="processes")) == 10.0


def test_an_error_in_one_of_many_short_fragments_stops_the_computation():
    # 400 blocks: many short fragments, each dispatcher taking the next while its worker runs
    # one; a row of NaNs fails one of them, as NumPy fails, and the pool stays usable.
    a = np.random.default_rng(0).random((4000, 50))
    a[3100] = np.nan
    with pytest.raises(ValueError, match="All-NaN slice"):
        np.nanargmax(a, axis=1)
    with pytest.raises(ValueError, match="All-NaN slice"):
        tg.nanargmax(tg.asarray(a, chunks=(10, 50)), axis=1).compute(scheduler="processes", num_workers=2)
    got = tg.nanargmax(tg.asarray(a[:3000], chunks=(10, 50)), axis=1).compute(scheduler="processes", num_workers=2)
    np.testing.assert_array_equal(got, np.nanargmax(a[:3000], axis=1))


def test_zarr_is_read_by_the_workers_and_written(tmp_path):
    a = np.random.default_rng(1).standard_normal((60, 45))
    source, target = str(tmp_path / "a.zarr"), str(tmp_path / "b.zarr")
    tg.to_zarr(tg.asarray(a, chunks=(20, 15)), source)
    x = tg.from_zarr(source)
    got = (x.T @ x).compute(scheduler="processes")
    np.testing.assert_array_equal(got, (x.T @ x).compute(scheduler="threads"))
    # NumPy's BLAS sums in an order of its own (it depends on the CPU and on a.T's layout).
    np.testing.assert_allclose(got, a.T @ a, rtol=1e-13, atol=1e-13)
    with tg.config.set(scheduler="processes", num_workers=2):
        tg.to_zarr(tg.sqrt(abs(x)) + 1, target)
    np.testing.assert_array_equal(np.asarray(tg.from_zarr(target)), np.sqrt(np.abs(a)) + 1)


def test_a_replaced_zarr_array_is_not_read_by_a_worker(tmp_path):
    path = str(tmp_path / "a.zarr")
    tg.to_zarr(tg.zeros((8, 8), chunks=4), path, chunks=4)
    old = tg.from_zarr(path)
    tg.to_zarr(tg.ones((8, 8), chunks=4), path, chunks=4, overwrite=True)
    with pytest.raises(OSError, match="replaced"):
        (old + 1).compute(scheduler="processes")


def test_blocks_beyond_the_budget_go_to_the_spill_directory(tmp_path):
    rng = tg.random.default_rng(2)
    u = tg.sin(rng.random(1_000_000, chunks=50_000))
    exprs = [(u[::-1] * u).sum(), u.mean(), (u**2).max()]
    expected = tg.compute(*exprs, scheduler="threads")
    with tg.config.set(memory="3MB", spill_dir=str(tmp_path)):
        got, report = tg.compute(*exprs, scheduler="processes", num_workers=2, report=True)
    assert [g.tobytes() for g in got] == [e.tobytes() for e in expected]
    assert report["spilled_bytes"] > 0
    assert list(tmp_path.iterdir()) == []


def test_a_killed_worker_is_replaced_and_its_work_done_again():
    def slow(block):
        time.sleep(0.05)
        return block + 1

    a = np.arange(4000.0)
    y = tg.map_blocks(slow, tg.asarray(a, chunks=100), dtype=np.float64)
    tg.ones(4, chunks=2).sum().compute(scheduler="processes", num_workers=2)  # workers started
    killed = []

    def kill_one():
        time.sleep(0.4)
        pids = worker_pids()
        if pids:
            os.kill(pids[0], signal.SIGKILL)
            killed.append(pids[0])

    killer = threading.Thread(target=kill_one)
    killer.start()
    out = y.compute(scheduler="processes", num_workers=2)
    killer.join()
    assert killed, "no worker was found to kill"
    np.testing.assert_array_equal(out, a + 1)


def test_fragments_run_from_their_bytes_give_the_threaded_results():
    a = np.random.default_rng(3).standard_normal((1200, 800))
    x = tg.asarray(a, chunks=(300, 170))
    y = (tg.exp(x) - x.mean(axis=0)) @ x.T
    fragments, (blocks,) = _tegula.plan_fragments([y._h])
    assert len(fragments) > 1
    results = {}
    for fragment, inputs, outputs in fragments:
        out = _tegula.run_fragment(fragment, [results[t] for t in inputs])
        results.update(zip(outputs, out))
    grid = [[results[blocks[i * y.numblocks[1] + j]] for j in range(y.numblocks[1])] for i in range(y.numblocks[0])]
    assert np.block(grid).tobytes() == y.compute(scheduler="threads").tobytes()
    with pytest.raises(ValueError, match="not a tegula plan fragment"):
        _tegula.run_fragment(b"\x05\x01", [])


def test_bad_executor_settings_are_value_errors():
    with pytest.raises(ValueError, match="num_workers"):
        tg.ones(4).compute(scheduler="processes", num_workers=0)
    with pytest.raises(ValueError, match="unknown scheduler"):
        tg.ones(4).compute(scheduler="process")


def test_pools_of_killed_processes_are_removed_from_shared_memory():
    import subprocess
    import sys

    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    stale = f"/dev/shm/tegula-pool-{int(gone.stdout)}-0"
    os.makedirs(stale, exist_ok=True)
    with open(os.path.join(stale, "array-1.npy"), "wb") as f:
        f.write(b"x" * 1000)
    assert float(tg.ones(6, chunks=2).sum().compute(scheduler="processes")) == 6.0
    assert not os.path.exists(stale)
