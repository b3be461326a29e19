"""The workloads of bench/run.py at three chunkings (small, medium and large blocks) and with
both kinds of input (NumPy arrays already in memory, and the library's own generator inside the
timing), tegula against Dask's threaded scheduler in the same run. Targets are judged on the
worst ratio per workload, which the last table gives.

    .venv/bin/python bench/sweep.py                    # full sizes, about 30 minutes
    .venv/bin/python bench/sweep.py --quick            # 10x smaller, a few minutes
    .venv/bin/python bench/sweep.py --workloads b_mean b_std --inputs memory

Every measurement is a fresh process (bench/workloads.py with --chunk and --inputs): one
untimed warm-up run, then --repeats timed runs; a library's time is its best over --rounds
processes. Every result is checked against NumPy on the same inputs (bench/workloads.py
--verify). Run it on a quiet machine: other work makes the ratios noisy.

The machine's read bandwidth is measured in the same run (bench/triad.rs, as bench/run.py
does). For inputs in memory, "read floor" is the time to read every input byte once at that
bandwidth, as a multiple of Dask's time: a row whose floor is above 0.5 cannot reach half of
Dask's time on this machine, whatever the implementation."""

import argparse
import json
import math
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fair_blas  # noqa: E402  (before NumPy: NumPy and Dask on this machine's own BLAS kernels)
import workloads  # noqa: E402
from run import bandwidth  # noqa: E402

WORKLOADS = tuple(workloads.EXPRESSIONS)
# chunk sizes of the sweep as multiples of the workload's own chunk (bench/workloads.py sizes)
FACTORS = {"b": (0.5, 1, 2.5), "c": (1, 10, 100)}
DEFAULT_FACTORS = (0.1, 1, 5)


def chunkings(workload, quick):
    _, chunk = workloads.sizes(quick)[workloads.size_key(workload)]
    factors = FACTORS.get(workloads.size_key(workload), DEFAULT_FACTORS)
    return [int(chunk * f) for f in factors]


def measure(workload, library, chunk, inputs, args):
    cmd = [sys.executable, os.path.join(HERE, "workloads.py"), workload, library,
           str(args.repeats), "--threads", str(args.threads), "--chunk", str(chunk),
           "--inputs", inputs, "--verify"]
    if args.quick:
        cmd.append("--quick")
    proc = subprocess.run(cmd, text=True, capture_output=True, timeout=args.timeout)
    if proc.returncode != 0:
        lines = proc.stderr.strip().splitlines() or ["failed"]
        return {"failed": lines[-1]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def best_of(workload, library, chunk, inputs, args):
    runs = [measure(workload, library, chunk, inputs, args) for _ in range(args.rounds)]
    good = [r for r in runs if "failed" not in r]
    if not good:
        return {"failed": runs[-1]["failed"]}
    best = min(good, key=lambda r: min(r["times"]))
    best["best"] = min(best["times"])
    best["ok"] = all(r.get("verify", {}).get("ok") for r in good)
    return best


def read_floor(workload, inputs, dask, read_gbs, quick):
    """The seconds to read the in-memory inputs once at `read_gbs`, over Dask's time; None
    for generated inputs or without a bandwidth."""
    if inputs != "memory" or not read_gbs or "failed" in dask:
        return None
    count = workloads.EXPRESSIONS[workload][0]
    shape, _ = workloads.geometry(workload, quick, None, inputs)
    nbytes = count * 8 * math.prod(shape)
    return nbytes / (read_gbs * 1e9) / dask["best"]


def row(workload, inputs, chunk, ours, dask, floor):
    def cell(r):
        return "failed" if "failed" in r else f"{r['best']:.3f}"

    ratio = None if "failed" in ours or "failed" in dask else ours["best"] / dask["best"]
    ok = all(r.get("ok") for r in (ours, dask))
    rss = " / ".join("—" if "failed" in r else f"{r['peak_rss_mb']:.0f}" for r in (ours, dask))
    blocks = ours.get("chunks") or dask.get("chunks")
    return ratio, (f"| {workload} | {inputs} | {chunk:,} ({blocks:,} blocks) | {cell(ours)} | "
                   f"{cell(dask)} | {'—' if ratio is None else f'{ratio:.2f}'} | {rss} | "
                   f"{'—' if floor is None else f'{floor:.2f}'} | {'yes' if ok else '**NO**'} |")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="bench/workloads.py's smaller sizes")
    p.add_argument("--workloads", nargs="+", default=list(WORKLOADS), choices=WORKLOADS)
    p.add_argument("--inputs", nargs="+", default=["memory", "generated"],
                   choices=["memory", "generated"])
    p.add_argument("--rounds", type=int, default=1, help="fresh processes per measurement")
    p.add_argument("--repeats", type=int, default=2, help="timed runs per process")
    p.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)))
    p.add_argument("--timeout", type=float, default=900, help="seconds per process")
    p.add_argument("--json", help="also write the raw results to this file")
    args = p.parse_args(argv)

    bw = bandwidth(args.threads, lambda m: print(m, file=sys.stderr))
    read_gbs = bw and bw["read_gbs"]
    print(f"{args.threads} threads; best of {args.rounds} process(es) x {args.repeats} run(s); "
          f"{time.strftime('%Y-%m-%d %H:%M')}; read bandwidth (bench/triad.rs, this run): "
          f"{'not measured' if not read_gbs else f'{read_gbs:.1f} GB/s'}; "
          f"NumPy's BLAS (Dask's): {fair_blas.blas_kernels()}\n")
    print("| workload | inputs | chunk | tegula (s) | Dask (s) | tegula / Dask | "
          "peak RSS MB (tegula / Dask) | read floor / Dask | checked |")
    print("|---|---|---|---|---|---|---|---|---|")
    worst, raw = {}, []
    for workload in args.workloads:
        for inputs in args.inputs:
            for chunk in chunkings(workload, args.quick):
                ours, dask = (best_of(workload, lib, chunk, inputs, args)
                              for lib in ("tegula", "dask"))
                floor = read_floor(workload, inputs, dask, read_gbs, args.quick)
                ratio, line = row(workload, inputs, chunk, ours, dask, floor)
                print(line, flush=True)
                raw.append({"workload": workload, "inputs": inputs, "chunk": chunk,
                            "tegula": ours, "dask": dask})
                if ratio is not None:
                    worst[workload] = max(worst.get(workload, 0.0), ratio)
    print("\n| workload | worst tegula / Dask over the sweep |\n|---|---|")
    for workload, ratio in worst.items():
        print(f"| {workload} | {ratio:.2f} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(raw, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
