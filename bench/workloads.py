"""One benchmark workload for one library, run in its own process so that peak memory is
measured per library and per workload.

    python bench/workloads.py <workload> <library> <repeats> [--quick] [--threads N]
                              [--warmup W] [--verify] [--chunk C] [--inputs memory|generated]

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

--chunk C sets the chunk (C elements along each axis) and --inputs the kind of input: memory
(NumPy arrays made before the timing and converted untimed; pi then takes 2e8 points) or
generated (the library's own generator, inside the timing). bench/sweep.py runs the
workloads over both and several chunkings.
"""

import argparse
import json
import os
import resource
import sys
import threading
import time

if __name__ == "__main__":
    # Only as a script: planning.py imports this module after NumPy. Before NumPy, so that
    # NumPy and Dask run on this machine's own BLAS kernels (bench/fair_blas.py).
    import fair_blas  # noqa: F401

import numpy as np  # noqa: E402

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
# Each computing workload: how many input arrays it takes, its expression on the library's
# namespace and those arrays, the input it takes unless --inputs says otherwise, and whether
# its result comes back as a NumPy array.
EXPRESSIONS = {
    "a": (1, lambda m, x: ((x + 1) * 2).sum(), "memory"),
    "b_mean": (1, lambda m, x: x.mean(axis=0), "generated"),
    "b_std": (1, lambda m, x: x.std(), "generated"),
    "c": (1, lambda m, x: x.sum(), "memory"),
    "pi": (2, pi_estimate, "generated"),
    "e30": (1, expr30, "memory"),
}


def size_key(workload):
    return "b" if workload.startswith("b") else workload


def geometry(workload, quick, chunk, inputs):
    """(shape, chunks) of each input: the workload's size, its chunk unless one is given. The
    in-memory points of pi are fewer (10^9 of each would need 16 GB, twice)."""
    n, default = sizes(quick)[size_key(workload)]
    if workload == "pi" and inputs == "memory":
        n //= 5
    c = chunk or default
    if size_key(workload) == "b":
        return (n, n), (c, c)
    return (n,), (c,)


def block_count(shape, chunks):
    return int(np.prod([-(-s // c) for s, c in zip(shape, chunks)]))


def memory_inputs(count, shape):
    """The NumPy inputs of an in-memory workload, made before any timing."""
    rng = np.random.default_rng(42)
    return [rng.random(shape) for _ in range(count)]


def generator(m, count, shape, chunks):
    """A function drawing the inputs with the library's own generator (NumPy: the whole array;
    tegula, Dask: lazily, in chunks). The same seed every call, so the inputs can be drawn
    again to check the result."""
    def draw():
        rng = m.random.default_rng(0)
        if m is np:
            return [rng.random(shape) for _ in range(count)]
        return [rng.random(shape, chunks=chunks) for _ in range(count)]

    return draw


def prepare(workload, library, quick, threads, chunk=None, inputs=None):
    """Returns (setup_seconds, run, extra): run() builds the expression from the prepared
    input and computes it to a NumPy value; extra describes the graph and how to check it."""
    if workload == "plan":
        return prepare_plan(library, sizes(quick)["plan"])
    count, expr, natural = EXPRESSIONS[workload]
    inputs = inputs or natural
    shape, chunks = geometry(workload, quick, chunk, inputs)
    m = np if library == "numpy" else namespace(library)
    extra = {"inputs": inputs, "shape": shape, "chunk": chunks,
             "chunks": count * block_count(shape, chunks), "expr": expr}
    if library == "numpy" and workload == "pi" and inputs == "generated":
        raise SystemExit("NumPy does not run the pi workload (its points would need 16 GB)")
    if inputs == "memory":
        xs = memory_inputs(count, shape)
        extra["reference_inputs"] = lambda: xs
        if library == "numpy":
            return 0.0, (lambda: expr(np, *xs)), extra
        setup, setup_rss, arrays = convert_all(library, xs, chunks)
        build = lambda: arrays  # noqa: E731
        extra["setup_rss"] = setup_rss
    else:
        setup, build = 0.0, generator(m, count, shape, chunks)
        if library == "numpy":
            return 0.0, (lambda: expr(np, *build())), extra
        extra["reference_inputs"] = lambda: [np.asarray(v.compute(scheduler=SCHEDULER,
                                                                  num_workers=threads))
                                             for v in build()]
        extra["build"] = build

    def run():
        return expr(m, *build()).compute(scheduler=SCHEDULER, num_workers=threads)

    extra["tasks"] = graph_size(expr(m, *build()))
    return setup, run, extra


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


def convert_all(library, xs, chunks):
    """(seconds and RSS growth of turning the NumPy inputs into the library's arrays, those
    arrays)."""
    import psutil

    m = namespace(library)
    rss0 = psutil.Process().memory_info().rss
    t0 = time.perf_counter()
    if library == "tegula":
        arrays = [m.asarray(x, chunks=chunks) for x in xs]
    else:
        arrays = [m.from_array(x, chunks=chunks) for x in xs]
    setup = time.perf_counter() - t0
    return setup, psutil.Process().memory_info().rss - rss0, arrays


def prepare_plan(library, size):
    n, chunk = size
    if library == "numpy":
        raise SystemExit("NumPy does not plan")
    (x,) = memory_inputs(1, (n,))
    setup, setup_rss, (arr,) = convert_all(library, [x], (chunk,))
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


# generated inputs larger than this are checked on a prefix (the points of pi: 16 GB)
VERIFY_BYTES = 4 << 30


def verify(workload, library, value, extra, threads):
    """A check of the library's result against NumPy on the very same inputs (the in-memory
    ones, or the library's own random numbers drawn again)."""
    if library == "numpy":
        return {"ok": True, "what": "reference"}
    if workload == "plan":
        if library == "dask":
            return {"ok": True, "what": "graph size only (Dask's graph has its own shape)"}
        ok = value == extra["expected_tasks"]
        return {"ok": bool(ok), "what": "task count: one load and one fused partial sum per chunk, "
                "the combine tree and the finish", "expected": extra["expected_tasks"]}
    expr = extra["expr"]
    size = 8 * np.prod(extra["shape"]) * EXPRESSIONS[workload][0]
    if extra["inputs"] == "generated" and size > VERIFY_BYTES:
        return verify_prefix(workload, library, value, extra, threads)
    ref = expr(np, *extra["reference_inputs"]())
    ok = bool(np.allclose(value, ref, rtol=1e-9, atol=1e-12))
    return {"ok": ok, "what": f"vs NumPy on the same inputs ({extra['inputs']})",
            "max_abs_err": float(np.max(np.abs(np.asarray(value) - ref)))}


def verify_prefix(workload, library, value, extra, threads):
    """The expression on a prefix of the (1-d) inputs against NumPy on that prefix; pi's
    estimate must also lie within 6 sigma of pi."""
    k = 4 * extra["chunk"][0]
    m = namespace(library)
    xs = [v[:k] for v in extra["build"]()]
    got = extra["expr"](m, *xs).compute(scheduler=SCHEDULER, num_workers=threads)
    ref = extra["expr"](np, *(np.asarray(v.compute()) for v in xs))
    ok = bool(np.allclose(got, ref, rtol=1e-12, atol=0))
    out = {"what": "prefix vs NumPy on the same inputs", "prefix": float(got),
           "prefix_ref": float(ref)}
    if workload == "pi":
        n = extra["shape"][0]
        sigma = 4 * np.sqrt(np.pi / 4 * (1 - np.pi / 4) / n)
        ok = ok and abs(value - np.pi) < 6 * sigma
        out["error"] = float(value - np.pi)
    return {"ok": bool(ok), **out}


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
    p.add_argument("--chunk", type=int, help="elements per chunk along each axis (default: the "
                   "workload's)")
    p.add_argument("--inputs", choices=("memory", "generated"),
                   help="NumPy arrays already in memory, or drawn by the library's generator "
                   "inside the timing (default: the workload's)")
    args = p.parse_args(argv)
    global SCHEDULER
    SCHEDULER = args.scheduler

    setup, run, extra = prepare(args.workload, args.library, args.quick, args.threads,
                                args.chunk, args.inputs)
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
        "inputs": extra.get("inputs"), "shape": extra.get("shape"), "chunk": extra.get("chunk"),
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
