// Issue 10's end-to-end check: for softmax attention at several shapes and
// dtypes, mirage-opt --device none writes a fused kernel whose .cu (run on
// the CPU shim) and whose .mg (run by the interpreter) both stay within the
// dtype's tolerance of a float64 evaluation of the input program, with no inf
// or NaN, at the logits real models produce (up to 60 in f16, 100 in bf16),
// where an unguarded exp(S) would overflow.
//
// Usage: driver_attention PROGRAM.mg MAX_KERNELS SECONDS
//   SECONDS bounds the search (--time-limit); the time to the best candidate
//   and the errors at each logit scale are printed.
#include <cmath>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>

#include "mirage/codegen/host_runner.h"
#include "mirage/interp/interpreter.h"
#include "mirage/interp/reference64.h"
#include "mirage/interp/rounding.h"
#include "mirage/interp/tensor.h"
#include "mirage/parse/parser.h"
#include "test_util.h"

using namespace mirage;

namespace {

std::optional<ir::Graph> load(const std::string& path) {
  std::ostringstream err;
  auto g = parse::parseFile(path, err);
  if (!g) std::cerr << err.str();
  return g;
}

// Largest |got - want| over the largest |want|; infinity when an element of
// `got` is not finite.
double relativeError(const interp::Tensor& got, const interp::Tensor64& want) {
  double worst = 0, scale = 0;
  for (size_t i = 0; i < want.data.size(); ++i) {
    if (!std::isfinite(got.data[i])) return INFINITY;
    worst = std::max(worst, std::fabs(got.data[i] - want.data[i]));
    scale = std::max(scale, std::fabs(want.data[i]));
  }
  return scale > 0 ? worst / scale : worst;
}

// The largest |logit| the attention program computes: the largest magnitude
// its reduce_max (softmax's guard) sees, in float64.
double largestLogit(const ir::Graph& g, const std::vector<interp::Tensor>& in) {
  ir::Graph probe = g;
  probe.outputs.clear();
  for (size_t i = 0; i < g.ops.size(); ++i)
    if (g.ops[i].kind == ir::OpKind::ReduceMax) probe.outputs.push_back(g.ops[i].results[0]);
  if (probe.outputs.empty()) return 0;
  double m = 0;
  for (const interp::Tensor64& t : interp::evaluate64(probe, in))
    for (double x : t.data) m = std::max(m, std::fabs(x));
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: driver_attention PROGRAM.mg MAX_KERNELS SECONDS\n";
    return 2;
  }
  std::string path = argv[1];
  int maxKernels = std::atoi(argv[2]);
  double seconds = std::atof(argv[3]);
  auto input = load(path);
  if (!input) return 1;
  bool bf16 = input->dtype == ir::DType::BF16;
  double tolerance = bf16 ? 4e-2 : 2e-2;

  auto dir = test::tempDir("attention");
  driver::Options o;
  o.input = path;
  o.output = (dir / "p.cu").string();
  o.emitMg = (dir / "p.opt.mg").string();
  o.report = (dir / "r.json").string();
  o.device = "none";
  o.noCache = true;
  o.verbosity = -1;
  o.timeLimitSeconds = seconds;
  test::Outcome run = test::runDriver(o);
  if (run.status != 0) {
    std::cerr << "mirage-opt failed:\n" << run.err;
    return 1;
  }
  auto report = nlohmann::json::parse(test::readFile(o.report));
  int kernels = report["best"]["kernels"].get<int>();
  std::cout << path << ": best has " << kernels << " launch(es), found after "
            << report["search"]["seconds_to_best"] << " s of " << run.seconds << " s\n";
  bool ok = true;
  if (kernels > maxKernels) {
    std::cout << "FAIL: more than " << maxKernels << " launches\n";
    ok = false;
  }

  auto chosen = load(o.emitMg);
  std::string error;
  auto module = codegen::HostModule::build(test::readFile(o.output), error);
  if (!chosen || !module) {
    std::cerr << "cannot load the written program: " << error << "\n";
    return 1;
  }

  // Q (the first input) scaled so that the logits reach the sizes of real
  // models; the other inputs uniform in [-1, 1).
  for (double target : bf16 ? std::vector<double>{1, 40, 100} : std::vector<double>{1, 20, 60}) {
    std::vector<interp::Tensor> in;
    for (ir::ValueId v : input->inputs)
      in.push_back(interp::randomTensor(input->value(v).shape, input->dtype, 11, input->value(v).name));
    double logit = largestLogit(*input, in);
    if (logit > 0)
      for (float& x : in[0].data) x = interp::roundToDType(float(x * target / logit), input->dtype);
    logit = largestLogit(*input, in);
    interp::Tensor64 want = interp::evaluate64(*input, in)[0];
    double eInput = relativeError(interp::evaluate(*input, in)[0], want);
    double eMg = relativeError(interp::evaluate(*chosen, in)[0], want);
    std::vector<interp::Tensor> outs;
    std::string why = module->run(in, outs);
    double eCu = why.empty() ? relativeError(outs[0], want) : INFINITY;
    std::cout << "  logit " << logit << ": input " << eInput << ", chosen .mg " << eMg << ", chosen .cu "
              << eCu << (why.empty() ? "" : " (" + why + ")") << "\n";
    if (!(eMg <= tolerance) || !(eCu <= tolerance)) {
      std::cout << "FAIL: error above " << tolerance << "\n";
      ok = false;
    }
  }
  std::filesystem::remove_all(dir);
  return ok ? 0 : 1;
}
