"""Planning time of the workloads of bench/run.py, bench/linalg.py and bench/logreg.py: the
seconds tegula takes to turn each expression into its task graph (``task_count()``), nothing
computed, at the benchmarks' full sizes and chunkings. Each workload is planned in a fresh
process, REPEATS times after one untimed plan; the median is reported.

    .venv/bin/python bench/planning.py                     # the installed tegula
    .venv/bin/python bench/planning.py --baseline DIR      # and a build in DIR, alternating

``--baseline DIR``: a directory holding another build of the ``tegula`` package (imported
before the installed one); the two builds alternate round by round, so drift of the machine
affects both alike, and the ratio of this build's time to the baseline's is reported.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPEATS = 5


def expressions(tg):
    """Each workload's expression on inputs of its benchmark's shapes and chunks (bench/run.py's
    from bench/workloads.py; generated lazily, so nothing is drawn while planning)."""
    import numpy as np

    sys.path.insert(0, HERE)
    import workloads

    rng = tg.random.default_rng(0)

    def run_workload(name):
        count, expression, _ = workloads.EXPRESSIONS[name]
        shape, chunks = workloads.geometry(name, False, None, "generated")
        return lambda: [expression(tg, *(rng.random(shape, chunks=chunks) for _ in range(count)))]

    def logreg():
        x = rng.standard_normal((2 * 10**6, 28), chunks=(10**5, 28))
        y = rng.random(2 * 10**6, chunks=10**5) < 0.5
        mu = 1 / (1 + tg.exp(-(x @ np.full(28, 0.01))))
        return [x.T @ (mu - y), (x.T * (mu * (1 - mu))) @ x]

    def random(shape, chunks):
        return rng.random(shape, chunks=chunks)

    return {f"run {name}": run_workload(name) for name in workloads.EXPRESSIONS} | {
        "run plan (10^6 chunks)": lambda: [((tg.asarray(np.zeros(10**6), chunks=1) + 1) * 2).sum()],
        "linalg matmul": lambda: [random((6000, 6000), 1500) @ random((6000, 6000), 1500)],
        "linalg ata": lambda: [(lambda a: a.T @ a)(random((2 * 10**6, 500), (10**5, 500)))],
        "linalg mars": lambda: [(lambda a: (a @ a.T - a).std())(random((8000, 8000), 2000))],
        "linalg tsqr": lambda: list(tg.linalg.svd(random((5 * 10**6, 32), (5 * 10**5, 32)), full_matrices=False)),
        "logreg step": logreg,
    }


def child(name):
    import tegula as tg

    make = expressions(tg)[name]
    times = []
    for i in range(REPEATS + 1):
        start = time.perf_counter()
        tasks = sum(e.task_count() for e in make())
        if i:
            times.append(time.perf_counter() - start)
    print(json.dumps({"seconds": statistics.median(times), "tasks": tasks}))


def measure(name, path):
    env = dict(os.environ)
    if path:
        env["PYTHONPATH"] = path + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, __file__, "--child", name], capture_output=True, text=True, env=env, timeout=600)
    if out.returncode:
        raise SystemExit(f"{name} failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--baseline", help="a directory holding another build of the tegula package")
    p.add_argument("--rounds", type=int, default=3, help="fresh processes per workload and build")
    p.add_argument("--child", help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.child:
        return child(a.child)
    import tegula as tg

    builds = {"this build": None} | ({"baseline": a.baseline} if a.baseline else {})
    print("| workload | tasks | " + " | ".join(f"{b} (ms)" for b in builds) + (" | this / baseline |" if a.baseline else " |"))
    print("|---" * (len(builds) + 2 + bool(a.baseline)) + "|")
    for name in expressions(tg):
        runs = {b: [] for b in builds}
        for _ in range(a.rounds):
            for b, path in builds.items():
                runs[b].append(measure(name, path))
        ms = {b: 1000 * statistics.median(r["seconds"] for r in rs) for b, rs in runs.items()}
        cells = [f"{ms[b]:.2f}" for b in builds] + ([f"{ms['this build'] / ms['baseline']:.2f}"] if a.baseline else [])
        print(f"| {name} | {runs['this build'][0]['tasks']} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
