"""Memory benchmarks: each workload runs in a fresh process per library, whose peak RSS the
kernel reports (wait4's ru_maxrss, the whole process: interpreter, libraries, chunks), next to
its wall time. Dask runs in the same invocation where the issue compares against it.

    .venv/bin/python bench/memory.py                      # every workload
    .venv/bin/python bench/memory.py --workloads order refuse
    .venv/bin/python bench/memory.py --scale 0.1          # smaller inputs, a smoke test
"""

import argparse
import json
import os
import time

import fair_blas  # before NumPy: Dask on this machine's own BLAS kernels
from child import run_child

GB = 10**9


def ordering(m, scale, rng):
    """Dask's "Ordering" docs example: four 12500x10000 float64 arrays in ~10 MB row chunks."""
    rows, cols = int(12500 * scale), 10000
    shape, chunks = (rows, cols), (125, cols)
    x1, y1, x2, y2 = (rng.random(shape, chunks=chunks) for _ in range(4))
    u, v = m.stack([x1, y1]), m.stack([x2, y2])
    return [abs(c[0] - c[1]).mean(axis=-1) for c in (u, v, u ** 2 + v ** 2)]


def quadratic_means(m, scale, rng):
    """u, v of 10 GB each, generated; four means computed together."""
    n = int(10 * GB / 8 * scale)
    u, v = rng.random(n, chunks=10**7), rng.random(n, chunks=10**7)
    return [(u * v).mean(), u.mean(), v.mean(), (u ** 2).mean()]


def mars(m, scale, rng):
    """The Mars example: (a @ a.T - a).std(), a = 16000x16000 float64 (2 GB), in 2000² blocks."""
    n = int(16000 * scale)
    a = rng.random((n, n), chunks=(max(1, n // 8), max(1, n // 8)))
    return [(a @ a.T - a).std()]


def refuse(m, scale, rng):
    """One 5 GB chunk: must be refused before anything runs."""
    n = int(5 * GB / 8 * scale)
    return [(m.ones(n, chunks=-1) * 2)]


WORKLOADS = {
    "order": (ordering, None, ["tegula", "dask"]),
    "qmeans": (quadratic_means, "1GB", ["tegula"]),
    "refuse": (refuse, "1GB", ["tegula"]),
    # The same plan under a 1 GB budget and with none (the time ratio the issue asks for).
    "mars": (mars, "1GB", ["tegula", "tegula-unbounded"]),
}


def child(workload, library, scale):
    build, budget, _ = WORKLOADS[workload]
    if library.startswith("tegula"):
        import tegula as m

        rng = m.random.default_rng(0)
        if budget and library == "tegula":
            # The budget shrinks with the data (mars's data grows with the square of its side).
            m.config.set(memory=int(float(budget[:-2]) * GB * (scale ** 2 if workload == "mars" else scale)))
        t0 = time.perf_counter()
        try:
            _, report = m.compute(*build(m, scale, rng), report=True)
        except MemoryError as e:
            return {"seconds": time.perf_counter() - t0, "refused": str(e)}
        return {"seconds": time.perf_counter() - t0, "report": report}
    import dask
    import dask.array as m

    rng = m.random.default_rng(0)
    t0 = time.perf_counter()
    dask.compute(*build(m, scale, rng), scheduler="threads", num_workers=os.cpu_count())
    return {"seconds": time.perf_counter() - t0}


def run(workload, library, scale):
    return run_child(__file__, [workload, library, "--scale", str(scale)])


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--workloads", nargs="+", choices=sorted(WORKLOADS), default=sorted(WORKLOADS))
    p.add_argument("--scale", type=float, default=1.0)
    p.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.child:
        print(json.dumps(child(*a.child, a.scale)))
        return
    print(f"NumPy's BLAS (Dask's): {fair_blas.blas_kernels()}", flush=True)
    for w in a.workloads:
        results = {lib: run(w, lib, a.scale) for lib in WORKLOADS[w][2]}
        for lib, r in results.items():
            print(f"{w:7} {lib:7} {json.dumps(r)}", flush=True)
        for other in ("dask", "tegula-unbounded"):
            if other in results and "seconds" in results[other] and "seconds" in results["tegula"]:
                t, d = results["tegula"], results[other]
                print(f"{w:7} tegula/{other}: time {t['seconds'] / d['seconds']:.2f}, "
                      f"peak RSS {t['peak_rss_mb'] / d['peak_rss_mb']:.2f}")


if __name__ == "__main__":
    main()
