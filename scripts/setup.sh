#!/usr/bin/env bash
# Creates .venv (if needed) and builds + installs tegula into it with `pip install .` (maturin,
# release build), which brings only what tegula needs at run time (NumPy, cloudpickle).
# Arguments are more packages or requirement options to install first, e.g.
# `-r requirements-dev.txt` (the test suite's tools, servers and oracles, as scripts/test.sh
# does) or `"dask[array]" psutil` (the benchmarks). Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
if [ "$#" -gt 0 ]; then
    .venv/bin/python -m pip install -q "$@"
fi
.venv/bin/python -m pip install -q .
