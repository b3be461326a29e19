"""``scheduler=client`` on a real ``distributed.LocalCluster`` started here: three worker
processes of one thread. Results must equal the threaded executor's bit for bit, placed by
tegula or by Dask; the bytes each worker received (its transfer log) must match tegula's
placement simulator; a worker killed mid-compute must not change the result; errors reach the
caller as themselves; a cluster left with no worker is an error, not a hang."""

import os
import signal
import sys
import threading
import time
import weakref

import dask
import numpy as np
import pytest
from distributed import Client, LocalCluster
from hypothesis import given, settings

import tegula as tg
from tegula._dask import Runner
from cluster_workloads import FAMILIES, same, slow_double, workloads
from dashboard_check import watch_a_computation
from test_execution import expressions

WORKERS = 3
MEMORY = 2 << 30


@pytest.fixture(scope="module")
def client():
    with LocalCluster(n_workers=WORKERS, threads_per_worker=1, processes=True, memory_limit=MEMORY,
                      dashboard_address=None) as cluster, Client(cluster) as c:
        yield c


@settings(max_examples=25, deadline=None)
@given(expr=expressions())
def test_dask_gives_the_threaded_results_bit_for_bit(client, expr):
    same(expr.x.compute(scheduler=client), expr.x.compute(scheduler="threads"))


@pytest.mark.parametrize("placement", ["tegula", "dask"])
@pytest.mark.parametrize("name", FAMILIES)
def test_workloads_equal_the_threaded_results(client, name, placement):
    exprs = workloads(np.random.default_rng(7))[name]
    exprs = exprs if isinstance(exprs, tuple) else (exprs,)
    got = tg.compute(*exprs, scheduler=client, placement=placement)
    for g, expected in zip(got, tg.compute(*exprs, scheduler="threads")):
        same(g, expected)


def test_stores_are_read_and_written_by_the_workers(client, tmp):
    a = np.random.default_rng(4).standard_normal((230, 170)).astype("float32")
    tg.to_zarr(tg.asarray(a, chunks=(60, 50)), f"{tmp}/a.zarr", chunks=(50, 50))
    x = tg.from_zarr(f"{tmp}/a.zarr") * 3 - 1
    with tg.config.set(scheduler=client):
        tg.to_zarr(x, f"{tmp}/dask.zarr", chunks=(40, 50), compressor="zstd")
        tg.to_npy(x.T, f"{tmp}/dask.npy")
    expected = x.compute(scheduler="threads")
    same(tg.from_zarr(f"{tmp}/dask.zarr").compute(), expected)
    same(np.load(f"{tmp}/dask.npy"), expected.T)
    assert not [p for p in os.listdir(tmp) if p.startswith(".")], "no staging file is left behind"


def test_object_storage_is_read_and_written_by_the_workers(client, s3):
    from object_servers import fresh

    a = np.random.default_rng(5).standard_normal((120, 90))
    url, out = fresh(s3), fresh(s3)
    tg.to_zarr(tg.asarray(a, chunks=(40, 30)), url, chunks=(40, 30), storage_options=s3.options)
    x = tg.from_zarr(url, storage_options=s3.options) * 2
    with tg.config.set(scheduler=client):
        tg.to_zarr(x, out, compressor="zstd", storage_options=s3.options)
        total = x.sum(axis=0).compute()
    same(total, x.sum(axis=0).compute(scheduler="threads"))
    same(tg.from_zarr(out, storage_options=s3.options).compute(), x.compute(scheduler="threads"))


def test_bytes_each_worker_received_match_the_simulator(client):
    a = np.random.default_rng(3).standard_normal((1200, 900))
    x = tg.asarray(a, chunks=300)
    # A reduction of planes of 2.9 MB: each node folds its range of them, the totals move on.
    planes = tg.random.default_rng(4).standard_normal((12, 600, 600), chunks=(1, 600, 600))
    for expr in (x @ x.T, (x @ x.T).sum(axis=0), (x - x.mean(axis=0)).T @ x, planes.var(axis=0)):
        (got,), info = tg.compute(expr, scheduler=client, report=True)
        same(got, expr.compute(scheduler="threads"))
        simulated, measured = info["simulated"], info["measured"]
        assert simulated["bytes_between_nodes"] > 0
        assert abs(measured["bytes_between_nodes"] - simulated["bytes_between_nodes"]) <= 0.1 * simulated["bytes_between_nodes"]
        share = simulated["bytes_between_nodes"] / WORKERS
        for s, m in zip(simulated["nodes"], measured["nodes"]):
            assert m["fragments"] == s["fragments"] and m["bytes_made"] == s["bytes_made"]
            assert abs(m["bytes_in"] - s["bytes_in"]) <= 0.1 * max(s["bytes_in"], share), (m, s)
            assert 0 < m["peak_bytes"] <= MEMORY


def test_small_fragments_run_in_batches_and_their_blocks_go_as_tuples(client, monkeypatch):
    # A Newton step of logistic regression: each row block's fragment makes a gradient's and a
    # Hessian's partial, folded on different workers. Small, the row blocks of a worker run as
    # one task and their blocks travel as its tuple, with no task per fragment or block; past
    # the threshold each fragment and each block has a task of its own.
    from tegula import _dask

    keys = []
    use_logs = _dask._Run._use_transfer_logs
    monkeypatch.setattr(_dask._Run, "_use_transfer_logs", lambda run: keys.append(set(run.keys)) or use_logs(run))
    rng = tg.random.default_rng(2)
    X = rng.standard_normal((60_000, 9), chunks=(5_000, 9))
    mu = 1 / (1 + tg.exp(-(X @ np.linspace(-1, 1, 9))))
    step = (X.T @ (mu - 0.5), (X.T * (mu * (1 - mu))) @ X)
    expected = tg.compute(*step, scheduler="threads")
    block_tasks, batches, fragment_tasks = [], [], []
    for threshold in (_dask.WHOLE_TUPLE_BYTES, 0):
        monkeypatch.setattr(_dask, "WHOLE_TUPLE_BYTES", threshold)
        for g, e in zip(tg.compute(*step, scheduler=client), expected):
            same(g, e)
        submitted = keys.pop()
        block_tasks.append(sum("tegula-block" in k for k in submitted))
        batches.append(sum("tegula-batch" in k for k in submitted))
        fragment_tasks.append(sum("tegula-fragment" in k for k in submitted))
    assert block_tasks[0] == 0 < block_tasks[1], block_tasks
    assert batches[0] > 0 and batches[1] == 0, batches
    assert fragment_tasks[0] + batches[0] <= 0.6 * fragment_tasks[1], (fragment_tasks, batches)


def test_a_plan_beyond_the_workers_memory_is_admitted_fragment_by_fragment(client, monkeypatch):
    from tegula import _dask

    monkeypatch.setattr(_dask, "submit_whole", lambda peaks, memory: False)
    x = tg.asarray(np.random.default_rng(1).standard_normal((1200, 900)), chunks=300)
    for expr in (x @ x.T, tg.linalg.qr(x)[1]):
        (got,), info = tg.compute(expr, scheduler=client, report=True)
        same(got, expr.compute(scheduler="threads"))
        simulated, measured = info["simulated"]["bytes_between_nodes"], info["measured"]["bytes_between_nodes"]
        assert measured >= simulated


def test_bytes_are_counted_where_blocks_were_read_when_the_transfer_logs_fall_short(client):
    # Workers keep only their latest transfers: with logs of one entry, the runner counts each
    # block's copies from the workers that read it.
    from collections import deque

    def shorten(dask_worker, length):
        dask_worker.transfer_incoming_log = deque(dask_worker.transfer_incoming_log, maxlen=length)

    x = tg.asarray(np.random.default_rng(6).standard_normal((1200, 900)), chunks=300)
    client.run(shorten, length=1)
    try:
        (got,), info = tg.compute(x @ x.T, scheduler=client, report=True)
    finally:
        client.run(shorten, length=1000)
    same(got, (x @ x.T).compute(scheduler="threads"))
    simulated, measured = info["simulated"]["bytes_between_nodes"], info["measured"]["bytes_between_nodes"]
    assert simulated > 0 and abs(measured - simulated) <= 0.1 * simulated, (measured, simulated)


def test_dask_placement_is_measured_too(client):
    x = tg.asarray(np.random.default_rng(2).standard_normal((1200, 900)), chunks=300)
    (got,), info = tg.compute(x @ x.T, scheduler=client, placement="dask", report=True)
    same(got, (x @ x.T).compute(scheduler="threads"))
    measured = info["measured"]
    assert sum(n["fragments"] for n in measured["nodes"]) == sum(n["fragments"] for n in info["simulated"]["nodes"])
    assert measured["bytes_between_nodes"] == sum(n["bytes_in"] for n in measured["nodes"]) > 0


def test_the_default_client_and_the_config(client):
    x = tg.asarray(np.arange(10.0), chunks=3) * 3
    same(x.compute(scheduler="dask"), np.arange(10.0) * 3)
    with tg.config.set(scheduler=client, placement="dask"):
        same(x.compute(), np.arange(10.0) * 3)
    with pytest.raises(ValueError, match="placement"):
        x.compute(scheduler="threads", placement="dask")
    with pytest.raises(ValueError, match="placement"):
        tg.config.set(placement="nowhere")


def test_a_plan_that_cannot_fit_a_worker_is_refused_before_anything_runs(client):
    x = tg.zeros((20000, 20000), chunks=20000)
    with pytest.raises(MemoryError, match="a node has"):
        (x + 1).compute(scheduler=client)


def test_an_exception_in_a_task_reaches_the_caller_as_itself(client):
    def boom(block):
        if block.min() > 50:
            raise KeyError("block beyond 50")
        return block

    x = tg.asarray(np.arange(100.0), chunks=10).map_blocks(boom, dtype="float64")
    with pytest.raises(KeyError, match="block beyond 50"):
        x.compute(scheduler=client)


def computed_with_a_worker_killed(client, x, which):
    """``x`` computed on the cluster while worker number ``which`` (by address) is killed."""
    result = {}
    thread = threading.Thread(target=lambda: result.setdefault("got", x.compute(scheduler=client)))
    thread.start()
    time.sleep(1.0)
    pids = client.run(os.getpid)
    try:
        os.kill(pids[sorted(pids)[which]], signal.SIGKILL)
        thread.join(timeout=120)
        assert not thread.is_alive(), "the computation hung after a worker was killed"
        return result["got"]
    finally:
        client.wait_for_workers(WORKERS, timeout=60)  # the nanny's new worker, for the tests after


def test_a_worker_killed_mid_compute_does_not_change_the_result(client):
    x = tg.arange(4000.0, chunks=100).reshape(40, 100).map_blocks(slow_double, dtype="float64").sum(axis=1)
    got = computed_with_a_worker_killed(client, x, 0)
    np.testing.assert_array_equal(got, (np.arange(4000.0).reshape(40, 100) * 2).sum(axis=1))


def test_a_worker_killed_while_holding_the_callers_blocks_does_not_change_the_result(client):
    """The NumPy array's blocks are scattered once, to the workers: those of the killed one
    are gone, and Dask cannot make them again; tegula plans the computation again."""
    a = np.arange(4000.0).reshape(40, 100)
    x = tg.asarray(a, chunks=(1, 100)).map_blocks(slow_double, dtype="float64").sum(axis=1)
    np.testing.assert_array_equal(computed_with_a_worker_killed(client, x, -1), (a * 2).sum(axis=1))


def test_the_workers_are_counted_while_the_client_refreshes_its_cache(client):
    # A client refreshes its cached scheduler info often; each refresh lists no worker for a
    # moment. Counting the workers from that cache found none about one time in forty.
    with dask.config.set({"distributed.client.scheduler-info-interval": "5ms"}), Client(client.cluster) as c:
        runner = Runner(weakref.ref(c), "tegula")
        assert {runner.nodes(WORKERS)[0] for _ in range(400)} == {WORKERS}
        x = tg.asarray(np.arange(600.0).reshape(20, 30), chunks=(5, 10)) * 2
        np.testing.assert_array_equal(x.sum(axis=0).compute(scheduler=c), (np.arange(600.0).reshape(20, 30) * 2).sum(axis=0))


def test_progress_and_the_execution_report_follow_dask_runs(client, tmp_path):
    from tegula import _progress, _tegula
    from tegula._compute import executor_name

    a = np.random.default_rng(5).random((600, 400))
    y = (tg.asarray(a, chunks=100) * 2).sum(axis=0)
    bar = _progress.Bar(stream=open(os.devnull, "w"))
    (got,), _ = _tegula.compute([y._h], executor_name(client), progress=bar, interval=0.01)
    np.testing.assert_allclose(got, (a * 2).sum(axis=0))
    done, total, nbytes, _ = bar.last
    assert done == total > 1 and nbytes > 0
    path = tmp_path / "report.html"
    with tg.report(str(path)) as rep:
        y.compute(scheduler=client)
    assert len(rep.computations) == 1
    html = path.read_text()
    assert '<table class="nodes">' in html and html.count("<td>measured</td>") == WORKERS


def test_xarray_computes_on_the_cluster(client):
    xr = pytest.importorskip("xarray")
    a = np.random.default_rng(9).standard_normal((60, 40))
    ds = xr.Dataset({"v": (("y", "x"), a)}).chunk({"y": 20}, chunked_array_type="tegula")
    got = ds.v.mean("y").compute(scheduler=client)
    np.testing.assert_allclose(got.values, a.mean(axis=0))


def test_without_distributed_the_error_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(ImportError, match=r'pip install "tegula\[dask\]"'):
        tg.asarray(np.ones(4)).compute(scheduler="dask")


def test_a_cluster_that_loses_every_worker_fails_instead_of_hanging(client, monkeypatch):
    # Last in the module: it takes the cluster's workers away, and gives it new ones after.
    from tegula import _dask

    monkeypatch.setattr(_dask, "STALL_CHECK_S", 0.5)
    monkeypatch.setattr(_dask, "NO_WORKERS_WAIT_S", 2)
    x = tg.arange(4000.0, chunks=100).reshape(40, 100).map_blocks(slow_double, dtype="float64")
    result = {}

    def run():
        try:
            x.sum(axis=1).compute(scheduler=client)
        except RuntimeError as e:
            result["error"] = e

    thread = threading.Thread(target=run)
    thread.start()
    time.sleep(1.0)
    try:
        client.cluster.scale(0)
        thread.join(timeout=120)
        assert not thread.is_alive(), "the computation hung after every worker was gone"
        assert "no workers" in str(result["error"])
    finally:
        client.cluster.scale(WORKERS)
        client.wait_for_workers(WORKERS, timeout=60)


def test_persist_keeps_the_blocks_the_workers_computed(tmp_path, client):
    a = np.random.default_rng(8).standard_normal((600, 400))
    x = tg.asarray(a, chunks=(150, 100)).T * 2 + 1
    # A budget whose half holds a few rows of blocks: the rest are written to disk by the workers.
    with tg.config.set(spill_dir=str(tmp_path), memory="3MB"):
        kept = tg.persist(x, scheduler=client)[0]
        assert os.listdir(tmp_path), "nothing was kept on disk"
    expected = x.compute(scheduler="threads")
    same(kept.compute(scheduler="threads"), expected)
    same((kept @ kept.T).compute(scheduler=client), (x @ x.T).compute(scheduler="threads"))


def test_the_live_view_shows_one_row_per_worker(client, tmp_path):
    board = tg.dashboard(port=0, show=False)
    try:
        final, ran_on = watch_a_computation(board, tmp_path, client, blocks=90, row_label="node")
    finally:
        board.close()  # the computations of later tests are not fed to it
    assert len(ran_on) >= 2 and max(ran_on) < WORKERS
