"""``scheduler="ray"`` on a real Ray cluster started here: a head with no CPUs and three
one-CPU nodes (``ray.cluster_utils.Cluster``), each with its own object store, so blocks
moving between nodes are real transfers. Results must equal the threaded executor's bit for
bit; the bytes Ray moved between nodes must match tegula's placement simulator; a node removed
and a worker killed mid-compute must not change the result; errors reach the caller as
themselves."""

import json
import os
import signal
import sys
import threading
import time
import urllib.request

import numpy as np
import pytest
import ray
from hypothesis import given, settings
from ray.cluster_utils import Cluster

import tegula as tg
from cluster_workloads import FAMILIES, same, slow_double, workloads
from dashboard_check import watch_a_computation
from test_execution import expressions

NODES = 3


@pytest.fixture(scope="module")
def cluster():
    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 0})
    try:
        for _ in range(NODES):
            c.add_node(num_cpus=1)
        # Functions the tests define are pickled by reference to this module: the workers
        # find it on the driver's module search path.
        path = {"PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        ray.init(address=c.address, log_to_driver=False, runtime_env={"env_vars": path})
        c.wait_for_nodes()
        yield c
    finally:
        ray.shutdown()
        c.shutdown()


@settings(max_examples=25)
@given(expr=expressions())
def test_ray_gives_the_threaded_results_bit_for_bit(cluster, expr):
    same(expr.x.compute(scheduler="ray"), expr.x.compute(scheduler="threads"))


@pytest.mark.parametrize("name", FAMILIES)
def test_workloads_equal_the_threaded_results(cluster, name):
    exprs = workloads(np.random.default_rng(7))[name]
    exprs = exprs if isinstance(exprs, tuple) else (exprs,)
    for got, expected in zip(tg.compute(*exprs, scheduler="ray"), tg.compute(*exprs, scheduler="threads")):
        same(got, expected)


def test_zarr_reads_run_on_the_workers(cluster, tmp):
    a = np.arange(200 * 150, dtype="float32").reshape(200, 150)
    tg.to_zarr(tg.asarray(a, chunks=(50, 50)), f"{tmp}/a.zarr", chunks=(50, 50))
    x = tg.from_zarr(f"{tmp}/a.zarr")
    got = ((x + 1) * 2).sum(axis=1).compute(scheduler="ray")
    same(got, ((x + 1) * 2).sum(axis=1).compute(scheduler="threads"))


def test_zarr_writes_run_on_the_workers(cluster, tmp):
    a = np.random.default_rng(4).standard_normal((230, 170)).astype("float32")
    x = tg.asarray(a, chunks=(60, 50)) * 3 - 1
    with tg.config.set(scheduler="ray"):
        tg.to_zarr(x, f"{tmp}/ray.zarr", chunks=(40, 50), compressor="zstd")
    with tg.config.set(scheduler="threads"):
        tg.to_zarr(x, f"{tmp}/threads.zarr", chunks=(40, 50), compressor="zstd")
    same(tg.from_zarr(f"{tmp}/ray.zarr").compute(), tg.from_zarr(f"{tmp}/threads.zarr").compute())
    assert not [p for p in os.listdir(tmp) if p.startswith(".")], "no staging directory is left behind"


def test_object_storage_is_read_and_written_by_the_workers(cluster, s3):
    from object_servers import fresh

    a = np.random.default_rng(6).standard_normal((120, 90))
    url, out = fresh(s3), fresh(s3)
    tg.to_zarr(tg.asarray(a, chunks=(40, 30)), url, chunks=(40, 30), storage_options=s3.options)
    x = tg.from_zarr(url, storage_options=s3.options) + 1
    with tg.config.set(scheduler="ray"):
        tg.to_zarr(x, out, compressor="gzip", storage_options=s3.options)
        total = x.sum(axis=1).compute()
    same(total, x.sum(axis=1).compute(scheduler="threads"))
    same(tg.from_zarr(out, storage_options=s3.options).compute(), x.compute(scheduler="threads"))


def test_npy_writes_run_on_the_workers(cluster, tmp):
    a = np.random.default_rng(6).standard_normal((170, 230))
    x = tg.asarray(a, chunks=(40, 60)).T * 2
    with tg.config.set(scheduler="ray"):
        tg.to_npy(x, f"{tmp}/ray.npy")
    same(np.load(f"{tmp}/ray.npy"), x.compute(scheduler="threads"))
    assert os.listdir(tmp) == ["ray.npy"], "no temporary file is left behind"


def test_bytes_moved_between_nodes_match_the_simulator(cluster):
    # Blocks of 720 KB: above Ray's 100 KB limit for objects passed inline, so every block
    # lives in an object store and its copies are what get_object_locations reports.
    a = np.random.default_rng(3).standard_normal((1200, 900))
    x = tg.asarray(a, chunks=300)
    # A reduction of planes of 2.9 MB: each node folds its range of them, the totals move on.
    planes = tg.random.default_rng(4).standard_normal((12, 600, 600), chunks=(1, 600, 600))
    for expr in (x @ x.T, (x @ x.T).sum(axis=0), (x - x.mean(axis=0)).T @ x, planes.var(axis=0)):
        (got,), info = tg.compute(expr, scheduler="ray", report=True)
        same(got, expr.compute(scheduler="threads"))
        predicted = info["simulated"]["bytes_between_nodes"]
        measured = info["measured"]["bytes_between_nodes"]
        assert predicted > 0
        assert abs(measured - predicted) <= 0.1 * predicted, (measured, predicted)
        measured_nodes_match_the_simulated(info)


def measured_nodes_match_the_simulated(info):
    """Per node: the fragments placed there ran there, and the bytes copied to and from it
    are the simulated ones within 10% (of the node's share of all moved bytes, where the node
    moves little); its measured peak is above nothing and within the node's memory."""
    simulated, measured = info["simulated"]["nodes"], info["measured"]["nodes"]
    assert len(measured) == len(simulated) == NODES
    total = info["simulated"]["bytes_between_nodes"]
    for s, m in zip(simulated, measured):
        assert m["fragments"] == s["fragments"]
        assert m["bytes_made"] == s["bytes_made"]
        for key in ("bytes_in", "bytes_out"):
            assert abs(m[key] - s[key]) <= 0.1 * max(s[key], total / NODES), (key, m[key], s[key])
        assert 0 < m["peak_bytes"] <= info["memory"]
    assert info["peak_bytes"] == max(m["peak_bytes"] for m in measured)


def test_small_blocks_passed_inside_task_messages_are_counted_too(cluster):
    # Blocks of 20 KB travel inline in Ray's task messages, in no object store: the
    # measurement counts them where they were read.
    a = np.random.default_rng(8).standard_normal((300, 240))
    x = tg.asarray(a, chunks=50)
    expr = (x @ x.T).sum(axis=0)
    (got,), info = tg.compute(expr, scheduler="ray", report=True)
    same(got, expr.compute(scheduler="threads"))
    predicted, measured = info["simulated"]["bytes_between_nodes"], info["measured"]["bytes_between_nodes"]
    assert predicted > 0
    assert abs(measured - predicted) <= 0.1 * predicted, (measured, predicted)
    measured_nodes_match_the_simulated(info)


def test_explain_on_nodes_shows_the_simulated_placement():
    x = tg.asarray(np.zeros((1200, 900)), chunks=300)
    text = (x @ x.T).explain(nodes=3)
    assert "on 3 nodes" in text and "moved between nodes" in text
    assert text.count("\n") > 3 + 3  # the plan, then a row per node


def test_a_plan_that_cannot_fit_a_node_is_refused_before_anything_runs(cluster):
    x = tg.asarray(np.zeros((1000, 1000)), chunks=1000)
    with pytest.raises(MemoryError, match="a node has"):
        (x @ x).explain(nodes=3, node_memory=4 << 20)


def test_an_exception_in_a_task_reaches_the_caller_as_itself(cluster):
    def boom(block):
        if block.min() > 50:
            raise KeyError("block beyond 50")
        return block

    x = tg.asarray(np.arange(100.0), chunks=10).map_blocks(boom, dtype="float64")
    with pytest.raises(KeyError, match="block beyond 50"):
        x.compute(scheduler="ray")


def test_a_node_removed_mid_compute_does_not_change_the_result(cluster):
    extra = cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    a = np.arange(4000.0).reshape(40, 100)
    # 40 blocks of 0.2 s on 4 nodes: still running when the node goes.
    x = tg.asarray(a, chunks=(1, 100)).map_blocks(slow_double, dtype="float64").sum(axis=1)
    result = {}
    thread = threading.Thread(target=lambda: result.setdefault("got", x.compute(scheduler="ray")))
    thread.start()
    time.sleep(0.6)
    cluster.remove_node(extra)
    thread.join(timeout=120)
    assert not thread.is_alive(), "the computation hung after a node was removed"
    np.testing.assert_array_equal(result["got"], (a * 2).sum(axis=1))


def kill_on_first_call(block, marker):
    # The first worker to take a block kills itself: its fragment must run again elsewhere.
    try:
        fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return block + 1
    os.close(fd)
    os.kill(os.getpid(), signal.SIGKILL)


def test_a_killed_worker_does_not_change_the_result(cluster, tmp):
    marker = f"{tmp}/killed"
    a = np.arange(600.0).reshape(6, 100)
    x = tg.asarray(a, chunks=(1, 100)).map_blocks(kill_on_first_call, marker=marker, dtype="float64")
    np.testing.assert_array_equal(x.compute(scheduler="ray"), a + 1)
    assert os.path.exists(marker)


def test_without_ray_the_error_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(ImportError, match=r'pip install "tegula\[ray\]"'):
        tg.asarray(np.ones(4)).compute(scheduler="ray")


def test_config_selects_ray(cluster):
    x = tg.asarray(np.arange(10.0), chunks=3) * 3
    with tg.config.set(scheduler="ray"):
        got = x.compute()
    same(got, np.arange(10.0) * 3)


def test_progress_and_the_execution_report_follow_ray_runs(cluster, tmp_path):
    from tegula import _progress, _tegula

    a = np.random.default_rng(5).random((600, 400))
    y = (tg.asarray(a, chunks=100) * 2).sum(axis=0)
    bar = _progress.Bar(stream=open(os.devnull, "w"))
    (got,), _ = _tegula.compute([y._h], "ray", progress=bar, interval=0.01)
    np.testing.assert_allclose(got, (a * 2).sum(axis=0))
    done, total, nbytes, _ = bar.last
    assert done == total > 1 and nbytes > 0
    path = tmp_path / "report.html"
    with tg.report(str(path)) as rep:
        y.compute(scheduler="ray")
    assert len(rep.computations) == 1
    html = path.read_text()
    assert '<section class="computation"' in html
    assert '<table class="nodes">' in html and html.count("<td>measured</td>") == NODES


def test_a_cluster_that_loses_every_node_fails_instead_of_hanging(cluster, monkeypatch):
    # Last in the module: it takes the cluster's nodes away, and gives it new ones after.
    from tegula import _ray

    monkeypatch.setattr(_ray, "STALL_CHECK_S", 0.5)
    monkeypatch.setattr(_ray, "NO_NODES_WAIT_S", 2)
    # 40 blocks of 0.2 s on 3 nodes: at least 2.7 s of work, still running when the nodes go.
    x = tg.asarray(np.arange(4000.0).reshape(40, 100), chunks=(1, 100)).map_blocks(slow_double, dtype="float64")
    result = {}

    def run():
        try:
            x.sum(axis=1).compute(scheduler="ray")
        except RuntimeError as e:
            result["error"] = e

    thread = threading.Thread(target=run)
    thread.start()
    time.sleep(0.6)
    try:
        for node in list(cluster.worker_nodes):
            cluster.remove_node(node)
        thread.join(timeout=120)
        assert not thread.is_alive(), "the computation hung after every node was removed"
        assert "no live node with CPUs" in str(result["error"])
    finally:
        for _ in range(NODES):
            cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()


def test_persist_keeps_the_blocks_the_workers_computed(tmp_path, cluster):
    a = np.random.default_rng(8).standard_normal((600, 400))
    x = tg.asarray(a, chunks=(150, 100)).T * 2 + 1
    # A budget whose half holds a few rows of blocks: the rest are written to disk by the workers.
    with tg.config.set(spill_dir=str(tmp_path), memory="3MB"):
        kept = tg.persist(x, scheduler="ray")[0]
        assert os.listdir(tmp_path), "nothing was kept on disk"
    expected = x.compute(scheduler="threads")
    same(kept.compute(scheduler="threads"), expected)
    same((kept @ kept.T).compute(scheduler="ray"), (x @ x.T).compute(scheduler="threads"))


def test_the_live_view_shows_one_row_per_node(cluster, tmp_path):
    board = tg.dashboard(port=0, show=False)
    try:
        final, ran_on = watch_a_computation(board, tmp_path, "ray", blocks=90, row_label="node")
    finally:
        board.close()  # the computations of later tests are not fed to it
    assert len(ran_on) >= 2 and max(ran_on) < NODES


def test_the_live_view_counts_the_bytes_each_node_receives_and_sends(cluster, tmp_path):
    board = tg.dashboard(port=0, show=False)
    try:
        rng = np.random.default_rng(5)
        a = rng.standard_normal((600, 400))
        x = tg.asarray(a, chunks=(50, 100))
        with tg.report(str(tmp_path / "trace.json")) as recorded:
            got = (x @ x.T).sum(axis=0).compute(scheduler="ray")
        np.testing.assert_allclose(got, (a @ a.T).sum(axis=0), rtol=1e-10)
        with urllib.request.urlopen(f"http://127.0.0.1:{board.port}/api/state") as r:
            latest = json.load(r)["current"]
    finally:
        board.close()
    received = sum(b[0] for b in latest["node_bytes"].values())
    sent = sum(b[1] for b in latest["node_bytes"].values())
    simulated = recorded.computations[0]["info"]["simulated"]["bytes_between_nodes"]
    assert received == sent == simulated > 0
