"""Stored arrays read in another layout than their chunks': tegula against Dask +
zarr-python, each in a fresh process (peak RSS from wait4: interpreter, libraries and data),
reading cold (every file of the store evicted from the page cache first, as bench/zarr.py
does).

    .venv/bin/python bench/rechunk.py                 # 32768² float64 (8 GiB), budget 1 GB
    .venv/bin/python bench/rechunk.py --side 8192 --memory 256MB --rounds 1   # a smoke test
    .venv/bin/python bench/rechunk.py --workload add-transpose --side 24000 --strip 250,500,2000

--workload rechunk (the default): an n×n float64 Zarr array (format 3) stored in column
strips of `--strip` columns, rechunked to row strips of `--strip` rows, then summed per row:
``from_zarr(path).rechunk((strip, n)).sum(axis=1)``, tegula under
``tg.config.set(memory=--memory)`` (default 1 GB). --workload add-transpose: the array stored
in row strips of `--strip` rows, ``(x + x.T).sum()``, tegula under its default budget unless
--memory is given. tegula's spill area is in --dir; Dask runs its threaded scheduler, one
thread per CPU (it has no budget). The results must agree (rtol 1e-9). --codec: the stored
chunks' compression (none or zstd). --strip takes a comma-separated sweep; the worst ratios
over it are printed last. The store is written once by tegula (untimed) and reused with --keep.
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
sys.path.insert(0, HERE)
import fair_blas  # noqa: E402  (before NumPy: NumPy and Dask on this machine's own BLAS kernels)
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
    chunks = (n, strip) if a.workload == "rechunk" else (strip, n)
    x = tg.random.default_rng(0).standard_normal((n, n), chunks=chunks)
    t0 = time.perf_counter()
    tg.to_zarr(x, a.path, overwrite=True, zarr_format=3, compressor=None if a.codec == "none" else a.codec)
    zarr_bench().fsync_tree(a.path)
    return {"seconds": time.perf_counter() - t0}


def expression(a, x):
    if a.workload == "rechunk":
        return x.rechunk((a.strip, a.side)).sum(axis=1)
    return (x + x.T).sum()


def child_rechunk(a):
    import numpy as np

    t0 = time.perf_counter()
    if a.library == "tegula":
        import tegula as tg

        tg.config.set(spill_dir=a.dir, **({"memory": a.memory} if a.memory else {}))
        y = expression(a, tg.from_zarr(a.path))
        stages = sum(" = rechunk(" in line for line in y.explain().splitlines())
        (r,), report = tg.compute(y, report=True)
        extra = {"stages": stages, "spilled_mb": report.get("spilled_bytes", 0) / MiB,
                 "ledger_peak_mb": report.get("peak_bytes", 0) / MiB}
    else:
        import dask.array as da

        r = expression(a, da.from_zarr(a.path)).compute(scheduler="threads", num_workers=os.cpu_count())
        extra = {}
    seconds = time.perf_counter() - t0
    np.save(a.result, r)
    return {"seconds": seconds, **extra}


def spawn(a, op, library, result=""):
    cmd = [sys.executable, os.path.abspath(__file__), "--child", op, "--library", library, "--path", a.path,
           "--side", str(a.side), "--strip", str(a.strip), "--dir", a.dir, "--result", result,
           "--workload", a.workload, "--codec", a.codec]
    if a.memory:
        cmd += ["--memory", a.memory]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    r = json.loads(out.strip().splitlines()[-1]) if code == 0 and out.strip() else {"failed": code}
    r["peak_rss_mb"] = usage.ru_maxrss / 1024
    return r


def store(a):
    done = a.path + ".done"
    want = {"side": a.side, "strip": a.strip, "workload": a.workload, "codec": a.codec}
    try:
        with open(done) as f:
            if json.load(f) == want:
                return
    except (OSError, ValueError):
        pass
    r = spawn(a, "create", "tegula")
    if "failed" in r:
        raise RuntimeError(f"writing the store failed: {r}")
    print(f"wrote {a.side}² float64 in strips of {a.strip} ({a.codec}) in {r['seconds']:.1f} s", file=sys.stderr)
    with open(done, "w") as f:
        json.dump(want, f)


def measure(a, zb):
    """The fastest of --rounds cold runs per library at one strip size, and any problems."""
    import numpy as np

    store(a)
    runs, problems = {"tegula": [], "dask": []}, []
    for rnd in range(a.rounds):
        results = {}
        for lib in runs:
            zb.evict(a.path)
            result = os.path.join(a.dir, f"result-{lib}.npy")
            r = spawn(a, "rechunk", lib, result)
            runs[lib].append(r)
            print(f"strip {a.strip} round {rnd + 1} {lib}: {json.dumps(r)}", file=sys.stderr)
            if "failed" not in r:
                results[lib] = np.load(result)
        if len(results) == 2 and not np.allclose(results["tegula"], results["dask"], rtol=1e-9, atol=1e-9):
            problems.append(f"strip {a.strip} round {rnd + 1}: the results differ")
    if not a.keep:
        subprocess.run(["rm", "-rf", a.path, a.path + ".done"])
    best = {lib: min((r for r in rs if "seconds" in r), key=lambda r: r["seconds"], default=None) for lib, rs in runs.items()}
    return best, problems


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--workload", choices=("rechunk", "add-transpose"), default="rechunk")
    p.add_argument("--side", type=int, default=32768)
    p.add_argument("--strip", default="256", help="strip width; several, comma-separated, for a sweep")
    p.add_argument("--codec", choices=("none", "zstd"), default="none")
    p.add_argument("--memory", default=None, help="tegula's budget (default: 1GB for rechunk, "
                   "tegula's own for add-transpose)")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--dir", default=None)
    p.add_argument("--keep", action="store_true")
    p.add_argument("--child", choices=("create", "rechunk"))
    p.add_argument("--library", default="tegula")
    p.add_argument("--path", default=None)
    p.add_argument("--result", default="")
    a = p.parse_args()
    if a.memory is None and a.workload == "rechunk":
        a.memory = "1GB"
    if a.child:
        a.strip = int(a.strip)
        print(json.dumps((child_create if a.child == "create" else child_rechunk)(a)))
        return
    a.dir = a.dir or tempfile.mkdtemp(prefix="tegula-rechunk-")
    layout = "column" if a.workload == "rechunk" else "row"
    what = (f"{layout} strips → row strips, sum per row" if a.workload == "rechunk" else "row strips, (x + x.T).sum()")
    print(f"{a.side}² float64 ({a.side * a.side * 8 / GB:.1f} GB, {a.codec}), {what}; "
          f"tegula budget {a.memory or 'default'}; fastest of {a.rounds} cold rounds; "
          f"NumPy's BLAS (Dask's): {fair_blas.blas_kernels()}\n")
    print("| strip | library | seconds | peak RSS MB | stages | spilled MB |\n|---|---|---|---|---|---|")
    zb, problems, worst = zarr_bench(), [], {"time": 0.0, "rss": 0.0}
    path = a.path
    for strip in [int(s) for s in a.strip.split(",")]:
        a.strip = strip
        a.path = path or os.path.join(a.dir, f"{layout}-strips-{a.side}-{strip}-{a.codec}.zarr")
        best, found = measure(a, zb)
        problems += found
        for lib, r in best.items():
            if r is None:
                print(f"| {strip} | {lib} | failed: {r} | | | |")
                continue
            print(f"| {strip} | {lib} | {r['seconds']:.1f} | {r['peak_rss_mb']:.0f} | {r.get('stages', '')} | "
                  f"{r.get('spilled_mb', 0):.0f} |", flush=True)
        t, d = best["tegula"], best["dask"]
        if t and d:
            worst["time"] = max(worst["time"], t["seconds"] / d["seconds"])
            worst["rss"] = max(worst["rss"], t["peak_rss_mb"] / d["peak_rss_mb"])
    print(f"\nworst over the strips: time tegula/dask {worst['time']:.2f}; peak RSS tegula/dask {worst['rss']:.2f}")
    for line in problems:
        print("PROBLEM:", line)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
