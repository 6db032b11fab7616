#!/usr/bin/env python3
"""Writes N chained copies of examples/decoder_layer.mg as one program.

Usage: decoder_chain.py [--distinct] N > chain.mg

Layer k (1-based) has its own weights and KV cache (names suffixed _k) and
reads the previous layer's output; the program's input is X and its output Y,
as in the one-layer example. The shapes are the example's; with --distinct
the KV length and the MLP width change from layer to layer (so that no two
layers give the same regions, which mirage-opt would search once). Used for
the regions measurements in docs/search.md (test/search/regions/ holds
N = 2 and 4 of both kinds).
"""
import sys

LAYER = """\
  # layer {k}
  Q_{k} = matmul(rms_norm({x}), Wq_{k})
  P_{k} = softmax(mul(matmul(Q_{k}, K_{k}), 0.125), dim=-1)
  A_{k} = matmul(P_{k}, V_{k})
  H_{k} = add({x}, reduce_sum(matmul(A_{k}, Wo_{k}), dim=1))
  N_{k} = rms_norm(H_{k})
  M_{k} = mul(silu(matmul(N_{k}, Wg_{k})), matmul(N_{k}, Wu_{k}))
  {y} = add(H_{k}, matmul(M_{k}, Wd_{k}))
"""

INPUTS = """\
  Wq_{k} = input f16[1, 8, 512, 64]
  K_{k} = input f16[8, 8, 64, {kv}]
  V_{k} = input f16[8, 8, {kv}, 64]
  Wo_{k} = input f16[1, 8, 64, 512]
  Wg_{k} = input f16[1, 1, 512, {mlp}]
  Wu_{k} = input f16[1, 1, 512, {mlp}]
  Wd_{k} = input f16[1, 1, {mlp}, 512]
"""

KV = [1024, 512, 2048, 1536]
MLP = [1408, 1024, 1536, 2048]


def chain(n, distinct):
    flag = "--distinct " if distinct else ""
    out = [f"# {n} chained decoder layers (scripts/decoder_chain.py {flag}{n}).",
           f"graph decoder_{n} {{", "  X = input f16[8, 1, 1, 512]"]
    for k in range(1, n + 1):
        i = (k - 1) % len(KV) if distinct else 0
        out.append(INPUTS.format(k=k, kv=KV[i], mlp=MLP[i]).rstrip("\n"))
    for k in range(1, n + 1):
        x = "X" if k == 1 else f"Y_{k - 1}"
        y = "Y" if k == n else f"Y_{k}"
        out.append(LAYER.format(k=k, x=x, y=y).rstrip("\n"))
    out += ["  output Y", "}"]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    args = sys.argv[1:]
    distinct = "--distinct" in args
    args = [a for a in args if a != "--distinct"]
    if len(args) != 1 or not args[0].isdigit() or int(args[0]) < 1:
        sys.exit("usage: decoder_chain.py [--distinct] N > chain.mg  (N >= 1)")
    sys.stdout.write(chain(int(args[0]), distinct))
