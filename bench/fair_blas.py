"""NumPy and Dask on this machine's best BLAS kernels, for every benchmark that times them.

The machines this project runs on set OPENBLAS_CORETYPE (e.g. Haswell) and OPENBLAS_L2_SIZE
for the test suite. These variables pin NumPy's OpenBLAS, and so Dask's, to older kernels.
On an AVX-512 machine, for example, GEMM then runs at a third of its speed. A comparison with
NumPy or Dask must not run under them. OpenBLAS reads them once, when it is loaded, so
removing them from os.environ after NumPy is imported is too late.

Importing this module first, before NumPy, Dask or anything that imports them, handles this:
if either variable is set, it replaces this process with the same command (os.execve) run
without the two variables, and every child process the benchmark starts inherits that
environment. If NumPy was imported already, it raises RuntimeError instead.
`blas_kernels()` describes NumPy's BLAS in this process, for a report's header.
"""

import os
import sys

PINNING = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")


def _run_again_without_pinning():
    found = [name for name in PINNING if name in os.environ]
    if not found:
        return
    if "numpy" in sys.modules:
        raise RuntimeError(f"fair_blas must be imported before numpy: {', '.join(found)} is set, and "
                           "NumPy's OpenBLAS read it when it was loaded (import fair_blas first)")
    env = {k: v for k, v in os.environ.items() if k not in PINNING}
    # sys.orig_argv (Python 3.10+) keeps the interpreter's own options, `-c CODE` and `-m MODULE`.
    args = getattr(sys, "orig_argv", None)
    args = args[1:] if args else sys.argv
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, [sys.executable, *args], env)


_run_again_without_pinning()


def blas_kernels():
    """One line describing the BLAS libraries loaded in this process (NumPy's, which this
    imports), such as "openblas 0.3.31 (SkylakeX kernels, 2 threads, pthreads)"."""
    import numpy  # noqa: F401  (loads its BLAS)

    try:
        import threadpoolctl
    except ImportError:
        return "unknown (threadpoolctl not installed)"
    libraries = [info for info in threadpoolctl.threadpool_info() if info.get("user_api") == "blas"]
    if not libraries:
        return "none loaded"
    described = []
    for info in libraries:
        details = [f"{info['architecture']} kernels" if info.get("architecture") else None,
                   f"{info.get('num_threads')} threads", info.get("threading_layer")]
        described.append(f"{info.get('internal_api')} {info.get('version')} "
                         f"({', '.join(d for d in details if d)})")
    return "; ".join(described)
