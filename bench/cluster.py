"""tegula on a Ray cluster and on a Dask cluster against Dask Array on the same Dask cluster, in
one run, on this machine: a Ray cluster of a head without CPUs and --nodes one-CPU nodes
(``ray.cluster_utils.Cluster``, each node with its own object store), and a ``LocalCluster`` of
--nodes one-thread worker processes. For each workload and block size: the time and the bytes
moved between nodes or workers — tegula on Ray: Ray's copies of each block
(``get_object_locations``, blocks passed inline counted where they were read); on Dask, for
tegula and Dask Array alike: the workers' transfer logs — and tegula's placement simulator's
prediction of its own bytes. On Dask, tegula runs twice: placed by tegula, and placed by Dask's
scheduler (``placement="dask"``). The last table sets each cluster's times against tegula's
threaded executor on as many threads as the cluster has CPUs (at most this machine's).

    .venv/bin/python bench/cluster.py               # the sizes of the issue, blocks ½×, 1×, 2× its
    .venv/bin/python bench/cluster.py --scale 0.25  # every side a quarter as long
    .venv/bin/python bench/cluster.py --chunkings 1 # the issue's blocks only
    .venv/bin/python bench/cluster.py --repeats 1   # one (cold) run of each workload

Each workload runs --repeats times (default 2) for every library alike; the tables give the
fastest run and, beside it, the first.

Data is generated on the workers (random numbers, the same distribution in both), so neither
side ships inputs from the driver; results come back to the driver in both.
"""

import argparse
import os
import platform
import sys
import time

if __name__ == "__main__":
    # Run as the benchmark (not imported by scaleout.py or fragment_overhead.py): before NumPy,
    # so that NumPy and Dask run on this machine's own BLAS kernels (bench/fair_blas.py).
    import fair_blas

import numpy as np  # noqa: E402

# Each Ray node's object store (the simulated cluster's default, 150 MiB, would spill).
STORE = 2 << 30


def sizes(scale, chunking=1.0):
    """The issue's sizes, every side times `scale`, every block's long sides times `chunking`."""
    s = lambda n: max(1, int(n * scale))  # noqa: E731
    c = lambda n: max(1, int(n * scale * chunking))  # noqa: E731
    return {
        "n": s(8000), "block": c(1000),
        "tall": s(2_000_000), "tall_cols": 100, "tall_block": c(250_000),
        "rows": s(4_000_000), "cols": 28, "row_block": c(250_000), "steps": 10,
        "stack": 16, "plane": s(2000),
    }


def workloads(lib, p):
    """name → function computing the workload with `lib` (tegula or dask.array) and returning
    (its result, the bytes it moved between nodes or None when counted outside)."""
    rng = lib.random.default_rng(0)
    n, b = p["n"], p["block"]

    def xxT():
        x = rng.standard_normal((n, n), chunks=b)
        return x @ x.T

    def square():
        x, y = rng.standard_normal((n, n), chunks=b), rng.standard_normal((n, n), chunks=b)
        return x @ y

    def tall_skinny():
        a = rng.standard_normal((p["tall"], p["tall_cols"]), chunks=(p["tall_block"], p["tall_cols"]))
        return a.T @ a

    def stacked_mean():
        planes = [rng.standard_normal((p["plane"], p["plane"]), chunks=b) for _ in range(p["stack"])]
        return lib.stack(planes).mean(axis=0)

    def positive_definite():
        """Symmetric, positive definite (condition about 6): ``(x + x^T) / 2 + 2 sqrt(n) I``."""
        x = rng.standard_normal((n, n), chunks=b)
        return (x + x.T) / 2 + 2 * np.sqrt(n) * lib.eye(n, chunks=b)

    def cholesky():
        return lib.linalg.cholesky(positive_definite())

    def solve():
        return lib.linalg.solve(positive_definite(), rng.standard_normal((n, 16), chunks=(b, 16)))

    return {"x @ x.T": xxT, "square matmul": square, "tall-skinny A.T @ A": tall_skinny, "stacked mean": stacked_mean,
            "cholesky": cholesky, "solve": solve}


WORKLOADS = ("x @ x.T", "square matmul", "tall-skinny A.T @ A", "stacked mean", "cholesky", "solve",
             "logistic regression")


def logistic_inputs(lib, p):
    rng = lib.random.default_rng(1)
    X = rng.standard_normal((p["rows"], p["cols"]), chunks=(p["row_block"], p["cols"]))
    y = (rng.random(p["rows"], chunks=p["row_block"]) < 0.5).astype("float64")
    return X, y


def newton(compute, lib, p):
    """10 Newton steps of logistic regression; `compute(*arrays)` runs one step's plan."""
    X, y = logistic_inputs(lib, p)
    beta = np.zeros(p["cols"])
    for _ in range(p["steps"]):
        mu = 1 / (1 + lib.exp(-(X @ beta)))
        gradient, hessian = compute(X.T @ (mu - y), (X.T * (mu * (1 - mu))) @ X)
        beta = beta - np.linalg.solve(hessian, gradient)
    return beta


def timed(repeats, run):
    """Runs `run()` (returning a row: seconds first, then its figures) `repeats` times: the
    fastest run's row, with the first run's seconds appended (a cold run: workers that have
    not yet made blocks of this size allocate fresh memory, which is slow to touch here)."""
    rows = [run() for _ in range(repeats)]
    return (*min(rows, key=lambda r: r[0]), rows[0][0])


def chosen(lib, p, names):
    """The workloads named in `names` (all when it is None), as `workloads` gives them."""
    return {name: make for name, make in workloads(lib, p).items() if names is None or name in names}


def regression_chosen(names):
    return names is None or "logistic regression" in names


def run_tegula(sweep, repeats, names, **how):
    """Each workload of each size set, computed by tegula as `how` says (its scheduler and
    placement): (chunking, name) → (seconds, bytes measured moving, bytes simulated, result,
    first run's seconds)."""
    import tegula as tg

    rows = {}
    for chunking, p in sweep.items():
        for name, make in chosen(tg, p, names).items():
            def once():
                start = time.perf_counter()
                (result,), info = tg.compute(make(), report=True, progress=False, **how)
                return (time.perf_counter() - start, *moved_bytes(info), result)
            rows[chunking, name] = timed(repeats, once)

        def regression():
            moved, predicted = [0], [0]

            def step(*arrays):
                out, info = tg.compute(*arrays, report=True, progress=False, **how)
                measured, simulated = moved_bytes(info)
                moved[0] += measured
                predicted[0] += simulated
                return out

            start = time.perf_counter()
            beta = newton(step, tg, p)
            return time.perf_counter() - start, moved[0], predicted[0], beta

        if regression_chosen(names):
            rows[chunking, "logistic regression"] = timed(repeats, regression)
    return rows


def moved_bytes(info):
    """The bytes a computation moved between nodes, measured and simulated (none on one machine)."""
    if "simulated" not in info:
        return 0, 0
    return info["measured"]["bytes_between_nodes"], info["simulated"]["bytes_between_nodes"]


def on_ray(sweep, nodes, repeats, names):
    import ray
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "object_store_memory": STORE})
    for _ in range(nodes):
        cluster.add_node(num_cpus=1, object_store_memory=STORE)
    ray.init(address=cluster.address, log_to_driver=False)
    cluster.wait_for_nodes()
    try:
        return run_tegula(sweep, repeats, names, scheduler="ray")
    finally:
        ray.shutdown()
        cluster.shutdown()


def run_dask_array(client, sweep, repeats, names):
    import dask
    import dask.array as da

    def incoming():
        logs = client.run(lambda dask_worker: sum(e["total"] for e in dask_worker.transfer_incoming_log))
        return sum(logs.values())

    def measure(run):
        def once():
            before, start = incoming(), time.perf_counter()
            result = run()
            return time.perf_counter() - start, incoming() - before, None, result
        return timed(repeats, once)

    rows = {}
    for chunking, p in sweep.items():
        for name, make in chosen(da, p, names).items():
            rows[chunking, name] = measure(lambda: make().compute())
        if regression_chosen(names):
            rows[chunking, "logistic regression"] = measure(lambda: newton(lambda *a: dask.compute(*a), da, p))
    return rows


def on_dask(sweep, nodes, repeats, names):
    """Dask Array, tegula placed by tegula and tegula placed by Dask, on one LocalCluster."""
    import dask
    from distributed import Client, LocalCluster

    # Every transfer stays in the workers' logs (they keep the latest 1000 by default).
    dask.config.set({"distributed.admin.low-level-log-length": 10**7})
    with LocalCluster(n_workers=nodes, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        return {
            "dask": run_dask_array(client, sweep, repeats, names),
            "tegula": run_tegula(sweep, repeats, names, scheduler=client),
            "tegula, Dask's placement": run_tegula(sweep, repeats, names, scheduler=client, placement="dask"),
        }


def table(title, ours, theirs, simulated=True):
    mib = 1 << 20
    print(f"\n{title}\n")
    print("| workload | blocks | tegula (s) | Dask (s) | time vs Dask | first runs: tegula / Dask (s) | tegula moved (MiB) "
          "| Dask moved (MiB) | bytes vs Dask |" + (" simulated (MiB) | measured vs simulated |" if simulated else ""))
    print("|---|---|---|---|---|---|---|---|---|" + ("---|---|" if simulated else ""))
    for (chunking, name), (t, moved, predicted, result, first) in sorted(ours.items(), key=lambda r: (r[0][1], r[0][0])):
        dt, dmoved, _, expected, dfirst = theirs[chunking, name]
        if name != "logistic regression":
            assert np.shape(result) == np.shape(expected)
        ratio = moved / dmoved if dmoved else (0.0 if moved == 0 else float("inf"))
        row = (f"| {name} | {chunking:g}× | {t:.2f} | {dt:.2f} | {t / dt:.2f} | {first:.2f} / {dfirst:.2f} "
               f"| {moved / mib:.1f} | {dmoved / mib:.1f} | {ratio:.2f} |")
        if simulated:
            row += f" {predicted / mib:.1f} | {moved / predicted if predicted else float('nan'):.3f} |"
        print(row)


def against_threads(threads, clusters, steps):
    """Each workload's time on each cluster against tegula's threaded executor on as many
    threads as the cluster has CPUs (logistic regression also per Newton step), and whether
    the cluster's result is the threaded one bit for bit."""
    print("\ntegula on the clusters against tegula's threaded executor on as many threads\n")
    print("| workload | blocks | threads (s) | "
          + " | ".join(f"{name} (s) | {name} / threads | {name}: result equal" for name in clusters) + " |")
    print("|---|---|---|" + "---|---|---|" * len(clusters))
    for (chunking, name), (t, _, _, result, _) in sorted(threads.items(), key=lambda r: (r[0][1], r[0][0])):
        per = f" ({t / steps:.3f} per step)" if name == "logistic regression" else ""
        same = lambda other: "yes" if np.array_equal(np.asarray(other), np.asarray(result)) else "**no**"  # noqa: E731
        cells = " | ".join(f"{rows[chunking, name][0]:.2f} | {rows[chunking, name][0] / t:.2f} | {same(rows[chunking, name][3])}"
                           for rows in clusters.values())
        print(f"| {name} | {chunking:g}× | {t:.2f}{per} | {cells} |")


def gemm_rate():
    """This machine's float64 GEMM rate on one core (NumPy's BLAS limited to one thread, as
    Dask's workers limit it), in flop/s: the best of a few 2000² products."""
    import subprocess

    code = ("import numpy as np, time; a = np.random.rand(2000, 2000); a @ a; "
            "print(min(-time.perf_counter() + (a @ a, time.perf_counter())[1] for _ in range(3)))")
    one = {k: "1" for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, **one}, capture_output=True, text=True, check=True)
    return 2 * 2000**3 / float(out.stdout)


def compute_bound(p, rate, cores):
    """The least time each product workload can take on `cores` cores at `rate` flop/s each
    (x @ x.T is symmetric: only the blocks on and above the diagonal are products)."""
    n, t, c = p["n"], p["tall"], p["tall_cols"]
    g = -(-n // p["block"])
    flops = {"x @ x.T": 2 * n**3 * (g + 1) / (2 * g), "square matmul": 2 * n**3, "tall-skinny A.T @ A": 2 * t * c * c}
    return {name: f / (rate * cores) for name, f in flops.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--nodes", type=int, default=3)
    parser.add_argument("--chunkings", type=float, nargs="+", default=[0.5, 1.0, 2.0],
                        help="block sizes as multiples of the issue's")
    parser.add_argument("--repeats", type=int, default=2,
                        help="runs of each workload; the fastest is reported, with the first")
    parser.add_argument("--workloads", nargs="+", metavar="NAME",
                        help="only these workloads (default: all): " + ", ".join(f'"{n}"' for n in WORKLOADS))
    args = parser.parse_args()
    names = None if args.workloads is None else set(args.workloads)
    if names is not None and not names <= set(WORKLOADS):
        parser.error(f"unknown workloads {sorted(names - set(WORKLOADS))}; choose from {list(WORKLOADS)}")
    sweep = {c: sizes(args.scale, c) for c in args.chunkings}
    import dask
    import ray

    import tegula  # noqa: F401

    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs; Python {sys.version.split()[0]}, "
          f"ray {ray.__version__}, dask {dask.__version__}; {args.nodes} nodes of one CPU; sizes {sweep[args.chunkings[0]]}"
          f" with blocks times {args.chunkings}; NumPy's BLAS (Dask's): {fair_blas.blas_kernels()}")
    rate = gemm_rate()
    cores = min(os.cpu_count(), args.nodes)
    print(f"GEMM on one core: {rate / 1e9:.1f} GFLOP/s; the least time {cores} cores take for the products:")
    for chunking, p in sweep.items():
        bound = compute_bound(p, rate, cores)
        print(f"  blocks {chunking:g}×: " + ", ".join(f"{name} {t:.2f} s" for name, t in bound.items()))
    threads = run_tegula(sweep, args.repeats, names, scheduler="threads", num_workers=cores)
    ray_rows = on_ray(sweep, args.nodes, args.repeats, names)
    dask_rows = on_dask(sweep, args.nodes, args.repeats, names)
    table("tegula on Ray against Dask Array on dask.distributed", ray_rows, dask_rows["dask"])
    table("tegula on dask.distributed against Dask Array, the same cluster", dask_rows["tegula"], dask_rows["dask"])
    table("tegula on dask.distributed, placed by Dask's scheduler, against Dask Array",
          dask_rows["tegula, Dask's placement"], dask_rows["dask"], simulated=False)
    steps = sweep[args.chunkings[0]]["steps"]
    against_threads(threads, {"Ray": ray_rows, "Dask": dask_rows["tegula"]}, steps)


if __name__ == "__main__":
    main()
