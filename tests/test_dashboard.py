"""The live view (``tg.dashboard``): the page in headless Chromium during a computation on
threads and on the process pool (Ray's and Dask's clusters: test_ray.py, test_dask.py), its
answers checked against the computation's own trace, its timeline against the schema of
Chrome's trace-event format, and its safety: loopback only by default, a token elsewhere,
nothing but reads."""

import http.client
import json
import socket
import urllib.error
import urllib.request
from pathlib import Path

import jsonschema
import numpy as np
import pytest

import tegula as tg
from tegula import _dashboard
from dashboard_check import state, watch_a_computation

TRACE_SCHEMA = json.loads((Path(__file__).parent / "data" / "trace_event_schema.json").read_text())


@pytest.fixture(scope="module")
def board():
    b = tg.dashboard(port=0, show=False)
    yield b
    b.close()


def test_the_page_follows_a_computation_on_threads(board, tmp_path):
    final, ran_on = watch_a_computation(board, tmp_path, "threads", blocks=200, row_label="thread")
    assert len(ran_on) == 2 or len(ran_on) == tg.config.get("num_workers")


def test_the_page_shows_one_row_per_worker_process(board, tmp_path):
    final, ran_on = watch_a_computation(board, tmp_path, "processes", blocks=100, row_label="worker")
    assert len(ran_on) >= 2


def test_each_operations_count_ends_at_its_tasks(board, tmp_path):
    rng = np.random.default_rng(3)
    a = rng.standard_normal((300, 200))
    x = tg.asarray(a, chunks=(70, 45))
    with tg.report(str(tmp_path / "report.html")) as recorded:
        got = ((x - x.mean(axis=0)) ** 2).sum(axis=1).compute()
    np.testing.assert_allclose(got, ((a - a.mean(axis=0)) ** 2).sum(axis=1))
    latest = state(board)["current"]
    assert latest["state"] == "finished"
    assert latest["done"] == latest["tasks"] == recorded.computations[0]["info"]["tasks"]
    for op in latest["operations"]:
        assert op["done"] == op["tasks"]
    trace = recorded.computations[0]["trace"]
    made = np.bincount(trace["operation"].astype(np.int64), weights=trace["bytes"], minlength=len(latest["operations"]))
    assert [op["bytes"] for op in latest["operations"]] == made.astype(np.int64).tolist()
    assert latest["rows"] == sorted(set(trace["thread"].tolist()))


def test_a_finished_computation_opens_as_a_report_and_a_timeline(board):
    x = tg.arange(10_000, chunks=700)
    (x * 2).sum().compute()
    number = state(board)["current"]["number"]
    with urllib.request.urlopen(f"http://127.0.0.1:{board.port}/report/{number}") as r:
        page = r.read().decode()
    assert "Tasks over time, per thread" in page
    with urllib.request.urlopen(f"http://127.0.0.1:{board.port}/trace/{number}.json") as r:
        timeline = json.load(r)
    jsonschema.validate(timeline, TRACE_SCHEMA)
    assert len(timeline["traceEvents"]) == state(board, number)["current"]["tasks"]


def test_a_page_left_open_is_answered_unchanged_until_something_changes(board):
    x = tg.arange(5_000, chunks=500)
    assert (x + 1).sum().compute() == sum(range(1, 5_001))
    first = state(board)
    again = json.loads(_get(board.port, f"/api/state?v={first['version']}")[1])
    assert again == {"unchanged": True, "version": first["version"]}
    assert (x * 3).max().compute() == 3 * 4_999
    after = json.loads(_get(board.port, f"/api/state?v={first['version']}")[1])
    assert after["version"] > first["version"]
    assert after["current"]["number"] == first["current"]["number"] + 1
    assert after["current"]["state"] == "finished" and after["current"]["done"] == after["current"]["tasks"] > 0


def test_kept_traces_stay_within_their_limit_while_no_page_asks(board, monkeypatch):
    from tegula import _live

    monkeypatch.setattr(_live, "MAX_KEPT_EVENTS", 1_000)
    x = tg.arange(30_000, chunks=100)
    for k in range(6):
        assert (x + k).sum().compute() == sum(range(30_000)) + 30_000 * k
    # The latest is counted (and kept: it alone fits), though nothing asked for it.
    assert 0 < _dashboard.computations.items[-1].events_kept() <= sum(c.events_kept() for c in _dashboard.computations.items) <= 1_000


def test_a_failed_computation_is_shown_failed(board):
    def boom(block):
        raise ZeroDivisionError("no")

    with pytest.raises(ZeroDivisionError):
        tg.map_blocks(boom, tg.ones(100, chunks=10), dtype=np.float64).compute()
    latest = state(board)["current"]
    assert latest["state"] == "failed" and "ZeroDivisionError" in latest["error"]


def test_report_writes_chrome_trace_events_one_per_task(tmp_path):
    rng = np.random.default_rng(1)
    x = tg.asarray(rng.standard_normal((400, 300)), chunks=(90, 70))
    path = tmp_path / "trace.json"
    with tg.report(str(path)) as recorded:
        (x @ x.T).sum().compute()
        tg.sort(x.ravel()).compute()
    timeline = json.loads(path.read_text())
    jsonschema.validate(timeline, TRACE_SCHEMA)
    events = timeline["traceEvents"]
    tasks = [c["info"]["tasks"] for c in recorded.computations]
    assert len(events) == sum(tasks)
    for pid, (computation, count) in enumerate(zip(recorded.computations, tasks), 1):
        mine = [e for e in events if e["pid"] == pid]
        assert len(mine) == count
        assert sorted(e["args"]["task"] for e in mine) == sorted(computation["trace"]["task"].tolist())
        names = {o["label"] for o in computation["trace"]["operations"]}
        assert {e["name"] for e in mine} <= names
    assert min(e["ts"] for e in events) >= 0


def _get(port, path, host="127.0.0.1", address="127.0.0.1", method="GET"):
    connection = http.client.HTTPConnection(address, port, timeout=30)
    connection.putrequest(method, path, skip_host=True)
    connection.putheader("Host", f"{host}:{port}")
    connection.endheaders()
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response.status, body


def test_it_listens_on_loopback_and_only_reads(board):
    assert board.server.server_address[0] == "127.0.0.1"
    assert board.token is None
    assert _get(board.port, "/api/state")[0] == 200
    for method in ("POST", "PUT", "DELETE", "PATCH"):
        assert _get(board.port, "/api/state", method=method)[0] == 405
    # A page of another site reaching it under its own name (DNS rebinding) is refused.
    assert _get(board.port, "/api/state", host="attacker.example")[0] == 403


def _non_loopback_address():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.connect(("192.0.2.254", 9))  # no packet is sent: this finds the outgoing interface
        address = s.getsockname()[0]
    assert not address.startswith("127."), "this machine needs an address other than loopback for this test"
    return address


def test_elsewhere_every_request_needs_the_links_token():
    address = _non_loopback_address()
    board = _dashboard.Dashboard(address="0.0.0.0", port=0)
    try:
        assert board.token and f"token={board.token}" in board.link
        assert _get(board.port, "/api/state", host=address, address=address)[0] == 403
        assert _get(board.port, "/api/state?token=wrong", host=address, address=address)[0] == 403
        status, body = _get(board.port, f"/api/state?token={board.token}", host=address, address=address)
        assert status == 200 and "computations" in json.loads(body)
        assert _get(board.port, f"/api/state?token={board.token}", host=address, address=address, method="POST")[0] == 405
    finally:
        board.close()


def test_the_setting_starts_it_at_the_next_computation(monkeypatch):
    for wrong, error in ((70000, ValueError), ("nowhere", ValueError), (1.5, TypeError)):
        with pytest.raises(error):
            tg.config.set(dashboard=wrong)
    monkeypatch.setenv("TEGULA_DASHBOARD", "0")
    assert tg.config.get("dashboard") is False
    monkeypatch.setenv("TEGULA_DASHBOARD", "127.0.0.1:0")
    assert tg.config.get("dashboard") == "127.0.0.1:0"
    started = _dashboard._running[:]
    for b in started:  # the module's board, if any, stands aside for this test
        _dashboard._running.remove(b)
    try:
        with tg.config.set(dashboard="127.0.0.1:0"):
            tg.arange(100, chunks=10).sum().compute()
        assert len(_dashboard._running) == 1
        own = _dashboard._running[0]
        assert state(own)["current"]["state"] == "finished"
        own.close()
    finally:
        _dashboard._running[:] = started


def test_urllib_error_for_unknown_paths(board):
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(f"http://127.0.0.1:{board.port}/report/999999")
    assert e.value.code == 404
