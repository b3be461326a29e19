"""The live view's cost (``tg.dashboard``): computations of many tiny tasks timed with the page
open in headless Chromium and without any view, alternating, in one process; and, during a
computation of about a million tasks, the bytes the page fetched per second and how long each
of its answers took to come (is it still responsive?).

    .venv/bin/python bench/dashboard.py [--rounds 15] [--repeats 5] [--blocks 10000] [--million 1000000]

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


def timed(y, repeats=1):
    """Seconds per computation of `y`, over `repeats` back to back, and its value."""
    start = time.perf_counter()
    for _ in range(repeats):
        out = y.compute()
    return (time.perf_counter() - start) / repeats, out


def small_tasks(board, page, blocks, rounds, repeats):
    """Alternates three settings, in a random order each round: no live view, the live view
    serving with no page open, and the page open (polling twice a second; frozen in the other
    settings, as a closed page).
    Each round's `repeats` computations start at a random moment of the page's polling, as a
    user's would; one computation after a pause varies by ±50% on a small virtual machine, so
    each figure is the mean of the round's, after one untimed."""
    data = np.random.default_rng(0).random(blocks * 100)
    y = tg.asarray(data, chunks=100).sum()
    planned = y.task_count()
    timed(y)
    pause = np.random.default_rng(1)
    times = {"none": [], "serving": [], "page": []}
    for _ in range(rounds):
        for setting in pause.permutation(list(times)):
            if setting == "none" and board in _dashboard._running:
                _dashboard._running.remove(board)
            elif setting != "none" and board not in _dashboard._running:
                _dashboard._running.append(board)
            page.call("Page.setWebLifecycleState", state="active" if setting == "page" else "frozen")
            time.sleep(pause.uniform(0.6, 1.1))
            timed(y)  # wakes both cores of an idle virtual machine, untimed
            t, out = timed(y, repeats)
            times[setting].append(t)
            assert out == data.sum() or np.isclose(out, data.sum())
            if setting != "none":
                assert _dashboard.computations.state(None, 0)["current"]["done"] == planned
    none = statistics.median(times["none"])
    print(f"x.sum() over {planned:,} tasks ({blocks:,} blocks of 100), median of {rounds} rounds of the three settings, {repeats} computations each")
    print(f"  {'':<26}{'median':>11}   / no live view   median of each round's ratio")
    for setting, label in (("none", "no live view"), ("serving", "live view, no page open"), ("page", "live view, page open")):
        t = statistics.median(times[setting])
        paired = statistics.median(a / b for a, b in zip(times[setting], times["none"]))
        print(f"  {label:<26}{t * 1e3:8.2f} ms   {t / none:13.3f}   {paired:13.3f}")


def million_tasks(board, page, tasks):
    data = np.ones(tasks * 4)
    y = tg.asarray(data, chunks=4).sum()
    planned = y.task_count()
    done = {}

    def run():
        start = time.perf_counter()
        done["value"] = y.compute()
        done["seconds"] = time.perf_counter() - start

    if board not in _dashboard._running:  # the small tasks' last setting may have been without it
        _dashboard._running.append(board)
    page.call("Page.setWebLifecycleState", state="active")
    page.call("Page.navigate", url=board.link)
    time.sleep(1)
    sent_before = board.bytes_sent
    worker = threading.Thread(target=run)
    start = time.perf_counter()
    worker.start()
    waits, seen_running = [], 0
    count = "Number(document.getElementById('done').textContent)"
    while worker.is_alive():
        t = time.perf_counter()
        with urllib.request.urlopen(f"http://127.0.0.1:{board.port}/api/state", timeout=60) as r:
            r.read()
        waits.append(time.perf_counter() - t)
        seen_running = max(seen_running, page.evaluate(count))
        time.sleep(0.5)
    worker.join()
    elapsed = time.perf_counter() - start
    sent = board.bytes_sent - sent_before
    ended = time.perf_counter()
    while page.evaluate(count) != planned and time.perf_counter() - ended < 10:
        time.sleep(0.1)
    page_done, caught_up = page.evaluate(count), time.perf_counter() - ended
    assert done["value"] == tasks * 4
    print(f"x.sum() over {planned:,} tasks with the page open: {done['seconds']:.1f} s")
    print(f"  to the page and this probe: {sent / elapsed / 1e3:.1f} kB/s (limit 1000)")
    print(f"  answers to the probe: median {statistics.median(waits) * 1e3:.1f} ms, slowest {max(waits) * 1e3:.1f} ms, {len(waits)} asked")
    print(f"  the page's count: {seen_running:,} at most while it ran, {page_done:,} of {planned:,} {caught_up:.1f} s after the end")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--repeats", type=int, default=5, help="computations back to back per round and setting")
    parser.add_argument("--blocks", type=int, default=10_000, help="blocks of the small-task sum (about two tasks each)")
    parser.add_argument("--million", type=int, default=1_000_000)
    args = parser.parse_args()
    board = tg.dashboard(port=0, show=False)
    with Browser() as browser:
        page = browser.open(board.link)
        small_tasks(board, page, args.blocks, args.rounds, args.repeats)
        if args.million:
            million_tasks(board, page, args.million)
    board.close()


if __name__ == "__main__":
    main()
