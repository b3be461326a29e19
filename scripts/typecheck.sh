#!/usr/bin/env bash
# Type-checks the Python package with mypy (settings in pyproject.toml's [tool.mypy]: the
# modules of python/tegula and the stub of the extension), then checks that stub against the
# built extension with mypy's stubtest: every class and function it registers, with their
# argument names and defaults. Uses the tools and the tegula that scripts/setup.sh (or
# scripts/test.sh) installed in .venv.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
    echo "no .venv: run 'bash scripts/setup.sh' first" >&2
    exit 1
fi
.venv/bin/python -m mypy
# pyo3 makes every class final and a disjoint base (PEP 800): the stub marks them @final, which
# is what callers need, and leaves out @disjoint_base, so far only in typing_extensions.
.venv/bin/python -m mypy.stubtest tegula._tegula --mypy-config-file pyproject.toml --ignore-disjoint-bases
