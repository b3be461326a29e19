"""Rechunking stored arrays under a memory budget: tegula against Dask + zarr-python, each
in a fresh process (peak RSS from wait4: interpreter, libraries and data), reading cold
(every file of the store evicted from the page cache first, as bench/zarr.py does).

    .venv/bin/python bench/rechunk.py                 # 32768² float64 (8 GiB), budget 1 GB
    .venv/bin/python bench/rechunk.py --side 8192 --memory 256MB --rounds 1   # a smoke test

Workload: an n×n float64 Zarr array (format 3, no compression) stored in column strips of
`--strip` columns, rechunked to row strips of `--strip` rows, then summed per row:
``from_zarr(path).rechunk((strip, n)).sum(axis=1)``. tegula runs under
``tg.config.set(memory=--memory)``, with its spill area in --dir; Dask with its threaded
scheduler, one thread per CPU (it has no budget). Both row sums must agree (rtol 1e-9). The
store is written once by tegula (untimed) and reused with --keep.
"""

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
GB, MiB = 10**9, 2**20
# bench/zarr.py would be found as zarr-python: this directory must not be on the path.
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != HERE]


def zarr_bench():
    """bench/zarr.py's helpers (cache eviction), loaded under another name than zarr."""
    spec = importlib.util.spec_from_file_location("bench_zarr", os.path.join(HERE, "zarr.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def child_create(a):
    import tegula as tg

    n, strip = a.side, a.strip
    x = tg.random.default_rng(0).standard_normal((n, n), chunks=(n, strip))
    t0 = time.perf_counter()
    tg.to_zarr(x, a.path, overwrite=True, zarr_format=3)
    zarr_bench().fsync_tree(a.path)
    return {"seconds": time.perf_counter() - t0}


def child_rechunk(a):
    import numpy as np

    n, strip = a.side, a.strip
    t0 = time.perf_counter()
    if a.library == "tegula":
        import tegula as tg

        tg.config.set(memory=a.memory, spill_dir=a.dir)
        y = tg.from_zarr(a.path).rechunk((strip, n)).sum(axis=1)
        stages = sum(" = rechunk(" in line for line in y.explain().splitlines())
        (r,), report = tg.compute(y, report=True)
        extra = {"stages": stages, "spilled_mb": report.get("spilled_bytes", 0) / MiB,
                 "ledger_peak_mb": report.get("peak_bytes", 0) / MiB}
    else:
        import dask.array as da

        r = da.from_zarr(a.path).rechunk((strip, n)).sum(axis=1).compute(scheduler="threads", num_workers=os.cpu_count())
        extra = {}
    seconds = time.perf_counter() - t0
    np.save(a.result, r)
    return {"seconds": seconds, **extra}


def spawn(a, op, library, result=""):
    cmd = [sys.executable, os.path.abspath(__file__), "--child", op, "--library", library, "--path", a.path,
           "--side", str(a.side), "--strip", str(a.strip), "--memory", a.memory, "--dir", a.dir, "--result", result]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    r = json.loads(out.strip().splitlines()[-1]) if code == 0 and out.strip() else {"failed": code}
    r["peak_rss_mb"] = usage.ru_maxrss / 1024
    return r


def store(a):
    done = a.path + ".done"
    want = {"side": a.side, "strip": a.strip}
    try:
        with open(done) as f:
            if json.load(f) == want:
                return
    except (OSError, ValueError):
        pass
    r = spawn(a, "create", "tegula")
    if "failed" in r:
        raise RuntimeError(f"writing the store failed: {r}")
    print(f"wrote {a.side}² float64 in ({a.side}, {a.strip}) chunks in {r['seconds']:.1f} s", file=sys.stderr)
    with open(done, "w") as f:
        json.dump(want, f)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--side", type=int, default=32768)
    p.add_argument("--strip", type=int, default=256)
    p.add_argument("--memory", default="1GB")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--dir", default=None)
    p.add_argument("--keep", action="store_true")
    p.add_argument("--child", choices=("create", "rechunk"))
    p.add_argument("--library", default="tegula")
    p.add_argument("--path", default=None)
    p.add_argument("--result", default="")
    a = p.parse_args()
    if a.child:
        print(json.dumps((child_create if a.child == "create" else child_rechunk)(a)))
        return
    import numpy as np

    a.dir = a.dir or tempfile.mkdtemp(prefix="tegula-rechunk-")
    a.path = a.path or os.path.join(a.dir, f"strips-{a.side}-{a.strip}.zarr")
    store(a)
    zb = zarr_bench()
    runs, problems = {"tegula": [], "dask": []}, []
    for rnd in range(a.rounds):
        sums = {}
        for lib in runs:
            zb.evict(a.path)
            result = os.path.join(a.dir, f"sums-{lib}.npy")
            r = spawn(a, "rechunk", lib, result)
            runs[lib].append(r)
            print(f"round {rnd + 1} {lib}: {json.dumps(r)}", file=sys.stderr)
            if "failed" not in r:
                sums[lib] = np.load(result)
        if len(sums) == 2 and not np.allclose(sums["tegula"], sums["dask"], rtol=1e-9, atol=1e-9):
            problems.append(f"round {rnd + 1}: the row sums differ")
    best = {lib: min((r for r in rs if "seconds" in r), key=lambda r: r["seconds"], default=None) for lib, rs in runs.items()}
    t, d = best["tegula"], best["dask"]
    print(f"\n{a.side}² float64 ({a.side * a.side * 8 / GB:.1f} GB), column strips of {a.strip} → row strips, sum per row; "
          f"tegula budget {a.memory}; fastest of {a.rounds} cold rounds\n")
    print("| library | seconds | peak RSS MB | stages | spilled MB |\n|---|---|---|---|---|")
    for lib, r in best.items():
        if r is None:
            print(f"| {lib} | failed: {runs[lib]} | | | |")
            continue
        print(f"| {lib} | {r['seconds']:.1f} | {r['peak_rss_mb']:.0f} | {r.get('stages', '')} | {r.get('spilled_mb', 0):.0f} |")
    if t and d:
        print(f"\ntime tegula/dask {t['seconds'] / d['seconds']:.2f}; peak RSS tegula/dask {t['peak_rss_mb'] / d['peak_rss_mb']:.2f}")
    for line in problems:
        print("PROBLEM:", line)
    if not a.keep:
        subprocess.run(["rm", "-rf", a.path, a.path + ".done"])
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
