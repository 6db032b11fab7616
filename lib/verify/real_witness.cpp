// Real-input witnesses (real_witness.h).
#include "real_witness.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "mirage/interp/interpreter.h"
#include "mirage/interp/tensor.h"

namespace mirage::verify {
namespace {

constexpr double kMaxWork = 2147483648.0;  // multiply-adds: a few seconds of the interpreter
constexpr double kTolerance = 1e-3;         // f32 rounding of equal programs stays far below
constexpr int kDraws = 2;

// Rough work of evaluating g: elements computed, times the contraction
// length of matmuls, times blocks and iterations inside kernels.
double work(const ir::Graph& g) {
  double w = 0;
  for (const ir::Op& op : g.ops) {
    // A body's inputs are the whole kernel arguments, not per-block work.
    if (op.kind == ir::OpKind::Input || op.kind == ir::OpKind::Const) continue;
    double n = 0;
    for (ir::ValueId r : op.results) n += static_cast<double>(ir::numElements(g.value(r).shape));
    if (op.kind == ir::OpKind::Matmul) {
      const ir::Shape& a = g.value(op.inputs[0]).shape;
      n *= static_cast<double>(a.empty() ? 1 : a.back());
    }
    if (op.kind == ir::OpKind::Kernel) {
      double blocks = static_cast<double>(op.config.grid[0] * op.config.grid[1] * op.config.grid[2]);
      n += blocks * static_cast<double>(op.config.forloop) * work(*op.body);
    }
    w += n;
  }
  return w;
}

}  // namespace

bool differsOverReals(const ir::Graph& a, const ir::Graph& b, size_t o, std::string* why) {
  if (work(a) + work(b) > kMaxWork) {
    *why = "the programs are too large to evaluate on real inputs";
    return false;
  }
  // f32 throughout: the programs' own dtype would add its rounding.
  ir::Graph ra = a, rb = b;
  ra.dtype = rb.dtype = ir::DType::F32;
  std::string witness;
  for (int d = 0; d < kDraws; ++d) {
    std::map<std::string, interp::Tensor> inputs;
    for (ir::ValueId in : a.inputs) {
      const ir::Value& v = a.value(in);
      inputs[v.name] = interp::randomTensor(v.shape, ir::DType::F32, 0x6e65737465787000ull + static_cast<uint64_t>(d),
                                            v.name);
    }
    std::vector<interp::Tensor> x, y;
    try {
      x = interp::evaluateByName(ra, inputs);
      y = interp::evaluateByName(rb, inputs);
    } catch (const std::exception& e) {
      *why = fmt::format("evaluating on real inputs failed: {}", e.what());
      return false;
    }
    if (o >= x.size() || o >= y.size() || x[o].size() != y[o].size()) {
      *why = "the outputs do not match in shape";
      return false;
    }
    double scale = 0, worst = 0;
    int64_t at = 0;
    for (int64_t i = 0; i < x[o].size(); ++i) {
      double p = x[o].data[static_cast<size_t>(i)], q = y[o].data[static_cast<size_t>(i)];
      if (!std::isfinite(p) || !std::isfinite(q)) {
        *why = "an output is not finite on real inputs";
        return false;
      }
      scale = std::max({scale, std::fabs(p), std::fabs(q)});
      if (std::fabs(p - q) > worst) {
        worst = std::fabs(p - q);
        at = i;
      }
    }
    if (!(worst > kTolerance * scale)) {
      *why = fmt::format("the outputs agree on real inputs (largest difference {:.3g} of magnitude {:.3g})", worst,
                         scale);
      return false;
    }
    if (d == 0)
      witness = fmt::format("at real inputs (uniform in [-1, 1), seed {}) element {} is {:.6g} against {:.6g}", d,
                            fmt::join(interp::unflatIndex(x[o].shape, at), ", "),
                            static_cast<double>(x[o].data[static_cast<size_t>(at)]),
                            static_cast<double>(y[o].data[static_cast<size_t>(at)]));
  }
  *why = witness;
  return true;
}

}  // namespace mirage::verify
