// What the cost model charges for the online-softmax constructs and for f32
// kernel results: a scan's running max, a rescaled accumulator's exp and
// multiply per iteration, and 4 bytes an element for a result saved with
// dtype=f32, written by its kernel and read by the next (docs/cost-model.md).
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <sstream>

#include "mirage/backend/cost_model.h"
#include "mirage/parse/parser.h"

using namespace mirage;
using namespace mirage::backend;

namespace {

ir::Graph parseText(const std::string& text) {
  parse::Diagnostics diags("<test>", text);
  auto g = parse::parseProgram(text, diags);
  std::ostringstream err;
  diags.print(err);
  INFO(err.str());
  REQUIRE(g);
  return *g;
}

ir::Graph example(const std::string& name) {
  std::ostringstream err;
  std::optional<ir::Graph> g = parse::parseFile(std::string(MIRAGE_EXAMPLES_DIR) + "/" + name, err);
  INFO(err.str());
  REQUIRE(g);
  return *g;
}

// One-kernel attention of gqa.mg (32 blocks, 64 iterations); `guarded`
// keeps the running max and rescales, as examples/gqa_online.mg does.
std::string attention(bool guarded) {
  std::string body = guarded ? R"(
    m = scan(reduce_max(s, dim=2), op=max)
    e = exp(sub(s, m))
    n = accum(matmul(e, v), rescale=m)
    l = accum(reduce_sum(e, dim=2), rescale=m))"
                             : R"(
    e = exp(s)
    n = accum(matmul(e, v))
    l = accum(reduce_sum(e, dim=2)))";
  return R"(graph a {
  Q = input f16[2, 256, 64]
  K = input f16[2, 64, 4096]
  V = input f16[2, 4096, 64]
  O = kernel(Q, K, V) grid=[2, 16] forloop=64 {
    q = tile(Q, imap={x:0, y:1})
    k = tile(K, imap={x:0}, fmap=2)
    v = tile(V, imap={x:0}, fmap=1)
    s = mul(matmul(q, k), 0.125))" +
         body + R"(
    save(div(n, l), O, omap={x:0, y:1})
  }
  output O
})";
}

std::string withoutF32(std::string text) {
  const std::string tag = ", dtype=f32";
  for (size_t at = text.find(tag); at != std::string::npos; at = text.find(tag)) text.erase(at, tag.size());
  return text;
}

}  // namespace

TEST_CASE("a scan and a rescaled accum cost their running max, exp and multiply per iteration") {
  CostEstimate plain = estimateCost(parseText(attention(false)), h100Spec());
  CostEstimate online = estimateCost(parseText(attention(true)), h100Spec());
  REQUIRE(plain.kernels.size() == 1);
  REQUIRE(online.kernels.size() == 1);
  // Per block and iteration, over s [1, 16, 64] and the row values [1, 16, 1]:
  //   reduce_max(s)  1024 compares          scan   16 compares
  //   sub(s, m)      1024                   n: +1024 multiplies, +16 (sub + exp: 5 each) = +1104
  //   l: +16 multiplies and +16·5 for its factor = +96
  const double perIteration = 1024 + 16 + 1024 + (1024 + 16 * 5) + (16 + 16 * 5);
  CHECK(online.kernels[0].cudaFlops - plain.kernels[0].cudaFlops == perIteration * 32 * 64);
  CHECK(online.kernels[0].tensorFlops == plain.kernels[0].tensorFlops);
  CHECK(online.kernels[0].dramBytes == plain.kernels[0].dramBytes);
  // The running max (and the previous one) are carried across iterations.
  CHECK(online.kernels[0].regsPerThread >= plain.kernels[0].regsPerThread);
  CHECK(online.totalUs >= plain.totalUs);
}

TEST_CASE("a kernel result saved with dtype=f32 costs 4 bytes an element where it is written and read") {
  std::ostringstream text;
  {
    std::ostringstream err;
    std::ifstream f(std::string(MIRAGE_EXAMPLES_DIR) + "/gqa_flash.mg");
    text << f.rdbuf();
  }
  REQUIRE(text.str().find("dtype=f32") != std::string::npos);
  CostEstimate f32 = estimateCost(parseText(text.str()), h100Spec());
  CostEstimate f16 = estimateCost(parseText(withoutF32(text.str())), h100Spec());
  REQUIRE(f32.kernels.size() == 2);
  REQUIRE(f16.kernels.size() == 2);
  // M is [2, 256, 16]: 8192 elements, 2 bytes more each in f32.
  const double extra = 8192.0 * 2;
  CHECK(f32.kernels[0].dramBytes - f16.kernels[0].dramBytes == extra);  // written once
  CHECK(f32.kernels[0].loadBytes - f16.kernels[0].loadBytes == extra);
  CHECK(f32.kernels[1].dramBytes - f16.kernels[1].dramBytes == extra);  // read once (fits L2)
  CHECK(f32.kernels[1].loadBytes - f16.kernels[1].loadBytes == extra);  // 16 tiles of [1, 16, 1] per block
  CHECK(f32.totalUs >= f16.totalUs);
}

TEST_CASE("a pre-defined operator reads a kernel's f32 result at 4 bytes an element") {
  const std::string text = R"(graph p {
  X = input f16[64, 128]
  S = kernel(X) grid=[64] {
    x = tile(X, imap={x:0})
    save(accum(reduce_sum(x, dim=1)), S, omap={x:0}, dtype=f32)
  }
  O = mul(S, 2)
  output O
})";
  CostEstimate f32 = estimateCost(parseText(text), h100Spec());
  CostEstimate f16 = estimateCost(parseText(withoutF32(text)), h100Spec());
  REQUIRE(f32.kernels.size() == 2);
  CHECK(f32.kernels[0].dramBytes - f16.kernels[0].dramBytes == 64.0 * 2);
  CHECK(f32.kernels[1].dramBytes - f16.kernels[1].dramBytes == 64.0 * 2);  // the operand, not the f16 result
}

TEST_CASE("the guarded attention examples are costed, and still rank ahead of the unfused input") {
  for (const char* name : {"gqa_online.mg", "gqa_flash.mg", "gqa_flash_unguarded.mg"}) {
    INFO(name);
    for (const ArchSpec* arch : {&a100Spec(), &h100Spec(), &h200Spec()}) {
      CostEstimate e = estimateCost(example(name), *arch);
      CHECK(std::isfinite(e.totalUs));
      CHECK(e.totalUs < estimateCost(example("gqa.mg"), *arch).totalUs);
    }
  }
}
