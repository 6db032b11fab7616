#!/usr/bin/env bash
# Configures and builds mirage-opt into build/ (Ninja, all cores): every
# target, or only the targets named as arguments (scripts/demo.sh builds just
# mirage-opt).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUDAToolkit_ROOT=/usr/local/cuda >/dev/null
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build build -j "$(nproc)" "${targets[@]}"
