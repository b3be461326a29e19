#!/usr/bin/env bash
# Sets everything up (plus Dask and psutil), then runs the benchmark suite against NumPy and Dask.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh "dask[array]" psutil
.venv/bin/python bench/run.py "$@"
