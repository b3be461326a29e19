"""Seeing what tegula does: the progress bar, the execution report, plan pictures and explain.
Results computed while watched are compared with NumPy; the pictures are parsed and checked
against the plan the Rust core describes (task counts, operation names, one SVG node per
task)."""

import io
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tegula as tg
from tegula import _progress
from strategies import chunked_arrays, shapes

SVG = "{http://www.w3.org/2000/svg}"


def expression(seed=0, n=60, block=20):
    rng = np.random.default_rng(seed)
    a = rng.random((n, n))
    x = tg.asarray(a, chunks=block)
    return a, (x @ x.T + 1).sum(axis=0)


def test_progress_bar_draws_counts_and_finishes():
    a, y = expression()
    stream = io.StringIO()
    bar = _progress.Bar(stream=stream)
    (out,) = tg.compute(y, progress=False)
    np.testing.assert_allclose(out, (a @ a.T + 1).sum(axis=0))
    computed, _ = tg._functions._tegula.compute([y._h], progress=bar, interval=0.01)
    np.testing.assert_allclose(computed[0], out)
    done, total, nbytes, seconds = bar.last
    assert done == total == y.task_count()
    assert nbytes > 0 and seconds >= 0
    text = stream.getvalue()
    assert text.endswith("\n") and f"{total:,}/{total:,} tasks" in text and "100%" in text


def test_progress_setting_and_argument():
    _, y = expression()
    with pytest.raises(ValueError, match="progress"):
        tg.config.set(progress="sometimes")
    with pytest.raises(ValueError, match="progress"):
        y.compute(progress="yes")
    with tg.config.set(progress=False):
        assert tg.config.get("progress") is False
        assert _progress.resolve(None) is None
    assert isinstance(_progress.resolve(True), _progress.Bar)
    # Tests do not run on a terminal: the automatic setting draws nothing here.
    assert tg.config.get("progress") == "auto" and _progress.resolve(None) is None


def test_progress_callback_errors_surface():
    _, y = expression()

    def broken(*args):
        raise KeyError("from the callback")

    with pytest.raises(KeyError, match="from the callback"):
        tg._functions._tegula.compute([y._h], progress=broken, interval=0.01)


def test_progress_line_shows_eta():
    text = _progress.line(25, 100, 3 * 2**20, 10.0)
    assert "25/100 tasks" in text and "3 MiB" in text and "ETA 30.0 s" in text and "25%" in text
    assert "ETA ?" in _progress.line(0, 100, 0, 0.0)


def test_progress_line_labels_the_bytes_produced_and_never_reads_like_memory():
    text = _progress.line(10, 20, int(31.2 * 2**30), 5.0)
    assert "done 31.2 GiB" in text


def test_progress_seconds_are_one_unit():
    assert _progress.seconds_text(0.0) == "0.0 s"
    assert _progress.seconds_text(59.97) == "1m00s"
    assert _progress.seconds_text(3725) == "1h02m"


def test_progress_redraw_blanks_what_a_longer_line_left():
    stream = io.StringIO()
    bar = _progress.Bar(stream=stream)
    bar(1, 20, 2**20, 1.0)  # ETA 19.0 s
    bar(9, 20, 2**20, 1.0)  # ETA 1.2 s: one character shorter
    # What the terminal shows: each redraw overwrites the line from its start.
    parts = stream.getvalue().split("\r")
    shown = parts[-1]
    assert shown.rstrip().endswith("ETA 1.2 s") and "ss" not in shown
    assert len(shown) == len(parts[-2])


def test_progress_last_line_is_written_once():
    stream = io.StringIO()
    bar = _progress.Bar(stream=stream)
    bar(5, 10, 100, 1.0)
    bar(10, 10, 200, 2.0)
    bar(10, 10, 200, 2.1)  # the native compute's last call, after a poll that saw every task done
    bar.close()
    bar.close()
    assert stream.getvalue().count("\n") == 1
    assert stream.getvalue().count("10/10 tasks") == 1


def test_progress_bar_closed_when_the_computation_fails(monkeypatch):
    stream = io.StringIO()
    bar = _progress.Bar(stream=stream)
    monkeypatch.setattr(_progress, "resolve", lambda progress: bar)

    def fails(*args, **kwargs):
        bar(1, 2, 10, 0.5)
        raise RuntimeError("failed")

    monkeypatch.setattr(tg._functions._tegula, "compute", fails)
    with pytest.raises(RuntimeError, match="failed"):
        tg.ones(4, chunks=2).compute()
    assert stream.getvalue().endswith("\n") and bar.closed


def _parse(html):
    # The report is XHTML-compatible except for its doctype; parse its SVG parts.
    return [ET.fromstring(m) for m in re.findall(r"<svg .*?</svg>", html, flags=re.S)]


def test_report_has_the_task_stream_memory_and_operations(tmp_path):
    a, y = expression(1, 80, 20)
    b = tg.asarray(np.arange(1000.0), chunks=100)
    path = tmp_path / "report.html"
    with tg.report(str(path)) as rep:
        out = y.compute(num_workers=2)
        (total,), info = tg.compute((b * 2).sum(), report=True)
    np.testing.assert_allclose(out, (a @ a.T + 1).sum(axis=0))
    assert total == np.arange(1000.0).sum() * 2
    html = path.read_text()
    sections = re.findall(r'<section class="computation" data-tasks="(\d+)">', html)
    assert [int(n) for n in sections] == [y.task_count(), (b * 2).sum().task_count()]
    svgs = _parse(html)
    streams = [s for s in svgs if s.get("class") == "task-stream"]
    assert len(streams) == 2
    rects = streams[0].findall(f"{SVG}rect")
    assert len(rects) == y.task_count()
    titles = " ".join(r.find(f"{SVG}title").text for r in rects)
    for name in ("matmul", "sum"):
        assert name in titles
    memory = [s for s in svgs if s.get("class") == "memory"]
    assert len(memory) == 2 and memory[0].find(f"{SVG}path[@class='held']") is not None
    rows = re.findall(r'<tr class="operation"><td>.*?</span>(.*?)</td><td>([\d,]+)</td>', html)
    assert sum(int(n.replace(",", "")) for _, n in rows) == y.task_count() + (b * 2).sum().task_count()
    assert any("matmul" in name for name, _ in rows)
    assert len(rep.computations) == 2 and info["tasks"] == (b * 2).sum().task_count()
    assert "trace" not in info


def test_report_shows_spilling_against_the_budget(tmp_path):
    rng = np.random.default_rng(5)
    a = rng.random((600, 600))
    x = tg.asarray(a, chunks=100)
    path = tmp_path / "spill.html"
    with tg.config.set(memory=2_000_000, spill_dir=tmp_path), tg.report(str(path)) as rep:
        out = (x @ x.T).sum(axis=0).compute(scheduler="threads")  # its trace has the spilled bytes
    np.testing.assert_allclose(out, (a @ a.T).sum(axis=0))
    (computation,) = rep.computations
    assert computation["info"]["spilled_bytes"] > 0
    assert computation["trace"]["on_disk"].max() > 0
    memory = [s for s in _parse(path.read_text()) if s.get("class") == "memory"][0]
    assert memory.find(f"{SVG}path[@class='on-disk']") is not None
    assert memory.find(f"{SVG}line[@class='budget']") is not None


def test_report_of_many_tasks_draws_columns(tmp_path):
    x = tg.ones(60_000, chunks=10)
    path = tmp_path / "many.html"
    with tg.report(str(path)):
        assert float(x.sum().compute()) == 60_000
    (stream,) = [s for s in _parse(path.read_text()) if s.get("class") == "task-stream"]
    columns = stream.findall(f"{SVG}rect[@class='task-column']")
    assert 0 < len(columns) <= tg._report.STREAM_WIDTH * 2


def test_report_is_written_when_the_block_fails(tmp_path):
    path = tmp_path / "failed.html"
    with pytest.raises(ZeroDivisionError):
        with tg.report(str(path)):
            (tg.ones(10) + 1).compute()
            1 / 0
    assert 'data-tasks="' in path.read_text()
    assert tg._report.active() is None


def _nodes(svg):
    root = ET.fromstring(svg)
    return root, root.findall(f"{SVG}g[@class='node']")


@settings(max_examples=25)
@given(data=st.data())
def test_task_picture_has_one_node_per_task(data):
    a, x = data.draw(chunked_arrays(dtype="float64", shape=data.draw(shapes(1, 2, 1, 12)), allow_nan=False))
    y = (x * 2 + 1).sum(axis=0) if data.draw(st.booleans()) else (x.T + x.T) if x.ndim == 2 else x[::-1] * 3
    plan = y._h.describe(True)
    root, nodes = _nodes(y.visualize(level="tasks"))
    assert len(nodes) == y.task_count() == len(plan["task_label"])
    edges = {(i, t) for t, inputs in enumerate(plan["task_inputs"]) for i in inputs}
    assert len(root.findall(f"{SVG}line[@class='edge']")) == len(edges)
    labels = {n.find(f"{SVG}title").text.split(":")[1].split("(")[0].strip() for n in nodes}
    assert labels == set(plan["task_label"])


def test_fused_tasks_are_one_node_coloured_by_order(tmp_path):
    x = tg.random.default_rng(0).random((40, 40), chunks=10)
    y = ((x + 1) * 2).sum(axis=0)
    path = str(tmp_path / "plan.svg")
    assert y.visualize(filename=path, level="tasks") == path
    root, nodes = _nodes(open(path).read())
    assert len(nodes) == y.task_count()
    fused = [n for n in nodes if "fused[random,add,multiply,sum]" in n.find(f"{SVG}title").text]
    assert len(fused) == 16
    # Order colours: the first task is the darkest, the last the lightest.
    fills = {int(n.get("data-id")): n.find(f"{SVG}rect").get("fill") for n in nodes}
    rank = y._h.describe(True)["rank"]
    first, last = int(np.argmin(rank)), int(np.argmax(rank))
    assert fills[first] == "#440154" and fills[last] == "#fde725"
    unfused = _nodes(y.visualize(level="tasks", fuse=False))[1]
    assert len(unfused) == len(y._h.describe(False)["task_label"]) > len(nodes)


def test_operation_picture_for_big_graphs(tmp_path):
    x = tg.ones((2000, 2000), chunks=50)
    y = (x + x.T).mean(axis=1)
    assert y.task_count() > tg._visualize.MAX_TASK_NODES
    root, nodes = _nodes(y.visualize())
    assert root.get("data-level") == "operations"
    plan = y._h.describe(True)
    assert len(nodes) == len(plan["operations"])
    texts = " ".join("".join(n.itertext()) for n in nodes)
    for op in plan["operations"]:
        assert f"{op['tasks']:,} tasks" in texts
    assert "transpose" in texts and "mean" in texts
    html = str(tmp_path / "plan.html")
    y.visualize(filename=html, color="operation")
    assert open(html).read().startswith("<!DOCTYPE html>")


def test_visualize_errors():
    x = tg.ones(10, chunks=5)
    with pytest.raises(ValueError, match="color"):
        x.visualize(color="rainbow")
    with pytest.raises(ValueError, match="level"):
        x.visualize(level="chunks")
    with pytest.raises(ValueError, match="renderer"):
        x.visualize(renderer="canvas")


def test_dot_source_names_every_node():
    x = tg.ones((30, 30), chunks=10)
    plan = (x @ x)._h.describe(True)
    nodes, edges = tg._visualize._task_nodes(plan, "order")
    dot = tg._visualize.to_dot(nodes, edges)
    assert dot.count("fillcolor=") == (x @ x).task_count() and dot.count(" -> ") == len(edges)


def test_explain_shows_bytes_and_peak_per_operation():
    x = tg.ones((1000, 1000), chunks=250)
    text = (x @ x).explain()
    line = next(l for l in text.splitlines() if l.split("=")[1].strip().startswith("matmul"))
    # 16 output blocks of 250x250 float64, four products each.
    assert "tasks=" in line and "written=" in line and "read=" in line and "peak=" in line
    plan = (x @ x)._h.describe(True)
    matmul = next(op for op in plan["operations"] if op["label"] == "matmul")
    assert matmul["bytes_written"] >= 16 * 250 * 250 * 8
    assert matmul["peak"] <= plan["projected_peak"]


def test_progress_bar_in_a_notebook_updates_one_display(monkeypatch):
    import sys
    import types

    shown = []

    class ZMQInteractiveShell:  # what Jupyter's kernel reports as its shell
        pass

    class Handle:
        def update(self, html):
            shown.append(("update", html.data))

    def display(html, display_id=False):
        assert display_id is True
        shown.append(("display", html.data))
        return Handle()

    class HTML:
        def __init__(self, data):
            self.data = data

    ipython = types.ModuleType("IPython")
    ipython.get_ipython = lambda: ZMQInteractiveShell()
    ipython_display = types.ModuleType("IPython.display")
    ipython_display.HTML, ipython_display.display = HTML, display
    monkeypatch.setitem(sys.modules, "IPython", ipython)
    monkeypatch.setitem(sys.modules, "IPython.display", ipython_display)
    _, y = expression()
    bar = _progress.resolve(True)
    tg._functions._tegula.compute([y._h], progress=bar, interval=0.01)
    assert shown[0][0] == "display" and all(kind == "update" for kind, _ in shown[1:])
    total = y.task_count()
    assert f"{total:,}/{total:,} tasks" in shown[-1][1] and "width:100.0%" in shown[-1][1]
    # The automatic setting shows bars in notebooks.
    assert isinstance(_progress.resolve("auto"), _progress.Bar)
