#!/usr/bin/env bash
# Creates .venv (if needed), installs the build/test tools and builds + installs tegula into it
# with `pip install .` (maturin, release build). Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -r requirements-dev.txt "$@"
.venv/bin/python -m pip install -q .
