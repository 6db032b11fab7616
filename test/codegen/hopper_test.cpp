// Unit tests of the opt-in Hopper path (Options::hopperPaths): the default
// output is unchanged (byte for byte, against files generated before the
// path existed), the Hopper text has the bulk copies, mbarriers and the sm_80
// branch, the pipeline depth follows the shared-memory limit, and the host
// shim's mbarrier emulation reports misuse instead of passing or hanging.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "mirage/codegen/cuda.h"
#include "mirage/codegen/host_runner.h"
#include "mirage/parse/parser.h"

using namespace mirage;

namespace {

std::string readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// programs/NAME.mg of this directory, parsed.
ir::Graph program(const std::string& name) {
  std::ostringstream err;
  auto g = parse::parseFile(std::string(MIRAGE_CODEGEN_TEST_DIR) + "/programs/" + name + ".mg", err);
  INFO(err.str());
  REQUIRE(g);
  return *g;
}

codegen::Result generate(const ir::Graph& g, const std::string& name, int sm, bool hopper, bool fast = true) {
  codegen::Options o;
  o.smArch = sm;
  o.sourceName = "programs/" + name + ".mg";  // as codegen_check names it
  o.hopperPaths = hopper;
  o.fastPaths = fast;
  codegen::Result r = codegen::generateCuda(g, o);
  INFO(r.error);
  REQUIRE(r.ok);
  return r;
}

// Without the first line, which names the tool's version.
std::string withoutVersionLine(const std::string& s) { return s.substr(s.find('\n') + 1); }

bool contains(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

// Captures what the host shim writes to stderr while it is alive.
class StderrCapture {
 public:
  StderrCapture() {
    std::fflush(stderr);
    file_ = std::tmpfile();
    saved_ = dup(2);
    dup2(fileno(file_), 2);
  }
  ~StderrCapture() { restore(); }
  std::string text() {
    restore();
    std::string out;
    std::rewind(file_);
    char buf[512];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, file_)) > 0;) out.append(buf, n);
    return out;
  }

 private:
  void restore() {
    if (saved_ < 0) return;
    std::fflush(stderr);
    dup2(saved_, 2);
    close(saved_);
    saved_ = -1;
  }
  std::FILE* file_ = nullptr;
  int saved_ = -1;
};

}  // namespace

TEST_CASE("hopperPaths=false output is byte-identical to the output before the Hopper path", "[codegen][hopper]") {
  // golden/NAME.sm90.cu were written by codegen_check --fast-only --emit
  // before hopperPaths existed; regenerate them only for an intended change
  // of the default output (in test/codegen: codegen_check
  // programs/NAME.mg --fast-only --emit golden/NAME.sm90.cu).
  for (const char* name : {"example_rmsnorm_linear_fused", "fmap_every_dim", "odd_tiles"}) {
    INFO(name);
    std::string golden = readText(std::string(MIRAGE_CODEGEN_TEST_DIR) + "/golden/" + name + ".sm90.cu");
    REQUIRE_FALSE(golden.empty());
    ir::Graph g = program(name);
    CHECK(withoutVersionLine(generate(g, name, 90, false).source) == withoutVersionLine(golden));
    // The option changes nothing below sm_90 or without fast paths.
    CHECK(generate(g, name, 80, true).source == generate(g, name, 80, false).source);
    CHECK(generate(g, name, 90, true, false).source == generate(g, name, 90, false, false).source);
  }
}

TEST_CASE("the Hopper path's text: bulk copies, mbarriers, and the sm_80 branch", "[codegen][hopper]") {
  ir::Graph g = program("example_rmsnorm_linear_fused");
  codegen::Result r = generate(g, "example_rmsnorm_linear_fused", 90, true);
  const std::string& s = r.source;
  CHECK(contains(s, "// Hopper path: TMA bulk copies, N-stage pipeline in launch 0 (4 stages)"));
  CHECK(contains(s, "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"));
  CHECK(contains(s, "mbarrier.arrive.expect_tx"));
  CHECK(contains(s, "mbarrier.try_wait.parity"));
  CHECK(contains(s, "fence.mbarrier_init.release.cluster"));
  CHECK(contains(s, "fence.proxy.async.shared::cta"));
  CHECK(contains(s, "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900"));
  // The kernel: both branches, the stage ring and the parity of each use.
  CHECK(contains(s, "#if MG_HOPPER_PATH"));
  CHECK(contains(s, "mg_mbarrier_wait_parity(&mg_stage_full[it % 4], (it / 4) & 1);"));
  CHECK(contains(s, "mg_cp_async_wait<3>();"));
  CHECK(contains(s, "[16, 128] x 4 stages"));
  // x: 16 rows of 256 bytes (padded in shared memory); w: 128 rows of 128 bytes.
  CHECK(contains(s, "16 bulk copies of 256 bytes"));
  CHECK(contains(s, "128 bulk copies of 128 bytes"));
  CHECK(contains(s, "mg_mbarrier_arrive_expect_tx(&mg_stage_full[next], 20480);"));
  REQUIRE(r.kernels.size() == 1);
  bool named = false;
  for (const std::string& p : r.kernels[0].fastPaths) named = named || contains(p, "4-stage mbarrier pipeline");
  CHECK(named);
  // Four stages of x (16 x 136 halves) and w (128 x 72 halves), the two
  // accumulators' buffers after the loop, then four 8-byte mbarriers.
  CHECK(r.kernels[0].sharedBytes == 4 * (16 * 136 + 128 * 72) * 2 + 16 * 4 + 4 * 8);
}

TEST_CASE("the Hopper pipeline is as deep as sm_90's shared memory allows", "[codegen][hopper]") {
  ir::Graph g = program("hopper_stage_limit");
  codegen::Result r = generate(g, "hopper_stage_limit", 90, true);
  REQUIRE(r.kernels.size() == 1);
  // 48 KiB stages and a 48 KiB accumulator: three stages fit 227 KiB, four not.
  CHECK(r.kernels[0].sharedBytes == 3 * 49152 + 49152 + 3 * 8);
  CHECK(contains(r.source, "1 bulk copy of 49152 bytes"));
  // A loop of three iterations gets three stages, not four.
  codegen::Result three = generate(program("hopper_three_stages"), "hopper_three_stages", 90, true);
  CHECK(contains(three.source, "in launch 0 (3 stages)"));
  CHECK(contains(three.source, "1 bulk copy of 2048 bytes"));  // whole rows: one run
}

TEST_CASE("the host shim's mbarriers: a right use passes, misuse is reported, not hung", "[codegen][shim][hopper]") {
  // Two uses of one stage: thread 0 announces the bytes and copies 64 floats
  // at a time; every thread waits for the phase and reads. x[127], passed
  // as an argument, selects a misuse (0: none).
  std::string src = R"(// Program: mbar (1 launch)
// Inputs:
//   X f32[128]
// Outputs:
//   Y f32[128]
#include "mirage_host_shim.h"
extern "C" __global__ void k(const float* x, float* y, int mode) {
  MG_DYNAMIC_SMEM(smem);
  float* buf = reinterpret_cast<float*>(smem);
  unsigned long long* bar = reinterpret_cast<unsigned long long*>(smem + 256);
  if (threadIdx.x == 0) {
    mg_mbarrier_init(bar, 1);
    mg_fence_mbarrier_init();
  }
  __syncthreads();
  if (mode == 2) mg_mbarrier_wait_parity(bar, 1);  // parity 1 of a fresh barrier
  for (int use = 0; use < 2; ++use) {
    if (threadIdx.x == 0) {
      mg_fence_proxy_async();
      mg_mbarrier_arrive_expect_tx(bar, mode == 3 ? 0u : mode == 4 ? 512u : 256u);
      mg_bulk_copy_g2s(buf, x + use * 64, 256, bar);
    }
    __syncthreads();  // the copy is issued before anyone waits: misuse shows the same way every run
    mg_mbarrier_wait_parity(bar, mode == 1 ? (use + 1) & 1 : use & 1);
    y[use * 64 + threadIdx.x] = buf[threadIdx.x];
    __syncthreads();
  }
}
extern "C" size_t mirage_mbar_workspace_bytes(void) { return 0; }
extern "C" int mirage_mbar(const void* const* in, void* const* out, void*, cudaStream_t stream) {
  const float* x = static_cast<const float*>(in[0]);
  MG_LAUNCH(k, dim3(1), dim3(64), 264, stream, x, static_cast<float*>(out[0]), static_cast<int>(x[127]));
  return static_cast<int>(cudaGetLastError());
}
)";
  std::string error;
  auto m = codegen::HostModule::build(src, error);
  INFO(error);
  REQUIRE(m);
  auto run = [&](int mode, std::string& log) {
    interp::Tensor x(ir::Shape{128});
    for (int i = 0; i < 127; ++i) x.data[static_cast<size_t>(i)] = static_cast<float>(i);
    x.data[127] = static_cast<float>(mode);
    std::vector<interp::Tensor> out;
    StderrCapture capture;
    std::string e = m->run({x}, out);
    log = capture.text();
    if (e.empty()) {
      for (int i = 0; i < 128; ++i) CHECK(out[0].data[static_cast<size_t>(i)] == x.data[static_cast<size_t>(i)]);
    }
    return e;
  };
  std::string log;
  CHECK(run(0, log).empty());
  // Waiting for the parity of the next phase: it never completes.
  CHECK_FALSE(run(1, log).empty());
  CHECK(contains(log, "deadlock"));
  CHECK(contains(log, "on an mbarrier phase"));
  // Parity 1 before any phase completed passes at once on a GPU.
  CHECK_FALSE(run(2, log).empty());
  CHECK(contains(log, "before any phase completed"));
  // No bytes announced: the copy completes more than the phase expects.
  CHECK_FALSE(run(3, log).empty());
  CHECK(contains(log, "arrive.expect_tx missing or too small"));
  // More bytes announced than copied: the phase never completes.
  CHECK_FALSE(run(4, log).empty());
  CHECK(contains(log, "deadlock"));
}
