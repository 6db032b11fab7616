#!/usr/bin/env bash
# Installs the Debian packages mirage-opt builds with, skipping those already
# present, so it is safe (and quick) to run again.
set -euo pipefail
packages=(cmake ninja-build g++ catch2 libcli11-dev libfmt-dev libspdlog-dev nlohmann-json3-dev python3-numpy)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: all packages present"
fi
if [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "setup: warning: no CUDA toolkit at /usr/local/cuda; code generation checks that need nvcc/NVRTC are skipped" >&2
fi
