"""The live view watched as a user watches it: headless Chromium opens the page while a
computation runs on some executor; two screenshots taken seconds apart must differ, the
page's count of finished tasks must rise and end at the plan's count, and the task stream
must show one row per thread, worker or node that ran tasks. Shared by test_dashboard.py
(threads, processes), test_ray.py and test_dask.py (their clusters)."""

import json
import threading
import time
import urllib.request

import numpy as np

import tegula as tg
from cdp import Browser


def sleepy(block):
    """A task of known length on every executor: a fifth of a second, then a real result."""
    time.sleep(0.2)
    return block * 2 + 1


def sleepy_expression(blocks):
    a = np.arange(blocks * 40, dtype=np.float64).reshape(blocks * 4, 10)
    x = tg.asarray(a, chunks=(4, 10))
    return tg.map_blocks(sleepy, x, dtype=np.float64).sum(axis=1), (a * 2 + 1).sum(axis=1)


def state(board, number=None):
    query = "" if number is None else f"?c={number}"
    with urllib.request.urlopen(f"http://127.0.0.1:{board.port}/api/state{query}", timeout=30) as r:
        return json.load(r)


def watch_a_computation(board, tmp_path, scheduler, blocks, row_label):
    """Runs the sleepy expression of `blocks` blocks on `scheduler` while the page is open;
    returns the page's final figures."""
    y, expected = sleepy_expression(blocks)
    outcome = {}

    def run():
        try:
            with tg.report(str(tmp_path / "report.html")) as recorded:
                outcome["result"] = y.compute(scheduler=scheduler)
            outcome["info"] = recorded.computations[0]["info"]
            outcome["trace"] = recorded.computations[0]["trace"]
        except BaseException as e:  # reported by the test's thread
            outcome["error"] = e

    before = len(state(board)["computations"])
    worker = threading.Thread(target=run)
    with Browser() as browser:
        page = browser.open(board.link)
        worker.start()
        page.wait_for(f"document.querySelectorAll('#computations tr').length > {before + 1} && Number(document.getElementById('done').textContent) > 0", timeout=120)
        first_shot, first_done = page.screenshot(), int(page.evaluate("document.getElementById('done').textContent"))
        time.sleep(3)
        second_shot, second_done = page.screenshot(), int(page.evaluate("document.getElementById('done').textContent"))
        worker.join(timeout=240)
        assert not worker.is_alive(), "the computation did not end"
        if "error" in outcome:
            raise outcome["error"]
        page.wait_for("document.getElementById('state').textContent.startsWith('finished')", timeout=30)
        final = page.evaluate(
            "({done: Number(document.getElementById('done').textContent), total: Number(document.getElementById('total').textContent),"
            " rows: [...document.querySelectorAll('#stream-rows .row')].map(r => r.textContent),"
            " operations: document.querySelectorAll('#operations tr[data-operation]').length})"
        )
    np.testing.assert_allclose(outcome["result"], expected)
    assert first_shot != second_shot, "the page did not change in three seconds of a running computation"
    assert second_done > first_done, f"finished tasks did not rise: {first_done} then {second_done}"
    tasks = outcome["info"]["tasks"]
    assert final["done"] == final["total"] == tasks
    ran_on = sorted(set(outcome["trace"]["thread"].tolist()))
    assert final["rows"] == [f"{row_label} {r}" for r in ran_on]
    assert final["operations"] >= 2
    return final, ran_on
