"""tegula's executors side by side, in one run: the process pool (``scheduler="processes"``)
against the threaded executor on bench/run.py's workloads, optionally a baseline build of
tegula's threaded executor (to show that a change did not slow it down), and the process
pool's cost per fragment.

    python bench/executors.py [--quick] [--rounds N] [--baseline DIR] [--out FILE]

``--baseline DIR``: a directory holding another build of the ``tegula`` package (for example
``pip install --target DIR tegula-*.whl`` of the previous commit), imported by its children
before the installed one. Every measurement runs in a fresh child process
(bench/workloads.py); the variants alternate round by round so that drift of the machine
affects all alike; a time is the median over the rounds of each child's median of 5 runs.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
WORKLOADS = ("a", "b_mean", "b_std", "c", "pi", "e30")
# Timed runs per child (after one untimed run): the median is the child's time.
REPEATS = 5


def measure(workload, scheduler, quick, threads, path=None):
    env = dict(os.environ)
    if path:
        env["PYTHONPATH"] = path + os.pathsep + env.get("PYTHONPATH", "")
    args = [sys.executable, os.path.join(HERE, "workloads.py"), workload, "tegula", str(REPEATS),
            "--threads", str(threads), "--scheduler", scheduler, "--verify"] + (["--quick"] if quick else [])
    out = subprocess.run(args, capture_output=True, text=True, env=env, timeout=1800)
    if out.returncode:
        raise SystemExit(f"{workload} ({scheduler}) failed:\n{out.stderr[-2000:]}")
    result = json.loads(out.stdout.strip().splitlines()[-1])
    if not result["verify"]["ok"]:
        raise SystemExit(f"{workload} ({scheduler}) gave a wrong result: {result['verify']}")
    return statistics.median(result["times"])


def input_bytes(workload, quick):
    """Bytes of the NumPy arrays the workload is given (0 for one that generates its inputs)."""
    sys.path.insert(0, HERE)
    import workloads

    count, _, inputs = workloads.EXPRESSIONS[workload]
    if inputs != "memory":
        return 0
    shape, _ = workloads.geometry(workload, quick, None, inputs)
    return count * int(np.prod(shape)) * 8


def copy_seconds(nbytes, rounds=5):
    """The time one copy of `nbytes` takes at this machine's memory bandwidth: NumPy copying
    an array into one already written (no page faults), best of `rounds`."""
    if nbytes == 0:
        return 0.0
    src = np.ones(nbytes // 8)
    dst = np.zeros_like(src)
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        np.copyto(dst, src)
        best = min(best, time.perf_counter() - t0)
    return best


def fragment_cost(workers, fragments=2000):
    """Seconds per fragment the pool adds: a plan of independent fragments of almost no work
    (a user's function, never gathered with others, on a block of 16 numbers, and its
    partial sum), processes minus threads."""
    import tegula as tg
    from tegula import _tegula

    x = tg.map_blocks(np.negative, tg.asarray(np.arange(fragments * 16.0), chunks=16))
    y = x.sum(split_every=fragments)
    count = len(_tegula.plan_fragments([y._h])[0])
    y.compute(scheduler="processes", num_workers=workers)  # the workers started
    times = {}
    for scheduler in ("threads", "processes"):
        runs = []
        for _ in range(5):
            t0 = time.perf_counter()
            y.compute(scheduler=scheduler, num_workers=workers)
            runs.append(time.perf_counter() - t0)
        times[scheduler] = statistics.median(runs)
    return count, times, (times["processes"] - times["threads"]) / count


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="bench/run.py's small sizes")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)))
    p.add_argument("--workloads", nargs="+", default=list(WORKLOADS), choices=WORKLOADS)
    p.add_argument("--baseline", help="a directory holding another build of tegula (its threads run too)")
    p.add_argument("--out", help="also write the markdown report to this file")
    args = p.parse_args()

    variants = [("threads", "threads", None), ("processes", "processes", None)]
    if args.baseline:
        variants.append(("baseline threads", "threads", args.baseline))
    times = {(w, name): [] for w in args.workloads for name, _, _ in variants}
    for r in range(args.rounds):
        for w in args.workloads:
            for name, scheduler, path in variants:
                times[(w, name)].append(measure(w, scheduler, args.quick, args.threads, path))
                print(f"round {r + 1}: {w} {name}: {times[(w, name)][-1]:.3f} s", file=sys.stderr, flush=True)
    count, small, per_fragment = fragment_cost(args.threads)
    copies = {w: copy_seconds(input_bytes(w, args.quick)) for w in args.workloads}

    lines = [f"# tegula executors ({'quick' if args.quick else 'full'} sizes, {args.threads} workers, "
             f"median of {args.rounds} rounds)", ""]
    header = ("| workload | " + " | ".join(f"{name} (s)" for name, _, _ in variants)
              + " | processes / threads | one copy of the inputs (s) | processes / (threads + copy) |")
    if args.baseline:
        header += " threads / baseline |"
    lines += [header, "|" + "---|" * (header.count("|") - 1)]
    for w in args.workloads:
        med = {name: statistics.median(times[(w, name)]) for name, _, _ in variants}
        row = f"| {w} | " + " | ".join(f"{med[name]:.3f}" for name, _, _ in variants)
        row += f" | {med['processes'] / med['threads']:.2f} | {copies[w]:.3f} |"
        row += f" {med['processes'] / (med['threads'] + copies[w]):.2f} |"
        if args.baseline:
            row += f" {med['threads'] / med['baseline threads']:.3f} |"
        lines.append(row)
    lines += ["", "One copy of the inputs: NumPy copying as many bytes into an array already written, best "
              "of five, in this run (issue 63's line: processes within 1.2x threads + that copy).",
              "", f"Process pool cost per fragment: {per_fragment * 1e3:.2f} ms "
              f"({count} fragments: {small['processes']:.3f} s with processes, {small['threads']:.3f} s with threads)."]
    report = "\n".join(lines)
    print(report)
    if args.out:
        with open(args.out, "w") as f:
            f.write(report + "\n")


if __name__ == "__main__":
    main()
