"""The progress bar's overhead on the 20,000-task workload (x.sum(), x = 2e6 float64 in chunks
of 100): the same computation with and without a bar, alternating, in one process; the bar
draws to a discarded stream so the terminal's speed is not measured.

    .venv/bin/python bench/progress.py [--rounds 15]
"""

import argparse
import io
import statistics
import time

import numpy as np

import tegula as tg
from tegula import _functions, _progress


def timed(y, bar):
    start = time.perf_counter()
    if bar is None:
        (out,), _ = _functions._tegula.compute([y._h])
    else:
        (out,), _ = _functions._tegula.compute([y._h], progress=bar, interval=_progress.INTERVAL)
    return time.perf_counter() - start, out


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    data = np.random.default_rng(0).random(2 * 10**6)
    y = tg.asarray(data, chunks=100).sum()
    tasks = y.task_count()
    timed(y, None)  # warm the pool and the pages
    plain, watched = [], []
    for _ in range(args.rounds):
        t, out = timed(y, None)
        plain.append(t)
        bar = _progress.Bar(stream=io.StringIO())
        t, watched_out = timed(y, bar)
        watched.append(t)
        assert out == watched_out and bar.last[0] == tasks
    p, w = statistics.median(plain), statistics.median(watched)
    print(f"x.sum() over {tasks:,} tasks, median of {args.rounds} alternating rounds")
    print(f"without a progress bar: {p * 1e3:.2f} ms")
    print(f"with a progress bar:    {w * 1e3:.2f} ms  (overhead {(w / p - 1) * 100:+.1f}%)")


if __name__ == "__main__":
    main()
