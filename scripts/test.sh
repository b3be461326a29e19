#!/usr/bin/env bash
# Sets everything up, then runs every test: the Rust workspace and the Python suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo test --workspace --quiet
.venv/bin/python -m pytest -q
# The same suite with every computation on the process pool (scheduler="processes"), with
# fewer examples per property: the first pass checked the operations, this one the executor.
TEGULA_SCHEDULER=processes TEGULA_HYPOTHESIS_PROFILE=brief .venv/bin/python -m pytest -q -p no:cacheprovider
