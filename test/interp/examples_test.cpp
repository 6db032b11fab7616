// The hand-written μGraphs of examples/ compute what their source programs
// compute: the interpreter runs both at full size on the same random inputs
// and the outputs agree within f16 tolerance.
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <sstream>

#include "mirage/interp/interpreter.h"
#include "mirage/interp/rounding.h"
#include "mirage/interp/tensor.h"
#include "mirage/parse/parser.h"

using namespace mirage;
using interp::Tensor;

namespace {

ir::Graph load(const std::string& name) {
  std::ostringstream err;
  auto g = parse::parseFile(std::string(MIRAGE_EXAMPLES_DIR) + "/" + name, err);
  INFO(err.str());
  REQUIRE(g);
  return *g;
}

std::vector<Tensor> randomInputs(const ir::Graph& g, uint64_t seed) {
  std::vector<Tensor> in;
  for (ir::ValueId v : g.inputs)
    in.push_back(interp::randomTensor(g.value(v).shape, g.dtype, seed, g.value(v).name));
  return in;
}

Tensor timedRun(const ir::Graph& g, const std::vector<Tensor>& in) {
  auto start = std::chrono::steady_clock::now();
  std::vector<Tensor> out = interp::evaluate(g, in);
  std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  WARN(g.name << " evaluated in " << took.count() << " s");
  REQUIRE(out.size() == 1);
  return out[0];
}

// Every element within atol + rtol·|want|; reports the largest difference.
void requireClose(const Tensor& got, const Tensor& want, double atol, double rtol) {
  REQUIRE(got.shape == want.shape);
  double worst = 0;
  size_t bad = 0;
  for (size_t i = 0; i < want.data.size(); ++i) {
    double d = std::fabs(static_cast<double>(got.data[i]) - want.data[i]);
    if (!(d <= atol + rtol * std::fabs(want.data[i]))) ++bad;
    if (!(d <= worst)) worst = d;
  }
  WARN("largest difference " << worst);
  CHECK(bad == 0);
}

}  // namespace

TEST_CASE("examples/gqa_flash_unguarded.mg equals examples/gqa.mg on unit-range logits", "[interp][examples]") {
  ir::Graph ref = load("gqa.mg"), flash = load("gqa_flash_unguarded.mg");
  std::vector<Tensor> in = randomInputs(ref, 1);
  // Scale Q by 1/8 (= 1/sqrt(head dim), as attention does): with entries of
  // Q and K uniform in [-1, 1], Q·K reaches ~13 and the un-normalized
  // numerator exp(S)·V of the unguarded version overflows f16 (its max is 65504).
  for (float& x : in[0].data) x *= 0.125f;
  requireClose(timedRun(flash, in), timedRun(ref, in), 2e-3, 1e-2);
}

namespace {

// softmax(Q·K / 8)·V in float64, from the f16 inputs as given: the reference
// the attention examples are held to at every logit scale.
std::vector<double> attentionFloat64(const std::vector<Tensor>& in) {
  const Tensor &q = in[0], &k = in[1], &v = in[2];
  int64_t heads = q.shape[0], rows = q.shape[1], d = q.shape[2], keys = k.shape[2];
  std::vector<double> out(static_cast<size_t>(heads * rows * d), 0.0), s(static_cast<size_t>(keys));
  for (int64_t h = 0; h < heads; ++h)
    for (int64_t r = 0; r < rows; ++r) {
      double m = -INFINITY;
      for (int64_t j = 0; j < keys; ++j) {
        double acc = 0;
        for (int64_t c = 0; c < d; ++c)
          acc += double(q.data[size_t((h * rows + r) * d + c)]) * k.data[size_t((h * d + c) * keys + j)];
        s[size_t(j)] = acc * 0.125;
        m = std::max(m, s[size_t(j)]);
      }
      double sum = 0;
      for (int64_t j = 0; j < keys; ++j) sum += (s[size_t(j)] = std::exp(s[size_t(j)] - m));
      for (int64_t j = 0; j < keys; ++j)
        for (int64_t c = 0; c < d; ++c)
          out[size_t((h * rows + r) * d + c)] += s[size_t(j)] / sum * v.data[size_t((h * keys + j) * d + c)];
    }
  return out;
}

// Scales Q (in place, staying in f16) so that the largest logit |Q·K|/8 is
// about `logit`.
void scaleLogits(std::vector<Tensor>& in, double logit) {
  const Tensor &q = in[0], &k = in[1];
  int64_t heads = q.shape[0], rows = q.shape[1], d = q.shape[2], keys = k.shape[2];
  double largest = 0;
  for (int64_t h = 0; h < heads; ++h)
    for (int64_t r = 0; r < rows; r += 7)
      for (int64_t j = 0; j < keys; ++j) {
        double acc = 0;
        for (int64_t c = 0; c < d; ++c)
          acc += double(q.data[size_t((h * rows + r) * d + c)]) * k.data[size_t((h * d + c) * keys + j)];
        largest = std::max(largest, std::fabs(acc) * 0.125);
      }
  for (float& x : in[0].data) x = interp::roundToDType(float(x * logit / largest), ir::DType::F16);
}

// Largest |got - want| relative to the largest |want|; infinity when any
// output is not finite.
double relativeError(const Tensor& got, const std::vector<double>& want) {
  double worst = 0, scale = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    if (!std::isfinite(got.data[i])) return INFINITY;
    worst = std::max(worst, std::fabs(got.data[i] - want[i]));
    scale = std::max(scale, std::fabs(want[i]));
  }
  return worst / scale;
}

}  // namespace

// The guarded attention examples stay within f16 tolerance of float64 at the
// logits real models produce; the unguarded flash form does not.
TEST_CASE("attention examples at large logits against float64", "[interp][examples][numerics]") {
  ir::Graph ref = load("gqa.mg");
  ir::Graph online = load("gqa_online.mg"), flash = load("gqa_flash.mg"), unguarded = load("gqa_flash_unguarded.mg");
  for (double logit : {1.0, 20.0, 60.0}) {
    std::vector<Tensor> in = randomInputs(ref, 3);
    scaleLogits(in, logit);
    std::vector<double> want = attentionFloat64(in);
    double eRef = relativeError(timedRun(ref, in), want);
    double eOnline = relativeError(timedRun(online, in), want);
    double eFlash = relativeError(timedRun(flash, in), want);
    double eUnguarded = relativeError(timedRun(unguarded, in), want);
    WARN("logit " << logit << ": gqa " << eRef << ", gqa_online " << eOnline << ", gqa_flash " << eFlash
                  << ", gqa_flash_unguarded " << eUnguarded);
    CHECK(eRef < 2e-2);
    CHECK(eOnline < 2e-2);
    CHECK(eFlash < 2e-2);
    if (logit >= 20) CHECK(!(eUnguarded < 2e-2));  // exp(S) overflows f16 in the stored partials
  }
}

TEST_CASE("examples/rmsnorm_linear_fused.mg equals examples/rmsnorm_linear.mg", "[interp][examples]") {
  ir::Graph ref = load("rmsnorm_linear.mg"), fused = load("rmsnorm_linear_fused.mg");
  std::vector<Tensor> in = randomInputs(ref, 2);
  // Outputs reach ~±170 (f16 ulp 0.125 there); each is a 4096-term sum of
  // f16-rounded products, so allow a few ulps of the largest magnitudes.
  requireClose(timedRun(fused, in), timedRun(ref, in), 0.25, 1e-2);
}
