// The numerics check (numerics.h, docs/numerics.md).
#include "mirage/driver/numerics.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <thread>

#include "mirage/interp/interpreter.h"
#include "mirage/interp/rounding.h"

namespace mirage::driver {
namespace {

using Clock = std::chrono::steady_clock;

// Every input s·u: from unit range up to where attention logits
// (Q·K/sqrt(d)) reach the sizes real models produce; docs/numerics.md
// gives the logits per level.
double uniformElement(double level, double u, size_t) { return level * u; }
// The first input level + u, the others u: a large common offset with unit
// noise, where a one-pass variance E[x²] − E[x]² cancels catastrophically
// while the two-pass (x − mean)² does not. Only the first input (the
// activations, by the examples' convention: X, Q, H) is offset, as a weight
// with the offset would make most results overflow the dtype.
double offsetElement(double level, double u, size_t input) { return input == 0 ? level + u : u; }

const InputFamily kUniform{"uniform", uniformElement};
const InputFamily kOffset{"offset", offsetElement, /*stress=*/true};

double largestFinite(ir::DType dtype) {
  switch (dtype) {
    case ir::DType::F16: return 65504.0;
    case ir::DType::BF16: return 0x1.fep127;
    case ir::DType::F32: return static_cast<double>(std::numeric_limits<float>::max());
  }
  return static_cast<double>(std::numeric_limits<float>::max());
}

bool allFinite(const interp::Tensor& t) {
  return std::all_of(t.data.begin(), t.data.end(), [](float x) { return std::isfinite(x); });
}

bool allFinite(const interp::Tensor64& t) {
  return std::all_of(t.data.begin(), t.data.end(), [](double x) { return std::isfinite(x); });
}

double maxAbs(const interp::Tensor64& t) {
  double m = 0;
  for (double x : t.data) m = std::max(m, std::fabs(x));
  return m;
}

// Runs f(i) for i in [0, n) on up to `threads` threads.
template <typename F>
void parallelFor(size_t n, int threads, F f) {
  size_t workers = std::min(n, static_cast<size_t>(std::max(1, threads)));
  if (workers <= 1) {
    for (size_t i = 0; i < n; ++i) f(i);
    return;
  }
  std::atomic<size_t> next{0};
  std::vector<std::thread> pool;
  for (size_t w = 0; w < workers; ++w)
    pool.emplace_back([&] {
      for (size_t i; (i = next++) < n;) f(i);
    });
  for (auto& t : pool) t.join();
}

constexpr int64_t kKeptInputElements = int64_t{4} << 20;  // 16 MB of f32 per magnitude

uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace

std::vector<Magnitude> magnitudeSchedule(ir::DType dtype) {
  // The largest uniform level first: it is the one that finds an exp
  // without its max. f16 stops at logits near 60 (level 6), bf16 and f32
  // go on to near 100 (level 8); see docs/numerics.md.
  double top = dtype == ir::DType::F16 ? 6 : 8;
  double mid = dtype == ir::DType::F16 ? 3 : 4;
  return {{&kUniform, top}, {&kOffset, 1000}, {&kUniform, 1}, {&kUniform, mid}};
}

std::vector<interp::Tensor> numericsInputs(const ir::Graph& program, const Magnitude& m, uint64_t seed) {
  // A seed per magnitude (the level's bits mixed in), so the magnitudes do
  // not all see the same noise pattern scaled.
  uint64_t familyHash = 0xcbf29ce484222325ull;  // FNV-1a: the same on every machine
  for (const char* c = m.family->name; *c; ++c)
    familyHash = (familyHash ^ static_cast<unsigned char>(*c)) * 0x100000001b3ull;
  uint64_t s = mix(seed ^ mix(familyHash) ^ mix(static_cast<uint64_t>(m.level * 4096)));
  std::vector<interp::Tensor> inputs;
  for (ir::ValueId in : program.inputs) {
    const ir::Value& v = program.value(in);
    interp::Tensor t = interp::randomTensor(v.shape, ir::DType::F32, s, v.name);
    size_t index = inputs.size();
    for (float& x : t.data) x = interp::roundToDType(m.family->element(m.level, x, index), program.dtype);
    inputs.push_back(std::move(t));
  }
  return inputs;
}

double dtypeEpsilon(ir::DType dtype) {
  switch (dtype) {
    case ir::DType::F16: return 0x1p-10;
    case ir::DType::BF16: return 0x1p-7;
    case ir::DType::F32: return 0x1p-23;
  }
  return 0x1p-23;
}

double relativeError(const interp::Tensor& x, const interp::Tensor64& ref) {
  if (x.data.size() != ref.data.size()) return std::numeric_limits<double>::infinity();
  double err = 0;
  for (size_t i = 0; i < x.data.size(); ++i) {
    if (!std::isfinite(x.data[i])) return std::numeric_limits<double>::infinity();
    err = std::max(err, std::fabs(static_cast<double>(x.data[i]) - ref.data[i]));
  }
  double scale = maxAbs(ref);
  return scale > 0 ? err / scale : err;
}

int unsafeInputMagnitude(const NumericsVerdict& v) {
  int worst = -1;
  double worstError = kUnsafeInputError;
  for (size_t m = 0; m < v.magnitudes.size(); ++m) {
    if (v.magnitudes[m].skipped || v.magnitudes[m].stress) continue;
    for (double e : v.magnitudes[m].inputError)
      if (e > worstError) worstError = e, worst = static_cast<int>(m);
  }
  return worst;
}

NumericsCheck::NumericsCheck(ir::Graph input, uint64_t seed, int threads)
    : input_(std::move(input)), seed_(seed), threads_(threads), schedule_(magnitudeSchedule(input_.dtype)),
      baseline_(schedule_.size()) {}

void NumericsCheck::computeBaseline(size_t m, const std::vector<interp::Tensor>& inputs) {
  Baseline& b = baseline_[m];
  b.computed = true;
  // Small inputs are kept for the next candidate; large ones (a weight of
  // 4096 x 6144 is 100 MB in f32) are made again, which costs less than
  // holding them for every magnitude.
  int64_t elements = 0;
  for (const auto& t : inputs) elements += t.size();
  if (elements <= kKeptInputElements) b.inputs = inputs;
  std::vector<interp::Tensor> atDType = interp::evaluate(input_, inputs);
  for (const auto& t : atDType)
    if (!allFinite(t)) {
      b.skipReason = "the input program gives inf or NaN";
      return;
    }
  b.reference = interp::evaluate64(input_, inputs);
  const double largest = largestFinite(input_.dtype);
  for (size_t o = 0; o < b.reference.size(); ++o) {
    if (!allFinite(b.reference[o])) {
      b.skipReason = "the float64 reference is not finite";
      return;
    }
    // The exact result does not fit the dtype: no program can store it, and
    // what the input gives instead (a 0 from x / inf, say) is no baseline.
    if (maxAbs(b.reference[o]) > largest) {
      b.skipReason = "the exact result overflows the dtype";
      return;
    }
    b.inputError.push_back(relativeError(atDType[o], b.reference[o]));
    b.maxAbsReference = std::max(b.maxAbsReference, maxAbs(b.reference[o]));
  }
}

NumericsVerdict NumericsCheck::check(const ir::Graph& candidate, Clock::time_point deadline) {
  auto start = Clock::now();
  NumericsVerdict v;
  v.magnitudes.resize(schedule_.size());
  std::vector<std::string> failure(schedule_.size());
  for (size_t m = 0; m < schedule_.size(); ++m) {
    v.magnitudes[m].family = schedule_[m].family->name;
    v.magnitudes[m].level = schedule_[m].level;
    v.magnitudes[m].stress = schedule_[m].family->stress;
  }
  auto runMagnitude = [&](size_t m) {
    MagnitudeOutcome& out = v.magnitudes[m];
    Baseline& b = baseline_[m];
    std::vector<interp::Tensor> made;
    if (b.inputs.empty()) made = numericsInputs(input_, schedule_[m], seed_);
    const std::vector<interp::Tensor>& inputs = b.inputs.empty() ? made : b.inputs;
    try {
      if (!b.computed) computeBaseline(m, inputs);
    } catch (const std::exception& e) {
      b.skipReason = fmt::format("the input program cannot be evaluated: {}", e.what());
    }
    if (!b.skipReason.empty()) {
      out.skipped = true;
      out.skipReason = b.skipReason;
      return;
    }
    out.inputError = b.inputError;
    out.maxAbsReference = b.maxAbsReference;
    std::vector<interp::Tensor> got;
    try {
      got = interp::evaluate(candidate, inputs);
    } catch (const std::exception& e) {
      failure[m] = fmt::format("the interpreter cannot run it: {}", e.what());
      return;
    }
    double floor = kErrorFloorUlps * dtypeEpsilon(input_.dtype);
    for (size_t o = 0; o < b.reference.size() && o < got.size(); ++o) {
      double err = relativeError(got[o], b.reference[o]);
      out.candidateError.push_back(err);
      if (!failure[m].empty()) continue;
      const std::string& name = input_.value(input_.outputs[o]).name;
      if (!std::isfinite(err))
        failure[m] = fmt::format("it gives inf or NaN in output '{}' on {} inputs at {:g}, where the input gives none",
                                 name, out.family, out.level);
      else if (err > kErrorFactor * b.inputError[o] + floor)
        failure[m] = fmt::format("its error in output '{}' on {} inputs at {:g} is {:.3g}, against the input's {:.3g}",
                                 name, out.family, out.level, err, b.inputError[o]);
    }
  };
  if (deadline == Clock::time_point::max()) {
    parallelFor(schedule_.size(), threads_, runMagnitude);
  } else {
    // Against a deadline: the first (most revealing) magnitude always runs,
    // alone, and times what one costs; the others follow in batches of
    // `threads_` while one more batch is expected to end by the deadline.
    // A magnitude the input skips costs about a third of a compared one.
    auto secondsSince = [](Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); };
    auto t0 = Clock::now();
    runMagnitude(0);
    double estimate = secondsSince(t0) * (v.magnitudes[0].skipped ? 3 : 1);
    for (size_t next = 1; next < schedule_.size();) {
      if (Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(estimate)) >
          deadline) {
        for (; next < schedule_.size(); ++next) {
          v.magnitudes[next].skipped = true;
          v.magnitudes[next].skipReason = "time limit";
          v.cutByTime = true;
        }
        break;
      }
      size_t batch = std::min(schedule_.size() - next, static_cast<size_t>(std::max(1, threads_)));
      auto tb = Clock::now();
      parallelFor(batch, threads_, [&](size_t k) { runMagnitude(next + k); });
      estimate = std::max(estimate, secondsSince(tb));
      next += batch;
    }
  }
  for (size_t m = 0; m < schedule_.size(); ++m) {
    const MagnitudeOutcome& out = v.magnitudes[m];
    if (!failure[m].empty() && v.passed) {
      v.passed = false;
      v.reason = failure[m];
    }
    if (out.skipped) continue;
    v.checked = true;
    for (double e : out.candidateError) v.largestError = std::max(v.largestError, e);
    for (double e : out.inputError) v.inputLargestError = std::max(v.inputLargestError, e);
  }
  if (!v.checked && v.passed) {
    if (v.cutByTime) {
      // Nothing compared, and the time limit cut what might have been: the
      // candidate is not judged, so it may not be chosen (the input, which
      // needs no check, always can).
      v.passed = false;
      v.reason = "no magnitude could be compared before the time limit";
    } else {
      v.reason = "no magnitude could be compared (the input gives inf or NaN at each)";
    }
  }
  v.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return v;
}

}  // namespace mirage::driver
