#!/usr/bin/env bash
# tools/gpu-prepare.sh: makes the folder a session lent a GPU carries to the
# device machine, which has CUDA and PyTorch but not the build's Debian
# packages (fmt, spdlog, CLI11): the tools installed from build/ (stripped),
# the shared libraries they need beyond glibc, libstdc++ and NVRTC, and the
# calibration program. Then, on the device machine (docs/backend.md):
#
#   GPU_CHECK_BIN=.gpu/bin tools/gpu-check.sh
#
# with `.gpu` named in the run's carry list. Usage: tools/gpu-prepare.sh
# [BUILD_DIR [DEST]] (defaults build/ and .gpu/, both under the checkout;
# DEST is replaced). Exit status 1 when the build lacks a tool.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${1:-$ROOT/build}
DEST=${2:-$ROOT/.gpu}

for tool in mirage-opt mirage-run mirage-bench; do
  [[ -x "$BUILD/bin/$tool" ]] || { echo "gpu-prepare: $BUILD/bin/$tool is not built" >&2; exit 1; }
done
rm -rf "$DEST"
cmake --install "$BUILD" --prefix "$DEST" --strip >/dev/null
mkdir -p "$DEST/lib"
if [[ -x "$BUILD/bin/backend_gpu_calibration" ]]; then
  strip -o "$DEST/bin/backend_gpu_calibration" "$BUILD/bin/backend_gpu_calibration"
fi
# Every library the tools load that the device machine may lack: all but
# the C and C++ runtimes (there, newer) and NVRTC (there, with CUDA).
for bin in "$DEST"/bin/*; do
  ldd "$bin" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}'
done | sort -u | while read -r name path; do
  case $name in
    libc.so* | libm.so* | libstdc++.so* | libgcc_s.so* | libpthread.so* | librt.so* | libdl.so* | libnvrtc*) ;;
    *) cp -L "$path" "$DEST/lib/$name" ;;
  esac
done
du -sh "$DEST"
ls "$DEST/bin" "$DEST/lib"
