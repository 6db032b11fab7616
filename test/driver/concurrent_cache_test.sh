#!/bin/sh
# Several mirage-opt processes share one result cache directory at once
# (docs/scaling.md): in every round all of them succeed and write the same
# program, the entries left are whole and valid, and no temporary file is
# left behind. Round 3 runs while another process keeps overwriting the
# entries in place, non-atomically (as a careless tool or a damaged network
# file system might): readers see torn entries, must take them as misses and
# must never fail or crash.
#   concurrent_cache_test.sh MIRAGE_OPT
set -u
opt=$1
dir=$(mktemp -d "${TMPDIR:-/tmp}/mirage-concurrent-cache.XXXXXX")
trap 'rm -rf "$dir"' EXIT
cache=$dir/cache
fail() { echo "FAIL: $*"; exit 1; }

# Two small programs (two keys); a search limited to one kernel is exhaustive
# in a fraction of a second, so each process does a whole search on a miss.
for rows in 4 8; do
  printf 'graph mlp%s {\n  X = input f16[%s, 64]\n  W1 = input f16[64, 32]\n  W2 = input f16[64, 32]\n  O = mul(silu(matmul(X, W1)), matmul(X, W2))\n  output O\n}\n' \
    "$rows" "$rows" >"$dir/p$rows.mg"
done

procs=4  # per program and round
run_round() {
  round=$1
  pids=""
  for p in p4 p8; do
    i=0
    while [ $i -lt $procs ]; do
      "$opt" "$dir/$p.mg" --cache-dir "$cache" --device none --jobs 1 --max-kernels 1 --time-limit 60 -q \
        --emit-mg "$dir/r$round.$p.$i.mg" --report "$dir/r$round.$p.$i.json" 2>"$dir/r$round.$p.$i.err" &
      pids="$pids $!"
      i=$((i + 1))
    done
  done
  status=0
  for pid in $pids; do
    wait "$pid" || status=1
  done
  [ $status -eq 0 ] || { cat "$dir"/r"$round".*.err; fail "round $round: a mirage-opt process failed"; }
  for p in p4 p8; do
    i=0
    while [ $i -lt $procs ]; do
      [ -s "$dir/r$round.$p.$i.mg" ] || fail "round $round: $p process $i wrote no program"
      cmp -s "$dir/r$round.$p.$i.mg" "$dir/r1.$p.0.mg" || fail "round $round: $p process $i wrote a different program"
      i=$((i + 1))
    done
  done
}

check_entries() {
  n=$(ls "$cache"/*.json 2>/dev/null | wc -l)
  [ "$n" -eq 2 ] || fail "$1: expected 2 cache entries, found $n"
  for e in "$cache"/*.json; do
    key=$(basename "$e" .json)
    if command -v python3 >/dev/null 2>&1; then
      python3 - "$e" "$key" <<'PY' || fail "$1: invalid cache entry $e"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["format"] == "mirage-opt-result-cache 2" and j["key"] == sys.argv[2]
assert len(j["candidates"]) > 0 and all(c["mg"].startswith("graph") for c in j["candidates"])
PY
    else
      grep -q '"format": "mirage-opt-result-cache 2"' "$e" || fail "$1: invalid cache entry $e"
      [ "$(tail -c 1 "$e")" = "}" ] || fail "$1: truncated cache entry $e"
    fi
  done
  leftovers=$(ls -A "$cache" | grep '\.tmp\.' || true)
  [ -z "$leftovers" ] || fail "$1: temporary files left in the cache: $leftovers"
}

# Round 1: every process may miss; they race to write the same two keys.
run_round 1
check_entries "round 1"
# Round 2: the entries are there, every process must hit.
run_round 2
hits=$(grep -l '"cache": "hit"' "$dir"/r2.*.json | wc -l)
[ "$hits" -eq $((2 * procs)) ] || fail "round 2: $hits of $((2 * procs)) runs hit the cache"
check_entries "round 2"

# Round 3: a vandal rewrites every entry in place with a torn copy (first
# half only, or garbage) while the processes read.
for e in "$cache"/*.json; do cp "$e" "$e.good"; done
(
  k=0
  while [ ! -e "$dir/stop" ]; do
    for e in "$cache"/*.json; do
      size=$(wc -c <"$e.good")
      case $((k % 3)) in
        0) head -c $((size / 2)) "$e.good" >"$e" ;;
        1) printf 'not json at all' >"$e" ;;
        2) : >"$e" ;;
      esac
    done
    k=$((k + 1))
  done
) &
vandal=$!
run_round 3
grep -h "\"cache\":" "$dir"/r3.*.json | sort | uniq -c
touch "$dir/stop"
wait $vandal
rm -f "$cache"/*.good
# Every process succeeded and wrote the same program; now one clean run
# repairs the entries (each damaged one is a miss and is written anew).
run_round 4
check_entries "round 4"
echo "ok: 4 rounds of $((2 * procs)) concurrent processes on one cache directory"
