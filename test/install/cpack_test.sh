#!/usr/bin/env bash
# cpack_test.sh BUILD_DIR: `cpack -G DEB` makes a package holding the tools.
set -euo pipefail
build=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cpack --config "$build/CPackConfig.cmake" -G DEB -B "$tmp" >/dev/null
deb=$(ls "$tmp"/*.deb)
echo "cpack_test: built $(basename "$deb")"
contents=$(dpkg-deb -c "$deb")
for tool in mirage-opt mirage-run mirage-equiv; do
  grep -q "usr/bin/$tool\$" <<<"$contents" || { echo "cpack_test: $tool missing from the package"; exit 1; }
done
dpkg-deb -f "$deb" Package Version Depends
echo "cpack_test: ok"
