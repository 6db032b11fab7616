#!/usr/bin/env bash
# Set up, build, and run every test (all CTest labels, the slow ones included).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)"
