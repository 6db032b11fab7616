// The GPU path without a GPU: the real driver's absence, fake drivers that
// find no device or lack entry points, and a fake driver with a simulated
// device that checks launching, argument order, timing and faults.
#include <catch2/catch.hpp>

#include <dlfcn.h>

#include <cstring>
#include <memory>

#include "mirage/backend/gpu.h"

using namespace mirage::backend;

namespace {

// Controls of the fake driver, reached through the same library handle the
// backend opened (dlopen of one path returns one instance).
struct FakeDriver {
  void* handle = dlopen(FAKE_CUDA_PATH, RTLD_NOW | RTLD_LOCAL);
  template <typename Fn>
  Fn get(const char* name) {
    REQUIRE(handle);
    void* s = dlsym(handle, name);
    REQUIRE(s);
    return reinterpret_cast<Fn>(s);
  }
  ~FakeDriver() {
    if (handle) dlclose(handle);
  }
};

CompileResult fakeBinary() {
  CompileResult r;
  r.ok = true;
  r.cubin = "fake cubin";
  return r;
}

LaunchPlan subPlan(int64_t n) {
  LaunchPlan plan;
  plan.inputs = {{"A", mirage::ir::DType::F32, {n}}, {"B", mirage::ir::DType::F32, {n}}};
  plan.outputs = {{"C", mirage::ir::DType::F32, {n}}};
  PlanLaunch l;
  l.kernel = "mirage_sub";
  l.grid = {4, 2, 1};
  l.block = {128, 1, 1};
  l.sharedBytes = 64 * 1024;  // above the default 48 KB: needs the opt-in attribute
  l.args = {{PlanArg::Kind::Input, 0, 0}, {PlanArg::Kind::Input, 1, 0}, {PlanArg::Kind::Output, 0, 0}};
  plan.launches = {l};
  return plan;
}

// X f32[4] in, Y f32[4] out, no launches yet.
LaunchPlan copyPlan() {
  LaunchPlan plan;
  plan.inputs = {{"X", mirage::ir::DType::F32, {4}}};
  plan.outputs = {{"Y", mirage::ir::DType::F32, {4}}};
  return plan;
}

// The simulated device of the fake driver.
std::unique_ptr<Gpu> openFakeGpu() {
  std::string why;
  std::unique_ptr<Gpu> gpu = Gpu::open(&why, 0, FAKE_CUDA_PATH);
  INFO(why);
  REQUIRE(gpu);
  return gpu;
}

std::vector<uint8_t> floats(const std::vector<float>& v) {
  std::vector<uint8_t> b(v.size() * 4);
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

}  // namespace

TEST_CASE("a missing driver library is a reason, not a crash") {
  std::string why;
  auto gpu = Gpu::open(&why, 0, "/nonexistent/libcuda.so.1");
  CHECK(gpu == nullptr);
  CHECK(why.starts_with("no usable GPU: cannot load the CUDA driver (/nonexistent/libcuda.so.1)"));
  GpuStatus s = probeGpu(0, "/nonexistent/libcuda.so.1");
  CHECK_FALSE(s.usable);
  CHECK(s.reason == why);
}

TEST_CASE("the system driver is either usable or says why") {
  GpuStatus s = probeGpu();
  if (s.usable) {
    CHECK(s.props.smArch >= 80);
    CHECK(s.props.numSMs > 0);
  } else {
    CHECK(s.reason.starts_with("no usable GPU: "));
  }
}

TEST_CASE("a driver without a device is reported with the driver's own words") {
  std::string why;
  auto gpu = Gpu::open(&why, 0, FAKE_CUDA_NODEVICE_PATH);
  CHECK(gpu == nullptr);
  CHECK(why == "no usable GPU: cuInit failed: CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)");
}

TEST_CASE("a library lacking driver entry points is rejected by name") {
  std::string why;
  auto gpu = Gpu::open(&why, 0, FAKE_CUDA_PARTIAL_PATH);
  CHECK(gpu == nullptr);
  CHECK(why.find("lacks cuDriverGetVersion") != std::string::npos);
}

TEST_CASE("device properties and the figures derived from them") {
  auto gpu = openFakeGpu();
  const DeviceProps& p = gpu->props();
  CHECK(p.name == "Fake H200");
  CHECK(p.smArch == 90);
  CHECK(p.archString() == "sm_90");
  CHECK(p.numSMs == 132);
  CHECK(p.peakBandwidthGBs() == Approx(2 * 2.619e9 * 768 / 1e9));
  ArchSpec a = gpu->archSpec();
  CHECK(a.numSMs == 132);
  CHECK(a.dramBandwidthGBs == Approx(4800));  // the datasheet beats the driver's HBM3e clock
  CHECK(a.tensorTflops == Approx(h200Spec().tensorTflops));

  std::string other;
  CHECK(Gpu::open(&other, 3, FAKE_CUDA_PATH) == nullptr);
  CHECK(other == "no usable GPU: device 3 was asked for, the driver sees 1");
}

TEST_CASE("a run passes buffers in plan order and reads the outputs back") {
  FakeDriver fake;
  fake.get<void (*)()>("fake_cuda_reset")();
  auto gpu = openFakeGpu();
  RunResult r = gpu->run(subPlan(4), fakeBinary(), {floats({5, 6, 7, 8}), floats({1, 2, 3, 4})});
  INFO(r.error);
  REQUIRE(r.ok);
  REQUIRE(r.outputs.size() == 1);
  std::vector<float> c(4);
  std::memcpy(c.data(), r.outputs[0].data(), 16);
  CHECK(c == std::vector<float>{4, 4, 4, 4});
  unsigned grid[3], block[3], shared;
  fake.get<void (*)(unsigned*, unsigned*, unsigned*)>("fake_cuda_last_launch")(grid, block, &shared);
  CHECK(grid[0] == 4);
  CHECK(grid[1] == 2);
  CHECK(block[0] == 128);
  CHECK(shared == 64 * 1024);
  // Every buffer of the run is freed again.
  CHECK(fake.get<int (*)()>("fake_cuda_live_allocations")() == 0);

  RunResult bad = gpu->run(subPlan(4), fakeBinary(), {floats({1, 2, 3, 4})});
  CHECK_FALSE(bad.ok);
  CHECK(bad.error == "1 input buffers given, the plan has 2");
}

TEST_CASE("workspace arguments point into one workspace allocation, and copies follow the launches") {
  auto gpu = openFakeGpu();
  // in0 -> ws+16, ws+16 -> out0: the value survives the round trip only if
  // both launches see the same workspace address.
  LaunchPlan plan = copyPlan();
  plan.workspaceBytes = 32;
  PlanLaunch a, b;
  a.kernel = b.kernel = "mirage_copy";
  a.args = {{PlanArg::Kind::Input, 0, 0}, {PlanArg::Kind::Workspace, 0, 16}};
  b.args = {{PlanArg::Kind::Workspace, 0, 16}, {PlanArg::Kind::Output, 0, 0}};
  plan.launches = {a, b};
  // An output that repeats the input is copied after the launches.
  plan.outputs.push_back({"X_again", mirage::ir::DType::F32, {4}});
  plan.copies = {{{PlanArg::Kind::Output, 1, 0}, {PlanArg::Kind::Input, 0, 0}, 16}};
  RunResult r = gpu->run(plan, fakeBinary(), {floats({1, 2, 3, 4})});
  INFO(r.error);
  REQUIRE(r.ok);
  REQUIRE(r.outputs.size() == 2);
  std::vector<float> y(4), again(4);
  std::memcpy(y.data(), r.outputs[0].data(), 16);
  std::memcpy(again.data(), r.outputs[1].data(), 16);
  CHECK(y == std::vector<float>{1, 2, 3, 4});
  CHECK(again == std::vector<float>{1, 2, 3, 4});
}

TEST_CASE("a plan of copies only runs without a module or a compiled binary") {
  auto gpu = openFakeGpu();
  LaunchPlan plan = copyPlan();
  plan.copies = {{{PlanArg::Kind::Output, 0, 0}, {PlanArg::Kind::Input, 0, 0}, 16}};
  CompileResult nothing;  // not compiled: no kernel needs it
  RunResult r = gpu->run(plan, nothing, {floats({1, 2, 3, 4})});
  INFO(r.error);
  REQUIRE(r.ok);
  std::vector<float> y(4);
  std::memcpy(y.data(), r.outputs[0].data(), 16);
  CHECK(y == std::vector<float>{1, 2, 3, 4});
}

TEST_CASE("timing takes the median of event times and rejects impossible ones") {
  FakeDriver fake;
  fake.get<void (*)()>("fake_cuda_reset")();
  auto setMs = fake.get<void (*)(float)>("fake_cuda_set_elapsed_ms");
  auto gpu = openFakeGpu();
  const int64_t n = 1 << 20;  // 12 MiB moved: 2.6 us at 4.8 TB/s
  TimingOptions options;
  options.minRuns = 5;

  setMs(0.010f);
  TimingResult t = gpu->time(subPlan(n), fakeBinary(), options);
  INFO(t.error);
  REQUIRE(t.ok);
  CHECK(t.medianUs == Approx(10.0).epsilon(1e-4));
  CHECK(t.runs == 5);  // identical samples: stable at the minimum count
  CHECK(t.boundUs == Approx(3.0 * 4 * n / 4.8e6));
  // Warm-up (3) plus timed runs, one launch each.
  CHECK(fake.get<int (*)()>("fake_cuda_launch_count")() == 3 + 5);

  setMs(0.001f);  // 1 us for 12 MiB would be 12.6 TB/s
  TimingResult fast = gpu->time(subPlan(n), fakeBinary(), options);
  CHECK_FALSE(fast.ok);
  CHECK(fast.error.find("below the physical bound") != std::string::npos);
  CHECK(fake.get<int (*)()>("fake_cuda_live_allocations")() == 0);
}

TEST_CASE("loader and launch failures are errors of that candidate") {
  FakeDriver fake;
  fake.get<void (*)()>("fake_cuda_reset")();
  auto gpu = openFakeGpu();
  LaunchPlan plan = subPlan(4);
  std::vector<std::vector<uint8_t>> in = {floats({1, 2, 3, 4}), floats({1, 2, 3, 4})};

  CompileResult failed;
  failed.error = "NVRTC failed to compile candidate 3 for sm_90";
  CHECK(gpu->run(plan, failed, in).error ==
        "the candidate did not compile: NVRTC failed to compile candidate 3 for sm_90");

  CompileResult badImage = fakeBinary();
  badImage.cubin = "bad image";
  CHECK(gpu->run(plan, badImage, in).error.starts_with("cuModuleLoadData failed: CUDA_ERROR_INVALID_IMAGE"));

  plan.launches[0].kernel = "mirage_missing";
  CHECK(gpu->run(plan, fakeBinary(), in).error.starts_with(
      "cuModuleGetFunction(mirage_missing) failed: CUDA_ERROR_NOT_FOUND"));

  // A lowered (mangled) name from NVRTC is what the module is searched for.
  CompileResult lowered = fakeBinary();
  lowered.loweredNames["mirage_missing"] = "mirage_sub";
  CHECK(gpu->run(plan, lowered, in).ok);

  // A launch the device cannot run is that candidate's failure only.
  LaunchPlan tooBig = subPlan(4);
  tooBig.launches[0].kernel = "mirage_too_big";
  CHECK(gpu->run(tooBig, fakeBinary(), in).error.starts_with(
      "cuLaunchKernel(mirage_too_big) failed: CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"));
  CHECK(gpu->run(plan, lowered, in).ok);

  // A fault poisons the context: later runs fail with the first fault's reason.
  LaunchPlan faulty = subPlan(4);
  faulty.launches[0].kernel = "mirage_fault";
  RunResult f = gpu->run(faulty, fakeBinary(), in);
  CHECK_FALSE(f.ok);
  CHECK(f.error.starts_with("running the kernels failed: CUDA_ERROR_ILLEGAL_ADDRESS"));
  RunResult after = gpu->run(subPlan(4), fakeBinary(), in);
  CHECK(after.error.starts_with("the GPU context is unusable after an earlier fault: running the kernels failed"));
  fake.get<void (*)()>("fake_cuda_reset")();
}

TEST_CASE("the empty-kernel reference launch") {
  if (!Compiler::available()) return;
  FakeDriver fake;
  fake.get<void (*)()>("fake_cuda_reset")();
  auto gpu = openFakeGpu();
  fake.get<void (*)(float)>("fake_cuda_set_elapsed_ms")(0.002f);
  Compiler compiler;
  TimingOptions options;
  options.warmupRuns = 1;
  options.minRuns = 3;
  TimingResult t = gpu->timeEmptyLaunch(compiler, options);
  INFO(t.error);
  REQUIRE(t.ok);
  CHECK(t.medianUs == Approx(2.0).epsilon(1e-4));
  CHECK(t.boundUs == 0);  // it moves nothing
  CHECK(compiler.stats().compiled == 1);  // compiled for sm_90 by real NVRTC
  CHECK(fake.get<int (*)()>("fake_cuda_launch_count")() == 1 + 3);
}
