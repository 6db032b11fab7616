// The enumerator builds the guarded fused forms of softmax attention itself
// (docs/search.md, "The guard"): one-kernel online softmax (a running
// maximum, rescaled accumulators) and two-kernel flash decoding whose first
// kernel saves its per-split maxima in f32 and whose second combines the
// partials with exp(m_j - M) weights. Every body it emits guards its exps.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <set>

#include "mirage/ir/printer.h"
#include "mirage/parse/parser.h"
#include "mirage/search/guard.h"
#include "mirage/search/search.h"
#include "mirage/verify/verifier.h"
#include "space.h"

using namespace mirage;

namespace {

const char* kAttention =
    "graph a { Q = input f16[2, 8, 16]\n K = input f16[2, 16, 64]\n V = input f16[2, 64, 16]\n"
    " O = matmul(softmax(mul(matmul(Q, K), 0.25)), V)\n output O }";

struct Emitted {
  std::vector<std::string> texts;  // instantiated, printed
  int unguarded = 0;
  bool found = false;
  int64_t emitted = 0, withMax = 0;
};

// Instantiates (and prints) only the plans `want` selects, so that the test
// stays fast; counts the unguarded ones among those.
Emitted enumerate(const ir::Graph& g, int kernels, int discrepancies, int maxOps, bool allowUnguarded,
                  const std::function<bool(const search::Plan&)>& want,
                  const std::function<bool(const std::string&)>& done = {}) {
  search::ProgramLabels labels = search::analyzeLabels(g);
  search::Limits limits;
  limits.allowUnguardedExp = allowUnguarded;
  limits.maxBlockOps = maxOps;
  search::Context ctx;
  search::initContext(ctx, g, labels, limits);
  Emitted out;
  // Stops at the first body `want` selects that `done` accepts (passes of
  // growing discrepancy, as the search runs them).
  ctx.stopped = [&] { return out.found; };
  std::atomic<bool> stop{false};
  ctx.emit = [&](const search::Plan& p) {
    ++out.emitted;
    for (char f : p.kernels[0].savedF32) out.withMax += f;
    if (!want(p)) return;
    std::vector<search::ExtentChoice> ch = search::chooseExtents(
        g, labels, p, limits, [](const ir::Graph& x) { return search::estimateCostUs(x); }, stop);
    for (const search::ExtentChoice& c : ch) {
      out.texts.push_back(c.text);
      if (!search::guardsAllExps(c.graph)) ++out.unguarded;
      if (done && done(c.text)) out.found = true;
    }
  };
  int configs = search::countFirstConfigs(ctx, kernels);
  // The search's order: each block of six configurations one pass behind
  // the block before it.
  std::vector<std::pair<int, int>> items;
  for (int d = done ? 0 : discrepancies; d <= discrepancies; ++d)
    for (int c = 0; c < configs; ++c) items.push_back({d, c});
  std::stable_sort(items.begin(), items.end(), [](auto a, auto b) { return a.first + a.second / 6 < b.first + b.second / 6; });
  for (auto [d, c] : items) {
    if (out.found) break;
    if (getenv("GUARD_DEBUG")) std::cerr << "item d=" << d << " c=" << c << " emitted " << out.emitted << " f32 " << out.withMax << "\n";
    search::searchPlans(ctx, kernels, d, c);
  }
  return out;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

int count(const search::KernelTemplate& k, ir::OpKind kind) {
  int n = 0;
  for (const search::BodyOp& o : k.ops) n += o.kind == kind;
  return n;
}

// One kernel with a for-loop and a scan, or with an exp (to see unguarded ones).
bool oneKernelLoop(const search::Plan& p) {
  return p.kernels.size() == 1 && p.kernels[0].loop != search::kUnit && count(p.kernels[0], ir::OpKind::Exp) > 0;
}

// Kernel 1 splits a reduction, kernel 2 has a scan (the weights).
bool flashDecoding(const search::Plan& p) {
  return p.kernels.size() == 2 && count(p.kernels[1], ir::OpKind::Scan) > 0;
}

}  // namespace

TEST_CASE("guarded enumeration: one-kernel online softmax", "[guard][enum]") {
  std::optional<ir::Graph> g = parse::parseString(kAttention, "test.mg", std::cerr);
  REQUIRE(g);
  Emitted e = enumerate(*g, 1, 3, 12, false, oneKernelLoop);
  CHECK(e.unguarded == 0);
  int online = 0;
  for (const std::string& t : e.texts) {
    // A for-loop over the keys, a running maximum, both sums rescaled.
    if (has(t, "scan(") && has(t, "op=max") && has(t, "rescale=") && has(t, "forloop=") &&
        t.find("rescale=") != t.rfind("rescale="))
      ++online;
  }
  INFO(e.texts.size() << " bodies");
  CHECK(online > 0);
  // Without the rule the same enumeration builds exp(s) with no maximum.
  Emitted free = enumerate(*g, 1, 3, 12, true, oneKernelLoop);
  CHECK(free.unguarded > 0);
  for (const std::string& t : free.texts) CHECK_FALSE(has(t, "scan("));
}

TEST_CASE("guarded enumeration: two-kernel flash decoding with f32 partial maxima", "[guard][enum]") {
  std::optional<ir::Graph> g = parse::parseString(kAttention, "test.mg", std::cerr);
  REQUIRE(g);
  auto isFlash = [](const std::string& t) {
    // Kernel 1 saves its maxima in f32; kernel 2 weights the partials.
    return has(t, "dtype=f32") && has(t, "op=max)") && t.find("scan(") != t.rfind("scan(");
  };
  Emitted e = enumerate(*g, 2, 6, 12, false, flashDecoding, isFlash);
  CHECK(e.unguarded == 0);
  REQUIRE(e.found);
  INFO(e.texts.back());
}

// Not run by default: how long the enumerator (one thread, in the search's
// item order) takes to emit the first guarded fused template of the program
// in $GUARD_PROGRAM, with $GUARD_KERNELS kernels (docs/search.md figures).
TEST_CASE("guarded enumeration: time to the fused forms of a program", "[.][measure]") {
  const char* path = std::getenv("GUARD_PROGRAM");
  REQUIRE(path);
  int kernels = std::getenv("GUARD_KERNELS") ? std::atoi(std::getenv("GUARD_KERNELS")) : 1;
  std::optional<ir::Graph> g = parse::parseFile(path, std::cerr);
  REQUIRE(g);
  auto start = std::chrono::steady_clock::now();
  auto want = [&](const search::Plan& p) {
    if (p.kernels.size() != static_cast<size_t>(kernels) || count(p.kernels.back(), ir::OpKind::Scan) == 0) return false;
    // With $GUARD_SPLIT, only flash decoding: a first kernel that saves per-split maxima.
    return !std::getenv("GUARD_SPLIT") ||
           std::count(p.kernels[0].savedF32.begin(), p.kernels[0].savedF32.end(), 1) > 0;
  };
  auto done = [&](const std::string& t) {
    std::cerr << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() << " s:\n" << t << "\n";
    return true;
  };
  Emitted e = enumerate(*g, kernels, 8, 20, false, want, done);
  CHECK(e.found);
  CHECK(e.unguarded == 0);
}

TEST_CASE("guarded enumeration: prefill with transpose(K) fuses", "[guard][enum]") {
  std::optional<ir::Graph> g = parse::parseString(
      "graph p { Q = input f16[2, 32, 16]\n K = input f16[2, 64, 16]\n V = input f16[2, 64, 16]\n"
      " O = matmul(softmax(mul(matmul(Q, transpose(K, dim0=1, dim1=2)), 0.25)), V)\n output O }",
      "test.mg", std::cerr);
  REQUIRE(g);
  auto want = [](const search::Plan& p) {
    return p.kernels.size() == 1 && count(p.kernels[0], ir::OpKind::Transpose) == 1 &&
           count(p.kernels[0], ir::OpKind::Scan) == 1;
  };
  Emitted e = enumerate(*g, 1, 3, 14, false, want, [](const std::string& t) { return has(t, "rescale="); });
  REQUIRE(e.found);
  CHECK(e.unguarded == 0);
  INFO(e.texts.back());
  CHECK(has(e.texts.back(), "transpose("));
}

// Where the grid splits the keys and no running maximum is kept, a guarded
// exp would subtract the block's own maximum, a shift that changes from
// block to block and that nothing later undoes (the weights exp(m_j − M)
// need the maxima saved, as scan-rescaled sums alone are). Such bodies are
// equal to the program in the abstract expressions (the max-shift axiom
// drops every maximum): at four discrepancies GQA's search emitted 4,080
// templates with them and 326 without, and 820 of its 824 pre-checks
// refuted one. Here every two-kernel plan with a split kernel
// (two discrepancies) must pass a pre-check; without the rule in
// tryGuardedExp, 328 of 680 fail it.
TEST_CASE("guarded enumeration: no exp shifted by a block's own maximum", "[guard][enum]") {
  std::optional<ir::Graph> g = parse::parseString(kAttention, "test.mg", std::cerr);
  REQUIRE(g);
  search::ProgramLabels labels = search::analyzeLabels(*g);
  search::Limits limits;
  limits.maxBlockOps = 12;
  search::Context ctx;
  search::initContext(ctx, *g, labels, limits);
  verify::Verifier verifier(*g);
  std::atomic<bool> stop{false};
  int checked = 0, refuted = 0;
  std::string example;
  ctx.stopped = [] { return false; };
  ctx.emit = [&](const search::Plan& p) {
    std::vector<search::ExtentChoice> ch = search::chooseExtents(
        *g, labels, p, limits, [](const ir::Graph& x) { return search::estimateCostUs(x); }, stop);
    // Only plans with a kernel that splits the keys across blocks.
    bool split = false;
    for (const search::KernelTemplate& k : p.kernels)
      split = split || std::any_of(k.grid.begin(), k.grid.end(), [](const search::GridAxis& a) { return a.split; });
    if (!split || ch.empty()) return;
    ++checked;
    if (!verifier.precheck(ch.front().graph)) {
      ++refuted;
      if (example.empty()) example = ch.front().text;
    }
  };
  for (int c = 0; c < search::countFirstConfigs(ctx, 2); ++c) search::searchPlans(ctx, 2, 2, c);
  INFO(checked << " plans checked, the first refuted:\n" << example);
  CHECK(checked > 20);
  CHECK(refuted == 0);
}

// A body makes an exp only at a scale the program uses
// (Context::expAtProgramScale): softcap attention's probabilities are
// exp(30·tanh(s/30)), which the normal form writes exp(tanh(·))^30, and
// exp(tanh(·)) alone, a power the subexpression test lets through, led to
// its square, cube, inverse square and so on (60 % of a default run's
// states). The fused forms must still come out.
TEST_CASE("guarded enumeration: exps at the program's scale", "[guard][enum]") {
  const char* softcap =
      "graph s { Q = input f16[2, 8, 16]\n K = input f16[2, 16, 64]\n V = input f16[2, 64, 16]\n"
      " S = mul(matmul(Q, K), 0.25)\n C = mul(tanh(div(S, 30)), 30)\n"
      " O = matmul(softmax(C, dim=-1), V)\n output O }";
  std::optional<ir::Graph> g = parse::parseString(softcap, "test.mg", std::cerr);
  REQUIRE(g);
  search::ProgramLabels labels = search::analyzeLabels(*g);
  search::Limits limits;
  search::Context ctx;
  search::initContext(ctx, *g, labels, limits);
  std::vector<search::ExprId> e = search::programExprs(ctx.exprs, *g);
  const search::ExprId c = e[static_cast<size_t>(g->findValue("C"))];
  search::ExprTable& x = ctx.exprs;
  CHECK(ctx.expAtProgramScale(x.exp(c)));
  CHECK(ctx.expAtProgramScale(x.exp(x.scale(c, search::Rational(-1)))));  // its inverse
  CHECK(ctx.expAtProgramScale(x.exp(x.add(c, x.constant(search::Rational(3))))));  // a constant factor
  CHECK_FALSE(ctx.expAtProgramScale(x.exp(x.scale(c, search::Rational(1, 30)))));
  CHECK_FALSE(ctx.expAtProgramScale(x.exp(x.scale(c, search::Rational(2)))));
  CHECK(ctx.expAtProgramScale(c));  // no exp at all
  // A program without exp asks nothing.
  std::optional<ir::Graph> mlp = parse::parseString(
      "graph m { X = input f16[4, 8]\n W = input f16[8, 8]\n O = matmul(X, W)\n output O }", "test.mg", std::cerr);
  REQUIRE(mlp);
  search::ProgramLabels mlpLabels = search::analyzeLabels(*mlp);
  search::Context mlpCtx;
  search::initContext(mlpCtx, *mlp, mlpLabels, limits);
  CHECK(mlpCtx.expAtProgramScale(mlpCtx.exprs.exp(mlpCtx.exprs.input(0))));

  // The one-kernel online softmax of the capped logits is still built.
  Emitted fused = enumerate(*g, 1, 3, 14, false, oneKernelLoop,
                            [](const std::string& t) { return has(t, "rescale=") && has(t, "tanh("); });
  REQUIRE(fused.found);
  CHECK(fused.unguarded == 0);
}
