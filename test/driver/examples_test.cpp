// Every bundled example reaches its kernel-count target (issue 4) with the
// search alone, within the per-example budget, also at other batch sizes.
#include <catch2/catch.hpp>

#include <iostream>
#include <regex>

#include "test_util.h"

using mirage::driver::Options;

namespace {

// The fewest launches of any verified candidate, or (`chosen`) of the one
// mirage-opt writes, which has passed the numerics check too.
int kernelsFound(const std::string& program, const std::string& tag, double seconds, bool chosen = false) {
  auto dir = test::tempDir(tag);
  test::writeFile(dir / "p.mg", program);
  Options o;
  o.input = (dir / "p.mg").string();
  o.device = "none";
  o.verbosity = -1;
  o.noCache = true;
  o.timeLimitSeconds = seconds;
  o.report = (dir / "r.json").string();
  if (mirage::driver::runMirageOpt(o, std::cout, std::cerr) != 0) return -1;
  auto j = nlohmann::json::parse(test::readFile(dir / "r.json"));
  if (chosen) return j["best"]["kernels"].get<int>();
  int fewest = 1 << 30;
  for (const auto& c : j["candidates"]) fewest = std::min(fewest, c["kernels"].get<int>());
  return fewest;
}

std::string example(const std::string& name) {
  return test::readFile(std::string(MIRAGE_EXAMPLES_DIR) + "/" + name + ".mg");
}

}  // namespace

// The limits below are what the programs that do not end by themselves run
// for (the others end within a few seconds): about four times the time to
// their target on an idle two-core machine, for CI's load beside other tests.
TEST_CASE("examples reach their kernel-count targets", "[slow]") {
  CHECK(kernelsFound(example("rmsnorm_linear"), "rms", 60) <= 1);
  CHECK(kernelsFound(example("lora"), "lora", 60) <= 1);
  CHECK(kernelsFound(example("gated_mlp"), "mlp", 60) <= 2);
  // Its one-kernel best comes from pass 0, at 0.01 s.
  CHECK(kernelsFound(example("ntrans"), "ntrans", 15) <= 2);
  // The flash-decoding pair at 3 to 4 s, a first two-kernel plan at 1.5 s.
  CHECK(kernelsFound(example("gqa"), "gqa", 30) <= 2);
  // QKNorm+GQA's first verified candidate (three launches) comes at 3.5 to
  // 5 s on two cores; its one-kernel best after 40 to 50 s, which the
  // attention test (CMakeLists.txt) waits for.
  CHECK(kernelsFound(example("qknorm_gqa"), "qknorm", 60) <= 3);
  // Soft-capped attention fuses into one online-softmax kernel (found after
  // about 8 s on two cores).
  CHECK(kernelsFound(example("softcap_attention"), "softcap", 60) <= 1);
  // Layout operators (issue 11): split-head attention's reshapes are views
  // (6 launches); RoPE's concats are folded away by the layout
  // simplification and both rotations fused into the scores kernel, with
  // softmax and P·V in a second (2 launches).
  CHECK(kernelsFound(example("mha_split_heads"), "mha", 30) <= 6);
  // LayerNorm+Linear: the two-pass form in two kernels (the rows
  // normalized, then the matmul); the one-kernel one-pass variance is
  // rejected by the numerics check at offset inputs. The tanh-GELU MLP in
  // two (the search's schedule of work items, docs/search.md).
  CHECK(kernelsFound(example("layernorm_linear"), "ln", 60, /*chosen=*/true) <= 2);
  // Its two-kernel best at 4 to 8 s.
  CHECK(kernelsFound(example("gelu_mlp"), "gelu", 30, /*chosen=*/true) <= 2);
  CHECK(kernelsFound(example("rope_attention"), "rope", 30) <= 2);
}

TEST_CASE("other batch sizes", "[slow]") {
  std::string rms = std::regex_replace(example("rmsnorm_linear"), std::regex("X = input f16\\[16,"), "X = input f16[64,");
  CHECK(kernelsFound(rms, "rms64", 60) <= 1);
  std::string gqa = std::regex_replace(example("gqa"), std::regex("Q = input f16\\[2, 256,"), "Q = input f16[2, 1024,");
  CHECK(kernelsFound(gqa, "gqa8", 60) <= 2);
}
