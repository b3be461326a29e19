"""One benchmark workload for one library, run in its own process so that peak memory is
measured per library and per workload.

    python bench/workloads.py <workload> <library> <repeats> [--quick] [--threads N]
                              [--warmup W] [--verify]

Prints one JSON object on the last line of stdout:

    {"workload", "library", "times": [seconds per timed run], "cold": seconds of the first
     (warm-up) run, "cpu_util": process CPU seconds / wall seconds over the timed runs,
     "setup": seconds to turn the NumPy input into the library's array (workload a and c),
     "peak_rss_mb": peak resident set size while the workload ran (warm-up and timed runs;
     the input that already lives in memory is included), "base_rss_mb": resident set size
     just before it, "result": a summary of the value computed, "verify": an exact check
     against NumPy on the same data (with --verify), "tasks": graph size}

Workloads (sizes for the full run; --quick uses about 10x fewer elements, 40x for c):

    a      ((x + 1) * 2).sum(), x a float64 NumPy array of 2e8 elements already in memory,
           chunks of 1e7. The conversion into the library's array is timed as "setup".
    b_mean x.mean(axis=0), x = 20000 x 20000 uniform float64 generated lazily in
           2000 x 2000 chunks by the library's own generator (generation is in the timing).
    b_std  x.std() on the same kind of array.
    c      x.sum(), x a float64 NumPy array of 2e6 elements in chunks of 100 (20,000 chunks).
    pi     Monte Carlo pi: 1e9 points (x, y) uniform on the unit square drawn lazily by the
           library's generator in chunks of 5e6, 4 * mean(x*x + y*y < 1). Not run by NumPy
           (its points would need 16 GB).
    e30    a 30-operation element-wise expression (`expr30`) over a float64 NumPy array of
           1e8 elements already in memory, chunks of 5e6, the result returned as a NumPy array.
    plan   planning only: the task graph of ((x + 1) * 2).sum() for x a float64 NumPy array of
           1e6 elements in chunks of 1 (1e6 chunks), as computing it would run it (tegula:
           lowered and fused, `task_count()`; Dask: optimised, as `compute` does). Nothing is
           computed; "result" is the number of tasks. Not run by NumPy; Dask only with --quick
           (1e5 chunks), as optimising its graph of 1e6 chunks takes minutes.
"""

import argparse
import json
import os
import resource
import sys
import threading
import time

import numpy as np

LIBRARIES = ("tegula", "dask", "numpy")
WORKLOADS = ("a", "b_mean", "b_std", "c", "pi", "e30", "plan")
# The executor the libraries' computations use (bench/executors.py compares tegula's).
SCHEDULER = "threads"


def sizes(quick):
    if quick:
        return {"a": (2 * 10**7, 10**6), "b": (6000, 600), "c": (5 * 10**4, 100),
                "pi": (10**8, 5 * 10**5), "e30": (10**7, 5 * 10**5), "plan": (10**5, 1)}
    return {"a": (2 * 10**8, 10**7), "b": (20000, 2000), "c": (2 * 10**6, 100),
            "pi": (10**9, 5 * 10**6), "e30": (10**8, 5 * 10**6), "plan": (10**6, 1)}


def expr30(m, x):
    """30 element-wise operations (each one NumPy ufunc call) on x, with `m` the library's
    namespace: arithmetic with scalars and arrays, extremes, abs, sqrt, exp and sin."""
    a = m.sqrt(m.abs(x * 1.5 + 0.25))          # 4
    b = (x * x - a) * 0.5                      # 3
    c = (m.maximum(a, b) + 1.0) / (x + 2.0)    # 4
    d = m.minimum(c, 3.0) * c - x              # 3
    e = m.exp(-m.abs(d)) * 2.0                 # 4
    g = m.sin(x)                               # 1
    f = (e + c) * 0.75 + g * g - 0.125         # 6
    f = m.sqrt(m.abs(f) + 1.0) * a + b         # 5
    return f / 3.0                             # 1


def pi_estimate(m, x, y):
    return 4 * (x * x + y * y < 1).mean()


# --- memory ---------------------------------------------------------------------------------
class PeakMemory:
    """Peak RSS over a phase of this process.

    The kernel's own high-water mark (VmHWM) is reset through /proc/self/clear_refs at the
    start, so the peak is exact and does not depend on a Python thread getting the GIL while
    native code runs. Only where clear_refs is not writable does a psutil thread sample the
    RSS instead: on a 2-core machine a thread waking every few milliseconds takes time from
    the workload it measures."""

    def __init__(self, interval=0.002):
        self.interval = interval
        self.sampled = 0
        self._stop = threading.Event()
        self.hwm_reset = False

    @staticmethod
    def _status(field):
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
        return None

    def __enter__(self):
        import psutil

        self._proc = psutil.Process()
        self.base = self._proc.memory_info().rss
        try:
            with open("/proc/self/clear_refs", "w") as f:
                f.write("5")
            self.hwm_reset = True
        except OSError:
            self.hwm_reset = False
        self.sampled = self.base
        self._thread = None
        if not self.hwm_reset:
            self._thread = threading.Thread(target=self._sample, daemon=True)
            self._thread.start()
        return self

    def _sample(self):
        while not self._stop.is_set():
            self.sampled = max(self.sampled, self._proc.memory_info().rss)
            self._stop.wait(self.interval)

    def __exit__(self, *exc):
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self.sampled = max(self.sampled, self._proc.memory_info().rss)
        hwm = self._status("VmHWM") if self.hwm_reset else None
        self.peak = max(hwm, self.sampled) if hwm is not None else self.sampled
        return False


def cpu_seconds():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


# --- the workloads ----------------------------------------------------------------------------
def make_input_1d(n):
    """The in-memory NumPy input of workloads a and c (made before any timing)."""
    return np.random.default_rng(42).random(n)


def prepare(workload, library, quick, threads):
    """Returns (setup_seconds, run, extra): run() builds the expression from the prepared
    array and computes it to a NumPy value; extra describes the graph."""
    sz = sizes(quick)
    if workload in ("a", "c"):
        n, chunk = sz[workload]
        x = make_input_1d(n)
        if workload == "a":
            expr = lambda v: ((v + 1) * 2).sum()  # noqa: E731
        else:
            expr = lambda v: v.sum()  # noqa: E731
        if library == "numpy":
            return 0.0, (lambda: expr(x)), {"x": x, "setup_rss": 0}
        _, arr, setup, setup_rss = convert(library, x, chunk)
        run = lambda: expr(arr).compute(scheduler=SCHEDULER, num_workers=threads)  # noqa: E731
        return setup, run, {"x": x, "arr": arr, "setup_rss": setup_rss,
                            "tasks": graph_size(expr(arr)), "chunks": len(range(0, n, chunk))}

    if workload == "pi":
        return prepare_pi(library, sz["pi"], threads)
    if workload == "e30":
        return prepare_e30(library, sz["e30"], threads)
    if workload == "plan":
        return prepare_plan(library, sz["plan"])
    # b: lazily generated random array, generation inside the timing
    n, chunk = sz["b"]
    reduce = (lambda v: v.mean(axis=0)) if workload == "b_mean" else (lambda v: v.std())
    if library == "numpy":
        def run():
            return reduce(np.random.default_rng(0).random((n, n)))

        return 0.0, run, {}
    if library == "tegula":
        import tegula as tg

        def build():
            return tg.random.default_rng(0).random((n, n), chunks=(chunk, chunk))

        def run():
            return reduce(build()).compute(scheduler=SCHEDULER, num_workers=threads)

        tasks = reduce(build()).task_count()
    else:
        import dask.array as da

        if hasattr(da.random, "default_rng"):
            def build():
                return da.random.default_rng(0).random((n, n), chunks=(chunk, chunk))
        else:  # dask before 2023.2
            def build():
                return da.random.RandomState(0).random_sample((n, n), chunks=(chunk, chunk))

        def run():
            return reduce(build()).compute(scheduler=SCHEDULER, num_workers=threads)

        tasks = len(reduce(build()).__dask_graph__())
    return 0.0, run, {"build": build, "reduce": reduce, "tasks": tasks, "chunks": (n // chunk) ** 2}


def namespace(library):
    """The array module of tegula or Dask."""
    if library == "tegula":
        import tegula

        return tegula
    import dask.array

    return dask.array


def graph_size(expr):
    """tegula's task count or the length of Dask's graph."""
    return expr.task_count() if hasattr(expr, "task_count") else len(expr.__dask_graph__())


def convert(library, x, chunk):
    """(module, x as the library's array, seconds and RSS growth of the conversion)."""
    import psutil

    m = namespace(library)
    rss0 = psutil.Process().memory_info().rss
    t0 = time.perf_counter()
    arr = m.asarray(x, chunks=chunk) if library == "tegula" else m.from_array(x, chunks=chunk)
    setup = time.perf_counter() - t0
    return m, arr, setup, psutil.Process().memory_info().rss - rss0


def prepare_pi(library, size, threads):
    n, chunk = size
    if library == "numpy":
        raise SystemExit("NumPy does not run the pi workload (its points would need 16 GB)")
    m = namespace(library)
    rng = m.random.default_rng(0)

    def points():
        return rng.random(n, chunks=chunk), rng.random(n, chunks=chunk)

    def run():
        return pi_estimate(m, *points()).compute(scheduler=SCHEDULER, num_workers=threads)

    def check_prefix():
        # the same expression on a prefix, against NumPy on the library's own points
        k = min(n, 4 * chunk)
        x, y = (v[:k] for v in points())
        got = pi_estimate(m, x, y).compute(scheduler=SCHEDULER, num_workers=threads)
        xs, ys = (np.asarray(v.compute()) for v in (x, y))
        return got, pi_estimate(np, xs, ys)

    return 0.0, run, {"tasks": graph_size(pi_estimate(m, *points())), "chunks": 2 * (n // chunk),
                      "check_prefix": check_prefix, "n": n}


def prepare_e30(library, size, threads):
    n, chunk = size
    x = make_input_1d(n)
    if library == "numpy":
        return 0.0, (lambda: expr30(np, x)), {"x": x}
    m, arr, setup, setup_rss = convert(library, x, chunk)

    def run():
        return np.asarray(expr30(m, arr).compute(scheduler=SCHEDULER, num_workers=threads))

    return setup, run, {"x": x, "setup_rss": setup_rss, "tasks": graph_size(expr30(m, arr)),
                        "chunks": n // chunk}


def prepare_plan(library, size):
    n, chunk = size
    if library == "numpy":
        raise SystemExit("NumPy does not plan")
    x = make_input_1d(n)
    m, arr, setup, setup_rss = convert(library, x, chunk)
    expr = ((arr + 1) * 2).sum()
    if library == "tegula":
        run = expr.task_count
    else:
        import dask

        def run():
            # what compute does before it runs anything: optimise and materialise the graph
            (opt,) = dask.optimize(expr)
            return len(dict(opt.__dask_graph__()))

    # a load and a fused partial sum per chunk, their tree (groups of 8; a group of one is
    # passed on, not combined) and the finish
    partials, tree = n // chunk, 0
    while partials > 1:
        tree += partials // 8 + (partials % 8 > 1)
        partials = -(-partials // 8)
    return setup, run, {"x": x, "setup_rss": setup_rss, "chunks": n // chunk,
                        "expected_tasks": 2 * (n // chunk) + tree + 1}


def summarize(value):
    v = np.asarray(value, dtype=np.float64)
    if v.ndim == 0:
        return {"kind": "scalar", "value": float(v)}
    return {"kind": "array", "shape": list(v.shape), "mean": float(v.mean()),
            "min": float(v.min()), "max": float(v.max()), "head": v.ravel()[:8].tolist()}


def verify(workload, library, value, extra, threads):
    """An exact check of the library's result against NumPy on the very same data."""
    if library == "numpy":
        return {"ok": True, "what": "reference"}
    if workload == "pi":
        got, ref = extra["check_prefix"]()
        sigma = 4 * np.sqrt(np.pi / 4 * (1 - np.pi / 4) / extra["n"])
        ok = bool(np.isclose(got, ref, rtol=1e-12, atol=0) and abs(value - np.pi) < 6 * sigma)
        return {"ok": ok, "what": "prefix vs NumPy on the same points; estimate within 6 sigma of pi",
                "prefix": float(got), "prefix_ref": float(ref), "error": float(value - np.pi)}
    if workload == "plan":
        if library == "dask":
            return {"ok": True, "what": "graph size only (Dask's graph has its own shape)"}
        ok = value == extra["expected_tasks"]
        return {"ok": bool(ok), "what": "task count: one load and one fused partial sum per chunk, "
                "the combine tree and the finish", "expected": extra["expected_tasks"]}
    if workload == "e30":
        ref = expr30(np, extra["x"])
        ok = bool(np.allclose(value, ref, rtol=1e-12, atol=0))
        return {"ok": ok, "what": "vs NumPy on the same input",
                "max_rel_err": float(np.max(np.abs(value - ref) / np.abs(ref)))}
    if workload in ("a", "c"):
        x = extra["x"]
        ref = ((x + 1) * 2).sum() if workload == "a" else x.sum()
        ok = bool(np.allclose(value, ref, rtol=1e-9, atol=0))
        return {"ok": ok, "what": "vs NumPy on the same input", "ref": float(ref),
                "got": float(value)}
    # b: materialise the library's random array, reduce it with NumPy
    data = np.asarray(extra["build"]().compute(scheduler=SCHEDULER, num_workers=threads))
    ref = extra["reduce"](data)
    del data
    ok = bool(np.allclose(value, ref, rtol=1e-9, atol=1e-12))
    err = float(np.max(np.abs(np.asarray(value) - ref)))
    return {"ok": ok, "what": "vs NumPy on the materialised array", "max_abs_err": err}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("workload", choices=WORKLOADS)
    p.add_argument("library", choices=LIBRARIES)
    p.add_argument("repeats", type=int)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)))
    p.add_argument("--warmup", type=int, default=1)
    p.add_argument("--verify", action="store_true")
    p.add_argument("--scheduler", default="threads", help="the executor (default threads)")
    args = p.parse_args(argv)
    global SCHEDULER
    SCHEDULER = args.scheduler

    setup, run, extra = prepare(args.workload, args.library, args.quick, args.threads)
    times, cold = [], None
    with PeakMemory() as mem:
        for _ in range(args.warmup):
            t0 = time.perf_counter()
            value = run()
            cold = time.perf_counter() - t0 if cold is None else cold
        c0, w0 = cpu_seconds(), time.perf_counter()
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            value = run()
            times.append(time.perf_counter() - t0)
        cpu, wall = cpu_seconds() - c0, time.perf_counter() - w0
    out = {
        "workload": args.workload, "library": args.library, "quick": args.quick,
        "threads": args.threads, "times": times, "cold": cold, "setup": setup,
        "setup_rss_mb": extra.get("setup_rss", 0) / 2**20,
        "cpu_util": cpu / wall if wall > 0 else None,
        "peak_rss_mb": mem.peak / 2**20, "base_rss_mb": mem.base / 2**20,
        "sampled_peak_rss_mb": mem.sampled / 2**20, "exact_peak": mem.hwm_reset,
        "result": summarize(value), "tasks": extra.get("tasks"), "chunks": extra.get("chunks"),
    }
    if args.library == "tegula":  # which build of the extension ran (it may be rebuilt meanwhile)
        from tegula import _tegula

        out["build"] = time.strftime("%Y-%m-%d %H:%M:%S",
                                     time.localtime(os.path.getmtime(_tegula.__file__)))
    if args.verify:
        out["verify"] = verify(args.workload, args.library, value, extra, args.threads)
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    sys.exit(main())
