#!/usr/bin/env python3
"""Writes N chained copies of examples/decoder_layer.mg as one program.

Usage: decoder_chain.py N > chain.mg

Layer k (1-based) has its own weights and KV cache (names suffixed _k) and
reads the previous layer's output; the program's input is X and its output Y,
as in the one-layer example. The shapes are the example's. Used for the
regions measurements in docs/search.md (test/search/regions/ holds N = 2, 4).
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
  K_{k} = input f16[8, 8, 64, 1024]
  V_{k} = input f16[8, 8, 1024, 64]
  Wo_{k} = input f16[1, 8, 64, 512]
  Wg_{k} = input f16[1, 1, 512, 1408]
  Wu_{k} = input f16[1, 1, 512, 1408]
  Wd_{k} = input f16[1, 1, 1408, 512]
"""


def chain(n):
    out = [f"# {n} chained decoder layers (scripts/decoder_chain.py {n}).",
           f"graph decoder_{n} {{", "  X = input f16[8, 1, 1, 512]"]
    for k in range(1, n + 1):
        out.append(INPUTS.format(k=k).rstrip("\n"))
    for k in range(1, n + 1):
        x = "X" if k == 1 else f"Y_{k - 1}"
        y = "Y" if k == n else f"Y_{k}"
        out.append(LAYER.format(k=k, x=x, y=y).rstrip("\n"))
    out += ["  output Y", "}"]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    if len(sys.argv) != 2 or not sys.argv[1].isdigit() or int(sys.argv[1]) < 1:
        sys.exit("usage: decoder_chain.py N > chain.mg  (N >= 1)")
    sys.stdout.write(chain(int(sys.argv[1])))
