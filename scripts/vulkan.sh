#!/usr/bin/env bash
# Installs a Vulkan driver for the GPU device's tests (tests/test_gpu.py, crates/tegula-gpu):
# Mesa's software one (lavapipe, Debian's mesa-vulkan-drivers), which runs compute shaders on
# the CPU, so the device's code is exercised on machines without a GPU. Skipped where a
# Vulkan driver is installed already. Needs root (or sudo) and Debian's package registry.
set -euo pipefail
if ls /usr/share/vulkan/icd.d/*.json > /dev/null 2>&1 || ls /etc/vulkan/icd.d/*.json > /dev/null 2>&1; then
    exit 0
fi
as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo)
"${as_root[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq --no-install-recommends mesa-vulkan-drivers > /dev/null
ls /usr/share/vulkan/icd.d/*.json > /dev/null
