#!/usr/bin/env bash
# Configures and builds mirage-opt into build/ (Ninja, all cores).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUDAToolkit_ROOT=/usr/local/cuda >/dev/null
cmake --build build -j "$(nproc)"
