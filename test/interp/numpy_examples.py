#!/usr/bin/python3
"""The examples of what users write (examples/*.mg), run by mirage-run's
reference interpreter and checked against NumPy in float64.

usage: numpy_examples.py MIRAGE_RUN EXAMPLES_DIR [--mirage-opt MIRAGE_OPT] NAME[=PROGRAM]...

NAME=PROGRAM runs PROGRAM (a .mg, or the .cu mirage-opt wrote for the
example, under the CPU shim) in place of examples/NAME.mg; it is held to
the float64 model only (it may round less than the example does). With
--mirage-opt, each NAME without a PROGRAM is first optimized
(`mirage-opt --device none --no-cache --time-limit 40`) and the .cu it
writes is the PROGRAM.

Each NAME has a NumPy model below: it takes the same float16 inputs the
interpreter reads and returns the outputs in float64. The interpreter rounds
every stored tensor to f16 (mg-language.md, "Numerics"), so the two agree to
f16 tolerance: the largest error is a few f16 units of the largest output.
Exits 77 (CTest's skip code) when NumPy is missing.
"""
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
except ImportError:
    print("numpy is not installed: skipped")
    sys.exit(77)


def exact(x):
    return x


def f16(x):
    """A tensor the program stores: rounded to the program's dtype."""
    return x.astype(np.float16).astype(np.float64)


# Each model computes the program op by op as mg-language.md defines it,
# passing every stored tensor through `r`: f16 emulates the interpreter's
# rounding (a tight check of the semantics), exact is the float64 truth (the
# error an f16 program has anyway).
def layer_norm(x, eps, r, axis=-1):
    c = r(x - r(x.mean(axis=axis, keepdims=True)))
    return r(c / r(np.sqrt(r(r(r(c * c).mean(axis=axis, keepdims=True)) + eps))))


def softmax(x, r, axis=-1):
    e = r(np.exp(r(x - r(x.max(axis=axis, keepdims=True)))))
    return r(e / r(e.sum(axis=axis, keepdims=True)))


def layernorm_linear(rng, r):
    x = rng.standard_normal((16, 4096))
    w = rng.uniform(-1, 1, (4096, 6144)) / 64
    ins = {k: v.astype(np.float16) for k, v in {"X": x, "W": w}.items()}
    f = {k: v.astype(np.float64) for k, v in ins.items()}
    return ins, {"Y": r(layer_norm(f["X"], 1e-5, r) @ f["W"])}


def softcap_attention(rng, r):
    # Logits up to about 60 before the cap: the cap matters (30·tanh(S/30)).
    q = rng.standard_normal((2, 256, 64)) * 3
    k = rng.standard_normal((2, 64, 4096)) * 3
    v = rng.uniform(-1, 1, (2, 4096, 64))
    ins = {k_: a.astype(np.float16) for k_, a in {"Q": q, "K": k, "V": v}.items()}
    f = {k_: a.astype(np.float64) for k_, a in ins.items()}
    s = r(r(f["Q"] @ f["K"]) * 0.125)
    c = r(r(np.tanh(r(s / 30))) * 30)
    return ins, {"O": r(softmax(c, r) @ f["V"])}


def gelu_mlp(rng, r):
    x = rng.standard_normal((16, 1024))
    w1 = rng.uniform(-1, 1, (1024, 4096)) / 16
    w2 = rng.uniform(-1, 1, (4096, 1024)) / 32
    ins = {k: v.astype(np.float16) for k, v in {"X": x, "W1": w1, "W2": w2}.items()}
    f = {k: v.astype(np.float64) for k, v in ins.items()}
    h = r(f["X"] @ f["W1"])
    # gelu_tanh's expansion (docs/language.md), rounded where it stores.
    inner = r(r(h + r(r(r(h * h) * h) * 0.044715)) * 0.7978845608028654)
    g = r(r(h * 0.5) * r(1 + r(np.tanh(inner))))
    return ins, {"O": r(g @ f["W2"])}


MODELS = {"layernorm_linear": layernorm_linear, "softcap_attention": softcap_attention, "gelu_mlp": gelu_mlp}

# Tolerance in f16 units (2^-10) of the output's largest magnitude: against
# the model that rounds as the interpreter does, and against float64 (the
# program's own f16 error: stored logits near 30 are off by up to 1/64, and
# so is every exponent computed from them).
F16_UNITS = {"f16": 4, "float64": 16}


def check(mirage_run, examples, arg):
    name, _, program = arg.partition("=")
    ins, want = MODELS[name](np.random.default_rng(1234), f16)
    _, truth = MODELS[name](np.random.default_rng(1234), exact)
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [mirage_run, program or os.path.join(examples, name + ".mg"), "-q"]
        for k, v in ins.items():
            path = os.path.join(tmp, k + ".npy")
            np.save(path, v)
            cmd += ["--in", f"{k}={path}"]
        for k in want:
            cmd += ["--out", f"{k}={os.path.join(tmp, k + '.out.npy')}"]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            print(f"FAIL {name}: mirage-run exited {r.returncode}: {r.stderr}")
            return False
        ok = True
        for k in want:
            got = np.load(os.path.join(tmp, k + ".out.npy")).astype(np.float64)
            for model, ref in (("f16", want[k]), ("float64", truth[k])):
                if got.shape != ref.shape:
                    print(f"FAIL {name}: output {k} has shape {got.shape}, NumPy {ref.shape}")
                    ok = False
                    break
                scale = np.abs(ref).max()
                err = np.abs(got - ref).max()
                units = err / (scale * 2.0 ** -10)
                good = units <= F16_UNITS[model] and np.isfinite(got).all()
                if program and model == "f16":
                    # Another program (a fused kernel keeps f32 where the
                    # example stores f16): only the float64 truth counts.
                    print(f"info {name}: {k} vs NumPy (f16 as the example rounds): {units:.2f} f16 units")
                    continue
                print(f"{'ok  ' if good else 'FAIL'} {name}: {k} vs NumPy ({model}): max |error| {err:.3g} = "
                      f"{units:.2f} f16 units of max |ref| {scale:.3g}")
                ok = ok and good
        return ok


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    mirage_run, examples = sys.argv[1], sys.argv[2]
    names = sys.argv[3:]
    if names[:1] == ["--mirage-opt"]:
        return optimized(mirage_run, examples, names[1], names[2:])
    results = [check(mirage_run, examples, n) for n in names]
    return 0 if all(results) else 1


def optimized(mirage_run, examples, mirage_opt, names):
    """Each example optimized by mirage-opt, its .cu checked."""
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            cu = os.path.join(tmp, name + ".cu")
            r = subprocess.run([mirage_opt, os.path.join(examples, name + ".mg"), "-o", cu, "--device", "none",
                                "--no-cache", "--time-limit", "40", "-q"], capture_output=True, text=True)
            if r.returncode != 0:
                print(f"FAIL {name}: mirage-opt exited {r.returncode}: {r.stderr}")
                results.append(False)
                continue
            with open(cu) as f:
                launches = sum(1 for line in f if line.startswith("// mirage-plan launch"))
            print(f"info {name}: mirage-opt wrote {launches} launch(es)")
            results.append(check(mirage_run, examples, f"{name}={cu}"))
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
