#!/usr/bin/env bash
# install_test.sh BUILD_DIR EXAMPLE.mg: installs BUILD_DIR into a temporary
# prefix and runs the installed mirage-opt and mirage-run from a folder that
# is not the checkout, with the source tree out of reach of any relative path.
set -euo pipefail
build=$1 example=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
for tool in mirage-opt mirage-run mirage-equiv; do
  [ -x "$tmp/prefix/bin/$tool" ] || { echo "install_test: $tool is not installed"; exit 1; }
done
mkdir "$tmp/work" && cp "$example" "$tmp/work/p.mg" && cd "$tmp/work"
"$tmp/prefix/bin/mirage-opt" --version
"$tmp/prefix/bin/mirage-opt" p.mg -o p.cu --emit-mg p.opt.mg --device none --no-cache --time-limit 20 -q
[ -s p.cu ] || { echo "install_test: no p.cu written"; exit 1; }
"$tmp/prefix/bin/mirage-run" p.cu --device cpu > run.txt
cat run.txt
grep -q " = " run.txt || { echo "install_test: mirage-run printed no output summary"; exit 1; }
"$tmp/prefix/bin/mirage-equiv" p.mg p.opt.mg
echo "install_test: ok"
