#!/usr/bin/env bash
# Builds the Python API reference from the docstrings with pdoc: HTML for tegula and its public
# submodules (linalg, fft, random, config, glm, lib) in target/api-docs/python (or the folder
# given), signatures of the compiled extension's functions from python/tegula/_tegula.pyi.
# pdoc imports the tegula that scripts/setup.sh (or scripts/test.sh) installed in .venv; each
# of its warnings (a submodule that fails to import, a name in __all__ that does not resolve,
# an annotation it cannot read) is an error here.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
    echo "no .venv: run 'bash scripts/setup.sh' first" >&2
    exit 1
fi
out="${1:-target/api-docs/python}"
rm -rf "$out"
.venv/bin/python -W error::UserWarning -m pdoc --output-directory "$out" tegula
echo "API reference: $out/index.html"
