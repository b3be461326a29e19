"""Zarr in object storage: tegula against Dask + zarr-python (over s3fs) on the same local S3
server (`rclone serve s3` over a directory of this machine), in the same run.

    .venv/bin/python bench/s3.py                        # every workload, 3 rounds
    .venv/bin/python bench/s3.py --scale 0.05 --rounds 1  # a smoke test

Workloads (sizes at --scale 1):

    write   a 524288x1024 float64 array (4.29 GB) in 1024x1024 chunks (8 MiB), no compression,
            drawn lazily by each library's own generator, written to a fresh prefix:
            `tg.to_zarr(x, url, storage_options=...)` against
            `da.to_zarr(x, url, storage_options=..., compressors=None)`.
    read    `from_zarr(url).sum()` of the same array (each library reads its own store).
            Cold: before every read, the server's files are dropped from the page cache
            (os.sync, then posix_fadvise(POSIX_FADV_DONTNEED) on each file).
    small   the read of a 4.29 GB array in 64 KiB chunks (64x128 float64): requests per
            second, with the requests each library keeps in flight (tegula: its executor's
            threads, each fetching the chunks of its block `REQUESTS_IN_FLIGHT` at a time;
            Dask: one chunk per task on its threads, zarr-python's async I/O inside a task).

The server is restarted before every read (nothing cached in it; its cached directory
listings can also lag behind objects just written). Each run is a fresh child process (`--child`), so its peak RSS (ru_maxrss) is one library's
alone; its time and CPU time count from after the imports (tegula; dask.array, zarr, s3fs); the server runs for the whole benchmark and its CPU time per run is reported too (it
shares the machine's cores with the client). Rounds alternate tegula and Dask; a time is
the median over the rounds. GB/s = 1e9 bytes of the array per second. Correctness: each
read's sum must equal the other library's read of its own store within 6 sigma of a U[0,1)
sum, and each library reads the other's store once (untimed), with the same sum as the
writer's library read (rtol 1e-9).
"""

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fair_blas  # noqa: E402  (before NumPy: NumPy and Dask on this machine's own BLAS kernels)
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != HERE]
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests"))

GB = 10**9
LIBRARIES = ("tegula", "dask")
BIG = (2**19, 1024, (1024, 1024))      # rows, columns, chunk: 4 GiB in 8 MiB chunks
SMALL = (2**19, 1024, (64, 128))       # 4 GiB in 64 KiB chunks


def shape_at(spec, scale):
    rows, cols, chunk = spec
    rows = max(chunk[0], int(rows * scale) // chunk[0] * chunk[0])
    return (rows, cols), chunk


# --- the child: one library, one action ------------------------------------------------------
def child(args):
    options = json.loads(args.options)
    cpu_before = 0.0
    shape, chunk = tuple(args.shape), tuple(args.chunk)
    if args.library == "tegula":
        import tegula as tg

        start, cpu_before = time.perf_counter(), cpu_seconds()
        if args.action == "write":
            x = tg.random.default_rng(0).random(shape, chunks=chunk)
            tg.to_zarr(x, args.url, chunks=chunk, storage_options=options)
            result = None
        else:
            result = float(tg.from_zarr(args.url, storage_options=options).sum().compute())
    else:
        import dask
        import dask.array as da

        import s3fs  # noqa: F401 (imported before the clock starts, as tegula is)
        import zarr  # noqa: F401

        dask.config.set(scheduler="threads", num_workers=os.cpu_count())
        start, cpu_before = time.perf_counter(), cpu_seconds()
        s3 = {"key": options["key"], "secret": options["secret"],
              "client_kwargs": {"endpoint_url": options["endpoint_url"]}}
        if args.action == "write":
            x = da.random.default_rng(0).random(shape, chunks=chunk)
            da.to_zarr(x, args.url, storage_options=s3, compressors=None, zarr_format=3)
            result = None
        else:
            result = float(da.from_zarr(args.url, storage_options=s3).sum().compute())
    seconds = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({"seconds": seconds, "result": result, "peak": usage.ru_maxrss * 1024,
                      "cpu": usage.ru_utime + usage.ru_stime - cpu_before}))


def cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run_child(library, action, url, shape, chunk, options, server):
    before = server_cpu(server)
    out = subprocess.run(
        [sys.executable, __file__, "--child", library, action, url, json.dumps(options),
         "--shape", *map(str, shape), "--chunk", *map(str, chunk)],
        capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(f"{library} {action} failed:\n{out.stderr[-3000:]}")
    row = json.loads(out.stdout.strip().splitlines()[-1])
    row["server_cpu"] = server_cpu(server) - before
    return row


def server_cpu(server):
    with open(f"/proc/{server.process.pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def drop_cache(directory):
    os.sync()
    for root, _, files in os.walk(directory):
        for name in files:
            fd = os.open(os.path.join(root, name), os.O_RDONLY)
            try:
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)


# --- the parent ------------------------------------------------------------------------------
def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--small-scale", type=float, default=None,
                        help="scale of the small-chunk read (default: --scale)")
    parser.add_argument("--dir", default=None, help="where the server keeps its buckets")
    parser.add_argument("--etags", action="store_true",
                        help="let the server hash every object for its ETag (rclone's default), which "
                             "takes most of its CPU time on this machine's cores it shares with the client")
    parser.add_argument("--child", nargs=4, metavar=("LIBRARY", "ACTION", "URL", "OPTIONS"))
    parser.add_argument("--shape", nargs="+", type=int)
    parser.add_argument("--chunk", nargs="+", type=int)
    args = parser.parse_args()
    if args.child:
        args.library, args.action, args.url, args.options = args.child
        return child(args)

    from object_servers import S3Server

    root = tempfile.mkdtemp(prefix="tegula-s3-bench-", dir=args.dir)
    server = S3Server(root, buckets=("bench",), etags=args.etags)
    options = server.options
    try:
        rows = measure(server, options, args)
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)
    report(rows, args)


def measure(server, options, args):
    shape, chunk = shape_at(BIG, args.scale)
    small_shape, small_chunk = shape_at(SMALL, args.small_scale or args.scale)
    rows = {}
    for r in range(args.rounds):
        for library in LIBRARIES:
            # A fresh prefix per write (never deleted behind the server, which caches listings).
            url = server.bucket("bench") + f"/{library}-{r}.zarr"
            rows.setdefault((library, "write"), []).append(run_child(library, "write", url, shape, chunk, options, server))
            server.restart()
            drop_cache(server.root)
            rows.setdefault((library, "read"), []).append(run_child(library, "read", url, shape, chunk, options, server))
            print(f"round {r}: {library} write {rows[(library, 'write')][-1]['seconds']:.1f} s, "
                  f"read {rows[(library, 'read')][-1]['seconds']:.1f} s", file=sys.stderr)
    sums = {lib: rows[(lib, "read")][0]["result"] for lib in LIBRARIES}
    server.restart()
    cross = {}
    for reader, writer in (("tegula", "dask"), ("dask", "tegula")):
        url = server.bucket("bench") + f"/{writer}-0.zarr"
        cross[reader] = run_child(reader, "read", url, shape, chunk, options, server)["result"]
    # The small-chunk array: written once by tegula, read by both.
    url = server.bucket("bench") + "/small.zarr"
    run_child("tegula", "write", url, small_shape, small_chunk, options, server)
    for r in range(args.rounds):
        for library in LIBRARIES:
            server.restart()
            drop_cache(server.root)
            rows.setdefault((library, "small"), []).append(
                run_child(library, "read", url, small_shape, small_chunk, options, server))
            print(f"round {r}: {library} small read {rows[(library, 'small')][-1]['seconds']:.1f} s", file=sys.stderr)
    rows["meta"] = {"shape": shape, "chunk": chunk, "small_shape": small_shape, "small_chunk": small_chunk,
                    "sums": sums, "cross": cross}
    return rows


def report(rows, args):
    meta = rows.pop("meta")
    shape, small_shape = meta["shape"], meta["small_shape"]
    nbytes = shape[0] * shape[1] * 8
    small_bytes = small_shape[0] * small_shape[1] * 8
    chunks_small = (small_shape[0] // meta["small_chunk"][0]) * (small_shape[1] // meta["small_chunk"][1])
    n = shape[0] * shape[1]
    ok = abs(meta["sums"]["tegula"] - n / 2) < 6 * (n / 12) ** 0.5 and abs(meta["sums"]["dask"] - n / 2) < 6 * (n / 12) ** 0.5
    for reader, writer in (("tegula", "dask"), ("dask", "tegula")):
        ok &= abs(meta["cross"][reader] - meta["sums"][writer]) <= 1e-9 * abs(meta["sums"][writer])
    print(f"\n### Zarr over S3 (rclone serve s3 on 127.0.0.1), {nbytes / GB:.2f} GB float64, "
          f"chunks {tuple(meta['chunk'])}; small chunks {tuple(meta['small_chunk'])} ({chunks_small} chunks, "
          f"{small_bytes / GB:.2f} GB); median of {args.rounds} rounds; "
          f"NumPy's BLAS (Dask's): {fair_blas.blas_kernels()}\n")
    print("| workload | tegula | Dask + zarr-python | tegula / Dask throughput | peak RSS tegula / Dask "
          "| client CPU s tegula / Dask | server CPU s tegula / Dask |")
    print("|---|---|---|---|---|---|---|")
    for action, size, unit in (("write", nbytes, "GB/s"), ("read", nbytes, "GB/s"), ("small", small_bytes, "requests/s")):
        t = {lib: statistics.median(r["seconds"] for r in rows[(lib, action)]) for lib in LIBRARIES}
        peak = {lib: max(r["peak"] for r in rows[(lib, action)]) for lib in LIBRARIES}
        cpu = {lib: statistics.median(r["server_cpu"] for r in rows[(lib, action)]) for lib in LIBRARIES}
        client = {lib: statistics.median(r["cpu"] for r in rows[(lib, action)]) for lib in LIBRARIES}
        rate = {lib: (chunks_small / t[lib] if action == "small" else size / GB / t[lib]) for lib in LIBRARIES}
        name = {"write": "write (generated)", "read": "cold read + sum", "small": "cold read + sum, 64 KiB chunks"}[action]
        print(f"| {name} | {rate['tegula']:.2f} {unit} ({t['tegula']:.1f} s) | {rate['dask']:.2f} {unit} ({t['dask']:.1f} s) "
              f"| {t['dask'] / t['tegula']:.2f}× | {peak['tegula'] / 2**20:.0f} / {peak['dask'] / 2**20:.0f} MiB "
              f"| {client['tegula']:.1f} / {client['dask']:.1f} | {cpu['tegula']:.1f} / {cpu['dask']:.1f} |")
    cores = os.cpu_count()
    print(f"\nThe server shares this machine's {cores} cores with the client. Even a client using no CPU "
          f"could not beat the server's own CPU time spread over every core: the best tegula / Dask "
          f"throughput ratio this machine allows is Dask's time / (server CPU s of tegula's run / {cores}):")
    for action in ("write", "read", "small"):
        t_dask = statistics.median(r["seconds"] for r in rows[("dask", action)])
        server = statistics.median(r["server_cpu"] for r in rows[("tegula", action)])
        print(f"- {action}: at most {t_dask / (server / cores):.2f}×")
    print(f"\nsums agree and are those of U[0,1) values: {ok}")
    if not ok:
        sys.exit(1)


if __name__ == "__main__":
    main()
