"""The Pangeo steps on a climate-like Zarr dataset: xarray on tegula against xarray on Dask, in
the same run, every step timed cold in fresh processes, with xarray's flox path and without.

    .venv/bin/python bench/pangeo.py                                # every step, 2 rounds
    .venv/bin/python bench/pangeo.py --steps groupby-mean anomaly resample --flox on
    .venv/bin/python bench/pangeo.py --scale 0.02 --rounds 1        # a smoke test
    .venv/bin/python bench/pangeo.py --dir /data/pangeo --keep      # dataset kept, reused

The dataset (built once, untimed, by a child process; kept in --dir and reused with --keep):
daily values from 2000-01-01 for 3650 days (a datetime64 time coordinate), on a 1° grid
(lat 180 × lon 360), two float32 variables, "t2m" (a seasonal cycle by latitude, opposite in
the two hemispheres, and Gaussian noise) and "precip" (exponential noise around a seasonal,
latitude-dependent mean, never negative), 1.89 GB in all. NaNs: 0.1% of the values at random,
a 12-day gap over a patch of pixels across the first boundary of the stored chunks in time,
and one pixel missing throughout. Zarr format 3, zstd level 1, stored chunks of 365 days × 90
× 180 (23.7 MB; --chunks). --scale multiplies the number of days (and nothing else).

Steps (each applied to the whole dataset, both variables; the result computed in the timing):

    mean          ds.mean("time")
    std           ds.std("time")
    max           ds.max("time")                           (NaNs skipped)
    groupby-mean  ds.groupby("time.month").mean()
    anomaly       (ds.groupby("time.month") - ds.groupby("time.month").mean()).std("time")
                  (the climatology in the same expression; the std forces every anomaly)
    resample      ds.resample(time="1MS").mean()
    coarsen       ds.coarsen(lat=2, lon=2).mean().mean("time")
    weighted      ds.weighted(cos(lat)).mean(("lat", "lon"))   (an area-weighted time series)
    quantile      ds.quantile(0.9, dim="time"); on Dask ds.chunk(time=-1).quantile(...), as
                  xarray's Dask path needs the core dimension in one chunk
    rolling       ds.rolling(time=30).mean().max("time")
    ffill         ds.ffill("time").mean("time")   (xarray's Dask path needs bottleneck or
                  numbagg installed; without them Dask's row reads "failed")
    to_zarr       ds.resample(time="1MS").mean().to_zarr(...)   (Zarr v3, fsync'ed)
    points-sel    ds.sel(lat=DataArray(...), lon=DataArray(...), method="nearest")
                  (the daily series of five stations: vectorised selection)
    points-isel   ds.isel(lat=DataArray(2-d), lon=DataArray(2-d))   (a 2 × 2 grid of pixels)

How it measures:

- Every (step, library, flox setting, round) runs in a fresh child process (`--child`) that
  imports xarray, NumPy, zarr, flox and the library first, then times from
  `xr.open_zarr(path, chunked_array_type="tegula", chunks={})` (tegula, its default threads)
  or `xr.open_zarr(path, chunks={})` (Dask, its threaded scheduler with os.cpu_count()
  threads) to the end of `.compute()` (for to_zarr: of the write and its fsync). Both open
  the stored chunks (`chunks={}`), and the report checks that they got the same ones.
- Cold reads: before every child the parent calls os.sync() and posix_fadvise(
  POSIX_FADV_DONTNEED) on every file of the dataset, which drops them from the page cache,
  so every step reads the store from the disk (a host's cache below the VM is out of reach).
- Peak RSS: wait4's ru_maxrss of the child (interpreter and libraries included), in MiB.
  A time is the median over --rounds, a peak RSS the highest; rounds alternate which
  library goes first.
- flox: `xr.set_options(use_flox=...)`, --flox on, off or both (default). Only groupby and
  resample reductions read the option, so the steps without them (mean, std, max, coarsen,
  weighted, quantile, rolling, ffill, the points) run once per round and their rows say "not used".
  The report says whether flox is installed (without it, use_flox=True falls back to
  xarray's own groupby).
- Correctness: each child saves its result (every variable, as .npy) in the work directory;
  after each pair the parent checks tegula's against Dask's: same shape,
  np.allclose(rtol=1e-4, atol=1e-3, equal_nan=True) (float32's tolerance for values of order
  10). A step that raises is reported as "failed: <error>" and the run goes on.

Targets (an open issue's acceptance): every step at most 1× Dask's time and 1× its peak RSS;
groupby-mean, anomaly and resample at most 0.5× Dask's time. The report's table gives each
step's ratios and whether it meets them, then the worst ratios; the exit status is 1 when a
result differs, a child failed, or a target is missed.

Full size on 2 cores: building the dataset takes about 30 s; 2 rounds × (14 steps + 4 for the
second flox setting) × 2 libraries are 72 fresh processes, most reading 1.89 GB cold, about
6 minutes in all (Dask's anomaly without flox, 30 s a run, the longest). `--steps`,
`--flox on` and `--rounds 1` cut it down.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fair_blas  # noqa: E402  (before NumPy: NumPy and Dask on this machine's own BLAS kernels)
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != HERE]

MiB = 2**20
LIBRARIES = ("tegula", "dask")
DAYS, NLAT, NLON = 3650, 180, 360
CHUNKS = (365, 90, 180)
VARIABLES = ("t2m", "precip")
TOLERANCE = {"rtol": 1e-4, "atol": 1e-3}
DATASET_VERSION = 1  # bump when the generator changes: a kept dataset is then rebuilt


# --- the steps --------------------------------------------------------------------------------
def weights(d):
    import numpy as np

    return np.cos(np.deg2rad(d.lat))


class Step:
    """`run(ds)` gives the lazy result (or, with `writes`, writes it to the path given);
    `dask` replaces it on Dask where xarray's Dask path needs something else; `grouped`: it
    reads use_flox."""

    def __init__(self, run, grouped=False, dask=None, dask_note=None, writes=False, half=False):
        self.run, self.grouped, self.dask = run, grouped, dask or run
        self.dask_note, self.writes, self.half = dask_note, writes, half


def anomaly(d):
    return (d.groupby("time.month") - d.groupby("time.month").mean()).std("time")


def to_zarr(d, path):
    d.resample(time="1MS").mean().to_zarr(path, zarr_format=3, consolidated=False, mode="w")


def stations(d):
    import xarray as xr

    lat = xr.DataArray([48.1, -33.9, 35.7, 64.1, 1.3], dims="station")
    lon = xr.DataArray([11.6, 151.2, 139.7, 338.1, 103.8], dims="station")
    return d.sel(lat=lat, lon=lon, method="nearest")


def pixels(d):
    import xarray as xr

    rows = xr.DataArray([[10, 100], [170, 45]], dims=("y", "x"))
    cols = xr.DataArray([[5, 300], [181, 359]], dims=("y", "x"))
    return d.isel(lat=rows, lon=cols)


STEPS = {
    "mean": Step(lambda d: d.mean("time")),
    "std": Step(lambda d: d.std("time")),
    "max": Step(lambda d: d.max("time")),
    "groupby-mean": Step(lambda d: d.groupby("time.month").mean(), grouped=True, half=True),
    "anomaly": Step(anomaly, grouped=True, half=True),
    "resample": Step(lambda d: d.resample(time="1MS").mean(), grouped=True, half=True),
    "coarsen": Step(lambda d: d.coarsen(lat=2, lon=2).mean().mean("time")),
    "weighted": Step(lambda d: d.weighted(weights(d)).mean(("lat", "lon"))),
    "quantile": Step(lambda d: d.quantile(0.9, dim="time"),
                     dask=lambda d: d.chunk(time=-1).quantile(0.9, dim="time"),
                     dask_note="chunk(time=-1) first"),
    "rolling": Step(lambda d: d.rolling(time=30).mean().max("time")),
    "ffill": Step(lambda d: d.ffill("time").mean("time")),
    "to_zarr": Step(to_zarr, grouped=True, writes=True),
    "points-sel": Step(stations),
    "points-isel": Step(pixels),
}


# --- the dataset ------------------------------------------------------------------------------
def days_at(scale):
    return max(1, round(DAYS * scale))


def dataset_spec(a):
    days = days_at(a.scale)
    chunks = (min(a.chunks[0], days), a.chunks[1], a.chunks[2])
    return {"days": days, "lat": NLAT, "lon": NLON, "chunks": list(chunks),
            "version": DATASET_VERSION}


def build(path, spec):
    """Writes the dataset slab by slab (a whole number of stored chunks in time each), so
    that at most about 100 MB per variable is in memory."""
    import numpy as np
    import pandas as pd
    import xarray as xr
    import zarr

    days, (ct, cl, cn) = spec["days"], spec["chunks"]
    time_all = pd.date_range("2000-01-01", periods=days, freq="D")
    lat = np.linspace(-89.5, 89.5, NLAT)
    lon = np.arange(NLON) * 1.0 + 0.5
    coslat = np.cos(np.deg2rad(lat)).astype("float32")[None, :, None]
    sinlat = np.sin(np.deg2rad(lat)).astype("float32")[None, :, None]
    slab = ct * max(1, 365 // ct)
    gap = (ct - 6, ct + 6) if ct < days else None  # 12 days across the first chunk boundary
    encoding = {v: {"chunks": (ct, cl, cn), "compressors": [zarr.codecs.ZstdCodec(level=1)]}
                for v in VARIABLES}
    for start in range(0, days, slab):
        stop = min(days, start + slab)
        rng = np.random.default_rng([2000, start])
        d = np.arange(start, stop, dtype="float32")
        season = np.cos(2 * np.pi * (d - 200) / 365.25).astype("float32")[:, None, None]
        shape = (stop - start, NLAT, NLON)
        t2m = 28 * coslat - 8 + 12 * season * sinlat + 2 * rng.standard_normal(shape, dtype="float32")
        mean_pr = 1.5 + 3 * coslat * (1 + 0.5 * season * sinlat)
        precip = mean_pr * rng.standard_exponential(shape, dtype="float32")
        values = {}
        for name, v in (("t2m", t2m), ("precip", precip)):
            v = v.astype("float32", copy=False)
            v[rng.random(shape, dtype="float32") < 0.001] = np.nan
            if gap is not None and gap[0] < stop and gap[1] > start:
                v[max(gap[0], start) - start:min(gap[1], stop) - start, 40:44, 100:106] = np.nan
            v[:, 120, 200] = np.nan
            values[name] = (("time", "lat", "lon"), v,
                            {"units": "degC" if name == "t2m" else "mm/day"})
        ds = xr.Dataset(values, coords={"time": time_all[start:stop],
                                        "lat": ("lat", lat, {"units": "degrees_north"}),
                                        "lon": ("lon", lon, {"units": "degrees_east"})},
                        attrs={"title": "climate-like benchmark data"})
        if start == 0:
            ds.to_zarr(path, mode="w", encoding=encoding, zarr_format=3, consolidated=False)
        else:
            ds.to_zarr(path, append_dim="time", consolidated=False)
        del ds, values, t2m, precip


def stored_bytes(path):
    return sum(os.path.getsize(f) for f in files_under(path))


def files_under(path):
    if os.path.isfile(path):
        return [path]
    return [os.path.join(d, f) for d, _, fs in os.walk(path) for f in fs]


def fsync_tree(path):
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
    """Drops the files under `path` from the page cache (os.sync, then POSIX_FADV_DONTNEED on
    each); returns the bytes still resident by `fincore`, or None where it cannot tell."""
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


# --- the child --------------------------------------------------------------------------------
def dask_only_chunkmanagers():
    """Keeps tegula out of the Dask child. xarray loads every registered chunk manager on its
    first chunked open, which imports tegula (installed as one) and lets it wrap a few of
    xarray's functions: memory and calls that a Dask user without tegula would not have. The
    registry is read once and cached, so it is read here once without tegula's entry."""
    import xarray.namedarray.parallelcompat as pc

    real = pc.entry_points
    pc.entry_points = lambda **kw: [e for e in real(**kw) if e.name != "tegula"]
    try:
        pc.list_chunkmanagers.cache_clear()
        pc.list_chunkmanagers()
    finally:
        pc.entry_points = real


def error_line(e):
    """An exception in one line: its type and first line, and the missing module where the
    real cause is one (Dask's dtype inference wraps the error of the function it tried)."""
    import re

    text = str(e).strip()
    msg = f"{type(e).__name__}: {text.splitlines()[0] if text else ''}"
    cause = e.__cause__ or e.__context__
    missing = re.search(r"No module named '[^']+'", text + " " + str(cause or ""))
    if missing and missing.group(0) not in msg:
        msg += f" ({missing.group(0)})"
    elif cause is not None and not missing:
        msg += f" (from {type(cause).__name__}: {str(cause).strip().splitlines()[0] if str(cause).strip() else ''})"
    return msg[:300]


def child_step(a):
    """One step on one library: prints a JSON line (seconds, or failed: the error)."""
    import warnings

    import numpy as np
    import xarray as xr
    import zarr  # noqa: F401

    warnings.filterwarnings("ignore", category=RuntimeWarning)  # all-NaN slices, the masked pixel
    warnings.filterwarnings("ignore", message="Consolidated metadata")
    try:
        import flox  # noqa: F401
    except ImportError:
        pass
    if a.child_flox != "unused":
        xr.set_options(use_flox=a.child_flox == "on")
    step = STEPS[a.step]
    if a.library == "tegula":
        import tegula  # noqa: F401

        open_kw = {"chunked_array_type": "tegula"}
        run = step.run
    else:
        import dask

        dask_only_chunkmanagers()
        dask.config.set(scheduler="threads", num_workers=os.cpu_count())
        open_kw = {}
        run = step.dask
    out = {}
    try:
        t0 = time.perf_counter()
        ds = xr.open_zarr(a.path, chunks={}, consolidated=False, **open_kw)
        if step.writes:
            run(ds, a.write_to)
            t1 = time.perf_counter()
            fsync_tree(a.write_to)
        else:
            result = run(ds).compute()
        seconds = time.perf_counter() - t0
        out["seconds"] = seconds
        if step.writes:
            out["fsync_s"] = seconds - (t1 - t0)
            result = xr.open_zarr(a.write_to, chunks=None, consolidated=False).load()
        out["chunks"] = [list(c) for c in ds["t2m"].data.chunks]
        out["array_type"] = type(ds["t2m"].data).__module__.split(".")[0]
        out["tegula_imported"] = "tegula" in sys.modules
        for name in VARIABLES:
            values = np.asarray(result[name].values)
            np.save(f"{a.result}-{name}.npy", values)
            out.setdefault("dims", {})[name] = list(result[name].dims)
            out.setdefault("dtype", {})[name] = str(values.dtype)
    except Exception as e:  # reported, not raised: the table says "failed: <error>"
        traceback.print_exc()
        out = {"failed": error_line(e)}
    return out


def child_build(a):
    spec = json.loads(a.spec)
    t0 = time.perf_counter()
    build(a.path, spec)
    fsync_tree(a.path)
    return {"seconds": time.perf_counter() - t0, "stored_bytes": stored_bytes(a.path)}


def spawn_measured(args):
    """Runs this script with --child args in a fresh process: its JSON result (or failed, with
    the end of its stderr) and its peak RSS (wait4's ru_maxrss) in MiB."""
    proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--child", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # The child's stderr is read by a thread so that neither pipe fills while we wait on stdout.
    import threading

    err_chunks = []
    reader = threading.Thread(target=lambda: err_chunks.append(proc.stderr.read()), daemon=True)
    reader.start()
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    reader.join()
    err = "".join(err_chunks)
    code = os.waitstatus_to_exitcode(status)
    try:
        r = json.loads(out.strip().splitlines()[-1]) if code == 0 else None
    except (ValueError, IndexError):
        r = None
    if r is None:
        tail = err.strip().splitlines()[-1] if err.strip() else ""
        r = {"failed": f"exit status {code}" + (f": {tail}"[:300] if tail else "")}
    if "failed" in r:
        r["stderr_tail"] = err[-3000:]
    r["peak_rss_mib"] = usage.ru_maxrss / 1024
    return r


# --- the parent -------------------------------------------------------------------------------
def log(msg):
    print(msg, file=sys.stderr, flush=True)


def ensure_dataset(a):
    path = os.path.join(a.dir, "climate.zarr")
    done = path + ".done"
    spec = dataset_spec(a)
    try:
        with open(done) as f:
            if json.load(f) == spec and os.path.exists(os.path.join(path, "zarr.json")):
                log(f"reusing {path}")
                return path, spec
    except (OSError, ValueError):
        pass
    remove(done)
    remove(path)
    log(f"building {path}: {spec['days']} days × {NLAT} × {NLON} × 2 float32 "
        f"({spec['days'] * NLAT * NLON * 8 / 1e9:.2f} GB), chunks {tuple(spec['chunks'])}")
    r = spawn_measured(["build", "-", path, "-", "--spec", json.dumps(spec)])
    if "failed" in r:
        raise RuntimeError(f"building the dataset failed: {r['failed']}\n{r.get('stderr_tail', '')}")
    log(f"built in {r['seconds']:.1f} s, {r['stored_bytes'] / 1e9:.2f} GB stored")
    with open(done, "w") as f:
        json.dump(spec, f)
    return path, spec


def compare(paths):
    """None when tegula's result equals Dask's, else what differs."""
    import numpy as np

    diffs = []
    for name in VARIABLES:
        t, d = (np.load(f"{paths[lib]}-{name}.npy") for lib in LIBRARIES)
        if t.shape != d.shape:
            diffs.append(f"{name}: shapes {t.shape} vs {d.shape}")
        elif not np.allclose(t, d, equal_nan=True, **TOLERANCE):
            bad = ~np.isclose(t, d, equal_nan=True, **TOLERANCE)
            both = ~(np.isnan(t) | np.isnan(d))
            err = np.max(np.abs(t.astype("float64") - d)[both]) if both.any() else float("nan")
            diffs.append(f"{name}: {bad.sum()} of {t.size} values differ "
                         f"(NaN where the other is not: {(np.isnan(t) != np.isnan(d)).sum()}; "
                         f"max |diff| {err:.3g})")
    return "; ".join(diffs) or None


def settings(step, flox):
    if not STEPS[step].grouped:
        return ["unused"]
    return {"on": ["on"], "off": ["off"], "both": ["on", "off"]}[flox]


def measure(a, path, monitor):
    results_dir = os.path.join(a.dir, "results")
    os.makedirs(results_dir, exist_ok=True)
    runs, checks = {}, {}
    for rnd in range(a.rounds):
        order = LIBRARIES if rnd % 2 == 0 else tuple(reversed(LIBRARIES))
        for step in a.steps:
            for flox in settings(step, a.flox):
                key = (step, flox)
                paths = {lib: os.path.join(results_dir, f"{step}-{flox}-{lib}") for lib in LIBRARIES}
                with monitor() as mon:
                    for lib in order:
                        write_to = os.path.join(a.dir, f"out-{lib}.zarr")
                        remove(write_to)
                        resident = evict(path)
                        if resident:
                            log(f"  note: {resident / MiB:.1f} MiB of the dataset still cached")
                        r = spawn_measured(["step", lib, path, step, "--child-flox", flox,
                                            "--result", paths[lib], "--write-to", write_to])
                        remove(write_to)
                        runs.setdefault(key, {}).setdefault(lib, []).append(r)
                        if "failed" in r:
                            log(f"  {step:12} flox {flox:6} round {rnd + 1} {lib:6} FAILED: {r['failed']}")
                            log("    " + r.get("stderr_tail", "").strip().replace("\n", "\n    "))
                        else:
                            log(f"  {step:12} flox {flox:6} round {rnd + 1} {lib:6} "
                                f"{r['seconds']:8.2f} s, peak RSS {r['peak_rss_mib']:,.0f} MiB")
                for lib in LIBRARIES:
                    runs[key][lib][-1]["busy"] = sorted(mon.seen)
                if all("seconds" in runs[key][lib][-1] for lib in LIBRARIES):
                    diff = compare(paths)
                    if diff:
                        log(f"  {step} flox {flox}: MISMATCH {diff}")
                    checks.setdefault(key, []).append(diff)
                for lib in LIBRARIES:
                    for name in VARIABLES:
                        remove(f"{paths[lib]}-{name}.npy")
    remove(results_dir)
    return runs, checks


def summary(rs):
    ok = [r for r in rs if "seconds" in r]
    failed = [r["failed"] for r in rs if "failed" in r]
    return {"median": statistics.median(r["seconds"] for r in ok) if ok else None,
            "rss": max(r["peak_rss_mib"] for r in ok) if ok else None,
            "failed": failed[0] if failed else None, "n": len(ok), "busy": any(r.get("busy") for r in rs)}


def report(a, spec, runs, checks, command, mach, elapsed, stored, flox_version):
    out = []
    w = out.append
    days, chunks = spec["days"], spec["chunks"]
    w("## Pangeo steps: xarray on tegula against xarray on Dask\n")
    w("```sh")
    w(command)
    w("```\n")
    w(f"{mach}. Dataset: {days} days × {NLAT} × {NLON}, t2m and precip float32 "
      f"({days * NLAT * NLON * 8 / 1e9:.2f} GB; {stored / 1e9:.2f} GB stored, Zarr v3 + zstd), "
      f"chunks {chunks[0]} × {chunks[1]} × {chunks[2]}; every step reads it cold. "
      + (f"flox {flox_version} installed" if flox_version else "flox not installed (use_flox=True "
                                                               "falls back to xarray's own groupby)")
      + "; " + fill_modules()
      + f"; {a.rounds} round(s), medians; {elapsed:.0f} s in all.\n")
    w("| step | flox | tegula s | Dask s | tegula / Dask | peak RSS tegula / Dask (MiB) | target | met | same result |")
    w("|---|---|---:|---:|---:|---|---|---|---|")
    worst = {"time": None, "half": None, "rss": None}
    met_n = total = compared = 0
    problems = []
    chunk_notes = set()
    for step in a.steps:
        for flox in settings(step, a.flox):
            key = (step, flox)
            if key not in runs:
                continue
            s = {lib: summary(runs[key][lib]) for lib in LIBRARIES}
            t, d = s["tegula"], s["dask"]
            target = 0.5 if STEPS[step].half else 1.0
            label = step if flox == "unused" else f"{step} (flox {flox})"
            cells = {}
            for lib in LIBRARIES:
                if s[lib]["failed"] and s[lib]["median"] is None:
                    cells[lib] = f"failed: {s[lib]['failed']}".replace("|", "\\|")
                    problems.append(f"{label}: {lib} failed: {s[lib]['failed']}")
                else:
                    cells[lib] = f"{s[lib]['median']:.2f}" + (" (busy)" if s[lib]["busy"] else "")
            if STEPS[step].dask_note:
                cells["dask"] += f" ({STEPS[step].dask_note})"
            tr = rr = None
            if t["median"] is not None and d["median"] is not None:
                tr = t["median"] / d["median"]
                rr = t["rss"] / d["rss"]
                for k, v in (("time", tr), ("rss", rr)) + ((("half", tr),) if target < 1 else ()):
                    if worst[k] is None or v > worst[k][0]:
                        worst[k] = (v, step, flox)
            total += 1
            compared += tr is not None
            met = tr is not None and tr <= target and rr <= 1.0
            met_n += met
            why = [] if met or tr is None else [x for x, bad in (("time", tr > target), ("memory", rr > 1)) if bad]
            diffs = [c for c in checks.get(key, []) if c]
            same = ("—" if not checks.get(key) else
                    f"NO: {diffs[0]}".replace("|", "\\|") if diffs else "yes")
            if diffs:
                problems.append(f"{label}: results differ: {diffs[0]}")
            for lib in LIBRARIES:
                ch = [r["chunks"] for r in runs[key][lib] if "chunks" in r]
                if ch:
                    chunk_notes.add((lib, json.dumps(ch[0])))
            flox_cell = "not used" if flox == "unused" else flox
            met_cell = ("no comparison" if tr is None else "yes" if met else f"no ({', '.join(why)})")
            rss_cell = " / ".join("—" if s[lib]["median"] is None else f"{s[lib]['rss']:,.0f}"
                                  for lib in LIBRARIES) + (f" ({rr:.2f})" if rr is not None else "")
            w(f"| {step} | {flox_cell} | {cells['tegula']} | {cells['dask']} "
              f"| {'—' if tr is None else f'{tr:.2f}'} | {rss_cell} | ≤ {target:g}× "
              f"| {met_cell} | {same} |")
    w("")

    def line(label, v):
        if v is None:
            return f"- {label}: —"
        return f"- {label}: {v[0]:.2f} ({v[1]}" + ("" if v[2] == "unused" else f", flox {v[2]}") + ")"

    w(line("worst time ratio tegula / Dask (target ≤ 1)", worst["time"]))
    w(line("worst time ratio of groupby-mean, anomaly, resample (target ≤ 0.5)", worst["half"]))
    w(line("worst peak RSS ratio tegula / Dask (target ≤ 1)", worst["rss"]))
    w(f"- targets met: {met_n} of {total} rows" + (f" ({total - compared} without a comparison)"
                                                    if total > compared else ""))
    w("")
    w("Times: from open_zarr to the end of compute() (to_zarr: of the write and its fsync), "
      "median over the rounds, each a fresh process reading the dataset cold (os.sync and "
      "POSIX_FADV_DONTNEED on its files before each). Peak RSS: wait4's ru_maxrss of that "
      "process, the highest over the rounds. Dask: threaded scheduler, "
      f"{os.cpu_count()} threads; tegula: its defaults. \"(busy)\": other work ran on the "
      "machine during a round. Results compared with np.allclose(rtol=1e-4, atol=1e-3, "
      "equal_nan=True) in every round.\n")
    distinct = {c for _, c in chunk_notes}
    if len(distinct) > 1:
        problems.append(f"the libraries opened different chunks: {sorted(chunk_notes)}")
    for prob in problems:
        w(f"- **PROBLEM**: {prob}")
    misses = total - met_n
    return "\n".join(out) + "\n", problems, misses


def fill_modules():
    """Whether xarray's Dask path of ffill can run (it needs bottleneck or numbagg)."""
    import importlib.util

    found = [m for m in ("bottleneck", "numbagg") if importlib.util.find_spec(m)]
    return (f"{' and '.join(found)} installed" if found else
            "neither bottleneck nor numbagg installed (xarray's ffill on Dask needs one)")


def machine():
    import platform

    import dask
    import numpy as np
    import tegula
    import xarray as xr
    import zarr

    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=HERE, text=True,
                             capture_output=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        rev = "unknown"
    return (f"{cpu}, {os.cpu_count()} logical CPUs, {platform.system()} {platform.release()}; "
            f"commit {rev}, tegula {tegula.__version__}, xarray {xr.__version__}, Dask "
            f"{dask.__version__}, zarr-python {zarr.__version__}, NumPy {np.__version__} on "
            f"{fair_blas.blas_kernels()}, Python {platform.python_version()}")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", nargs="+", choices=list(STEPS), default=list(STEPS))
    p.add_argument("--flox", choices=("on", "off", "both"), default="both")
    p.add_argument("--rounds", type=int, default=2, help="fresh processes per step and library (default 2)")
    p.add_argument("--scale", type=float, default=1.0, help="multiplies the number of days (default 1)")
    p.add_argument("--chunks", default=",".join(map(str, CHUNKS)),
                   help="stored chunks, days,lat,lon (default 365,90,180)")
    p.add_argument("--dir", default=os.path.join(tempfile.gettempdir(), "tegula-bench-pangeo"),
                   help="work directory: the dataset, results (default: under the temporary directory)")
    p.add_argument("--keep", action="store_true", help="keep the dataset (and reuse a kept one)")
    p.add_argument("--out", help="also write the report to this file")
    p.add_argument("--json", help="also write the raw results to this file")
    p.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    p.add_argument("--spec", help=argparse.SUPPRESS)
    p.add_argument("--result", help=argparse.SUPPRESS)
    p.add_argument("--write-to", help=argparse.SUPPRESS)
    p.add_argument("--child-flox", choices=("on", "off", "unused"), help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.child:
        op, a.library, a.path, a.step = a.child
        r = child_build(a) if op == "build" else child_step(a)
        print(json.dumps(r), flush=True)
        return 0
    try:
        a.chunks = tuple(int(c) for c in a.chunks.split(","))
        assert len(a.chunks) == 3 and min(a.chunks) > 0
    except (ValueError, AssertionError):
        p.error("--chunks takes three positive integers: days,lat,lon")
    if a.rounds < 1:
        p.error("--rounds must be at least 1")
    a.dir = os.path.abspath(a.dir)
    os.makedirs(a.dir, exist_ok=True)
    try:
        import flox

        flox_version = flox.__version__
    except ImportError:
        flox_version = None
    try:
        sys.path.insert(0, HERE)
        from run import BusyMonitor as monitor
    except ImportError:  # no psutil
        import contextlib

        class monitor(contextlib.nullcontext):
            seen = set()

            def __enter__(self):
                return self
    finally:
        sys.path[:] = [q for q in sys.path if os.path.abspath(q or os.curdir) != HERE]

    command = " ".join([".venv/bin/python bench/pangeo.py"] + sys.argv[1:])
    mach = machine()
    t0 = time.time()
    path, spec = ensure_dataset(a)
    stored = stored_bytes(path)
    runs, checks = measure(a, path, monitor)
    elapsed = time.time() - t0
    if not a.keep:
        remove(path)
        remove(path + ".done")
        if not os.listdir(a.dir):
            os.rmdir(a.dir)
    text, problems, misses = report(a, spec, runs, checks, command, mach, elapsed, stored, flox_version)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"command": command, "machine": mach, "spec": spec, "flox": flox_version,
                       "runs": [{"step": s, "flox": fl, "library": lib, "rounds": rs}
                                for (s, fl), by in runs.items() for lib, rs in by.items()],
                       "checks": {f"{s} {fl}": c for (s, fl), c in checks.items()},
                       "problems": problems}, f, indent=1)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    print()
    print(text)
    return 1 if problems or misses else 0


if __name__ == "__main__":
    sys.exit(main())
