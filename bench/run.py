"""Benchmarks tegula against NumPy and Dask (threaded scheduler, same thread count) in one
run on one machine, and prints a markdown report: machine, times, time ratios, peak memory,
and a correctness check of every result.

    python bench/run.py [--quick] [--rounds N] [--threads N] [--out FILE]

Every measurement runs in a fresh child process (bench/workloads.py) so that each library's
peak memory is its own. The libraries alternate (tegula, dask, numpy, tegula, dask, numpy,
...) so that drift of the machine affects all of them alike; a time is the median over the
rounds. See bench/README.md.
"""

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import fair_blas  # noqa: E402  (before NumPy: NumPy and Dask on this machine's own BLAS kernels)
import numpy as np  # noqa: E402
import workloads  # noqa: E402

LIBRARIES = workloads.LIBRARIES
BUSY_NAMES = ("rustc", "cargo", "cc", "ld", "c++", "gcc")


# --- the machine ------------------------------------------------------------------------------
def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


class LoadWatch:
    """Finds other work on the machine: compile jobs (rustc, cargo, cc, ld) whatever their
    CPU use, and any process outside this benchmark that used more than `threshold` of a
    core since the previous look (a test suite, another benchmark, ...)."""

    def __init__(self, threshold=0.25):
        import psutil

        self.psutil = psutil
        self.threshold = threshold
        self.me = psutil.Process()
        self.procs = {}
        self.look()  # primes the CPU counters

    def look(self):
        psutil = self.psutil
        ours = {self.me.pid} | {c.pid for c in self.me.children(recursive=True)}
        found, alive = set(), {}
        for p in psutil.process_iter(["name"]):
            if p.pid in ours:
                continue
            name = p.info.get("name") or "?"
            proc = self.procs.get(p.pid, p)
            try:
                cpu = proc.cpu_percent(None) / 100
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                continue
            alive[p.pid] = proc
            if name in BUSY_NAMES or (p.pid in self.procs and cpu > self.threshold):
                found.add(name)
        self.procs = alive
        return sorted(found)


def busy_processes(sample=2.0):
    """Names of other processes loading the machine now (they make timings noisy)."""
    watch = LoadWatch()
    time.sleep(sample)
    return watch.look()


def git_revision():
    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, text=True,
                             capture_output=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "crates", "python"],
                               cwd=ROOT, text=True, capture_output=True).stdout.strip()
        return rev + (" (crates/ or python/ modified)" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def machine(threads):
    import dask
    import psutil
    import tegula

    return {
        "cpu": cpu_model(),
        "logical_cpus": os.cpu_count(),
        "usable_cpus": len(os.sched_getaffinity(0)),
        "threads": threads,
        "ram_gb": psutil.virtual_memory().total / 2**30,
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "tegula": f"{tegula.__version__} (git {git_revision()})",
        "numpy": np.__version__,
        "dask": dask.__version__,
        "blas": fair_blas.blas_kernels(),
        "load_avg": os.getloadavg(),
    }


def triad_exe():
    """bench/triad.rs built now (so that it matches the source); raises OSError or
    CalledProcessError where rustc is missing or fails."""
    exe = os.path.join(HERE, "out", "triad")
    os.makedirs(os.path.dirname(exe), exist_ok=True)
    subprocess.run(["rustc", "-C", "opt-level=3", os.path.join(HERE, "triad.rs"), "-o", exe],
                   check=True, capture_output=True, text=True)
    return exe


def bandwidth(threads, log):
    """The machine's memory bandwidth from bench/triad.rs (STREAM-like, in Rust), built and
    run now, so that fractions of it are measured in the same run; None without rustc."""
    try:
        out = subprocess.run([triad_exe(), str(threads)], check=True, capture_output=True, text=True)
        return json.loads(out.stdout.strip().splitlines()[-1])
    except (OSError, subprocess.CalledProcessError, ValueError, IndexError) as e:
        log(f"bandwidth not measured: {e}")
        return None


class ReadBandwidth:
    """bench/triad.rs's read bandwidth (GB/s), measured again at each call by one process that
    keeps its array in memory: this machine's bandwidth can change within seconds, so a
    workload is judged against figures taken between its own runs."""

    def __init__(self, threads):
        self.proc = subprocess.Popen([triad_exe(), str(threads), "serve"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)

    def __call__(self):
        self.proc.stdin.write("\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())["read_gbs"]

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


# --- running the children ---------------------------------------------------------------------
def run_child(workload, library, args, verify):
    cmd = [sys.executable, os.path.join(HERE, "workloads.py"), workload, library,
           str(args.repeats), "--threads", str(args.threads), "--warmup", str(args.warmup)]
    if args.quick:
        cmd.append("--quick")
    if verify:
        cmd.append("--verify")
    waits = [15, 60, 120]  # a retry covers the package being rebuilt under the benchmark
    for attempt in range(len(waits) + 1):
        t0 = time.perf_counter()
        try:
            proc = subprocess.run(cmd, text=True, capture_output=True, timeout=args.timeout)
            ok, err = proc.returncode == 0, proc.stderr
        except subprocess.TimeoutExpired:
            ok, err = False, f"timed out after {args.timeout:.0f} s"
        if ok:
            try:
                result = json.loads(proc.stdout.strip().splitlines()[-1])
                result["child_wall"] = time.perf_counter() - t0
                return result, None
            except (ValueError, IndexError):
                ok, err = False, f"no JSON result in the output: {proc.stdout[-500:]!r}"
        sys.stderr.write(err)
        if attempt < len(waits):
            sys.stderr.write(f"{workload}/{library} failed; retrying in {waits[attempt]} s\n")
            time.sleep(waits[attempt])
    last = [line for line in err.strip().splitlines() if line.strip()]
    return None, (last[-1] if last else "failed")


def numpy_fits(workload, quick):
    """NumPy materialises the whole array (and std a same-sized temporary); it never runs pi,
    whose points would need 16 GB."""
    if workload in ("pi", "plan"):
        return False
    if not workload.startswith("b"):
        return True
    import psutil

    n, _ = workloads.sizes(quick)["b"]
    need = 2.5 * n * n * 8
    return need < 0.8 * psutil.virtual_memory().available


class BusyMonitor:
    """Watches for other work on the machine in a background thread (once a second)."""

    def __init__(self, interval=1.0):
        self.interval = interval
        self.seen = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def _watch(self):
        watch = LoadWatch()
        while not self._stop.wait(self.interval):
            self.seen.update(watch.look())
        self.seen.update(watch.look())

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        return False


class QuietWaiter:
    """Waits for the machine to be free of other work, out of a total budget of seconds."""

    def __init__(self, budget, log, poll=30):
        self.budget, self.log, self.poll = budget, log, poll
        self.waited = 0.0

    @property
    def left(self):
        return self.budget - self.waited

    def wait(self):
        while self.left > 0:
            busy = busy_processes()
            if not busy:
                return True
            self.log(f"machine busy ({', '.join(busy)}); waiting {self.poll:.0f} s "
                     f"({self.left:.0f} s of waiting left)")
            step = min(self.poll, self.left)
            time.sleep(step)
            self.waited += step
        return False


def measure(args, log, save):
    """Runs the rounds. With a waiting budget (--wait-quiet), every round starts on a quiet
    machine, and a round during which other work appeared is thrown away and run again
    (while the budget lasts)."""
    results = {}  # (workload, library) -> list of child results
    failures = []
    busy_seen, discarded, busy_rounds = set(), [], []
    waiter = QuietWaiter(args.wait_quiet, log)
    for workload in args.workloads:
        libs = [lib for lib in args.libraries if lib != "numpy" or numpy_fits(workload, args.quick)]
        if workload == "plan" and not args.quick:
            # Dask takes about 25 s to optimise the graph of 1e5 chunks (--quick) and minutes
            # for 1e6, once per run: compare with it in --quick runs only
            libs = [lib for lib in libs if lib != "dask"]
        rnd = 0
        while rnd < args.rounds:
            if waiter.budget > 0:
                waiter.wait()
            with BusyMonitor() as mon:
                runs = {}
                for lib in libs:
                    # every library's result is checked once, in its first kept round
                    verify = not any("verify" in r for r in results.get((workload, lib), []))
                    r, err = run_child(workload, lib, args, verify)
                    if r is None:
                        log(f"  {workload:6s} round {rnd + 1}/{args.rounds} {lib:6s} FAILED: {err}")
                        failures.append({"workload": workload, "library": lib,
                                         "round": rnd + 1, "error": err})
                    else:
                        runs[lib] = r
            for lib, r in runs.items():
                log(f"  {workload:6s} round {rnd + 1}/{args.rounds} {lib:6s} "
                    f"{', '.join(f'{t:.4f}' for t in r['times'])} s  "
                    f"(cold {r['cold']:.4f} s, peak {r['peak_rss_mb']:.0f} MB)")
            if mon.seen and waiter.left > 0:
                log(f"  {workload:6s} round {rnd + 1} ran beside {', '.join(sorted(mon.seen))}: "
                    f"measuring it again")
                discarded.append(workload)
                continue
            if mon.seen:
                busy_seen.update(mon.seen)
                busy_rounds.append(workload)
            for lib, r in runs.items():
                r["busy"] = sorted(mon.seen)
                results.setdefault((workload, lib), []).append(r)
            rnd += 1
            save(results, failures)
    return results, failures, {"names": sorted(busy_seen), "busy_rounds": busy_rounds,
                               "discarded_rounds": discarded, "waited_s": waiter.waited}


# --- aggregating --------------------------------------------------------------------------------
def aggregate(runs):
    times = [t for r in runs for t in r["times"]]
    return {
        "median": statistics.median(times),
        "min": min(times),
        "max": max(times),
        "n": len(times),
        "busy_n": sum(1 for r in runs if r.get("busy")),
        "cold": statistics.median(r["cold"] for r in runs),
        "setup": statistics.median(r["setup"] for r in runs),
        "setup_rss_mb": statistics.median(r.get("setup_rss_mb", 0.0) for r in runs),
        "cpu_util": statistics.median(r["cpu_util"] for r in runs),
        "peak_rss_mb": max(r["peak_rss_mb"] for r in runs),
        "base_rss_mb": statistics.median(r["base_rss_mb"] for r in runs),
        "tasks": runs[0].get("tasks"),
        "chunks": runs[0].get("chunks"),
        "result": runs[0]["result"],
        "verify": [r["verify"] for r in runs if "verify" in r],
        "exact_peak": all(r["exact_peak"] for r in runs),
    }


def check(workload, agg):
    """Problems with the results: an exact mismatch against NumPy on the same data, or
    results that disagree between libraries."""
    problems = []
    if not agg:
        return problems
    for lib, a in agg.items():
        if not a["verify"]:
            problems.append(f"{workload}/{lib}: not checked against NumPy (no run with --verify)")
        for v in a["verify"]:
            if not v["ok"]:
                problems.append(f"{workload}/{lib}: result differs from NumPy on the same data: {v}")
    if workload in ("pi", "e30", "plan"):
        return problems  # checked by each child (--verify)
    if workload in ("a", "c"):
        # the same input for every library: the values must agree
        vals = {lib: a["result"]["value"] for lib, a in agg.items()}
        ref = vals.get("numpy", next(iter(vals.values())))
        for lib, v in vals.items():
            if not np.isclose(v, ref, rtol=1e-9, atol=0):
                problems.append(f"{workload}: {lib} gives {v!r}, expected {ref!r}")
    else:
        # each library draws its own random numbers: compare with the uniform distribution
        for lib, a in agg.items():
            res = a["result"]
            if workload == "b_mean":
                n = res["shape"][0]
                tol = 6 * (1 / np.sqrt(12)) / np.sqrt(n)  # 6 sigma of one column mean
                ok = res["shape"] == agg[next(iter(agg))]["result"]["shape"] and \
                    0.5 - tol < res["min"] and res["max"] < 0.5 + tol
                if not ok:
                    problems.append(f"b_mean: {lib} column means are not those of U[0,1): {res}")
            else:
                if not abs(res["value"] - 1 / np.sqrt(12)) < 1e-3:
                    problems.append(f"b_std: {lib} gives {res['value']}, expected ~{1 / np.sqrt(12):.6f}")
    return problems


# --- the report -----------------------------------------------------------------------------------
def fmt_time(s):
    if s is None:
        return "—"
    if s < 1e-3:
        return f"{s * 1e6:.0f} µs"
    if s < 1:
        return f"{s * 1e3:.1f} ms"
    return f"{s:.2f} s"


def ratio(a, b):
    return "—" if a is None or b in (None, 0) else f"{a / b:.2f}"


def mb(x):
    return "—" if x is None else f"{x:,.0f}"


def busy_note(a):
    return f" ({a['busy_n']} busy)" if a["busy_n"] else ""


def report(args, mach, results, failures, busy, elapsed, command):
    out = []
    w = out.append
    sz = workloads.sizes(args.quick)
    w(f"# tegula vs Dask vs NumPy{' (--quick)' if args.quick else ''}\n")
    w(f"Command: `{command}`  ")
    w(f"Date: {datetime.datetime.now().isoformat(timespec='seconds')}, "
      f"total {elapsed:.0f} s\n")
    w("## Machine\n")
    w(f"- CPU: {mach['cpu']}, {mach['logical_cpus']} logical CPUs "
      f"({mach['usable_cpus']} usable by this process)")
    w(f"- RAM: {mach['ram_gb']:.1f} GiB; {mach['os']}; Python {mach['python']}")
    w(f"- tegula {mach['tegula']}, NumPy {mach['numpy']}, Dask {mach['dask']}")
    w(f"- BLAS of NumPy and Dask: {mach['blas']} (without OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE: "
      f"bench/fair_blas.py)")
    w(f"- Threads: tegula and Dask (threaded scheduler) both use {mach['threads']}; "
      f"NumPy runs these operations on one thread")
    bw = mach.get("bandwidth")
    if bw:
        w(f"- Memory bandwidth, `bench/triad.rs` with {bw['threads']} threads in this run: "
          f"triad {bw['triad_gbs']:.1f} GB/s, read (sum of one array) {bw['read_gbs']:.1f} GB/s")
    w(f"- Load average at start: {', '.join(f'{x:.2f}' for x in mach['load_avg'])}")
    if busy["names"]:
        w(f"- **Machine BUSY**: other processes ({', '.join(busy['names'])}) ran during "
          f"{len(busy['busy_rounds'])} of the kept rounds (workloads: "
          f"{', '.join(sorted(set(busy['busy_rounds'])))}); those timings are noisy")
    else:
        w("- Machine quiet: no compile job (rustc, cargo, cc, ld) and no other process using "
          "over 25% of a core seen during any kept round")
    if busy["discarded_rounds"] or busy["waited_s"]:
        w(f"- Waited {busy['waited_s']:.0f} s for other work to finish; "
          f"{len(busy['discarded_rounds'])} round(s) that ran beside one were measured again")
    builds = sorted({r["build"] for rs in results.values() for r in rs if "build" in r})
    if len(builds) > 1:
        w(f"- **tegula was rebuilt during the run**: {len(builds)} builds of its extension were "
          f"measured (modified {', '.join(builds)})")
    elif builds:
        w(f"- tegula extension built {builds[0]}")
    w(f"- Each time is the median of {args.rounds} rounds x {args.repeats} timed run(s), every "
      f"round a fresh process per library after {args.warmup} untimed warm-up run(s); the "
      f"libraries alternate within a round\n")

    agg = {wl: {lib: aggregate(rs) for (w_, lib), rs in results.items() if w_ == wl}
           for wl in args.workloads}

    def get(wl, lib, key="median"):
        a = agg.get(wl, {}).get(lib)
        return None if a is None else a[key]

    w("## Results\n")
    w("| workload | tegula | dask | numpy | tegula/dask | tegula/numpy "
      "| peak RSS MB tegula / dask / numpy |")
    w("|---|---:|---:|---:|---:|---:|---|")

    def row(label, wl, key="median", scale=1.0, unit_fmt=fmt_time, mem=True):
        vals = [get(wl, lib, key) for lib in LIBRARIES]
        vals = [None if v is None else v * scale for v in vals]
        peaks = " / ".join(mb(get(wl, lib, "peak_rss_mb")) for lib in LIBRARIES) if mem else ""
        w(f"| {label} | {' | '.join(unit_fmt(v) for v in vals)} | {ratio(vals[0], vals[1])} "
          f"| {ratio(vals[0], vals[2])} | {peaks} |")

    if "a" in agg:
        n, ch = sz["a"]
        row(f"(a) `((x + 1) * 2).sum()`, {n:.0e} float64 in memory, chunks {ch:.0e}: compute",
            "a")
        conv = [get("a", lib, "setup") if lib != "numpy" else None for lib in LIBRARIES]
        grow = " / ".join("+" + mb(get("a", lib, "setup_rss_mb")) if lib != "numpy" else "—"
                          for lib in LIBRARIES)
        w(f"| (a) conversion `tg.asarray(x)` / `da.from_array(x)` (before compute, not in the "
          f"row above) | {fmt_time(conv[0])} | {fmt_time(conv[1])} | — | {ratio(conv[0], conv[1])} "
          f"| — | RSS growth {grow} |")
        if bw and get("a", "tegula"):
            frac = [None if get("a", lib) is None else n * 8 / get("a", lib) / 1e9 / bw["read_gbs"]
                    for lib in LIBRARIES]
            w("| (a) bytes of x read per second, as a fraction of the read bandwidth | "
              + " | ".join("—" if f is None else f"{f:.0%}" for f in frac) + " | | | |")
        tot = [None if get("a", lib) is None else get("a", lib) + (get("a", lib, "setup") or 0)
               for lib in LIBRARIES]
        w(f"| (a) conversion + compute | {' | '.join(fmt_time(v) for v in tot)} "
          f"| {ratio(tot[0], tot[1])} | {ratio(tot[0], tot[2])} | |")
    for wl, label in (("b_mean", "`x.mean(axis=0)`"), ("b_std", "`x.std()`")):
        if wl in agg:
            n, ch = sz["b"]
            row(f"(b) {label}, {n}x{n} random float64, chunks {ch}x{ch}, generation included",
                wl)
    if "c" in agg:
        n, ch = sz["c"]
        chunks = get("c", "tegula", "chunks") or get("c", "dask", "chunks") or n // ch
        row(f"(c) `x.sum()`, {n:.0e} float64 in chunks of {ch} ({chunks:,} chunks): total",
            "c")
        per = [None if get("c", lib) is None or lib == "numpy" else get("c", lib) / chunks
               for lib in LIBRARIES]
        w(f"| (c) time per chunk | {fmt_time(per[0])} | {fmt_time(per[1])} | — "
          f"| {ratio(per[0], per[1])} | — | |")
    if "pi" in agg:
        n, ch = sz["pi"]
        row(f"(pi) Monte Carlo pi, {n:.0e} points from the library's generator, chunks {ch:.0e}",
            "pi")
    if "e30" in agg:
        n, ch = sz["e30"]
        row(f"(e30) 30-op element-wise expression, {n:.0e} float64 in memory, chunks {ch:.0e}, "
            "result as a NumPy array", "e30")
    if "plan" in agg:
        n, ch = sz["plan"]
        row(f"(plan) planning `((x + 1) * 2).sum()` over {n // ch:.0e} chunks (nothing computed)",
            "plan")
    w("")
    w("Ratios below 1 mean tegula is faster. Peak RSS is the highest resident set size of the "
      "process while the workload ran (warm-up and timed runs); it includes the interpreter, "
      "the imported libraries and, for (a) and (c), the NumPy input already in memory (and for "
      "tegula the copy made by the conversion). Conversion time and RSS growth are measured "
      "once per process.\n")

    w("## Details\n")
    w("| workload | library | median | min | max | runs | first run (cold) | CPU use (cores) "
      "| tasks | base RSS MB | peak RSS MB |")
    w("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for wl in args.workloads:
        for lib in LIBRARIES:
            a = agg[wl].get(lib)
            if a is None:
                continue
            w(f"| {wl} | {lib} | {fmt_time(a['median'])} | {fmt_time(a['min'])} "
              f"| {fmt_time(a['max'])} | {a['n']}{busy_note(a)} | {fmt_time(a['cold'])} | {a['cpu_util']:.2f} "
              f"| {'—' if a['tasks'] is None else format(a['tasks'], ',')} | {mb(a['base_rss_mb'])} "
              f"| {mb(a['peak_rss_mb'])} |")
    w("")
    w("CPU use is process CPU time / wall time over the timed runs (2.0 = two cores busy the "
      "whole time). Tasks: tegula's `task_count()`, Dask's graph length.\n")

    problems = [p for wl in args.workloads for p in check(wl, agg[wl])]
    w("## Correctness\n")
    for f in failures:
        problems.append(f"FAILED: {f['workload']}/{f['library']} in round {f['round']}: "
                        f"{f['error']}")
    if problems:
        for p in problems:
            w(f"- **{'FAILED' if p.startswith('FAILED') else 'MISMATCH'}**: "
              f"{p.removeprefix('FAILED: ')}")
    else:
        w("- All results agree: tegula's and Dask's results equal NumPy's on the same data "
          "(allclose, rtol 1e-9) for every workload; for (a) and (c) all three libraries agree; "
          "for (b), where each library draws its own random numbers, each library's reduction "
          "equals NumPy's on that library's materialised array, and the values match U[0, 1).")
    return "\n".join(out) + "\n", problems, agg


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true",
                   help="about 10x fewer elements per workload: a smoke test under a minute")
    p.add_argument("--rounds", type=int, default=None,
                   help="fresh processes per library and workload (default 5, --quick 3)")
    p.add_argument("--repeats", type=int, default=1, help="timed runs per process (default 1)")
    p.add_argument("--warmup", type=int, default=1, help="untimed runs per process (default 1)")
    p.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)),
                   help="threads for tegula and Dask (default: all usable CPUs)")
    p.add_argument("--workloads", nargs="+", default=list(workloads.WORKLOADS),
                   choices=workloads.WORKLOADS)
    p.add_argument("--libraries", nargs="+", default=list(LIBRARIES), choices=LIBRARIES)
    p.add_argument("--wait-quiet", type=float, default=0, metavar="SECONDS",
                   help="start every round on a machine free of other work (compile jobs, "
                   "processes using CPU) "
                   "and measure again a round during which one ran, waiting at most SECONDS "
                   "in all")
    p.add_argument("--timeout", type=float, default=900, help="seconds per child process")
    p.add_argument("--out", help="also write the markdown report to this file")
    p.add_argument("--json", help="write the raw results to this file "
                   "(default bench/out/results-<time>.json)")
    args = p.parse_args(argv)
    if args.rounds is None:
        args.rounds = 3 if args.quick else 5
    if args.rounds < 1 or args.repeats < 1:
        p.error("--rounds and --repeats must be at least 1")
    if "tegula" in args.libraries:  # tegula first: the ratios need it, and the order is fixed
        args.libraries = [lib for lib in LIBRARIES if lib in args.libraries]

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    command = " ".join(["python bench/run.py"] + list(sys.argv[1:] if argv is None else argv))
    mach = machine(args.threads)
    os.makedirs(os.path.join(HERE, "out"), exist_ok=True)
    mach["bandwidth"] = bandwidth(args.threads, log)
    log(f"memory bandwidth: {mach['bandwidth']}")
    log(f"benchmarking on {mach['cpu']} with {args.threads} threads"
        f"{' (quick)' if args.quick else ''}; BLAS {mach['blas']}")
    path = args.json or os.path.join(
        HERE, "out", f"results-{datetime.datetime.now():%Y%m%d-%H%M%S}.json")
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    t0 = time.time()

    def save(results, failures, **more):
        with open(path, "w") as f:
            json.dump({"machine": mach, "command": command, "elapsed": time.time() - t0,
                       "failures": failures, **more,
                       "runs": [{"workload": k[0], "library": k[1], "runs": v}
                                for k, v in results.items()]}, f, indent=1)

    results, failures, busy = measure(args, log, save)
    elapsed = time.time() - t0
    text, problems, agg = report(args, mach, results, failures, busy, elapsed, command)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    save(results, failures, busy=busy, problems=problems)
    log(f"raw results: {os.path.relpath(path)}")
    if problems:
        log("\n" + "!" * 72)
        for prob in problems:
            log(f"PROBLEM: {prob}")
        log("!" * 72)
        return 1
    return 0

if __name__ == "__main__":
    sys.exit(main())
