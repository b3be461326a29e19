#!/usr/bin/env bash
# Sets everything up (plus Dask, psutil and threadpoolctl), then runs the benchmark suite against NumPy and Dask.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh "dask[array]" psutil threadpoolctl
.venv/bin/python bench/run.py "$@"
