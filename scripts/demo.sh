#!/usr/bin/env bash
# Set up, build, and run the main job on a bundled example: optimize
# examples/rmsnorm_linear.mg into out/rmsnorm_linear.cu (with its μGraph and a
# JSON report beside it).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh mirage-opt
mkdir -p out
build/bin/mirage-opt examples/rmsnorm_linear.mg -o out/rmsnorm_linear.cu \
  --emit-mg out/rmsnorm_linear.opt.mg --report out/rmsnorm_linear.report.json
echo "demo: wrote out/rmsnorm_linear.cu, out/rmsnorm_linear.opt.mg and out/rmsnorm_linear.report.json"
