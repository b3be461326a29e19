#!/usr/bin/env bash
# Sets everything up, then runs every test: the Rust workspace and the Python suite. One build
# serves both: the `ci` profile (Cargo.toml), for the extension and for the Rust tests, with the
# GPU device (the `gpu` feature, tested on Mesa's software Vulkan driver where no GPU is).
set -euo pipefail
cd "$(dirname "$0")/.."
export TEGULA_CARGO_PROFILE=ci
# The crate features of that build (tests that run Cargo themselves pass them, to reuse it).
export TEGULA_CARGO_FEATURES=tegula/gpu
step() { printf '\n== %s (%s)\n' "$1" "$(date -u +%T)"; }
step "set up: test tools and the extension"
MATURIN_PEP517_ARGS="--profile $TEGULA_CARGO_PROFILE --features gpu" bash scripts/setup.sh -r requirements-dev.txt
bash scripts/browser.sh
bash scripts/vulkan.sh
step "Rust tests"
cargo test --workspace --features tegula-py/gpu --profile "$TEGULA_CARGO_PROFILE" --quiet
step "Python suite, threaded executor"
.venv/bin/python -m pytest -q --durations=15
# The executor's own tests again with every computation on the process pool
# (scheduler="processes"), with fewer examples per property: the first pass checked the
# operations, this one the executor (tests/conftest.py says which modules it takes).
step "Python suite, process pool"
TEGULA_SCHEDULER=processes TEGULA_HYPOTHESIS_PROFILE=brief .venv/bin/python -m pytest -q -p no:cacheprovider --durations=10
step "done"
