// The numerics check (mirage/driver/numerics.h): it rejects a candidate that
// overflows where the input does not (softmax attention without its max, as
// examples/gqa_flash_unguarded.mg computes it) and one whose error is far
// above the input's (a one-pass variance at a large offset), and accepts
// correct ones.
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "mirage/driver/numerics.h"
#include "mirage/interp/interpreter.h"
#include "mirage/interp/rounding.h"
#include "mirage/interp/reference64.h"
#include "mirage/parse/parser.h"

using namespace mirage;
using driver::NumericsCheck;
using driver::NumericsVerdict;

namespace {

ir::Graph load(const std::string& path) {
  std::ostringstream err;
  auto g = parse::parseFile(path, err);
  INFO(err.str());
  REQUIRE(g);
  return *g;
}

ir::Graph example(const std::string& name) { return load(std::string(MIRAGE_EXAMPLES_DIR) + "/" + name); }
ir::Graph file(const std::string& name) { return load(std::string(DRIVER_TEST_FILES) + "/" + name); }

ir::Graph parseText(const std::string& text) {
  parse::Diagnostics diags("<test>", text);
  auto g = parse::parseProgram(text, diags);
  REQUIRE(g);
  return *g;
}

void show(const char* what, const NumericsVerdict& v) {
  std::printf("%s: %s in %.2f s, error %.3g (input %.3g)%s%s\n", what, v.passed ? "accepted" : "rejected", v.seconds,
              v.largestError, v.inputLargestError, v.reason.empty() ? "" : ": ", v.reason.c_str());
  for (const auto& m : v.magnitudes)
    std::printf("  %s %g: %s", m.family.c_str(), m.level, m.skipped ? m.skipReason.c_str() : "");
  std::printf("\n");
  std::fflush(stdout);
}

}  // namespace

TEST_CASE("numerics: the unguarded flash decoding of gqa overflows f16 at large logits and is rejected",
          "[numerics]") {
  NumericsCheck check(example("gqa.mg"), 0, 2);
  NumericsVerdict v = check.check(example("gqa_flash_unguarded.mg"));
  show("gqa_flash", v);
  CHECK(v.checked);
  CHECK_FALSE(v.passed);
  CHECK(v.reason.find("inf or NaN") != std::string::npos);
  CHECK(std::isinf(v.largestError));
  // At unit range the same candidate is as good as the input: it is the
  // large magnitude that shows the missing guard.
  const driver::MagnitudeOutcome* unit = nullptr;
  for (const auto& m : v.magnitudes)
    if (m.family == "uniform" && m.level == 1) unit = &m;
  REQUIRE(unit);
  REQUIRE_FALSE(unit->skipped);
  REQUIRE(unit->candidateError.size() == 1);
  CHECK(unit->candidateError[0] <= driver::kErrorFactor * unit->inputError[0] + 4 * 0x1p-10);

  SECTION("the same μGraph with the row maximum subtracted is accepted") {
    NumericsVerdict g = check.check(file("gqa_guarded.mg"));
    show("gqa_guarded", g);
    CHECK(g.checked);
    CHECK(g.passed);
    CHECK(g.largestError < 2e-2);
    CHECK(g.inputLargestError < 2e-2);
  }
  SECTION("the input itself is accepted with its own error") {
    NumericsVerdict g = check.check(example("gqa.mg"));
    CHECK(g.passed);
    CHECK(g.largestError == g.inputLargestError);
  }
}

TEST_CASE("numerics: the hand-written guarded μGraphs of the examples are accepted", "[numerics]") {
  struct Pair {
    const char* input;
    const char* candidate;
  };
  for (Pair p : {Pair{"gqa.mg", "gqa_online.mg"}, Pair{"gqa.mg", "gqa_flash.mg"},
                 Pair{"rmsnorm_linear.mg", "rmsnorm_linear_fused.mg"}}) {
    INFO(p.candidate);
    NumericsCheck check(example(p.input), 0, 2);
    NumericsVerdict v = check.check(example(p.candidate));
    show(p.candidate, v);
    CHECK(v.checked);
    CHECK(v.passed);
  }
}

TEST_CASE("numerics: the guarded μGraphs are accepted in bf16 and f32 too", "[numerics]") {
  auto text = [](const std::string& name) {
    std::ifstream f(std::string(MIRAGE_EXAMPLES_DIR) + "/" + name);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
  };
  auto retyped = [](std::string t, const std::string& dtype) {
    for (size_t at = t.find("f16["); at != std::string::npos; at = t.find("f16[", at + dtype.size()))
      t.replace(at, 3, dtype);
    return t;
  };
  for (const char* dtype : {"bf16", "f32"}) {
    INFO(dtype);
    NumericsCheck check(parseText(retyped(text("gqa.mg"), dtype)), 0, 2);
    for (const char* name : {"gqa_online.mg", "gqa_flash.mg"}) {
      INFO(name);
      NumericsVerdict v = check.check(parseText(retyped(text(name), dtype)));
      show(name, v);
      CHECK(v.checked);
      CHECK(v.passed);
    }
    // In bf16 and f32 the unguarded form overflows only where f32 does
    // (logits past 88, the top level reaches 103).
    NumericsVerdict bad = check.check(parseText(retyped(text("gqa_flash_unguarded.mg"), dtype)));
    show("gqa_flash_unguarded.mg", bad);
    CHECK_FALSE(bad.passed);
  }
}

TEST_CASE("numerics: a one-pass variance is rejected at a large common offset, the two-pass one accepted",
          "[numerics]") {
  NumericsCheck check(file("ln.mg"), 0, 1);
  NumericsVerdict one = check.check(file("ln_one.mg"));
  show("ln_one", one);
  CHECK_FALSE(one.passed);
  CHECK(one.reason.find("offset inputs at 1000") != std::string::npos);
  NumericsVerdict two = check.check(file("ln_two.mg"));
  show("ln_two", two);
  CHECK(two.passed);
  for (const auto& m : two.magnitudes) CHECK_FALSE(m.skipped);
}

TEST_CASE("numerics: LayerNorm+Linear fused with a one-pass variance is rejected at offset 1000, two-pass accepted",
          "[numerics]") {
  // examples/layernorm_linear.mg: the one-kernel form that accumulates
  // sum(x) and sum(x²) beside the matmul (what the abstract expressions of
  // the search see as the same term) loses the variance to cancellation at
  // rows of 1000 + noise; the two-kernel form that centres first does not.
  NumericsCheck check(example("layernorm_linear.mg"), 0, 1);
  NumericsVerdict one = check.check(file("layernorm_linear_onepass.mg"));
  show("layernorm_linear_onepass", one);
  CHECK_FALSE(one.passed);
  CHECK(one.reason.find("offset inputs at 1000") != std::string::npos);
  NumericsVerdict two = check.check(file("layernorm_linear_twopass.mg"));
  show("layernorm_linear_twopass", two);
  CHECK(two.passed);
  for (const auto& m : two.magnitudes) CHECK_FALSE(m.skipped);
  // One kernel can be safe too: sums shifted by a mean of the block's chunk
  // of each row.
  NumericsVerdict shifted = check.check(file("layernorm_linear_shifted.mg"));
  show("layernorm_linear_shifted", shifted);
  CHECK(shifted.passed);
  for (const auto& m : shifted.magnitudes) CHECK_FALSE(m.skipped);
}

TEST_CASE("numerics: the schedule reaches attention logits near 60 in f16 and near 100 in bf16", "[numerics]") {
  for (ir::DType dt : {ir::DType::F16, ir::DType::BF16}) {
    ir::Graph g = parseText(fmt::format(R"(graph logits {{
      Q = input {0}[2, 256, 64]
      K = input {0}[2, 64, 4096]
      S = mul(matmul(Q, K), 0.125)
      output S
    }})",
                                        dt == ir::DType::F16 ? "f16" : "bf16"));
    std::vector<driver::Magnitude> schedule = driver::magnitudeSchedule(dt);
    REQUIRE(schedule.size() >= 3);
    double top = 0;
    for (const auto& m : schedule) {
      if (std::string(m.family->name) != "uniform") continue;
      auto s = interp::evaluate64(g, driver::numericsInputs(g, m, 0));
      double mx = 0;
      for (double x : s[0].data) mx = std::max(mx, x);
      std::printf("%s uniform %g: largest logit %.1f\n", ir::dtypeName(dt).data(), m.level, mx);
      top = std::max(top, mx);
    }
    if (dt == ir::DType::F16) {
      CHECK(top > 40);
      CHECK(top < 80);
    } else {
      CHECK(top > 90);
      CHECK(top < 140);
    }
  }
}

TEST_CASE("numerics: inputs are deterministic, rounded to the dtype, and the offset family offsets the first input",
          "[numerics]") {
  ir::Graph g = parseText("graph t {\n X = input f16[64, 64]\n W = input f16[64, 8]\n output X, W\n}");
  for (const auto& m : driver::magnitudeSchedule(ir::DType::F16)) {
    auto a = driver::numericsInputs(g, m, 5);
    auto b = driver::numericsInputs(g, m, 5);
    CHECK(a[0].data == b[0].data);
    CHECK(a[1].data == b[1].data);
    CHECK(a[0].data != driver::numericsInputs(g, m, 6)[0].data);
    for (const auto& t : a)
      for (float x : t.data) REQUIRE(interp::roundToDType(x, ir::DType::F16) == x);
    if (std::string(m.family->name) == "offset") {
      // The first input is offset, the others unit noise.
      for (float x : a[0].data) REQUIRE(std::fabs(x - m.level) <= 1.0f);
      for (float x : a[1].data) REQUIRE(std::fabs(x) <= 1.0f);
    } else {
      for (const auto& t : a)
        for (float x : t.data) REQUIRE(std::fabs(x) <= m.level);
    }
  }
}

TEST_CASE("numerics: a magnitude where the input overflows is skipped, and past the deadline only the first runs",
          "[numerics]") {
  // exp(2X) of the input overflows f16 once X passes 5.5: the largest
  // uniform level (6) is skipped for the input and for every candidate.
  ir::Graph g = parseText("graph t {\n X = input f16[4, 64]\n Y = exp(mul(X, 2))\n output Y\n}");
  NumericsCheck check(g, 0, 1);
  NumericsVerdict v = check.check(g);
  CHECK(v.passed);
  CHECK(v.checked);
  bool skippedTop = false;
  for (const auto& m : v.magnitudes)
    if (m.family == "uniform" && m.level == 6)
      skippedTop = m.skipped && m.skipReason.find("input") != std::string::npos;
  CHECK(skippedTop);
  NumericsVerdict late = check.check(g, std::chrono::steady_clock::now() - std::chrono::seconds(1));
  // The first magnitude is skipped by the input, the others by the deadline:
  // nothing was compared, so the candidate is not judged and not passed.
  CHECK_FALSE(late.checked);
  CHECK_FALSE(late.passed);
  CHECK(late.cutByTime);
  REQUIRE(late.magnitudes.size() >= 2);
  CHECK(late.magnitudes[0].skipReason != "time limit");  // the first always runs
  for (size_t m = 1; m < late.magnitudes.size(); ++m) CHECK(late.magnitudes[m].skipReason == "time limit");
  // With the first magnitude compared, a deadline in the past still judges.
  ir::Graph h = parseText("graph t {\n X = input f16[4, 64]\n Y = exp(mul(X, 0.5))\n output Y\n}");
  NumericsCheck check2(h, 0, 1);
  NumericsVerdict judged = check2.check(h, std::chrono::steady_clock::now() - std::chrono::seconds(1));
  CHECK(judged.checked);
  CHECK(judged.passed);
  CHECK(judged.cutByTime);
  CHECK_FALSE(judged.magnitudes[0].skipped);
}

TEST_CASE("numerics: an input program off by more than a quarter at an ordinary magnitude is found unsafe",
          "[numerics]") {
  // 300·X squared passes f16's 65504 once |X| > 0.85: the RMS is inf and
  // every output 0 (finite, but off by all of it) at uniform levels 1 to 6.
  ir::Graph unsafe = parseText("graph t {\n X = input f16[4, 512]\n Y = rms_norm(mul(X, 300))\n output Y\n}");
  NumericsCheck check(unsafe, 0, 1);
  NumericsVerdict v = check.check(unsafe);
  int m = driver::unsafeInputMagnitude(v);
  REQUIRE(m >= 0);
  const auto& worst = v.magnitudes[static_cast<size_t>(m)];
  CHECK(worst.family == "uniform");
  CHECK_FALSE(worst.stress);
  CHECK(worst.inputError[0] > driver::kUnsafeInputError);
  // An RMSNorm of X itself is exact enough at every ordinary magnitude; at
  // the offset family's values near 1000 its squares overflow too, but that
  // family is a stress test and does not count.
  ir::Graph plain = parseText("graph t {\n X = input f16[4, 512]\n Y = rms_norm(X)\n output Y\n}");
  NumericsCheck check2(plain, 0, 1);
  NumericsVerdict w = check2.check(plain);
  bool offsetOff = false;
  for (const auto& mo : w.magnitudes)
    if (mo.stress && !mo.skipped && !mo.inputError.empty()) offsetOff = mo.inputError[0] > driver::kUnsafeInputError;
  CHECK(offsetOff);
  CHECK(driver::unsafeInputMagnitude(w) == -1);
}

TEST_CASE("numerics: relative error against the largest magnitude, infinite for inf or NaN", "[numerics]") {
  interp::Tensor64 ref(ir::Shape{3});
  ref.data = {1.0, -4.0, 2.0};
  CHECK(driver::relativeError(interp::Tensor(ir::Shape{3}, std::vector<float>{1.5f, -4.0f, 2.0f}), ref) == 0.125);
  CHECK(std::isinf(driver::relativeError(interp::Tensor(ir::Shape{3}, std::vector<float>{1, NAN, 2}), ref)));
  CHECK(std::isinf(driver::relativeError(interp::Tensor(ir::Shape{3}, std::vector<float>{1, INFINITY, 2}), ref)));
  interp::Tensor64 zero(ir::Shape{2});
  CHECK(driver::relativeError(interp::Tensor(ir::Shape{2}, std::vector<float>{0, 0.5f}), zero) == 0.5);
}

// Hidden ([.figures]): the input's own error per magnitude for the attention
// programs of the guard tests, and what the check costs; the figures in
// docs/numerics.md.
TEST_CASE("numerics: figures for the attention inputs", "[.figures]") {
  for (const char* name :
       {"attention/gqa_bf16.mg", "attention/mha_decode_rank4.mg", "attention/prefill_transpose_k.mg"}) {
    ir::Graph g = load(std::string(DRIVER_TEST_FILES) + "/../" + name);
    NumericsCheck check(g, 0, 2);
    NumericsVerdict v = check.check(g);
    show(name, v);
    for (const auto& m : v.magnitudes)
      if (!m.skipped) std::printf("  %s %g: input error %.3g\n", m.family.c_str(), m.level, m.inputError[0]);
    NumericsVerdict again = check.check(g);
    std::printf("  again: %.2f s\n", again.seconds);
  }
}

TEST_CASE("numerics: where the time goes on rmsnorm_linear", "[.figures]") {
  using C = std::chrono::steady_clock;
  auto secs = [](C::time_point t) { return std::chrono::duration<double>(C::now() - t).count(); };
  ir::Graph in = example("rmsnorm_linear.mg");
  ir::Graph cand = example("rmsnorm_linear_fused.mg");
  auto m = driver::magnitudeSchedule(in.dtype)[2];
  auto t = C::now();
  auto inputs = driver::numericsInputs(in, m, 0);
  std::printf("inputs %.2f s\n", secs(t));
  t = C::now();
  auto a = interp::evaluate(in, inputs);
  std::printf("input f16 %.2f s\n", secs(t));
  t = C::now();
  auto r = interp::evaluate64(in, inputs);
  std::printf("input f64 %.2f s\n", secs(t));
  t = C::now();
  auto c = interp::evaluate(cand, inputs);
  std::printf("candidate %.2f s\n", secs(t));
}
