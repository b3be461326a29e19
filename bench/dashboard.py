"""The live view's cost (``tg.dashboard``): computations of many tiny tasks timed with the page
open in headless Chromium and without any view, alternating, in one process; and, during a
computation of about a million tasks, the bytes the page fetched per second and how long each
of its answers took to come (is it still responsive?).

    .venv/bin/python bench/dashboard.py [--rounds 15] [--blocks 10000] [--million 1000000]

Chromium is Debian's chromium-headless-shell (``bash scripts/browser.sh``)."""

import argparse
import os
import statistics
import sys
import threading
import time
import urllib.request

import numpy as np

import tegula as tg
from tegula import _dashboard

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
from cdp import Browser  # noqa: E402 - the tests' DevTools driver


def timed(y):
    start = time.perf_counter()
    out = y.compute()
    return time.perf_counter() - start, out


def small_tasks(board, page, blocks, rounds):
    """Alternates three settings: no live view, the live view serving with no page open, and
    the page open (polling twice a second)."""
    data = np.random.default_rng(0).random(blocks * 100)
    y = tg.asarray(data, chunks=100).sum()
    planned = y.task_count()
    timed(y)
    times = {"none": [], "serving": [], "page": []}
    for _ in range(rounds):
        for setting in times:
            if setting == "none":
                _dashboard._running.remove(board)
            elif board not in _dashboard._running:
                _dashboard._running.append(board)
            page.call("Page.navigate", url=board.link if setting == "page" else "about:blank")
            time.sleep(0.6)
            t, out = timed(y)
            times[setting].append(t)
            assert out == data.sum() or np.isclose(out, data.sum())
            if setting != "none":
                assert _dashboard.computations.items[-1].done == planned
    none = statistics.median(times["none"])
    print(f"x.sum() over {planned:,} tasks ({blocks:,} blocks of 100), median of {rounds} rounds of the three settings")
    for setting, label in (("none", "no live view"), ("serving", "live view, no page open"), ("page", "live view, page open")):
        t = statistics.median(times[setting])
        print(f"  {label:<26}{t * 1e3:8.2f} ms   / no live view {t / none:.3f}")


def million_tasks(board, page, tasks):
    data = np.ones(tasks * 4)
    y = tg.asarray(data, chunks=4).sum()
    planned = y.task_count()
    done = {}

    def run():
        start = time.perf_counter()
        done["value"] = y.compute()
        done["seconds"] = time.perf_counter() - start

    page.call("Page.navigate", url=board.link)
    time.sleep(1)
    sent_before = board.bytes_sent
    worker = threading.Thread(target=run)
    start = time.perf_counter()
    worker.start()
    waits = []
    while worker.is_alive():
        t = time.perf_counter()
        with urllib.request.urlopen(f"http://127.0.0.1:{board.port}/api/state", timeout=60) as r:
            r.read()
        waits.append(time.perf_counter() - t)
        time.sleep(0.5)
    worker.join()
    elapsed = time.perf_counter() - start
    page_done = page.evaluate("Number(document.getElementById('done').textContent)")
    time.sleep(1)
    page_done = page.evaluate("Number(document.getElementById('done').textContent)")
    sent = board.bytes_sent - sent_before
    assert done["value"] == tasks * 4
    print(f"x.sum() over {planned:,} tasks with the page open: {done['seconds']:.1f} s")
    print(f"  to the page and this probe: {sent / elapsed / 1e3:.1f} kB/s (limit 1000)")
    print(f"  answers to the probe: median {statistics.median(waits) * 1e3:.1f} ms, slowest {max(waits) * 1e3:.1f} ms, {len(waits)} asked")
    print(f"  the page's count at the end: {page_done:,} of {planned:,}")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--blocks", type=int, default=10_000, help="blocks of the small-task sum (about two tasks each)")
    parser.add_argument("--million", type=int, default=1_000_000)
    args = parser.parse_args()
    board = tg.dashboard(port=0, show=False)
    with Browser() as browser:
        page = browser.open(board.link)
        small_tasks(board, page, args.blocks, args.rounds)
        if args.million:
            million_tasks(board, page, args.million)
    board.close()


if __name__ == "__main__":
    main()
