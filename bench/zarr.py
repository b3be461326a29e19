"""Arrays on disk: tegula against Dask + zarr-python (Zarr format 3), with the disk's own
bandwidth measured by `dd` in the same run.

    .venv/bin/python bench/zarr.py                            # every workload, 3 rounds
    .venv/bin/python bench/zarr.py --workloads raw zstd --rounds 5
    .venv/bin/python bench/zarr.py --scale 0.01 --rounds 1    # a smoke test
    .venv/bin/python bench/zarr.py --dir /data/bench --keep   # stores elsewhere, kept

Workloads (sizes at --scale 1; the scale multiplies the number of rows, rounded to whole chunks):

    raw   write then read a 524288x1024 float64 array (4.29 GB) in 1024x1024 chunks (8 MiB),
          no compression. Write: `tg.to_zarr(x, path, compressor=None)` against
          `da.to_zarr(x, path, compressors=None)`, x drawn lazily by each library's own
          generator (`tg.random.default_rng(0).random`, `da.random.default_rng(0).random`),
          so generating the values is part of the write time. Read: `from_zarr(path).sum()`,
          a full read reduced to a scalar. `dd` writes (`if=/dev/zero bs=8M
          conv=fdatasync`) and reads (`of=/dev/null bs=8M`) as many bytes in the same round;
          each library's throughput is given as a fraction of dd's.
    zstd  the same with zstd level 1 (tegula `compressor="zstd", compression_level=1`,
          zarr-python `zarr.codecs.ZstdCodec(level=1)`; the same codec metadata on disk).
          Random doubles barely compress; throughput counts the array's bytes, not the stored
          ones (both are in the details).
    ata   `(A.T @ A).compute()`, A a 2,000,000x500 float64 Zarr array on disk (8 GB) in
          20000x500 chunks (80 MB), no compression: tegula under `tg.config.set(memory=...)`
          (--memory, default 1GB), Dask with its threaded scheduler. A is written once by
          tegula (untimed; reused when --keep left it), the same store for both; the two
          results must agree (np.allclose, rtol 1e-9).

How it measures:

- Every write, read and A.T @ A runs in a fresh child process (`--child`), so a peak RSS
  (wait4's ru_maxrss: the whole process, interpreter and libraries included) is one
  library's alone. Dask uses its threaded scheduler with one thread per CPU, tegula all
  CPUs; both write Zarr format 3 with the same chunking.
- Write time: from building the lazy array to every file and directory of the store being
  fsync'ed (as dd's conv=fdatasync makes dd wait for the disk); the to_zarr call alone is in
  the details. Each store (and dd's file) is removed before it is written, so every write
  allocates fresh blocks. Dask's store is created with `overwrite=True`, not `mode="w"`,
  which would make `da.to_zarr` serialise all chunk writes behind one lock.
- Cold reads: before every read (tegula's, Dask's, dd's, and each A.T @ A) this script
  calls os.sync() and then posix_fadvise(POSIX_FADV_DONTNEED) on every file under the store,
  which drops their (clean) pages from the page cache, so each read comes from the disk
  (below the VM: a host's cache, if any, is out of reach). Where `fincore` exists, pages
  left resident are reported, and the details give each read's bytes read from the disk
  (/proc/self/io's read_bytes, which the page cache does not count).
- Rounds alternate tegula, dask, dd; a time is the median over the rounds, a peak RSS the
  highest. GB/s = 1e9 bytes of the array per second.
- Correctness: every read's sum must be that of U[0, 1) values (within 6 sigma) and equal
  in every round; in the first round each library also reads the other's store (untimed),
  and its sum must equal the one the writer's library read (rtol 1e-9), so both read and
  write the same bytes.

A markdown report for bench/RESULTS.md is printed at the end; the exit status is 1 when a
check failed or a child process failed.
"""

import argparse
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fair_blas  # noqa: E402  (before NumPy: NumPy and Dask on this machine's own BLAS kernels)
# This file is named zarr.py: its directory must not be on the path, or `import zarr` (here,
# in Dask) finds this script instead of zarr-python.
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != HERE]

GB, MiB = 10**9, 2**20
LIBRARIES = ("tegula", "dask")
RAW = (2**19, 1024, 1024)          # rows, columns, rows per chunk: 4 GiB in 8 MiB chunks
ATA = (2_000_000, 500, 20_000)     # 8 GB in 80 MB chunks
WORKLOADS = ("raw", "zstd", "ata")


def bench_module(name):
    """A module from bench/ (run.py's helpers), imported without leaving bench/ on the path."""
    sys.path.insert(0, HERE)
    try:
        return __import__(name)
    finally:
        sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != HERE]


def shape_of(workload, scale):
    rows, cols, chunk = ATA if workload == "ata" else RAW
    return (max(1, round(rows * scale / chunk)) * chunk, cols), (chunk, cols)


def nbytes(workload, scale):
    (rows, cols), _ = shape_of(workload, scale)
    return rows * cols * 8


# --- files -------------------------------------------------------------------------------------
def files_under(path):
    if os.path.isfile(path):
        return [path]
    return [os.path.join(d, f) for d, _, fs in os.walk(path) for f in fs]


def stored_bytes(path):
    return sum(os.path.getsize(f) for f in files_under(path))


def fsync_tree(path):
    """fsync every file, then every directory (their entries), of a store."""
    for f in files_under(path):
        fd = os.open(f, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    for d, _, _ in os.walk(path):
        fd = os.open(d, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def evict(path):
    """Drops the files under `path` from the page cache: written back first (os.sync), then
    POSIX_FADV_DONTNEED, which discards clean pages. Returns the bytes still resident
    (by `fincore`), or None where it cannot tell."""
    os.sync()
    names = files_under(path)
    for f in names:
        fd = os.open(f, os.O_RDONLY)
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)
    if not names or not shutil.which("fincore"):
        return None
    resident = 0
    for i in range(0, len(names), 500):
        out = subprocess.run(["fincore", "--bytes", "--noheadings", "--raw", "--output", "RES",
                              *names[i:i + 500]], capture_output=True, text=True)
        if out.returncode != 0:
            return None
        resident += sum(int(v) for v in out.stdout.split())
    return resident


def remove(path):
    if os.path.isdir(path):
        shutil.rmtree(path)
    elif os.path.exists(path):
        os.remove(path)


# --- the children ---------------------------------------------------------------------------------
def disk_io():
    """This process's bytes read from and written to storage so far (/proc/self/io: what
    reached the block layer, not the page cache; all threads)."""
    try:
        with open("/proc/self/io") as f:
            d = dict(line.split(": ") for line in f.read().splitlines() if ": " in line)
        return {"disk_read_mb": int(d["read_bytes"]) / MiB,
                "disk_write_mb": int(d["write_bytes"]) / MiB}
    except (OSError, KeyError, ValueError):
        return {}


def io_since(before):
    return {k: v - before[k] for k, v in disk_io().items() if k in before}


def dask_compute(x):
    return x.compute(scheduler="threads", num_workers=os.cpu_count())


def child_write(workload, library, path, a):
    shape, chunks = shape_of(workload, a.scale)
    if library == "tegula":
        import tegula as tg

        comp = {"compressor": "zstd", "compression_level": 1} if workload == "zstd" else {}
        io0, t0 = disk_io(), time.perf_counter()
        x = tg.random.default_rng(0).random(shape, chunks=chunks)
        report = tg.to_zarr(x, path, overwrite=True, zarr_format=3, **comp)
        extra = {"tasks": report.get("tasks"), "peak_chunk_mb": report.get("peak_bytes", 0) / MiB}
    else:
        import dask
        import dask.array as da
        import zarr

        compressors = [zarr.codecs.ZstdCodec(level=1)] if workload == "zstd" else None
        io0, t0 = disk_io(), time.perf_counter()
        x = da.random.default_rng(0).random(shape, chunks=chunks)
        with dask.config.set(scheduler="threads", num_workers=os.cpu_count()):
            da.to_zarr(x, path, compressors=compressors, zarr_format=3, overwrite=True)
        extra = {}
    t1 = time.perf_counter()
    fsync_tree(path)
    t2 = time.perf_counter()
    return {"seconds": t2 - t0, "to_zarr_s": t1 - t0, "fsync_s": t2 - t1,
            "stored_bytes": stored_bytes(path), **io_since(io0), **extra}


def child_read(workload, library, path, a):
    if library == "tegula":
        import tegula as tg

        io0, t0 = disk_io(), time.perf_counter()
        x = tg.from_zarr(path)
        (s,), report = tg.compute(x.sum(), report=True)
        extra = {"tasks": report.get("tasks"), "peak_chunk_mb": report.get("peak_bytes", 0) / MiB}
    else:
        import dask.array as da

        io0, t0 = disk_io(), time.perf_counter()
        x = da.from_zarr(path)
        s = dask_compute(x.sum())
        extra = {}
    seconds = time.perf_counter() - t0
    return {"seconds": seconds, "sum": float(s), "size": int(x.size), **io_since(io0), **extra}


def child_ata(workload, library, path, a):
    if library == "tegula":
        import tegula as tg

        tg.config.set(memory=a.memory)
        io0, t0 = disk_io(), time.perf_counter()
        A = tg.from_zarr(path)
        (r,), report = tg.compute(A.T @ A, report=True)
        extra = {"tasks": report.get("tasks"), "peak_chunk_mb": report.get("peak_bytes", 0) / MiB,
                 "spilled_mb": report.get("spilled_bytes", 0) / MiB,
                 "budget_mb": report.get("memory", 0) / MiB}
    else:
        import dask.array as da

        io0, t0 = disk_io(), time.perf_counter()
        A = da.from_zarr(path)
        r = dask_compute(A.T @ A)
        extra = {}
    seconds = time.perf_counter() - t0
    io = io_since(io0)
    import numpy as np

    np.save(a.result, r)
    return {"seconds": seconds, "shape": list(r.shape), **io, **extra}


def child_create(workload, library, path, a):
    """A for the ata workload, written by tegula (untimed by the benchmark)."""
    import tegula as tg

    shape, chunks = shape_of("ata", a.scale)
    t0 = time.perf_counter()
    tg.to_zarr(tg.random.default_rng(0).random(shape, chunks=chunks), path, overwrite=True,
               zarr_format=3)
    fsync_tree(path)
    return {"seconds": time.perf_counter() - t0}


CHILDREN = {"write": child_write, "read": child_read, "ata": child_ata, "create": child_create}


def spawn(a, op, workload, library, path, result=None):
    """Runs one operation in a fresh process; its peak RSS comes from wait4."""
    cmd = [sys.executable, os.path.abspath(__file__), "--child", op, workload, library, path,
           "--scale", str(a.scale), "--memory", a.memory]
    if result:
        cmd += ["--result", result]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    try:
        r = json.loads(out.strip().splitlines()[-1]) if code == 0 else {"failed": code}
    except (ValueError, IndexError):
        r = {"failed": f"no JSON result: {out[-300:]!r}"}
    r["peak_rss_mb"] = usage.ru_maxrss / 1024
    return r


# --- dd -------------------------------------------------------------------------------------
def dd_seconds(cmd):
    """dd's own time for the copy (its stderr), else the wall time of the command."""
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "LC_ALL": "C"})
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {p.stderr.strip()}")
    m = re.search(r"copied, ([0-9.eE+-]+) s", p.stderr)
    return float(m.group(1)) if m else wall


def dd(path, n):
    """Writes n bytes of zeros (fdatasync'ed) to a new file, evicts it, reads it back."""
    remove(path)
    count = math.ceil(n / (8 * MiB))
    write = dd_seconds(["dd", "if=/dev/zero", f"of={path}", "bs=8M", f"count={count}",
                        "conv=fdatasync"])
    resident = evict(path)
    read = dd_seconds(["dd", f"if={path}", "of=/dev/null", "bs=8M"])
    remove(path)
    scale = n / (count * 8 * MiB)  # the same bytes as the array (equal unless chunks are odd)
    return {"write": {"seconds": write * scale}, "read": {"seconds": read * scale},
            "resident_after_evict": resident}


# --- the rounds -------------------------------------------------------------------------------
def fmt_gbs(n, s):
    return f"{n / s / GB:.2f} GB/s" if s else "—"


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def phase_line(workload, rnd, rounds, who, phase, r, n):
    if "failed" in r:
        return f"  {workload:4} round {rnd}/{rounds} {who:6} {phase:5} FAILED ({r['failed']})"
    return (f"  {workload:4} round {rnd}/{rounds} {who:6} {phase:5} {r['seconds']:8.3f} s "
            f"({fmt_gbs(n, r['seconds'])}"
            + (f", peak RSS {r['peak_rss_mb']:.0f} MB" if "peak_rss_mb" in r else "") + ")")


def check_resident(resident, path):
    if resident:
        log(f"  note: {resident / MiB:.1f} MiB of {path} still in the page cache after eviction")


def disk_workload(a, workload, rounds, monitor, problems):
    """raw and zstd: per round, each library writes, then reads cold; then dd."""
    n = nbytes(workload, a.scale)
    runs = {lib: [] for lib in (*LIBRARIES, "dd")}
    cross = {}
    stores = {lib: os.path.join(a.dir, f"{workload}-{lib}.zarr") for lib in LIBRARIES}
    for rnd in range(1, rounds + 1):
        with monitor() as mon:
            for lib in LIBRARIES:
                remove(stores[lib])
                w = spawn(a, "write", workload, lib, stores[lib])
                log(phase_line(workload, rnd, rounds, lib, "write", w, n))
                check_resident(evict(stores[lib]), stores[lib])
                r = spawn(a, "read", workload, lib, stores[lib]) if "failed" not in w else w
                log(phase_line(workload, rnd, rounds, lib, "read", r, n))
                runs[lib].append({"write": w, "read": r})
            if rnd == 1:  # each library reads the other's store (untimed, warm)
                for lib, other in zip(LIBRARIES, reversed(LIBRARIES)):
                    if os.path.exists(os.path.join(stores[other], "zarr.json")):
                        cross[lib] = spawn(a, "read", workload, lib, stores[other])
            d = dd(os.path.join(a.dir, "dd.bin"), n)
            check_resident(d["resident_after_evict"], "dd's file")
            for phase in ("write", "read"):
                log(phase_line(workload, rnd, rounds, "dd", phase, d[phase], n))
            runs["dd"].append(d)
        for lib in runs:
            runs[lib][-1]["busy"] = sorted(mon.seen)
        if mon.seen:
            log(f"  {workload} round {rnd} ran beside {', '.join(sorted(mon.seen))}")
    if not a.keep:
        for s in stores.values():
            remove(s)
    check_sums(workload, runs, cross, n, problems)
    return runs


def check_sums(workload, runs, cross, n, problems):
    size = n // 8
    sums = {}
    for lib in LIBRARIES:
        got = [r["read"]["sum"] for r in runs[lib] if "sum" in r["read"]]
        if not got:
            problems.append(f"{workload}: {lib} has no successful read")
            continue
        sums[lib] = got[0]
        if any(g != got[0] for g in got):
            problems.append(f"{workload}: {lib}'s sums differ between rounds: {got}")
        tol = 6 / math.sqrt(12) / math.sqrt(size)
        if not abs(got[0] / size - 0.5) < tol:
            problems.append(f"{workload}: {lib}'s mean {got[0] / size!r} is not that of U[0, 1)")
    for lib, other in zip(LIBRARIES, reversed(LIBRARIES)):
        c = cross.get(lib)
        if c is None or other not in sums:
            continue
        if "sum" not in c:
            problems.append(f"{workload}: {lib} failed to read {other}'s store: {c}")
        elif not math.isclose(c["sum"], sums[other], rel_tol=1e-9):
            problems.append(f"{workload}: {lib} reads {c['sum']!r} from {other}'s store, "
                            f"{other} read {sums[other]!r}")


def ata_store(a):
    """A, written once by tegula; reused when a previous --keep run left it complete."""
    path = os.path.join(a.dir, "ata.zarr")
    done = path + ".done"
    shape, chunks = shape_of("ata", a.scale)
    want = {"shape": list(shape), "chunks": list(chunks)}
    try:
        with open(done) as f:
            if json.load(f) == want and os.path.exists(os.path.join(path, "zarr.json")):
                log(f"ata: reusing {path}")
                return path
    except (OSError, ValueError):
        pass
    remove(done)
    remove(path)
    r = spawn(a, "create", "ata", "tegula", path)
    if "failed" in r:
        raise RuntimeError(f"creating A failed: {r}")
    log(f"ata: wrote A {shape[0]}x{shape[1]} ({nbytes('ata', a.scale) / GB:.2f} GB) to {path} "
        f"in {r['seconds']:.1f} s")
    with open(done, "w") as f:
        json.dump(want, f)
    return path


def ata_workload(a, rounds, monitor, problems):
    import numpy as np

    path = ata_store(a)
    n = nbytes("ata", a.scale)
    runs = {lib: [] for lib in LIBRARIES}
    results = {lib: os.path.join(a.dir, f"ata-{lib}.npy") for lib in LIBRARIES}
    for rnd in range(1, rounds + 1):
        with monitor() as mon:
            for lib in LIBRARIES:
                remove(results[lib])
                check_resident(evict(path), path)
                r = spawn(a, "ata", "ata", lib, path, result=results[lib])
                log(phase_line("ata", rnd, rounds, lib, "A.T@A", r, n)
                    + (f" spilled {r['spilled_mb']:.0f} MB" if "spilled_mb" in r else ""))
                runs[lib].append({"ata": r})
        for lib in runs:
            runs[lib][-1]["busy"] = sorted(mon.seen)
        if all(os.path.exists(p) for p in results.values()):
            t, d = (np.load(results[lib]) for lib in LIBRARIES)
            if t.shape != d.shape or not np.allclose(t, d, rtol=1e-9, atol=0):
                err = np.max(np.abs(t - d) / np.abs(d)) if t.shape == d.shape else t.shape
                problems.append(f"ata round {rnd}: tegula's A.T @ A differs from Dask's "
                                f"(max relative difference {err})")
        else:
            problems.append(f"ata round {rnd}: a result is missing")
        for p in results.values():
            remove(p)
    if not a.keep:
        remove(path)
        remove(path + ".done")
    return runs


# --- the report -----------------------------------------------------------------------------------
def stat(runs, phase):
    """Median, min, max seconds and the highest peak RSS over the rounds that succeeded."""
    ok = [r[phase] for r in runs if "seconds" in r.get(phase, {})]
    if not ok:
        return None
    ts = [r["seconds"] for r in ok]
    rss = [r["peak_rss_mb"] for r in ok if "peak_rss_mb" in r]
    return {"median": statistics.median(ts), "min": min(ts), "max": max(ts), "n": len(ts),
            "rss": max(rss) if rss else None, "runs": ok}


def over(s, key, f=statistics.median):
    """f of a field over the rounds of a stat(), None where no round has it."""
    vals = [r[key] for r in s["runs"] if key in r] if s else []
    return f(vals) if vals else None


def both(runs):
    """write + read per round, as its own phase."""
    out = []
    for r in runs:
        if "seconds" in r.get("write", {}) and "seconds" in r.get("read", {}):
            rss = [r[p]["peak_rss_mb"] for p in ("write", "read") if "peak_rss_mb" in r[p]]
            out.append({"both": {"seconds": r["write"]["seconds"] + r["read"]["seconds"],
                                 **({"peak_rss_mb": max(rss)} if rss else {})}})
    return out


def report(a, R, command, mach, elapsed, problems):
    run = bench_module("run")
    fmt_time, ratio, mb = run.fmt_time, run.ratio, run.mb
    out = []
    w = out.append
    w("## Zarr on disk: tegula vs Dask + zarr-python\n")
    w("```sh")
    w(command)
    w("```\n")
    w(f"{mach['cpu']}, {mach['logical_cpus']} logical CPUs, {mach['ram_gb']:.1f} GiB RAM, "
      f"{mach['os']}; tegula {mach['tegula']}, Dask {mach['dask']} (threaded scheduler, "
      f"{os.cpu_count()} threads), zarr-python {mach['zarr']}, NumPy {mach['numpy']} on "
      f"{mach['blas']}, Python {mach['python']}. Stores in `{a.dir}` ({mach['fs']}); {a.rounds} round(s), "
      f"medians; {elapsed:.0f} s in all.\n")
    w("| workload | tegula | dask | dd | tegula/dask | tegula / dd | dask / dd "
      "| peak RSS MB tegula / dask |")
    w("|---|---:|---:|---:|---:|---:|---:|---|")

    def cell(s, n):
        return "—" if s is None else f"{fmt_time(s['median'])} ({n / s['median'] / GB:.2f} GB/s)"

    def frac(s, d):
        return "—" if s is None or d is None else f"{d['median'] / s['median']:.0%}"

    def med(s):
        return None if s is None else s["median"]

    for workload in [x for x in WORKLOADS if x in R]:
        runs = R[workload]
        n = nbytes(workload, a.scale)
        (rows, cols), (crow, ccol) = shape_of(workload, a.scale)
        if workload == "ata":
            t, d = stat(runs["tegula"], "ata"), stat(runs["dask"], "ata")
            spilled = over(t, "spilled_mb", max)
            name = (f"ata: `(A.T @ A).compute()`, A {rows:,}×{cols} float64 ({n / GB:.2f} GB) "
                    f"in Zarr, chunks {crow}×{ccol} ({crow * ccol * 8 / 1e6:.0f} MB), cold; "
                    f"tegula memory={a.memory}"
                    + (f", {spilled:.0f} MB spilled" if spilled is not None else ""))
            w(f"| {name} | {cell(t, n)} | {cell(d, n)} | — | {ratio(med(t), med(d))} | — | — "
              f"| {mb(t and t['rss'])} / {mb(d and d['rss'])} |")
            continue
        codec = "zstd level 1" if workload == "zstd" else "no compression"
        desc = (f"{rows:,}×{cols} float64 ({n / GB:.2f} GB), chunks {crow}×{ccol} "
                f"({crow * ccol * 8 / MiB:.0f} MiB), {codec}")
        stored = {lib: over(stat(runs[lib], "write"), "stored_bytes") for lib in LIBRARIES}
        names = {"write": f"{workload}: write {desc}; values generated while writing, fsync "
                          f"included",
                 "read": f"{workload}: cold read, `from_zarr(path).sum()`",
                 "both": f"{workload}: write + read"}
        if workload == "zstd" and all(stored.values()):
            names["write"] += (f"; stored {stored['tegula'] / GB:.2f} / {stored['dask'] / GB:.2f}"
                               f" GB")
        for phase in ("write", "read", "both"):
            if phase == "both":
                t, d, x = (stat(both(runs[lib]), "both") for lib in (*LIBRARIES, "dd"))
            else:
                t, d, x = (stat(runs[lib], phase) for lib in (*LIBRARIES, "dd"))
            w(f"| {names[phase]} | {cell(t, n)} | {cell(d, n)} | {cell(x, n)} "
              f"| {ratio(med(t), med(d))} | {frac(t, x)} | {frac(d, x)} "
              f"| {mb(t and t['rss'])} / {mb(d and d['rss'])} |")
    w("")
    w("Times are medians over the rounds (GB/s: 10⁹ bytes of the array per second; for zstd "
      "the array's bytes, not the stored ones). Ratios below 1 mean tegula is faster; "
      "tegula / dd and dask / dd are throughputs as a fraction of dd's in the same rounds "
      "(dd: zeros, `bs=8M`, `conv=fdatasync` for the write). Writes include generating the "
      "values and fsync'ing the store; every read starts with the files evicted from the page "
      "cache (os.sync, then POSIX_FADV_DONTNEED). Peak RSS: wait4's ru_maxrss of each fresh "
      "process, the highest over the rounds.\n")
    w("| workload | library | phase | median | min | max | rounds | details |")
    w("|---|---|---|---:|---:|---:|---:|---|")
    for workload in [x for x in WORKLOADS if x in R]:
        for lib, runs in R[workload].items():
            for phase in ("write", "read", "ata"):
                s = stat(runs, phase)
                if s is None:
                    continue
                det = []
                last = s["runs"][-1]
                if "to_zarr_s" in last:
                    det.append(f"to_zarr {fmt_time(over(s, 'to_zarr_s'))} "
                               f"+ fsync {fmt_time(over(s, 'fsync_s'))}")
                if phase != "write" and "disk_read_mb" in last:
                    det.append(f"read from disk {over(s, 'disk_read_mb') * MiB / GB:.3f} GB")
                if "stored_bytes" in last:
                    det.append(f"stored {last['stored_bytes'] / GB:.3f} GB")
                if last.get("tasks"):
                    det.append(f"{last['tasks']:,} tasks")
                if "peak_chunk_mb" in last:
                    det.append(f"chunks held at peak {over(s, 'peak_chunk_mb', max):.0f} MiB")
                if s["rss"] is not None:
                    det.append(f"peak RSS {s['rss']:,.0f} MB")
                busy = sum(1 for r in runs if r.get("busy"))
                if busy:
                    det.append(f"{busy} busy round(s)")
                w(f"| {workload} | {lib} | {phase} | {fmt_time(s['median'])} | "
                  f"{fmt_time(s['min'])} | {fmt_time(s['max'])} | {s['n']} | {'; '.join(det)} |")
    w("")
    if problems:
        w("**PROBLEMS**: " + "; ".join(problems))
    else:
        checks = []
        if "raw" in R or "zstd" in R:
            checks.append("every read's sum is that of U[0, 1) values and the same in every "
                          "round, and each library reads the other's store to the same sum "
                          "(rtol 1e-9)")
        if "ata" in R:
            checks.append("tegula's A.T @ A equals Dask's (allclose, rtol 1e-9) in every round")
        w("Correctness: " + "; ".join(checks) + ".")
    return "\n".join(out) + "\n"


def filesystem(path):
    try:
        p = subprocess.run(["df", "-T", path], capture_output=True, text=True, check=True)
        fields = p.stdout.strip().splitlines()[-1].split()
        return f"{fields[1]} on {fields[0]}"
    except (OSError, subprocess.CalledProcessError, IndexError):
        return "unknown filesystem"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--workloads", nargs="+", choices=WORKLOADS, default=list(WORKLOADS))
    p.add_argument("--scale", type=float, default=1.0, help="multiplies the rows (default 1)")
    p.add_argument("--rounds", type=int, default=3, help="alternating rounds; medians (default 3)")
    p.add_argument("--dir", default=os.path.join(tempfile.gettempdir(), "tegula-bench-zarr"),
                   help="work directory for the stores (default: under the temporary directory)")
    p.add_argument("--keep", action="store_true", help="keep the stores (and A for ata)")
    p.add_argument("--memory", default="1GB", help="tegula's memory budget for ata (default 1GB)")
    p.add_argument("--json", help="also write the raw results to this file")
    p.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    p.add_argument("--result", help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.child:
        op, workload, library, path = a.child
        print(json.dumps(CHILDREN[op](workload, library, path, a)))
        return 0
    if a.rounds < 1:
        p.error("--rounds must be at least 1")
    a.dir = os.path.abspath(a.dir)
    os.makedirs(a.dir, exist_ok=True)
    run = bench_module("run")
    import zarr

    mach = run.machine(os.cpu_count())
    mach["zarr"] = zarr.__version__
    mach["fs"] = filesystem(a.dir)
    try:
        import psutil  # noqa: F401

        monitor = run.BusyMonitor
    except ImportError:
        import contextlib

        class monitor(contextlib.nullcontext):
            seen = set()

            def __enter__(self):
                return self

    command = " ".join([".venv/bin/python bench/zarr.py"] + sys.argv[1:])
    log(f"zarr benchmark in {a.dir} ({mach['fs']}), scale {a.scale}, {a.rounds} round(s)")
    problems, R = [], {}
    t0 = time.time()
    for workload in [x for x in WORKLOADS if x in a.workloads]:
        if workload == "ata":
            R[workload] = ata_workload(a, a.rounds, monitor, problems)
        else:
            R[workload] = disk_workload(a, workload, a.rounds, monitor, problems)
        for lib, runs in R[workload].items():
            if any("failed" in r.get(ph, {}) for r in runs for ph in ("write", "read", "ata")):
                problems.append(f"{workload}: {lib} failed in a round")
        summary = []
        for phase in ("write", "read", "ata"):
            t, d = stat(R[workload]["tegula"], phase), stat(R[workload]["dask"], phase)
            if t and d:
                summary.append(f"{phase} time {t['median'] / d['median']:.2f}, "
                               f"peak RSS {t['rss'] / d['rss']:.2f}")
            x = stat(R[workload].get("dd", []), phase)
            if t and x:
                summary.append(f"{phase} {x['median'] / t['median']:.0%} of dd's throughput")
        print(f"{workload:4} tegula/dask: {'; '.join(summary)}", flush=True)
    elapsed = time.time() - t0
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"command": command, "machine": mach, "scale": a.scale, "runs": R,
                       "problems": problems}, f, indent=1)
    if not a.keep and not os.listdir(a.dir):
        os.rmdir(a.dir)
    print()
    print(report(a, R, command, mach, elapsed, problems))
    for prob in problems:
        log(f"PROBLEM: {prob}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
