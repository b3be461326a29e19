"""The ``tegula`` command (also ``python -m tegula``): ``info PATH`` describes an array on disk,
``demo`` runs the showcase, ``bench`` runs the benchmark suite of a source checkout."""

import argparse
import os
import subprocess
import sys

from . import _demo


def main(argv=None):
    """Runs one subcommand; returns the exit status."""
    parser = _parser()
    args, rest = parser.parse_known_args(argv)
    if rest and args.command != "bench":
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    if args.command == "info":
        return _info(args.path, args.storage_option)
    if args.command == "demo":
        _demo.run(int(args.points), int(args.chunk))
        return 0
    return _bench(rest)


def _parser():
    parser = argparse.ArgumentParser(prog="tegula", description=__doc__.split(":", 1)[0] + ".")
    commands = parser.add_subparsers(dest="command", required=True)
    info = commands.add_parser("info", help="shape, dtype, chunks, codecs and bytes of a Zarr array or group, "
                                            "or of a .npy file, and how many of a Zarr array's chunks are "
                                            "stored (missing ones read as the fill value)")
    info.add_argument("path", help="a local path, or a Zarr array in object storage (s3://, gs://, az://, "
                                    "http(s)://; credentials from the environment or ~/.aws)")
    info.add_argument("--storage-option", "-o", action="append", default=[], metavar="KEY=VALUE",
                      help="a storage option of an object storage URL, e.g. endpoint_url=http://127.0.0.1:9000 "
                           "or anon=true (repeatable)")
    demo = commands.add_parser("demo", help="the showcase: Monte Carlo pi from 2 billion random points",
                               description=_demo.__doc__)
    _demo.add_arguments(demo)
    # Every argument of bench, --help too, goes to bench/run.py.
    commands.add_parser("bench", help="the benchmark suite against NumPy and Dask (bench/run.py of a source "
                                      "checkout; its arguments pass through)", add_help=False)
    return parser


def _info(path, storage_options=()):
    from ._describe import describe

    options = {}
    for item in storage_options:
        key, sep, value = item.partition("=")
        if not sep or not key:
            print(f"tegula info: --storage-option takes KEY=VALUE, not {item!r}", file=sys.stderr)
            return 2
        options[key] = value
    try:
        lines = describe(path, options or None)
    except (OSError, ValueError, KeyError) as e:  # a one-line error, not a traceback
        detail = str(e) if isinstance(e, ValueError) else f"{path}: {type(e).__name__}: {e}"
        print(f"tegula info: {detail}", file=sys.stderr)
        return 1
    print("\n".join(lines))
    return 0


def _bench(args):
    script = _bench_script()
    if script is None:
        print("tegula bench: bench/run.py not found. The benchmarks are not part of the installed package: "
              "they live in bench/ of tegula's source repository. In a checkout of it, run "
              "`tegula bench --quick` (or `python bench/run.py --quick`) from its root, or "
              "`bash scripts/bench.sh --quick`, which also installs Dask and psutil.", file=sys.stderr)
        return 1
    return subprocess.call([sys.executable, script, *args])


def _bench_script():
    """bench/run.py of the checkout this package lives in (python/tegula/), or of the current
    directory."""
    package_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for root in (package_root, os.getcwd()):
        script = os.path.join(root, "bench", "run.py")
        if os.path.isfile(script):
            return script
    return None
