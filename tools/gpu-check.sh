#!/usr/bin/env bash
# tools/gpu-check.sh: the one prepared check for a session that is lent a GPU
# (issue 5, last bullet; issue 6, calibration and baselines). It
#   1. fails fast, with the reason, when there is no usable GPU;
#   2. builds mirage-opt, mirage-run and mirage-bench into build/ (cmake +
#      ninja; incremental when already built);
#   3. runs a hand-written kernel on the GPU (mirage-run --device cuda on
#      test/backend/files/sub_f32.cu): NVRTC, the driver and a launch work;
#   4. for each of the six source programs (examples/*.mg): mirage-opt with
#      --device auto writes the chosen .cu, its μGraph and a report (and the
#      two hand-written μGraph examples are lowered as given); mirage-opt
#      itself checks every measured candidate on the GPU against the
#      interpreter and, on Hopper, measures both code paths (sm_80 and TMA
#      bulk copies) of the hand-written μGraphs, which run without a time
#      limit (searched ones run under one, where only sm_80 is measured), so
#      the report says which one won (code path); the .cu
#      runs on the GPU (mirage-run --device cuda) and the .mg on the reference
#      interpreter (mirage-run), on the same seeded inputs, and every output
#      must agree within the f16 tolerance of backend::checkAgainstInterpreter
#      (|gpu - ref| <= 1e-2 max|ref| + 3e-2 |ref|, NaN where NaN);
#   5. times the PyTorch baselines (bench/torch_baselines.py) when torch is
#      installed, then mirage-bench --section gpu: each chosen .cu timed on the
#      GPU, the cost model's prediction, the empty-kernel launch time, the copy
#      bandwidth, the ratio to PyTorch and the fractions of the bounds.
# Everything is logged to $OUT/gpu-check.log (or ./gpu-check-out/ when OUT is
# not set) and summarised in summary.txt there. Exit status: 0 when every
# example ran and matched; 1 on any mismatch or failure; 2 when there is no
# usable GPU or the build fails. Budget: about 8 minutes on an H200 machine
# with 16 cores (GPU_CHECK_TIME_LIMIT, default 20 s, bounds each search; no
# example or baseline starts after GPU_CHECK_DEADLINE, default 420 s).
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT_DIR=${OUT:-$PWD/gpu-check-out}
BUILD=${GPU_CHECK_BUILD_DIR:-$ROOT/build}
TIME_LIMIT=${GPU_CHECK_TIME_LIMIT:-20}
SEED=7
DEADLINE=${GPU_CHECK_DEADLINE:-420}  # seconds: no example starts after this
EXAMPLES=(rmsnorm_linear gqa gated_mlp lora ntrans qknorm_gqa)
# A whole decoder layer and two chained ones (shared functions), searched too.
# NAME:SCALE runs on inputs uniform in [-SCALE, SCALE) instead of the seeded
# ones: the two-layer chain's own f16 program overflows at unit inputs (its
# second RMSNorm squares a residual near 3,700), so it is compared at 1/4.
EXAMPLES+=(decoder_layer test/search/regions/decoder_2.mg:0.25)
GIVEN=(gqa_flash rmsnorm_linear_fused)  # hand-written μGraphs, run as written
LARGE=(gqa:8 qknorm_gqa:8 gqa_flash:8)  # attention again at logits of 20 to 60

mkdir -p "$OUT_DIR/cu" "$OUT_DIR/npy" "$OUT_DIR/reports"
LOG=$OUT_DIR/gpu-check.log
SUMMARY=$OUT_DIR/summary.txt
: >"$LOG"
: >"$SUMMARY"

say() { printf '%s\n' "$*" | tee -a "$LOG"; }
summary() { printf '%s\n' "$*" | tee -a "$LOG" "$SUMMARY"; }
# Runs a command with its output appended to the log (and shown).
logged() { "$@" 2>&1 | tee -a "$LOG"; return "${PIPESTATUS[0]}"; }
die() {
  local status=$1
  shift
  summary "gpu-check: FAILED: $*"
  exit "$status"
}

say "gpu-check: $(date -u '+%Y-%m-%d %H:%M:%S UTC'), checkout $ROOT ($(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo 'no git'))"

# GPU_CHECK_REHEARSE=1 runs every step on this machine instead: mirage-opt
# ranks with the cost model (--device none) and the .cu files run on the CPU
# shim (mirage-run --device cpu), so the script can be tried without a GPU.
OPT_DEVICE=auto RUN_DEVICE=cuda
if [[ -n "${GPU_CHECK_REHEARSE:-}" ]]; then
  OPT_DEVICE=none RUN_DEVICE=cpu
  say "gpu-check: rehearsal: no GPU is used"
fi

# 1. A usable GPU, before minutes go into a build.
driver_present() {
  if [[ -n "${MIRAGE_CUDA_DRIVER:-}" ]]; then [[ -e "$MIRAGE_CUDA_DRIVER" ]]; return; fi
  if ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1'; then return 0; fi
  local dir
  IFS=: read -r -a dirs <<<"${LD_LIBRARY_PATH:-}"
  for dir in "${dirs[@]}" /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib /usr/local/nvidia/lib64 /usr/local/cuda/compat /usr/lib/wsl/lib; do
    [[ -n "$dir" && -e "$dir/libcuda.so.1" ]] && return 0
  done
  return 1
}
if [[ -z "${GPU_CHECK_REHEARSE:-}" ]] && ! driver_present; then
  die 2 "no usable GPU: the CUDA driver (${MIRAGE_CUDA_DRIVER:-libcuda.so.1}) is not installed on this machine"
fi
if command -v nvidia-smi >/dev/null 2>&1; then
  logged nvidia-smi -L || die 2 "no usable GPU: nvidia-smi -L fails"
  # Clocks and memory for the record; older drivers may lack a field.
  logged nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem,driver_version --format=csv ||
    true
fi
command -v python3 >/dev/null 2>&1 || die 2 "python3 is needed to compare .npy outputs and read the reports"
command -v cmake >/dev/null 2>&1 || die 2 "cmake is needed to build"

# 2. Build the three tools, or take them prebuilt: GPU_CHECK_BIN names a folder
# holding mirage-opt, mirage-run and mirage-bench (an install prefix's bin/,
# `cmake --install build --prefix P --strip`), for a machine that lacks the
# build's packages (fmt, spdlog, CLI11); their libfmt may lie in P/lib.
if [[ -n "${GPU_CHECK_BIN:-}" ]]; then
  BIN=$(cd "$GPU_CHECK_BIN" && pwd) || die 2 "GPU_CHECK_BIN=$GPU_CHECK_BIN is not a folder"
  export LD_LIBRARY_PATH=$BIN/../lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
  say "gpu-check: prebuilt tools from $BIN"
else
  JOBS=$(nproc 2>/dev/null || echo 4)
  # A build folder configured for another checkout (carried over from another
  # machine) cannot be reused: build beside it instead.
  if [[ -f "$BUILD/CMakeCache.txt" ]] && ! grep -qxF "CMAKE_HOME_DIRECTORY:INTERNAL=$ROOT" "$BUILD/CMakeCache.txt"; then
    say "gpu-check: $BUILD belongs to another checkout; building in $ROOT/build-gpu-check"
    BUILD=$ROOT/build-gpu-check
  fi
  if [[ ! -f "$BUILD/CMakeCache.txt" ]]; then
    generator=()
    command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
    logged cmake -S "$ROOT" -B "$BUILD" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release >/dev/null ||
      die 2 "cmake configure failed (see $LOG)"
  fi
  say "gpu-check: building into $BUILD with $JOBS jobs"
  logged timeout 360 cmake --build "$BUILD" --target mirage-opt mirage-run mirage-bench -j "$JOBS" | tail -n 3 ||
    die 2 "the build failed (see $LOG)"
  BIN=$BUILD/bin
fi
for tool in mirage-opt mirage-run mirage-bench; do
  [[ -x "$BIN/$tool" ]] || die 2 "$BIN/$tool was not built (see $LOG)"
  "$BIN/$tool" --version >/dev/null 2>>"$LOG" || die 2 "$BIN/$tool does not start here (see $LOG)"
done
say "gpu-check: tools ready in ${SECONDS}s"

# 3. The GPU path end to end on a hand-written kernel: fails here, with the
# driver's reason, when the GPU is not usable after all.
# (A rehearsal skips it: the CPU shim runs only files mirage-opt wrote.)
if [[ -z "${GPU_CHECK_REHEARSE:-}" ]] &&
  ! logged timeout 120 "$BIN/mirage-run" "$ROOT/test/backend/files/sub_f32.cu" --device cuda --seed 1; then
  die 2 "mirage-run --device cuda cannot run a kernel (the reason is above)"
fi

# Compares two .npy files (float16 or float32, C order) within the f16
# tolerance; prints "ok max_abs_err=..." or the first differing element.
compare_npy() {
  python3 - "$1" "$2" <<'PY'
import ast, math, struct, sys

def read(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY":
        raise SystemExit(f"{path}: not a .npy file")
    major = data[6]
    if major == 1:
        hlen, start = struct.unpack("<H", data[8:10])[0], 10
    else:
        hlen, start = struct.unpack("<I", data[8:12])[0], 12
    header = ast.literal_eval(data[start:start + hlen].decode("latin1"))
    body = data[start + hlen:]
    code = {"<f2": "e", "<f4": "f", "<f8": "d"}.get(header["descr"])
    if code is None or header.get("fortran_order"):
        raise SystemExit(f"{path}: unsupported dtype {header['descr']}")
    n = 1
    for d in header["shape"]:
        n *= d
    return tuple(header["shape"]), struct.unpack(f"<{n}{code}", body[:n * struct.calcsize(code)])

(gshape, gpu), (rshape, ref) = read(sys.argv[1]), read(sys.argv[2])
if gshape != rshape:
    print(f"shape {gshape} differs from the reference {rshape}")
    sys.exit(1)
scale = max((abs(r) for r in ref if math.isfinite(r)), default=0.0)
worst = 0.0
for i, (g, r) in enumerate(zip(gpu, ref)):
    if math.isfinite(r):
        diff = abs(g - r)
        bad = not (diff <= 1e-2 * scale + 3e-2 * abs(r))
        if math.isfinite(diff):
            worst = max(worst, diff)
    else:
        bad = not (math.isnan(g) if math.isnan(r) else g == r)
    if bad:
        index, rest = [], i
        for d in reversed(gshape):
            index.append(rest % d)
            rest //= d
        print(f"differs at {list(reversed(index))}: GPU {g}, reference {r} (max |ref| {scale:.4g})")
        sys.exit(1)
print(f"ok max_abs_err={worst:.3g} max_abs_ref={scale:.4g}")
PY
}

# One number from a mirage-opt report: the chosen candidate's member, or "-".
report_field() {
  python3 - "$1" "$2" <<'PY'
import json, sys
try:
    report = json.load(open(sys.argv[1]))
    best = report["best"]["id"]
    for c in report["candidates"]:
        if c.get("id") == best:
            value = c.get(sys.argv[2])
            print("-" if value is None else (f"{value:.2f}" if isinstance(value, float) else value))
            break
    else:
        print("-")
except Exception:
    print("-")
PY
}

# Writes uniform inputs in [-SCALE, SCALE) for every input of a .cu's launch
# plan (f16 as float16, bf16 and f32 as float32; plain Python, no NumPy),
# seeded; prints the
# mirage-run --in arguments, one per line.
write_inputs() {
  python3 - "$1" "$2" "$3" <<'PY'
import random, struct, sys
cu, scale, prefix = sys.argv[1], float(sys.argv[2]), sys.argv[3]
rng = random.Random(11)
for line in open(cu):
    if not line.startswith("// mirage-plan input "):
        continue
    _, _, _, name, dtype, shape = line.split()
    dims = tuple(int(d) for d in shape.split(","))
    n = 1
    for d in dims:
        n *= d
    code, descr = ("e", "<f2") if dtype == "f16" else ("f", "<f4")
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %r, }" % (descr, dims)
    header += " " * (63 - (len(header) + 10) % 64) + "\n"
    path = f"{prefix}.{name}.npy"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
        f.write(struct.pack(f"<{n}{code}", *(rng.uniform(-scale, scale) for _ in range(n))))
    print(f"{name}={path}")
PY
}

# Compares every output of the GPU run (TAG.OUTPUT.gpu.npy) with the
# reference files TAG.OUTPUT.SUFFIX.npy, over the caller's `outputs`; prints
# "OUTPUT: max_abs_err=..." for the last, or the first that differs, and then
# fails.
compare_outputs() {
  local tag=$1 suffix=$2 o result
  for o in "${outputs[@]}"; do
    if ! result=$(compare_npy "$OUT_DIR/npy/$tag.$o.gpu.npy" "$OUT_DIR/npy/$tag.$o.$suffix.npy"); then
      printf '%s: %s' "$o" "$result"
      return 1
    fi
  done
  printf '%s: %s' "$o" "${result#ok }"
}

# Runs a written .cu on the GPU and the input program on the interpreter over
# the same inputs (seeded, or the --in arguments given after the first four)
# and compares every output; sets `check`. Where an output differs from the
# input program's and the candidate's own μGraph (the fourth argument, from
# --emit-mg) is there, the outputs are compared with that μGraph's too, as
# mirage-opt's own check does (docs/ranking.md): in f16 the input program itself is off at
# large magnitudes (GQA's logits near 100 round to 1/16), and a candidate
# that keeps them in f32 is right and differs from it.
run_and_compare() {
  local tag=$1 mg=$2 cu=$3 own=$4
  shift 4
  local outputs o result differs gpu_args=() ref_args=() own_args=()
  check="ok"
  mapfile -t outputs < <(grep '^// mirage-plan output ' "$cu" | awk '{print $4}')
  for o in "${outputs[@]}"; do
    gpu_args+=(--out "$o=$OUT_DIR/npy/$tag.$o.gpu.npy")
    ref_args+=(--out "$o=$OUT_DIR/npy/$tag.$o.ref.npy")
    own_args+=(--out "$o=$OUT_DIR/npy/$tag.$o.own.npy")
  done
  if ! logged timeout 180 "$BIN/mirage-run" "$cu" --device "$RUN_DEVICE" --seed "$SEED" "$@" "${gpu_args[@]}"; then
    check="FAILED: mirage-run --device $RUN_DEVICE"
    return
  elif ! logged timeout 300 "$BIN/mirage-run" "$mg" --seed "$SEED" "$@" "${ref_args[@]}"; then
    check="FAILED: the reference interpreter"
    return
  fi
  if result=$(compare_outputs "$tag" ref); then
    check="ok ($result)"
    return
  fi
  differs=$result
  check="MISMATCH $differs"
  [[ -n "$own" && -f "$own" ]] || return
  if ! logged timeout 300 "$BIN/mirage-run" "$own" --seed "$SEED" "$@" "${own_args[@]}"; then
    check="FAILED: the interpreter on the candidate's μGraph"
  elif result=$(compare_outputs "$tag" own); then
    check="ok (its own μGraph, $result; the input program is off: $differs)"
  else
    check="MISMATCH $result (its own μGraph; the input program: $differs)"
  fi
}

# 4. Every example: search (or, for the hand-written μGraphs, take the
# program as given), run on the GPU, compare with the interpreter. An entry
# with a slash is a path under the checkout; others name examples/NAME.mg.
failures=0
check_example() {
  local ex=$1 mode=$2 mg scale=""
  if [[ "$ex" == *:* ]]; then scale=${ex#*:} ex=${ex%%:*}; fi
  if [[ "$ex" == */* ]]; then mg=$ROOT/$ex ex=$(basename "$ex" .mg); else mg=$ROOT/examples/$ex.mg; fi
  if ((SECONDS > DEADLINE)); then  # keep the whole check within its budget
    summary "$(printf '%-20s %8s  %s' "$ex" "-" "SKIPPED: out of time after ${SECONDS}s")"
    failures=$((failures + 1))
    return
  fi
  local cu=$OUT_DIR/cu/$ex.cu report=$OUT_DIR/reports/$ex.json
  local how=(--no-search)
  [[ "$mode" == search ]] && how=(--time-limit "$TIME_LIMIT" --emit-mg "$OUT_DIR/cu/$ex.mg")
  say "gpu-check: [$ex] mirage-opt --device $OPT_DEVICE ${how[*]} (${SECONDS}s so far)"
  if ! logged timeout $((TIME_LIMIT + 90)) "$BIN/mirage-opt" "$mg" -o "$cu" --report "$report" --device "$OPT_DEVICE" \
      "${how[@]}" --seed 1 --cache-dir "$OUT_DIR/cache"; then
    summary "$(printf '%-20s %8s  %s' "$ex" "-" "FAILED: mirage-opt failed")"
    failures=$((failures + 1))
    return
  fi
  local launches check ins=()
  launches=$(grep -c '^// mirage-plan launch ' "$cu")
  [[ -n "$scale" ]] && { scaled_inputs "$ex" "$cu" "$scale" || return; }
  run_and_compare "$ex" "$mg" "$cu" "$OUT_DIR/cu/$ex.mg" "${ins[@]}"
  [[ "$check" == ok* ]] || failures=$((failures + 1))
  summary "$(printf '%-20s %8s  %-40s  %11s  %12s  %s' "$ex${scale:+@$scale}" "$launches" "$check" \
    "$(report_field "$report" measured_us)" "$(report_field "$report" predicted_us)" \
    "$(report_field "$report" code_path)")"
}

# Fills the caller's `ins` with --in arguments for inputs uniform in
# [-SCALE, SCALE); fails (and counts the failure) when none were written.
scaled_inputs() {
  local ex=$1 cu=$2 scale=$3 line
  while IFS= read -r line; do ins+=(--in "$line"); done < <(write_inputs "$cu" "$scale" "$OUT_DIR/npy/$ex.x$scale")
  ((${#ins[@]} > 0)) && return 0
  summary "$(printf '%-20s %8s  %s' "$ex@$scale" "-" "FAILED: no inputs written")"
  failures=$((failures + 1))
  return 1
}

# The chosen kernels of the attention examples again, at the magnitudes real
# models produce: inputs in [-8, 8) put GQA's logits (0.125 · 64 products) at
# a standard deviation of about 21, maxima past 60.
check_large() {
  local ex=${1%%:*} scale=${1#*:}
  local mg=$ROOT/examples/$ex.mg cu=$OUT_DIR/cu/$ex.cu check ins=()
  [[ -f "$cu" ]] || return
  if ((SECONDS > DEADLINE)); then
    summary "$(printf '%-20s %8s  %s' "$ex@$scale" "-" "SKIPPED: out of time after ${SECONDS}s")"
    failures=$((failures + 1))
    return
  fi
  scaled_inputs "$ex" "$cu" "$scale" || return
  run_and_compare "$ex.x$scale" "$mg" "$cu" "$OUT_DIR/cu/$ex.mg" "${ins[@]}"
  [[ "$check" == ok* ]] || failures=$((failures + 1))
  summary "$(printf '%-20s %8s  %s' "$ex@$scale" "$(grep -c '^// mirage-plan launch ' "$cu")" "$check")"
}
summary "example              launches  check                                     measured_us  predicted_us  code path"
for ex in "${EXAMPLES[@]}"; do check_example "$ex" search; done
for ex in "${GIVEN[@]}"; do check_example "$ex" given; done
for ex in "${LARGE[@]}"; do check_large "$ex"; done

# 5. Baselines and the side-by-side table. torch.compile is skipped when the
# budget is running out.
torch_args=()
if ((SECONDS > DEADLINE)); then
  say "gpu-check: no time left for the PyTorch baselines"
elif python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' >/dev/null 2>&1; then
  compile_flag=()
  # torch.compile costs about half a minute per example: skipped when the
  # budget is running out, or when GPU_CHECK_TORCH_COMPILE=0.
  if ((SECONDS > 270)) || [[ "${GPU_CHECK_TORCH_COMPILE:-1}" == 0 ]]; then compile_flag=(--no-compile); fi
  say "gpu-check: PyTorch baselines ${compile_flag[*]} (${SECONDS}s so far)"
  # The script rewrites its JSON after each example, so a run cut short by
  # the timeout still gives the baselines it measured.
  logged timeout 150 python3 "$ROOT/bench/torch_baselines.py" "${compile_flag[@]}" -o "$OUT_DIR/torch.json" ||
    say "gpu-check: the PyTorch baselines did not finish; the table has what they measured"
  [[ -s "$OUT_DIR/torch.json" ]] && torch_args=(--torch-json "$OUT_DIR/torch.json")
else
  say "gpu-check: no PyTorch with CUDA here; the table has no PyTorch column"
fi
say "gpu-check: mirage-bench --section gpu (${SECONDS}s so far)"
if ! logged timeout 90 "$BIN/mirage-bench" --section gpu --examples "$ROOT/examples" --cu-dir "$OUT_DIR/cu" \
    "${torch_args[@]}" >"$OUT_DIR/bench.txt"; then
  failures=$((failures + 1))
  summary "mirage-bench --section gpu FAILED"
fi
tee -a "$SUMMARY" <"$OUT_DIR/bench.txt"

if ((failures > 0)); then
  die 1 "$failures example(s) or steps failed, after ${SECONDS}s (log: $LOG)"
fi
summary "gpu-check: PASSED: every example's chosen kernel matches the interpreter, after ${SECONDS}s"
