// A kernel's tile matmuls copied from a program-level product already in the
// fingerprint cache (kernel_eval.h, FullProductLookup): the values must be
// exactly those of multiplying, slices are taken only where the tiles'
// batch chunks coincide, and verdicts do not change.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>

#include "mirage/parse/parser.h"
#include "mirage/verify/fingerprint.h"
#include "mirage/verify/thread_pool.h"
#include "mirage/verify/verifier.h"

using namespace mirage;
using namespace mirage::verify;

namespace {

ir::Graph parsed(const std::string& src) {
  std::ostringstream diags;
  auto g = parse::parseString(src, "t.mg", diags);
  INFO(src << diags.str());
  REQUIRE(g);
  return *g;
}

const char* kInputs =
    "  Q = input f16[2, 16, 8]\n  K = input f16[2, 8, 32]\n  V = input f16[2, 32, 8]\n";

// The reference: attention whose scores matmul(Q, K) are a program-level value.
std::string reference() {
  return std::string("graph attn {\n") + kInputs +
         "  S = mul(matmul(Q, K), 0.125)\n  O = matmul(softmax(S, dim=-1), V)\n  output O\n}\n";
}

// One kernel, online softmax over 4 steps of 8 keys: its score matmul takes
// the whole head dim, so each block's scores are a slice of matmul(Q, K).
std::string online(const char* kImap) {
  return std::string("graph cand {\n") + kInputs +
         "  O = kernel(Q, K, V) grid=[2, 2] forloop=4 {\n"
         "    q = tile(Q, imap={x:0, y:1})\n"
         "    k = tile(K, imap={" + kImap + "}, fmap=2)\n"
         "    v = tile(V, imap={x:0}, fmap=1)\n"
         "    s = mul(matmul(q, k), 0.125)\n"
         "    m = scan(reduce_max(s, dim=2), op=max)\n"
         "    e = exp(sub(s, m))\n"
         "    n = accum(matmul(e, v), rescale=m)\n"
         "    d = accum(reduce_sum(e, dim=2), rescale=m)\n"
         "    save(div(n, d), O, omap={x:0, y:1})\n"
         "  }\n  output O\n}\n";
}

// Blocks (x, y) multiply Q[x] by K[y]: a slice of matmul(Q, K) only when
// x = y, which the evaluator must see per block.
std::string crossed() {
  return std::string("graph crossed {\n") + kInputs +
         "  S = kernel(Q, K) grid=[2, 2] {\n"
         "    q = tile(Q, imap={x:0})\n"
         "    k = tile(K, imap={y:0})\n"
         "    a = accum(matmul(q, k))\n"
         "    save(a, S, omap={x:0, y:2})\n"
         "  }\n  output S\n}\n";
}

}  // namespace

TEST_CASE("tile matmuls copied from the reference's product equal multiplying, block by block", "[verifier]") {
  ir::Graph ref = parsed(reference());
  ThreadPool pool(2);
  for (const std::string& src : {online("x:0"), crossed()}) {
    ir::Graph cand = parsed(src);
    Trial t(5, 0, 0);
    FingerprintCache cache(size_t{1} << 26);
    REQUIRE(evaluateProgram(ref, t, &pool, &cache).status == EvalStatus::Ok);
    int64_t hitsBefore = cache.hits();
    EvalResult reused = evaluateProgram(cand, t, &pool, &cache);
    EvalResult plain = evaluateProgram(cand, t, &pool);
    REQUIRE(reused.status == EvalStatus::Ok);
    REQUIRE(plain.status == EvalStatus::Ok);
    CHECK(reused.outputs[0]->p == plain.outputs[0]->p);
    CHECK(reused.outputs[0]->q == plain.outputs[0]->q);
    // Q, K (and V) from the cache, and the product found for the kernel.
    CHECK(cache.hits() - hitsBefore >= static_cast<int64_t>(cand.inputs.size()) + 1);
  }
}

TEST_CASE("verdicts are the same with the reference's product reused", "[verifier]") {
  ir::Graph ref = parsed(reference());
  ir::Graph good = parsed(online("x:0"));
  ir::Graph wrongBatch = parsed(online("x:0").replace(online("x:0").find("imap={x:0}, fmap=2"), 18,
                                                      "imap={}, fmap=2"));
  for (size_t cacheBytes : {size_t{0}, size_t{1} << 26}) {
    Options o;
    o.threads = 2;
    o.cacheBytes = cacheBytes;
    Verifier v(ref, o);
    CHECK(v.check(ref).equivalent);
    CHECK(v.check(good).equivalent);
    // Every block reads K[0]: a different program, whatever is cached.
    CHECK(!v.check(wrongBatch).equivalent);
  }
}
