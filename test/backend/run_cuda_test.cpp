// mirage-run KERNEL.cu --device cuda without a GPU: the missing driver and a
// driver without a device are a clear failure (exit 1); with the simulated
// device of fake_cuda.cpp, a real file is compiled with NVRTC, its plan is
// replayed, and inputs and outputs travel through .npy files as on a GPU.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "mirage/backend/nvrtc.h"
#include "mirage/backend/run_cuda.h"
#include "mirage/interp/npy.h"

using namespace mirage;
using namespace mirage::backend;

namespace {

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    char tmpl[] = "/tmp/mirage-run-cuda-XXXXXX";
    REQUIRE(mkdtemp(tmpl));
    path = tmpl;
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

struct Outcome {
  int status = -1;
  std::string out, err;
};

Outcome run(const std::string& cu, const interp::RunOptions& options, const std::string& driver) {
  std::ostringstream out, err;
  CudaRunOptions cuda;
  cuda.driverLibrary = driver;
  Outcome o;
  o.status = runCudaFileOnGpu(cu, options, out, err, cuda);
  o.out = out.str();
  o.err = err.str();
  return o;
}

const std::string kSub = std::string(BACKEND_TEST_FILES) + "/sub_f32.cu";

}  // namespace

TEST_CASE("mirage-run --device cuda without a driver says why and fails") {
  Outcome o = run(kSub, {}, "/nonexistent/libcuda.so.1");
  CHECK(o.status == interp::kExitFailed);
  CHECK(o.err.starts_with("mirage-run: error: no usable GPU: cannot load the CUDA driver"));
  CHECK(o.out.empty());
}

TEST_CASE("mirage-run --device cuda with a driver that finds no device says why and fails") {
  Outcome o = run(kSub, {}, FAKE_CUDA_NODEVICE_PATH);
  CHECK(o.status == interp::kExitFailed);
  CHECK(o.err.find("no usable GPU: cuInit failed: CUDA_ERROR_NO_DEVICE") != std::string::npos);
}

TEST_CASE("mirage-run --device cuda: names and files are checked before the GPU is opened") {
  interp::RunOptions options;
  options.inputs = {{"Q", "/nonexistent.npy"}};
  Outcome o = run(kSub, options, "/nonexistent/libcuda.so.1");
  CHECK(o.status == interp::kExitBadCommand);
  CHECK(o.err == "mirage-run: error: --in Q: " + kSub + " has no input 'Q' (its inputs: A, B)\n");

  options.inputs = {{"A", "/nonexistent.npy"}};
  o = run(kSub, options, "/nonexistent/libcuda.so.1");
  CHECK(o.status == interp::kExitFailed);
  CHECK(o.err.find("/nonexistent.npy") != std::string::npos);

  TempDir dir;
  std::ofstream(dir.file("noplan.cu")) << "__global__ void k() {}\n";
  o = run(dir.file("noplan.cu"), {}, "/nonexistent/libcuda.so.1");
  CHECK(o.status == interp::kExitFailed);
  CHECK(o.err.find("carries no launch plan") != std::string::npos);
}

TEST_CASE("mirage-run --device cuda on the simulated device: .npy in, NVRTC, launches, .npy out") {
  if (!Compiler::available()) {
    WARN("no NVRTC in this build");
    return;
  }
  TempDir dir;
  interp::writeNpy(dir.file("a.npy"), interp::Tensor({4}, {5, 6, 7, 8}), ir::DType::F32);
  interp::writeNpy(dir.file("b.npy"), interp::Tensor({4}, {1, 2.5f, 3, -4}), ir::DType::F32);
  interp::RunOptions options;
  options.inputs = {{"A", dir.file("a.npy")}, {"B", dir.file("b.npy")}};
  options.outputs = {{"D", dir.file("d.npy")}};
  Outcome o = run(kSub, options, FAKE_CUDA_PATH);
  INFO(o.err);
  REQUIRE(o.status == interp::kExitOk);
  interp::Tensor d = interp::readNpy(dir.file("d.npy"), ir::DType::F32);
  CHECK(d.shape == ir::Shape{4});
  CHECK(d.data == std::vector<float>{4, 3.5f, 4, 12});

  // Without --out, one summary line per output; inputs not given come from the seed.
  options.inputs = {{"A", dir.file("a.npy")}};
  options.outputs.clear();
  options.seed = 3;
  o = run(kSub, options, FAKE_CUDA_PATH);
  INFO(o.err);
  REQUIRE(o.status == interp::kExitOk);
  CHECK(o.out.starts_with("D = f32[4] min="));

  // A wrong input shape is the file's fault.
  interp::writeNpy(dir.file("short.npy"), interp::Tensor({3}, {1, 2, 3}), ir::DType::F32);
  options.inputs = {{"A", dir.file("short.npy")}};
  o = run(kSub, options, FAKE_CUDA_PATH);
  CHECK(o.status == interp::kExitFailed);
  CHECK(o.err.find("does not match input 'A' f32[4]") != std::string::npos);
}

TEST_CASE("mirage-run --device cuda on a program without launches copies the input") {
  TempDir dir;
  std::ofstream(dir.file("identity.cu"))
      << "// mirage-plan v1\n// mirage-plan input X f16 2,2\n// mirage-plan output Y f16 2,2\n"
         "// mirage-plan workspace 0\n// mirage-plan copy out0 in0 8\n";
  interp::writeNpy(dir.file("x.npy"), interp::Tensor({2, 2}, {1, -2, 0.5f, 3}), ir::DType::F16);
  interp::RunOptions options;
  options.inputs = {{"X", dir.file("x.npy")}};
  options.outputs = {{"Y", dir.file("y.npy")}};
  Outcome o = run(dir.file("identity.cu"), options, FAKE_CUDA_PATH);
  INFO(o.err);
  REQUIRE(o.status == interp::kExitOk);
  interp::Tensor y = interp::readNpy(dir.file("y.npy"), ir::DType::F16);
  CHECK(y.data == std::vector<float>{1, -2, 0.5f, 3});
}
