#!/usr/bin/env python3
"""PyTorch baselines for mirage-bench's gpu section (issue 6, item 4).

For each of the six bundled examples (examples/*.mg), the same computation on
the same shapes in float16 on the GPU, timed three ways where they apply:

  eager    PyTorch eager mode (matmuls on cuBLAS)
  compile  torch.compile of the same function (default mode)
  sdpa     torch.nn.functional.scaled_dot_product_attention (attention only)
  compile_graphs  torch.compile(mode="reduce-overhead"), with --graphs

Each variant is checked against eager mode before it is timed. Timing: CUDA
events around one call, L2 flushed before each call (as mirage's own timing
does), warm-up calls first, the median of --runs calls. Prints one JSON
object on standard output:

  {"device": ..., "torch": ..., "examples": {"gqa": {"eager_us": ..,
   "compile_us": .., "sdpa_us": ..}, ...}, "errors": {...}}

A variant that fails (no torch.compile backend, ...) is left out and its
error recorded under "errors". mirage-bench --torch-json FILE reads it and
takes the fastest variant per example. Exits 1 when torch or a GPU is
missing (with the reason on standard error).
"""
import argparse
import json
import math
import os
import sys
import time


def die(message):
    print(f"torch_baselines: {message}", file=sys.stderr)
    sys.exit(1)


try:
    import torch
    import torch.nn.functional as F
except Exception as e:  # noqa: BLE001 - any import failure means no baselines
    die(f"cannot import torch: {e}")


def rms_norm(x, dim=-1):
    # examples use eps = 0 (mg-language.md: A / sqrt(reduce_mean(square(A), dim) + eps))
    return x / torch.sqrt(torch.mean(x * x, dim=dim, keepdim=True))


def examples(device):
    """name -> (inputs, eager function, optional (sdpa function, its inputs)).

    The examples store K as [heads, head dim, sequence]; SDPA wants
    [heads, sequence, head dim] with a contiguous last dim, which is how a
    PyTorch user would keep a KV cache, so its K is transposed once, outside
    the timed call.
    """
    h = torch.float16

    def rand(*shape):
        return (torch.rand(*shape, device=device, dtype=torch.float32) * 2 - 1).to(h)

    out = {}

    x, w = rand(16, 4096), rand(4096, 6144)
    out["rmsnorm_linear"] = ((x, w), lambda x, w: torch.matmul(rms_norm(x), w), None)

    q, k, v = rand(2, 256, 64), rand(2, 64, 4096), rand(2, 4096, 64)

    def gqa(q, k, v):
        s = torch.matmul(q, k) * 0.125
        return torch.matmul(torch.softmax(s, dim=-1), v)

    def gqa_sdpa(q, kt, v):
        return F.scaled_dot_product_attention(q.unsqueeze(0), kt.unsqueeze(0), v.unsqueeze(0),
                                              scale=0.125).squeeze(0)

    out["gqa"] = ((q, k, v), gqa, (gqa_sdpa, (q, k.transpose(-1, -2).contiguous(), v)))

    x, w1, w2 = rand(8, 4096), rand(4096, 4096), rand(4096, 4096)
    out["gated_mlp"] = ((x, w1, w2), lambda x, w1, w2: F.silu(x @ w1) * (x @ w2), None)

    x, w, a, b = rand(16, 256), rand(256, 4096), rand(256, 16), rand(16, 4096)
    out["lora"] = ((x, w, a, b), lambda x, w, a, b: x @ w + (x @ a) @ b, None)

    hh, x, alpha = rand(8, 4096), rand(8, 4096), rand(8, 4096)
    out["ntrans"] = ((hh, x, alpha), lambda hh, x, alpha: rms_norm(x + alpha * (rms_norm(hh) - x)), None)

    q, k, v = rand(2, 256, 64), rand(2, 64, 4096), rand(2, 4096, 64)

    def qknorm(q, k, v):
        s = torch.matmul(rms_norm(q, -1), rms_norm(k, 1)) * 0.125
        return torch.matmul(torch.softmax(s, dim=-1), v)

    def qknorm_sdpa(q, kt, v):
        # rms_norm over K's head dim, which is kt's last
        return F.scaled_dot_product_attention(rms_norm(q, -1).unsqueeze(0), rms_norm(kt, -1).unsqueeze(0),
                                              v.unsqueeze(0), scale=0.125).squeeze(0)

    out["qknorm_gqa"] = ((q, k, v), qknorm, (qknorm_sdpa, (q, k.transpose(-1, -2).contiguous(), v)))
    return out


def time_us(fn, args, runs, warmup, flush):
    for _ in range(warmup):
        fn(*args)
    torch.cuda.synchronize()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    samples = []
    for _ in range(runs):
        flush.zero_()
        start.record()
        fn(*args)
        stop.record()
        stop.synchronize()
        samples.append(start.elapsed_time(stop) * 1e3)
    samples.sort()
    return samples[len(samples) // 2]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=100, help="timed calls per variant (median)")
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--no-compile", action="store_true", help="skip torch.compile (slow to build)")
    parser.add_argument("--graphs", action="store_true",
                        help="also torch.compile(mode='reduce-overhead') (CUDA graphs; slower to build)")
    parser.add_argument("--only", action="append", help="run only these examples (repeatable)")
    parser.add_argument("-o", "--output", help="write the JSON here (default: standard output)")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        die("no usable GPU: torch.cuda.is_available() is false")
    device = torch.device("cuda")
    torch.manual_seed(0)
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = True
    props = torch.cuda.get_device_properties(device)
    # Twice the L2 (50 MiB on H100/H200), overwritten before each call.
    flush = torch.empty(int(2 * getattr(props, "L2_cache_size", 64 << 20)) // 4 + 1, device=device,
                        dtype=torch.float32)
    result = {"device": torch.cuda.get_device_name(device), "torch": torch.__version__, "examples": {},
              "errors": {}}
    started = time.time()
    for name, (inputs, eager, sdpa) in examples(device).items():
        if args.only and name not in args.only:
            continue
        entry = {}
        with torch.no_grad():
            reference = eager(*inputs).float()
            variants = [("eager", eager, inputs)]
            if not args.no_compile:
                variants.append(("compile", torch.compile(eager), inputs))
                if args.graphs:
                    variants.append(("compile_graphs", torch.compile(eager, mode="reduce-overhead"), inputs))
            if sdpa is not None:
                variants.append(("sdpa", sdpa[0], sdpa[1]))
            for label, fn, fn_inputs in variants:
                try:
                    got = fn(*fn_inputs).float()
                    scale = reference.abs().max().item()
                    err = (got - reference).abs().max().item()
                    if not math.isfinite(err) or err > 2e-2 * max(scale, 1e-6) + 1e-2:
                        raise RuntimeError(f"differs from eager by {err:.3g} (scale {scale:.3g})")
                    entry[f"{label}_us"] = time_us(fn, fn_inputs, args.runs, args.warmup, flush)
                except Exception as e:  # noqa: BLE001 - record and go on
                    result["errors"][f"{name}/{label}"] = str(e).splitlines()[0] if str(e) else repr(e)
        result["examples"][name] = entry
        print(f"torch_baselines: {name}: {json.dumps(entry)} ({time.time() - started:.0f} s)", file=sys.stderr)
        if args.output:  # after every example: a run cut short still leaves what it measured
            write(args.output, result)
    if args.output:
        write(args.output, result)
    else:
        print(json.dumps(result, indent=2))


def write(path, result):
    with open(path + ".tmp", "w") as f:
        f.write(json.dumps(result, indent=2) + "\n")
    os.replace(path + ".tmp", path)


if __name__ == "__main__":
    main()
