#!/usr/bin/env python3
"""examples/decoder_layer.mg through mirage-opt (searched by regions) and the
chosen .cu run on the CPU shim (mirage-run --device cpu), against a NumPy
float64 evaluation of the same layer: the error relative to the output's
largest magnitude must be within f16 tolerance.

Usage: decoder_layer_numpy.py MIRAGE_OPT MIRAGE_RUN EXAMPLE.mg WORKDIR [MAX_LAUNCHES SECONDS]
Exits 77 (CTest's skip) when NumPy is missing.
"""
import json
import os
import subprocess
import sys
import time

try:
    import numpy as np
except ImportError:
    print("skipped: NumPy is not installed")
    sys.exit(77)

TOLERANCE = 2e-2  # f16: as the attention tests (test/driver/attention_test.cpp)


def rms_norm(x):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True))


def softmax(s):
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def silu(x):
    return x / (1 + np.exp(-x))


def layer(t):
    """The decoder layer of examples/decoder_layer.mg in float64."""
    x = t["X"]
    q = np.matmul(rms_norm(x), t["Wq"])
    p = softmax(np.matmul(q, t["K"]) * 0.125)
    a = np.matmul(p, t["V"])
    h = x + np.matmul(a, t["Wo"]).sum(axis=1, keepdims=True)
    n = rms_norm(h)
    m = silu(np.matmul(n, t["Wg"])) * np.matmul(n, t["Wu"])
    return h + np.matmul(m, t["Wd"])


def main():
    opt, run, example, work = sys.argv[1:5]
    max_launches = int(sys.argv[5]) if len(sys.argv) > 5 else 6
    seconds = float(sys.argv[6]) if len(sys.argv) > 6 else 60
    os.makedirs(work, exist_ok=True)
    rng = np.random.default_rng(12)
    shapes = {"X": (8, 1, 1, 512), "Wq": (1, 8, 512, 64), "K": (8, 8, 64, 1024), "V": (8, 8, 1024, 64),
              "Wo": (1, 8, 64, 512), "Wg": (1, 1, 512, 1408), "Wu": (1, 1, 512, 1408), "Wd": (1, 1, 1408, 512)}
    # Weights scaled as trained layers keep them (unit-variance outputs);
    # the attention logits then reach about 2 to 4.
    fan_in = {"X": 1, "Wq": 512 / 8, "K": 1 / 8, "V": 1, "Wo": 64 * 8, "Wg": 512, "Wu": 512, "Wd": 1408}
    t = {}
    args = []
    for name, shape in shapes.items():
        a = (rng.standard_normal(shape) / np.sqrt(fan_in[name])).astype(np.float16)
        t[name] = a.astype(np.float64)
        path = os.path.join(work, name + ".npy")
        np.save(path, a)
        args += ["--in", f"{name}={path}"]

    cu = os.path.join(work, "layer.cu")
    report = os.path.join(work, "report.json")
    start = time.time()
    subprocess.run([opt, example, "--device", "none", "--no-cache", "--jobs", "2", "-o", cu, "--report", report],
                   check=True)
    took = time.time() - start
    rep = json.load(open(report))
    launches = rep["best"]["kernels"]
    out = os.path.join(work, "Y.npy")
    subprocess.run([run, cu, "--device", "cpu", *args, "--out", f"Y={out}"], check=True)
    got = np.load(out).astype(np.float64)
    want = layer(t)
    err = np.abs(got - want).max() / np.abs(want).max()
    regions = rep.get("regions", {})
    print(f"mirage-opt: {took:.1f} s, {launches} launches, {regions.get('count')} regions, "
          f"{regions.get('moves_kept')} of {regions.get('moves_tried')} cut moves kept "
          f"({regions.get('verification')}); CPU shim error {err:.2e} (largest |Y| {np.abs(want).max():.2f})")
    ok = True
    if not np.all(np.isfinite(got)):
        print("FAIL: inf or NaN in the output")
        ok = False
    if err > TOLERANCE:
        print(f"FAIL: error {err:.2e} above {TOLERANCE}")
        ok = False
    if launches > max_launches:
        print(f"FAIL: {launches} launches, at most {max_launches} wanted")
        ok = False
    if took > seconds:
        print(f"FAIL: {took:.1f} s, at most {seconds} wanted")
        ok = False
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
