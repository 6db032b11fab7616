// The overflow-guard analysis (search/guard.h): exps whose argument is
// provably never positive, and the look-alikes that are not.
#include <catch2/catch.hpp>

#include <sstream>

#include "mirage/parse/parser.h"
#include "mirage/search/guard.h"

using namespace mirage;

namespace {

ir::Graph parseText(const std::string& text) {
  std::ostringstream diag;  // unused inputs are warned about
  std::optional<ir::Graph> g = parse::parseString(text, "guard.mg", diag);
  INFO(diag.str());
  REQUIRE(g);
  return *g;
}

// The guard verdicts of every exp of a one-output program computing `expr`
// from X f16[4, 8] and Y f16[4, 8].
std::vector<bool> verdicts(const std::string& expr) {
  ir::Graph g = parseText("graph t { X = input f16[4, 8]\n Y = input f16[4, 8]\n O = " + expr + "\n output O }");
  std::vector<bool> out;
  for (const search::ExpGuard& e : search::analyzeExpGuards(g)) out.push_back(e.guarded);
  return out;
}

// The verdict of the outermost (last) exp.
bool guarded(const std::string& expr) {
  std::vector<bool> v = verdicts(expr);
  REQUIRE(!v.empty());
  return v.back();
}

}  // namespace

TEST_CASE("guard: a maximum that covers the exponent", "[guard]") {
  CHECK(guarded("exp(sub(X, reduce_max(X, dim=1)))"));
  CHECK(guarded("exp(sub(X, reduce_max(X, dim=0)))"));
  // A maximum of maxima covers too.
  CHECK(guarded("exp(sub(X, reduce_max(reduce_max(X, dim=1), dim=0)))"));
  // The maximum shifted up, the exponent shifted down, by a non-negative amount.
  CHECK(guarded("exp(sub(X, add(reduce_max(X, dim=1), square(Y))))"));
  CHECK(guarded("exp(sub(sub(X, exp(Y)), reduce_max(X, dim=1)))"));
  // Both sides scaled by one positive constant, or the difference scaled.
  CHECK(guarded("exp(sub(mul(X, 0.125), mul(reduce_max(X, dim=1), 0.125)))"));
  CHECK(guarded("exp(mul(sub(X, reduce_max(X, dim=1)), 0.125))"));
  CHECK(guarded("exp(div(sub(X, reduce_max(X, dim=1)), 8))"));
}

TEST_CASE("guard: signs alone", "[guard]") {
  CHECK(guarded("exp(mul(relu(X), -1))"));
  CHECK(guarded("exp(sub(mul(square(X), -0.5), sqrt(Y)))"));
  CHECK(guarded("exp(mul(mul(X, X), -1))") == false);  // mul(X, X) is not known to be square
  CHECK(guarded("exp(mul(square(X), -2))"));
  CHECK(guarded("exp(reduce_sum(mul(exp(X), -1), dim=1))"));
  CHECK(guarded("exp(sub(mul(relu(X), -1), 3))"));
  CHECK_FALSE(guarded("exp(add(mul(relu(X), -1), 3))"));
}

TEST_CASE("guard: look-alikes that are not guarded", "[guard]") {
  CHECK_FALSE(guarded("exp(X)"));
  CHECK_FALSE(guarded("exp(sub(X, reduce_max(Y, dim=1)))"));  // the max of something else
  CHECK_FALSE(guarded("exp(sub(reduce_max(X, dim=1), X))"));  // the wrong way round
  CHECK_FALSE(guarded("exp(add(X, reduce_max(X, dim=1)))"));
  CHECK_FALSE(guarded("exp(sub(X, sub(reduce_max(X, dim=1), square(Y))))"));  // the max shifted down
  CHECK_FALSE(guarded("exp(sub(add(X, square(Y)), reduce_max(X, dim=1)))"));  // the exponent shifted up
  CHECK_FALSE(guarded("exp(sub(mul(X, 0.5), mul(reduce_max(X, dim=1), 0.25)))"));
  CHECK_FALSE(guarded("exp(sub(mul(X, -1), mul(reduce_max(X, dim=1), -1)))"));  // -X <= -max X is false
  CHECK_FALSE(guarded("exp(mul(sub(X, reduce_max(X, dim=1)), -1))"));
  CHECK_FALSE(guarded("exp(div(sub(X, reduce_max(X, dim=1)), -2))"));
  // A divisor that may be 0 could make it NaN: only positive constants divide.
  CHECK_FALSE(guarded("exp(div(mul(relu(X), -1), relu(Y)))"));
  CHECK_FALSE(guarded("exp(silu(X))"));
  CHECK_FALSE(guarded("exp(mul(relu(X), relu(Y)))"));
}

TEST_CASE("guard: what the input asks for", "[guard]") {
  // softmax's expansion guards its exp; Mirage's benchmark form does not.
  ir::Graph attn = parseText(
      "graph a { Q = input f16[2, 8, 16]\n K = input f16[2, 16, 64]\n V = input f16[2, 64, 16]\n"
      " O = matmul(softmax(mul(matmul(Q, K), 0.25)), V)\n output O }");
  CHECK(search::asksForGuard(attn));
  CHECK(search::guardsAllExps(attn));
  ir::Graph bench = parseText(
      "graph b { Q = input f16[2, 8, 16]\n K = input f16[2, 16, 64]\n V = input f16[2, 64, 16]\n"
      " E = exp(matmul(Q, K))\n O = matmul(div(E, reduce_sum(E, dim=-1)), V)\n output O }");
  CHECK_FALSE(search::asksForGuard(bench));
  CHECK_FALSE(search::guardsAllExps(bench));
  // Without exp nothing is asked, and nothing is unguarded.
  ir::Graph none = parseText("graph n { X = input f16[4, 8]\n O = relu(X)\n output O }");
  CHECK_FALSE(search::asksForGuard(none));
  CHECK(search::guardsAllExps(none));
  // A mix of a guarded and an unguarded exp asks for nothing.
  CHECK(verdicts("add(exp(sub(X, reduce_max(X, dim=1))), exp(Y))") == std::vector<bool>{true, false});
}

TEST_CASE("guard: kernel bodies and results", "[guard]") {
  // The unguarded flash decoding of examples/gqa_flash.mg (kernel 1 takes
  // exp of the logits), and a body that subtracts its tile's row maximum.
  ir::Graph g = parseText(R"(graph k {
  Q = input f16[2, 256, 64]
  K = input f16[2, 64, 4096]
  V = input f16[2, 4096, 64]
  N, D = kernel(Q, K, V) grid=[2, 16, 16] forloop=4 {
    q = tile(Q, imap={x:0, y:1})
    k = tile(K, imap={x:0, z:2}, fmap=2)
    v = tile(V, imap={x:0, z:1}, fmap=1)
    s = mul(matmul(q, k), 0.125)
    e = exp(s)
    g = exp(sub(s, reduce_max(s, dim=2)))
    n = accum(matmul(add(e, g), v))
    d = accum(reduce_sum(e, dim=2))
    save(n, N, omap={x:0, y:1, z:2})
    save(d, D, omap={x:0, y:1, z:2})
  }
  O = kernel(N, D) grid=[2, 16] {
    np = tile(N, imap={x:0, y:1})
    dp = tile(D, imap={x:0, y:1})
    num = accum(reduce_sum(np, dim=2, size=64))
    den = accum(reduce_sum(dp, dim=2))
    w = exp(mul(den, -1))
    save(div(mul(num, w), den), O, omap={x:0, y:1})
  }
  output O
})");
  std::vector<search::ExpGuard> e = search::analyzeExpGuards(g);
  REQUIRE(e.size() == 3);
  CHECK(e[0].kernelOp >= 0);
  CHECK_FALSE(e[0].guarded);  // exp(s)
  CHECK(e[1].guarded);        // exp(s - rowmax(s))
  // D is a sum of exps, so exp(-D) in the second kernel is guarded: signs
  // cross the kernel boundary through the saved values.
  CHECK(e[2].kernelOp != e[0].kernelOp);
  CHECK(e[2].guarded);
  CHECK_FALSE(search::guardsAllExps(g));
  CHECK_FALSE(search::asksForGuard(g));
}

TEST_CASE("guard: online softmax, running maxima and the combination of partials", "[guard]") {
  // The spec's one-kernel online softmax: exp against the running maximum.
  ir::Graph online = parseText(R"(graph o {
  Q = input f16[2, 256, 64]
  K = input f16[2, 64, 4096]
  V = input f16[2, 4096, 64]
  O = kernel(Q, K, V) grid=[2, 16] forloop=64 {
    q = tile(Q, imap={x:0, y:1})
    k = tile(K, imap={x:0}, fmap=2)
    v = tile(V, imap={x:0}, fmap=1)
    s = mul(matmul(q, k), 0.125)
    m = scan(reduce_max(s, dim=2), op=max)
    e = exp(sub(s, m))
    n = accum(matmul(e, v), rescale=m)
    l = accum(reduce_sum(e, dim=2), rescale=m)
    save(div(n, l), O, omap={x:0, y:1})
  }
  output O
})");
  CHECK(search::guardsAllExps(online));
  REQUIRE(search::analyzeExpGuards(online).size() == 1);

  // Flash decoding with per-split maxima: kernel 1 as above on a split of
  // the keys, kernel 2 walks the partials with a running maximum of the
  // m_j and weights each partial by exp(m_j - M).
  ir::Graph flash = parseText(R"(graph f {
  Q = input f16[2, 256, 64]
  K = input f16[2, 64, 4096]
  V = input f16[2, 4096, 64]
  N, L, M = kernel(Q, K, V) grid=[2, 16, 16] forloop=4 {
    q = tile(Q, imap={x:0, y:1})
    k = tile(K, imap={x:0, z:2}, fmap=2)
    v = tile(V, imap={x:0, z:1}, fmap=1)
    s = mul(matmul(q, k), 0.125)
    r = reduce_max(s, dim=2)
    m = scan(r, op=max)
    e = exp(sub(s, m))
    n = accum(matmul(e, v), rescale=m)
    l = accum(reduce_sum(e, dim=2), rescale=m)
    save(n, N, omap={x:0, y:1, z:2})
    save(l, L, omap={x:0, y:1, z:2})
    save(accum(r, op=max), M, omap={x:0, y:1, z:2}, dtype=f32)
  }
  O = kernel(N, L, M) grid=[2, 16] forloop=16 {
    np = tile(N, imap={x:0, y:1}, fmap=2)
    lp = tile(L, imap={x:0, y:1}, fmap=2)
    mp = tile(M, imap={x:0, y:1}, fmap=2)
    big = scan(mp, op=max)
    w = exp(sub(mp, big))
    num = accum(mul(np, w), rescale=big)
    den = accum(mul(lp, w), rescale=big)
    save(div(num, den), O, omap={x:0, y:1})
  }
  output O
})");
  std::vector<search::ExpGuard> fe = search::analyzeExpGuards(flash);
  REQUIRE(fe.size() == 2);
  CHECK(fe[0].guarded);
  CHECK(fe[1].guarded);
  CHECK(fe[0].kernelOp != fe[1].kernelOp);
}

TEST_CASE("guard: running maxima that do not cover the exponent", "[guard]") {
  auto body = [](const std::string& lines) {
    return parseText(R"(graph b {
  Q = input f16[2, 256, 64]
  K = input f16[2, 64, 4096]
  V = input f16[2, 4096, 64]
  O = kernel(Q, K, V) grid=[2, 16] forloop=64 {
    q = tile(Q, imap={x:0, y:1})
    k = tile(K, imap={x:0}, fmap=2)
    v = tile(V, imap={x:0}, fmap=1)
    s = mul(matmul(q, k), 0.125)
)" + lines + R"(
    save(div(n, l), O, omap={x:0, y:1})
  }
  output O
})");
  };
  // The maximum of the unscaled logits does not cover the scaled ones in
  // general (it does for a positive scale only if the logits are >= 0).
  CHECK_FALSE(search::guardsAllExps(body(R"(
    m = scan(reduce_max(matmul(q, k), dim=2), op=max)
    e = exp(sub(s, m))
    n = accum(matmul(e, v), rescale=m)
    l = accum(reduce_sum(e, dim=2), rescale=m))")));
  // The wrong way round.
  CHECK_FALSE(search::guardsAllExps(body(R"(
    m = scan(reduce_max(s, dim=2), op=max)
    e = exp(sub(m, s))
    n = accum(matmul(e, v), rescale=m)
    l = accum(reduce_sum(e, dim=2), rescale=m))")));
  // A maximum after the loop covers maxima of what it covers in every
  // iteration (a maximum of maxima); the exponent of the tile's own max is
  // guarded too (the verifier, not this analysis, rejects it as wrong).
  CHECK(search::guardsAllExps(body(R"(
    r = reduce_max(s, dim=2)
    e = exp(sub(s, r))
    n = accum(matmul(e, v))
    big = accum(r, op=max)
    low = accum(sub(r, square(r)), op=max)
    l = mul(accum(reduce_sum(e, dim=2)), exp(sub(low, big))))")));
}
