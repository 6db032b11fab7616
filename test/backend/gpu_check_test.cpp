// Checking GPU outputs against the reference interpreter, on the fake driver
// whose mirage_copy "kernel" copies its input to its output.
#include <catch2/catch.hpp>

#include "mirage/backend/gpu_check.h"
#include "mirage/ir/check.h"

using namespace mirage;
using namespace mirage::backend;

namespace {

// Y = OP(X) for X f32[1, 8], with a plan whose one launch copies X into Y.
struct CopyCase {
  ir::Graph program;
  LaunchPlan plan;
  CompileResult binary;

  CopyCase(ir::OpKind kind, ir::DType dtype) {
    program.dtype = dtype;
    ir::ValueId x = ir::kNoValue, y = ir::kNoValue;
    REQUIRE(ir::addInput(program, "X", {1, 8}, &x).empty());
    ir::Op op;
    op.kind = kind;
    op.inputs = {x};
    op.dim = 0;
    REQUIRE(ir::addOp(program, op, nullptr, &y, "Y").empty());
    program.outputs = {y};
    plan.inputs = {{"X", dtype, {1, 8}}};
    plan.outputs = {{"Y", dtype, {1, 8}}};
    PlanLaunch copy;
    copy.kernel = "mirage_copy";
    copy.args = {{PlanArg::Kind::Input, 0, 0}, {PlanArg::Kind::Output, 0, 0}};
    plan.launches = {copy};
    binary.ok = true;
    binary.cubin = "fake cubin";
  }
};

}  // namespace

TEST_CASE("a candidate computing the program's outputs passes the check") {
  std::string why;
  auto gpu = Gpu::open(&why, 0, FAKE_CUDA_PATH);
  REQUIRE(gpu);
  // Summing a dim of extent 1 is the identity: copying is correct.
  for (ir::DType dtype : {ir::DType::F32, ir::DType::F16, ir::DType::BF16}) {
    CopyCase c(ir::OpKind::ReduceSum, dtype);
    GpuCheckResult r = checkAgainstInterpreter(*gpu, c.plan, c.binary, c.program, 7);
    INFO(r.error);
    CHECK(r.ok);
    CHECK(r.maxAbsError == 0);
  }
}

TEST_CASE("a wrong candidate is caught with the first differing element") {
  std::string why;
  auto gpu = Gpu::open(&why, 0, FAKE_CUDA_PATH);
  REQUIRE(gpu);
  CopyCase c(ir::OpKind::Exp, ir::DType::F16);  // exp(x) != x
  GpuCheckResult r = checkAgainstInterpreter(*gpu, c.plan, c.binary, c.program, 7);
  CHECK_FALSE(r.ok);
  CHECK(r.error.starts_with("output Y differs at [0, 0]: GPU "));
  CHECK(r.outputsDiffer);
  CHECK(r.maxAbsError > 0.1);
}

TEST_CASE("a plan that does not match the program is refused before running") {
  std::string why;
  auto gpu = Gpu::open(&why, 0, FAKE_CUDA_PATH);
  REQUIRE(gpu);
  CopyCase c(ir::OpKind::ReduceSum, ir::DType::F16);
  c.plan.inputs[0].shape = {2, 4};
  GpuCheckResult r = checkAgainstInterpreter(*gpu, c.plan, c.binary, c.program, 7);
  CHECK(r.error == "plan input X is f16[2, 4], the program's f16[1, 8]");
}

TEST_CASE("a candidate that differs from the input program but matches its own μGraph passes, and says so") {
  std::string why;
  auto gpu = Gpu::open(&why, 0, FAKE_CUDA_PATH);
  REQUIRE(gpu);
  // The input program computes exp(X), as if its f16 evaluation were off at
  // the check's inputs; the candidate's μGraph is the copy the plan runs.
  CopyCase input(ir::OpKind::Exp, ir::DType::F16);
  CopyCase candidate(ir::OpKind::ReduceSum, ir::DType::F16);
  CheckReference inputReference = makeCheckReference(input.program, 7);
  GpuCheckResult r = checkCandidate(*gpu, candidate.plan, candidate.binary, inputReference, candidate.program, 7);
  INFO(r.error);
  CHECK(r.ok);
  CHECK(r.againstOwnGraph);
  CHECK(r.inputDiffers.starts_with("output Y differs at [0, 0]: GPU "));
  CHECK(r.maxAbsError == 0);

  SECTION("one that matches the input program is checked against it alone") {
    GpuCheckResult same = checkCandidate(*gpu, candidate.plan, candidate.binary,
                                         makeCheckReference(candidate.program, 7), input.program, 7);
    CHECK(same.ok);
    CHECK_FALSE(same.againstOwnGraph);
    CHECK(same.inputDiffers.empty());
  }
  SECTION("one that differs from both fails, with both differences") {
    GpuCheckResult wrong = checkCandidate(*gpu, input.plan, input.binary, inputReference, input.program, 7);
    CHECK_FALSE(wrong.ok);
    CHECK_FALSE(wrong.againstOwnGraph);
    CHECK(wrong.error.starts_with("output Y differs at [0, 0]: GPU "));
    CHECK(wrong.error.find("(against its own μGraph; against the input program: output Y differs") !=
          std::string::npos);
  }
}
