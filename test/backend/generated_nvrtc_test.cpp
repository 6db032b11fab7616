// Generated CUDA for every bundled example compiles with NVRTC for sm_80 and
// sm_90: the host code is hidden from NVRTC by `#if !defined(__CUDACC_RTC__)`,
// every launched kernel is in the module (issue 5, NVRTC), and the launch
// plan the file carries matches the program and the kernels.
#include <catch2/catch.hpp>

#include <sstream>

#include "mirage/backend/launch_plan.h"
#include "mirage/backend/nvrtc.h"
#include "mirage/codegen/cuda.h"
#include "mirage/parse/parser.h"

using namespace mirage;

TEST_CASE("generated CUDA of every example compiles with NVRTC") {
  if (!backend::Compiler::available()) {
    WARN("built without NVRTC");
    return;
  }
  backend::Compiler compiler;
  std::vector<backend::CompileRequest> requests;
  std::vector<codegen::Result> generated;
  std::vector<ir::Graph> programs;
  for (const char* name : {"gqa.mg", "qknorm_gqa.mg", "rmsnorm_linear.mg", "lora.mg", "gated_mlp.mg",
                           "ntrans.mg", "gqa_flash.mg", "rmsnorm_linear_fused.mg"}) {
    std::ostringstream err;
    std::optional<ir::Graph> g = parse::parseFile(std::string(MIRAGE_EXAMPLES_DIR) + "/" + name, err);
    INFO(err.str());
    REQUIRE(g);
    for (int sm : {80, 90}) {
      codegen::Options options;
      options.smArch = sm;
      options.sourceName = name;
      codegen::Result r = codegen::generateCuda(*g, options);
      INFO(name << " sm_" << sm << ": " << r.error);
      REQUIRE(r.ok);
      backend::CompileRequest request;
      request.source = r.source;
      request.arch = "sm_" + std::to_string(sm);
      request.label = std::string(name) + " for " + request.arch;
      for (const codegen::KernelSummary& k : r.kernels) request.kernelNames.push_back(k.function);
      requests.push_back(std::move(request));
      generated.push_back(std::move(r));
      programs.push_back(*g);
    }
  }
  std::vector<backend::CompileResult> results = compiler.compileAll(requests, 2);
  for (size_t i = 0; i < results.size(); ++i) {
    INFO(requests[i].label << ": " << results[i].error << "\n" << results[i].log);
    CHECK(results[i].ok);
    CHECK_FALSE(results[i].cubin.empty());
    for (const codegen::KernelSummary& k : generated[i].kernels)
      CHECK(results[i].ptx.find(".entry " + k.function) != std::string::npos);
    std::string planError;
    std::optional<backend::LaunchPlan> plan = backend::parseLaunchPlan(generated[i].source, &planError);
    INFO(planError);
    REQUIRE(plan);
    REQUIRE(plan->launches.size() == generated[i].kernels.size());
    for (size_t k = 0; k < plan->launches.size(); ++k) {
      const codegen::KernelSummary& ks = generated[i].kernels[k];
      CHECK(plan->launches[k].kernel == ks.function);
      CHECK(plan->launches[k].block[0] == static_cast<uint32_t>(ks.threads));
      CHECK(plan->launches[k].sharedBytes == static_cast<uint32_t>(ks.sharedBytes));
    }
    CHECK(plan->workspaceBytes == generated[i].workspaceBytes);
    const ir::Graph& program = programs[i];
    REQUIRE(plan->inputs.size() == program.inputs.size());
    REQUIRE(plan->outputs.size() == program.outputs.size());
    for (size_t k = 0; k < plan->inputs.size(); ++k) {
      CHECK(plan->inputs[k].name == program.value(program.inputs[k]).name);
      CHECK(plan->inputs[k].shape == program.value(program.inputs[k]).shape);
    }
    for (size_t k = 0; k < plan->outputs.size(); ++k)
      CHECK(plan->outputs[k].shape == program.value(program.outputs[k]).shape);
  }
}
