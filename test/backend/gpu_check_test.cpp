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
