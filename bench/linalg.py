"""Linear algebra on chunked arrays (issue 7): tegula against Dask (threaded scheduler, one
thread per CPU) and NumPy in one run, each workload and library in a fresh process whose wall
time and peak RSS (wait4's ru_maxrss: the whole process) are reported.

    .venv/bin/python bench/linalg.py                       # every workload, full size
    .venv/bin/python bench/linalg.py --scale 0.25          # smaller (sides and rows scaled)
    .venv/bin/python bench/linalg.py --workloads tsqr mars

Workloads (the issue's table):
  matmul  square 6000x6000 float64 in memory, chunks 1500^2; "faer" is tegula with each matrix
          in one block, so one faer GEMM call on the whole matrices (the single-call rate)
  ata     A.T @ A, A = 2e6 x 500 float64 generated in chunks (1e5, 500)
  mars    (a @ a.T - a).std(), a = 8000^2 generated in chunks 2000^2
  tsqr    the SVD (U, S, Vh) of a 5e6 x 32 float64 matrix generated in row chunks of 5e5 rows
          (tegula: TSQR via linalg.svd(full_matrices=False); Dask: da.linalg.svd)
Generated inputs come from each library's own generator, so generation is timed too; every
library checks a result that does not depend on the random values (matmul: against NumPy's
product of the same inputs, in the child, untimed; the others: finite, right shape, and for
tsqr U's columns orthonormal and U S Vh equal to A on a row block).
"""

import argparse
import json
import os
import time

import fair_blas  # before NumPy: NumPy and Dask on this machine's own BLAS kernels
import numpy as np

from child import run_child

THREADS = os.cpu_count()


def sizes(scale):
    side = lambda n: max(2, int(n * scale))  # noqa: E731
    return {
        "matmul": {"n": side(6000), "chunk": side(1500)},
        "ata": {"rows": side(2_000_000), "cols": 500, "chunk": side(100_000)},
        "mars": {"n": side(8000), "chunk": side(2000)},
        "tsqr": {"rows": side(5_000_000), "cols": 32, "chunk": side(500_000)},
    }


def matmul_inputs(n):
    rng = np.random.default_rng(0)
    return rng.standard_normal((n, n)), rng.standard_normal((n, n))


def run_matmul(library, n, chunk):
    a, b = matmul_inputs(n)
    if library == "numpy":
        t0 = time.perf_counter()
        c = a @ b
        return time.perf_counter() - t0, c
    if library == "dask":
        import dask
        import dask.array as da

        x, y = da.from_array(a, chunks=chunk), da.from_array(b, chunks=chunk)
        with dask.config.set(scheduler="threads", num_workers=THREADS):
            t0 = time.perf_counter()
            c = (x @ y).compute()
        return time.perf_counter() - t0, c
    import tegula as tg

    chunks = -1 if library == "faer" else chunk
    x, y = tg.asarray(a, chunks=chunks), tg.asarray(b, chunks=chunks)
    t0 = time.perf_counter()
    c = (x @ y).compute()
    return time.perf_counter() - t0, c


def matmul_child(library, p):
    seconds, c = run_matmul(library, p["n"], p["chunk"])
    a, b = matmul_inputs(p["n"])
    error = float(np.abs(c - a @ b).max() / np.abs(c).max())
    return {"seconds": seconds, "gflops": 2 * p["n"] ** 3 / seconds / 1e9, "ok": error < 1e-12, "rel_error": error}


def generator(library):
    if library == "dask":
        import dask.array as da

        return da.random.default_rng(0)
    import tegula as tg

    return tg.random.default_rng(0)


def compute(library, *arrays):
    if library == "dask":
        import dask

        with dask.config.set(scheduler="threads", num_workers=THREADS):
            return dask.compute(*arrays)
    import tegula as tg

    return tg.compute(*arrays)


def ata_child(library, p):
    a = generator(library).standard_normal((p["rows"], p["cols"]), chunks=(p["chunk"], p["cols"]))
    t0 = time.perf_counter()
    (g,) = compute(library, a.T @ a)
    seconds = time.perf_counter() - t0
    # A Gram matrix of standard normals: diagonal near rows, symmetric.
    ok = g.shape == (p["cols"],) * 2 and np.allclose(g, g.T) and abs(np.diag(g).mean() / p["rows"] - 1) < 0.01
    return {"seconds": seconds, "gflops": 2 * p["rows"] * p["cols"] ** 2 / seconds / 1e9, "ok": bool(ok)}


def mars_child(library, p):
    a = generator(library).random((p["n"], p["n"]), chunks=p["chunk"])
    t0 = time.perf_counter()
    (s,) = compute(library, (a @ a.T - a).std())
    seconds = time.perf_counter() - t0
    # Entries of a @ a.T are sums of n products of two uniforms: spread about sqrt(n * 7/144).
    ok = np.isfinite(s) and 0.5 < float(s) / np.sqrt(p["n"] * 7 / 144) < 2
    return {"seconds": seconds, "ok": bool(ok), "std": float(s)}


def tsqr_child(library, p):
    a = generator(library).standard_normal((p["rows"], p["cols"]), chunks=(p["chunk"], p["cols"]))
    if library == "dask":
        import dask.array as da

        factors = da.linalg.svd(a)
    else:
        import tegula.linalg as la

        factors = la.svd(a, full_matrices=False)
    rows = min(p["chunk"], 1000)
    t0 = time.perf_counter()
    u, s, vh, head = compute(library, *factors, a[:rows])
    seconds = time.perf_counter() - t0
    ok = (u.shape == (p["rows"], p["cols"]) and np.allclose(u.T @ u, np.eye(p["cols"]), atol=1e-8)
          and np.allclose((u[:rows] * s) @ vh, head, atol=1e-8) and (np.diff(s) <= 0).all())
    return {"seconds": seconds, "ok": bool(ok)}


CHILDREN = {"matmul": matmul_child, "ata": ata_child, "mars": mars_child, "tsqr": tsqr_child}
LIBRARIES = {"matmul": ["tegula", "faer", "dask", "numpy"], "ata": ["tegula", "dask"], "mars": ["tegula", "dask"],
             "tsqr": ["tegula", "dask"]}


def run(workload, library, params):
    result = run_child(__file__, [workload, library, json.dumps(params)])
    result["peak_rss_mb"] = round(result["peak_rss_mb"])
    return result


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scale", type=float, default=1.0, help="factor on every side and row count")
    p.add_argument("--workloads", nargs="+", default=list(CHILDREN), choices=list(CHILDREN))
    p.add_argument("--rounds", type=int, default=1, help="fresh processes per library; the best time is kept")
    p.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.child:
        workload, library, params = a.child
        print(json.dumps(CHILDREN[workload](library, json.loads(params))))
        return
    params = sizes(a.scale)
    print(f"NumPy's BLAS: {fair_blas.blas_kernels()}", flush=True)
    for workload in a.workloads:
        results = {}
        for library in LIBRARIES[workload]:
            runs = [run(workload, library, params[workload]) for _ in range(a.rounds)]
            results[library] = min(runs, key=lambda r: r.get("seconds", float("inf")))
            print(f"{workload:7} {library:7} {json.dumps(results[library])}", flush=True)
        t = results["tegula"].get("seconds")
        for other in ("faer", "dask", "numpy"):
            if t and results.get(other, {}).get("seconds"):
                print(f"{workload:7} tegula/{other}: {t / results[other]['seconds']:.2f}", flush=True)
        print(f"{workload:7} params {json.dumps(params[workload])}", flush=True)


if __name__ == "__main__":
    main()
