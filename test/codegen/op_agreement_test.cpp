// The per-kind agreement test: every element-wise and reduction row of the
// operator table (ir/ops.def) runs as a one-operator program through the
// interpreter, the float64 reference, the verifier and the generated CUDA
// code under the host shim, and they must agree. It iterates the table, so a
// new row is covered without an edit here.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <fmt/format.h>

#include "mirage/codegen/cuda.h"
#include "mirage/codegen/host_runner.h"
#include "mirage/codegen/lower.h"
#include "mirage/interp/interpreter.h"
#include "mirage/interp/reference64.h"
#include "mirage/ir/check.h"
#include "mirage/ir/printer.h"
#include "mirage/verify/verifier.h"

using namespace mirage;
using ir::OpKind;

namespace {

const ir::Shape kShape = {4, 32};

// The kinds the test covers: everything a program computes element by
// element or by reducing a dim.
std::vector<OpKind> coveredKinds() {
  std::vector<OpKind> v;
  for (OpKind k : ir::allOpKinds())
    if (ir::isElementwise(k) || ir::isReduction(k)) v.push_back(k);
  return v;
}

// Appends kind applied to a (and b, or the number `scalar` when given, for
// binary kinds) to g as output `name`.
void addKindOutput(ir::Graph& g, OpKind kind, ir::ValueId a, ir::ValueId b, const char* scalar,
                   const std::string& name) {
  ir::Op op;
  op.kind = kind;
  op.inputs = {a};
  if (ir::isElementwiseBinary(kind)) op.inputs.push_back(scalar ? ir::addConst(g, scalar) : b);
  op.dim = 1;
  ir::ValueId out;
  ir::Error e = ir::addOp(g, op, nullptr, &out, name);
  INFO(ir::opName(kind) << ": " << e);
  REQUIRE(e.empty());
  g.outputs.push_back(out);
}

// Operands inside the kind's domain: positive where the table's definedness
// asks for it (inputs P, R), else of both signs (X, Y).
bool positiveOperands(OpKind kind) { return ir::opInfo(kind).definedness != ir::Definedness::Always; }

ir::Graph programWithInputs(const std::string& name) {
  ir::Graph g;
  g.name = name;
  g.dtype = ir::DType::F32;
  for (const char* n : {"X", "Y", "P", "R"}) {
    ir::ValueId v;
    REQUIRE(ir::addInput(g, n, kShape, &v).empty());
  }
  return g;
}

// A one-operator program (for the verifier).
ir::Graph singleOp(OpKind kind, const char* scalar = nullptr) {
  ir::Graph g = programWithInputs(fmt::format("one_{}", ir::opName(kind)));
  bool pos = positiveOperands(kind);
  addKindOutput(g, kind, g.inputs[pos ? 2 : 0], g.inputs[pos ? 3 : 1], scalar, "O");
  return g;
}

// Every covered kind in one program, one output each (binary kinds twice:
// with a tensor and with a number operand), so that the generated code is
// compiled for the host once per path.
ir::Graph allKinds(std::vector<std::string>& labels) {
  ir::Graph g = programWithInputs("all_kinds");
  for (OpKind kind : coveredKinds()) {
    bool pos = positiveOperands(kind);
    std::string n(ir::opName(kind));
    addKindOutput(g, kind, g.inputs[pos ? 2 : 0], g.inputs[pos ? 3 : 1], nullptr, "O_" + n);
    labels.push_back(n);
    if (ir::isElementwiseBinary(kind)) {
      addKindOutput(g, kind, g.inputs[pos ? 2 : 0], ir::kNoValue, "0.5", "S_" + n);
      labels.push_back(n + " with a number operand");
    }
  }
  return g;
}

// X, Y of both signs; P, R positive.
std::vector<interp::Tensor> inputsFor(const ir::Graph& g) {
  std::vector<interp::Tensor> ins;
  uint64_t seed = 7;
  for (size_t k = 0; k < g.inputs.size(); ++k) {
    bool positive = k >= 2;
    interp::Tensor t(g.value(g.inputs[k]).shape);
    for (size_t i = 0; i < t.data.size(); ++i) {
      seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
      double u = static_cast<double>(seed >> 11) * 0x1.0p-53;  // [0, 1)
      t.data[i] = static_cast<float>(positive ? 0.25 + 1.75 * u : -2.0 + 4.0 * u);
    }
    ins.push_back(std::move(t));
  }
  return ins;
}

void requireClose(const interp::Tensor& got, const std::vector<double>& want, double rel, const std::string& what) {
  REQUIRE(got.data.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    double tol = rel * std::max(1.0, std::fabs(want[i]));
    INFO(what << " element " << i << ": " << got.data[i] << " vs " << want[i]);
    REQUIRE(std::fabs(static_cast<double>(got.data[i]) - want[i]) <= tol);
  }
}

std::vector<double> asDouble(const interp::Tensor& t) { return {t.data.begin(), t.data.end()}; }

// Generated code under the host shim, fast and simple paths, against the
// interpreter's results `ref` (one per output, named by `labels`), output o
// within tolerance(o).
void requireShimAgrees(const ir::Graph& g, const std::vector<interp::Tensor>& ins,
                       const std::vector<interp::Tensor>& ref, const std::vector<std::string>& labels,
                       const std::function<double(size_t)>& tolerance) {
  for (bool fast : {true, false}) {
    codegen::Options opt;
    opt.fastPaths = fast;
    codegen::Result r = codegen::generateCuda(g, opt);
    INFO(r.error);
    REQUIRE(r.ok);
    std::string error;
    auto module = codegen::HostModule::build(r.source, error);
    INFO(error);
    REQUIRE(module);
    std::vector<interp::Tensor> got;
    std::string e = module->run(ins, got);
    INFO(e);
    REQUIRE(e.empty());
    REQUIRE(got.size() == labels.size());
    for (size_t o = 0; o < labels.size(); ++o)
      requireClose(got[o], asDouble(ref[o]), tolerance(o),
                   labels[o] + (fast ? ": shim (fast paths) vs interpreter" : ": shim (simple paths) vs interpreter"));
  }
}

}  // namespace

TEST_CASE("every element-wise and reduction kind agrees in the interpreter, the float64 reference and generated code",
          "[codegen][optable]") {
  std::vector<std::string> labels;
  ir::Graph g = allKinds(labels);
  INFO(ir::printGraph(g));
  std::vector<interp::Tensor> ins = inputsFor(g);
  std::vector<interp::Tensor> ref = interp::evaluate(g, ins);
  std::vector<interp::Tensor64> ref64 = interp::evaluate64(g, ins);
  REQUIRE(ref.size() == labels.size());
  REQUIRE(ref64.size() == labels.size());
  for (size_t o = 0; o < labels.size(); ++o)
    requireClose(ref[o], ref64[o].data, 1e-5, labels[o] + ": interpreter vs float64 reference");

  requireShimAgrees(g, ins, ref, labels, [](size_t) { return 1e-5; });
}

TEST_CASE("the verifier proves each kind equal to itself and to its one-kernel lowering", "[verify][optable]") {
  verify::Options vo;
  vo.threads = 1;
  vo.symmetric = true;
  for (OpKind kind : coveredKinds())
    for (const char* scalar : {static_cast<const char*>(nullptr), "0.5"}) {
      if (scalar && !ir::isElementwiseBinary(kind)) continue;
      ir::Graph g = singleOp(kind, scalar);
      INFO(ir::printGraph(g));
      CHECK(verify::checkEquivalent(g, g, vo).equivalent);
      // The block-level rule (a kernel body) agrees with the program-level one.
      ir::Graph lowered;
      REQUIRE(codegen::lowerToKernels(g, lowered).empty());
      verify::Verdict v = verify::checkEquivalent(g, lowered, vo);
      INFO(v.message);
      CHECK(v.equivalent);
    }
}

TEST_CASE("the verifier tells every element-wise kind from every other of its category", "[verify][optable]") {
  verify::Options vo;
  vo.threads = 1;
  vo.symmetric = true;
  std::vector<OpKind> kinds = coveredKinds();
  for (OpKind a : kinds)
    for (OpKind b : kinds) {
      if (a == b || ir::opCategory(a) != ir::opCategory(b)) continue;
      INFO(ir::opName(a) << " vs " << ir::opName(b));
      ir::Graph ga = singleOp(a), gb = singleOp(b);
      gb.name = ga.name;
      CHECK_FALSE(verify::checkEquivalent(ga, gb, vo).equivalent);
    }
}

namespace {

// The attributes of one program-level layout row (ir/ops.def,
// MIRAGE_PROGRAM_LAYOUT_OPS) applied to X (and Y): a new row gets its entry
// here or the build fails (-Werror=switch).
ir::Op layoutOp(OpKind kind, ir::ValueId x, ir::ValueId y) {
  ir::Op op;
  op.kind = kind;
  op.inputs = {x};
  switch (kind) {
    case OpKind::Reshape: op.shapeArg = {8, -1, 4}; break;
    case OpKind::Concat:
      op.inputs.push_back(y);
      op.dim = -1;
      break;
    case OpKind::Slice:
      op.dim = 1;
      op.start = 8;
      op.end = 24;
      break;
    MIRAGE_CASES_LEAF
    MIRAGE_CASES_PREDEFINED
    MIRAGE_CASES_PROGRAM
    MIRAGE_CASES_BODY
    MIRAGE_CASES_SHORTHAND FAIL("not a program-level layout kind");
  }
  return op;
}

}  // namespace

TEST_CASE("every program-level layout kind agrees in the interpreter, the float64 reference, generated code and the "
          "verifier",
          "[codegen][optable]") {
  ir::Graph g = programWithInputs("all_layout_kinds");
  std::vector<std::string> labels;
  for (OpKind kind : ir::allOpKinds()) {
    if (!ir::isLayoutOp(kind)) continue;
    // The raw result (a view or a copy as an output) and exp of it (read by
    // a kernel).
    ir::ValueId raw, e;
    std::string n(ir::opName(kind));
    INFO(n);
    REQUIRE(ir::addOp(g, layoutOp(kind, g.inputs[0], g.inputs[1]), nullptr, &raw, "L_" + n).empty());
    ir::Op ex;
    ex.kind = OpKind::Exp;
    ex.inputs = {raw};
    REQUIRE(ir::addOp(g, ex, nullptr, &e, "E_" + n).empty());
    g.outputs.push_back(raw);
    g.outputs.push_back(e);
    labels.push_back(n);
    labels.push_back("exp of " + n);
  }
  REQUIRE(labels.size() == 6);
  INFO(ir::printGraph(g));
  std::vector<interp::Tensor> ins = inputsFor(g);
  std::vector<interp::Tensor> ref = interp::evaluate(g, ins);
  std::vector<interp::Tensor64> ref64 = interp::evaluate64(g, ins);
  for (size_t o = 0; o < labels.size(); ++o)
    requireClose(ref[o], ref64[o].data, 1e-5, labels[o] + ": interpreter vs float64 reference");
  // Even outputs are the raw moves, which must be exact.
  requireShimAgrees(g, ins, ref, labels, [](size_t o) { return o % 2 == 0 ? 0.0 : 1e-5; });
  verify::Options vo;
  vo.threads = 1;
  vo.symmetric = true;
  ir::Graph lowered;
  REQUIRE(codegen::lowerToKernels(g, lowered).empty());
  verify::Verdict v = verify::checkEquivalent(g, lowered, vo);
  INFO(v.message);
  CHECK(v.equivalent);
}
