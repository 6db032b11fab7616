#!/usr/bin/python3
"""The layout examples (examples/mha_split_heads.mg, examples/rope_attention.mg)
run by the interpreter (mirage-run) against the same computation written in
NumPy, in float64 from the same f16 inputs. Exits 77 (CTest: skipped) when
NumPy is missing.

With --mirage-opt PATH, each example is also optimized (mirage-opt
--device none --time-limit 30) and the generated .cu file is run under the
host shim (mirage-run FILE.cu --device cpu) against the same NumPy result.

usage: numpy_layout_examples.py MIRAGE_RUN EXAMPLES_DIR [--mirage-opt MIRAGE_OPT]
"""
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
except ImportError:
    print("numpy is not available: skipped")
    sys.exit(77)


def softmax(s):
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def mha_split_heads(t):
    q = (t["X"] @ t["Wq"]).reshape(8, 1, 64)
    kt = (t["WkT"] @ t["Ct"]).reshape(8, 64, -1)
    vt = (t["WvT"] @ t["Ct"]).reshape(8, 64, -1)
    p = softmax((q @ kt) * 0.125)
    ot = vt @ p.reshape(8, 64, 1)
    return {"Y": ot.reshape(1, 512) @ t["Wo"]}


def rotate_half(x, axis):
    x1, x2 = np.split(x, 2, axis=axis)
    return np.concatenate([-x2, x1], axis=axis)


def rope_attention(t):
    qr = t["Q"] * t["Cq"] + rotate_half(t["Q"], 2) * t["Sq"]
    kr = t["Kt"] * t["Ck"] + rotate_half(t["Kt"], 1) * t["Sk"]
    return {"O": softmax((qr @ kr) * 0.125) @ t["V"]}


def inputs_of(name, rng):
    shapes = {
        "mha_split_heads": {"X": (1, 512), "Ct": (512, 64), "Wq": (512, 512), "WkT": (512, 512),
                            "WvT": (512, 512), "Wo": (512, 512)},
        "rope_attention": {"Q": (8, 1, 64), "Kt": (8, 64, 128), "V": (8, 128, 64)},
    }[name]
    t = {}
    for n, s in shapes.items():
        # Weights scaled like an initialization (1/sqrt(fan-in)) so that the
        # logits stay in softmax's useful range.
        scale = 1 / np.sqrt(512) if n.startswith("W") else 1.0
        t[n] = (rng.uniform(-1, 1, s) * scale).astype(np.float16)
    if name == "rope_attention":
        inv = 10000.0 ** (-np.arange(32) / 32)
        def table(pos):  # angles of the 64 dims at each position, halves repeated
            a = np.outer(pos, inv)
            return np.concatenate([a, a], axis=1)
        aq = table(np.array([128.0]))          # the query's position
        ak = table(np.arange(128.0))           # every key position
        t["Cq"] = np.cos(aq).reshape(1, 1, 64).astype(np.float16)
        t["Sq"] = np.sin(aq).reshape(1, 1, 64).astype(np.float16)
        t["Ck"] = np.cos(ak).T.reshape(1, 64, 128).astype(np.float16)
        t["Sk"] = np.sin(ak).T.reshape(1, 64, 128).astype(np.float16)
    return t


def main():
    run, examples = sys.argv[1], sys.argv[2]
    opt = sys.argv[4] if len(sys.argv) > 4 and sys.argv[3] == "--mirage-opt" else None
    failures = 0
    rng = np.random.default_rng(11)
    for name, ref in [("mha_split_heads", mha_split_heads), ("rope_attention", rope_attention)]:
        t = inputs_of(name, rng)
        want = ref({k: v.astype(np.float64) for k, v in t.items()})
        with tempfile.TemporaryDirectory() as d:
            args = [run, os.path.join(examples, name + ".mg")]
            for k, v in t.items():
                np.save(os.path.join(d, k + ".npy"), np.ascontiguousarray(v))
                args += ["--in", f"{k}={os.path.join(d, k + '.npy')}"]
            for k in want:
                args += ["--out", f"{k}={os.path.join(d, 'out_' + k + '.npy')}"]
            runs = [("interpreter", args)]
            if opt:
                cu = os.path.join(d, name + ".cu")
                subprocess.run([opt, os.path.join(examples, name + ".mg"), "--device", "none", "--time-limit", "30",
                                "--no-cache", "-q", "-o", cu], check=True)
                runs.append(("generated code under the shim", [run, cu, "--device", "cpu"] + args[2:]))
            for what, cmd in runs:
                subprocess.run(cmd, check=True)
                for k, w in want.items():
                    got = np.load(os.path.join(d, "out_" + k + ".npy")).astype(np.float64)
                    # f16 tolerance: a few ulps of the output's scale (inputs
                    # and every stored intermediate are rounded to f16).
                    tol = 8 * 2.0 ** -10 * np.abs(w).max()
                    err = np.abs(got - w).max()
                    ok = got.shape == w.shape and err <= tol
                    print(f"{'ok  ' if ok else 'FAIL'} {name} {k} ({what}): max error {err:.3g} (tolerance {tol:.3g}, "
                          f"max |ref| {np.abs(w).max():.3g})")
                    failures += not ok
    sys.exit(1 if failures else 0)


main()
