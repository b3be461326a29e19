#!/usr/bin/env bash
# Sets everything up, then runs the showcase: Monte Carlo pi with 2 billion random points.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/python examples/showcase.py "$@"
