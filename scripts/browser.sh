#!/usr/bin/env bash
# Installs the headless Chromium the live view's tests drive (tests/test_dashboard.py) and
# scripts/dashboard_screenshots.py uses: Debian's chromium-headless-shell, when no Chromium is
# on PATH. Needs root (or sudo) and Debian's package registry. Idempotent.
set -euo pipefail
for exe in chromium-headless-shell chromium chromium-browser google-chrome; do
    if command -v "$exe" > /dev/null; then exit 0; fi
done
as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo)
"${as_root[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq --no-install-recommends chromium-headless-shell > /dev/null
command -v chromium-headless-shell > /dev/null
