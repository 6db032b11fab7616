// NVRTC compilation: targets, the host-code convention, compile errors, the
// memory and disk caches, and the thread pool.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "mirage/backend/nvrtc.h"

using namespace mirage::backend;
namespace fs = std::filesystem;

namespace {

// Shaped like a generated file: device code, then host code NVRTC must not see.
const char* kGenerated = R"(#include <cuda_fp16.h>
extern "C" __global__ void mirage_k0(const half* __restrict__ x, half* __restrict__ y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] = __float2half(__half2float(x[i]) * 2.0f);
}
#ifndef __CUDACC_RTC__
#include <cuda_runtime.h>
extern "C" int mirage_scale(const void* const* inputs, void* const* outputs, void* workspace,
                            cudaStream_t stream) {
  mirage_k0<<<1, 32, 0, stream>>>(static_cast<const half*>(inputs[0]), static_cast<half*>(outputs[0]));
  return static_cast<int>(cudaGetLastError());
}
#endif
)";

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / fmt::format("mirage-nvrtc-test-{}", ::getpid());
    fs::remove_all(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

CompileRequest request(std::string source, std::string arch = "sm_90") {
  CompileRequest r;
  r.source = std::move(source);
  r.arch = std::move(arch);
  r.label = "test source";
  return r;
}

CompilerOptions uncached() {
  CompilerOptions o;
  o.useCache = false;
  return o;
}

CompilerOptions onDisk(const fs::path& dir) {
  CompilerOptions o;
  o.cacheDir = dir.string();
  return o;
}

}  // namespace

TEST_CASE("content hashes are 128-bit and tell sources apart") {
  CHECK(contentHash("a").size() == 32);
  CHECK(contentHash("a") != contentHash("b"));
  CHECK(contentHash("ab") != contentHash("ba"));
  CHECK(contentHash("x") == contentHash("x"));
}

TEST_CASE("generated-style sources compile to PTX and cubin for each target") {
  if (!Compiler::available()) {
    WARN("built without NVRTC");
    return;
  }
  Compiler compiler(uncached());
  for (const char* arch : {"sm_80", "sm_90"}) {
    CompileRequest r = request(kGenerated, arch);
    r.kernelNames = {"mirage_k0"};
    CompileResult c = compiler.compile(r);
    INFO(c.error << "\n" << c.log);
    REQUIRE(c.ok);
    CHECK(c.ptx.find(fmt::format(".target {}", arch)) != std::string::npos);
    CHECK(c.ptx.find(".entry mirage_k0") != std::string::npos);
    REQUIRE(c.cubin.size() > 4);
    CHECK(c.cubin.substr(0, 4) == "\x7f" "ELF");
    CHECK(c.loweredNames.at("mirage_k0") == "mirage_k0");  // extern "C": not mangled
  }
  // A virtual architecture gives PTX only.
  CompileResult ptxOnly = compiler.compile(request(kGenerated, "compute_80"));
  REQUIRE(ptxOnly.ok);
  CHECK(ptxOnly.cubin.empty());
  CHECK_FALSE(ptxOnly.ptx.empty());
}

TEST_CASE("C++ kernel names are lowered to their mangled symbols") {
  if (!Compiler::available()) return;
  Compiler compiler(uncached());
  CompileRequest r = request("__global__ void scale(float* p) { p[threadIdx.x] *= 2; }\n");
  r.kernelNames = {"scale"};
  CompileResult c = compiler.compile(r);
  REQUIRE(c.ok);
  CHECK(c.loweredNames.at("scale") == "_Z5scalePf");
}

TEST_CASE("a compile error returns NVRTC's log") {
  if (!Compiler::available()) return;
  Compiler compiler;
  CompileResult c = compiler.compile(request("__global__ void k() { undefined_thing(); }\n"));
  CHECK_FALSE(c.ok);
  CHECK(c.error.starts_with("NVRTC failed to compile test source for sm_90"));
  CHECK(c.log.find("undefined_thing") != std::string::npos);
  CHECK(c.cubin.empty());
  CHECK(compiler.stats().failures == 1);
}

TEST_CASE("the memory cache returns the same binary without compiling") {
  if (!Compiler::available()) return;
  Compiler compiler;
  CompileResult first = compiler.compile(request(kGenerated));
  REQUIRE(first.ok);
  CHECK_FALSE(first.fromCache);
  CompileResult second = compiler.compile(request(kGenerated));
  CHECK(second.fromCache);
  CHECK(second.cubin == first.cubin);
  // Another architecture or option is another key.
  CHECK_FALSE(compiler.compile(request(kGenerated, "sm_80")).fromCache);
  CompileRequest withOption = request(kGenerated);
  withOption.options = {"-DUNUSED=1"};
  CHECK_FALSE(compiler.compile(withOption).fromCache);
  Compiler::Stats s = compiler.stats();
  CHECK(s.compiled == 3);
  CHECK(s.memoryHits == 1);
}

TEST_CASE("the disk cache survives the compiler and ignores damaged entries") {
  if (!Compiler::available()) return;
  TempDir dir;
  CompileResult original;
  {
    Compiler compiler(onDisk(dir.path));
    original = compiler.compile(request(kGenerated));
    REQUIRE(original.ok);
  }
  std::vector<fs::path> entries;
  for (const auto& e : fs::directory_iterator(dir.path)) entries.push_back(e.path());
  REQUIRE(entries.size() == 1);
  CHECK(entries[0].extension() == ".nvrtc");
  {
    Compiler compiler(onDisk(dir.path));
    CompileResult again = compiler.compile(request(kGenerated));
    CHECK(again.fromCache);
    CHECK(again.cubin == original.cubin);
    CHECK(again.ptx == original.ptx);
    CHECK(compiler.stats().diskHits == 1);
  }
  // A truncated entry is a miss and is rewritten whole.
  fs::resize_file(entries[0], fs::file_size(entries[0]) / 2);
  {
    Compiler compiler(onDisk(dir.path));
    CompileResult rebuilt = compiler.compile(request(kGenerated));
    REQUIRE(rebuilt.ok);
    CHECK_FALSE(rebuilt.fromCache);
    CHECK(rebuilt.cubin == original.cubin);
  }
  {
    Compiler compiler(onDisk(dir.path));
    CHECK(compiler.compile(request(kGenerated)).fromCache);
  }
}

TEST_CASE("compileAll compiles on a thread pool and keeps request order") {
  if (!Compiler::available()) return;
  Compiler compiler;
  std::vector<CompileRequest> requests;
  for (int i = 0; i < 4; ++i)
    requests.push_back(request(fmt::format(
        "extern \"C\" __global__ void kernel_{0}(float* p) {{ p[threadIdx.x] += {0}; }}\n", i)));
  requests.push_back(request("this is not CUDA"));
  requests.push_back(requests[0]);  // a duplicate: compiled or served from the cache
  std::vector<CompileResult> results = compiler.compileAll(requests, 2);
  REQUIRE(results.size() == 6);
  for (int i = 0; i < 4; ++i) {
    REQUIRE(results[static_cast<size_t>(i)].ok);
    CHECK(results[static_cast<size_t>(i)].ptx.find(fmt::format(".entry kernel_{}", i)) != std::string::npos);
  }
  CHECK_FALSE(results[4].ok);
  CHECK(results[5].ok);
  CHECK(results[5].cubin == results[0].cubin);
}

TEST_CASE("the memory cache keeps a bounded number of entries") {
  if (!Compiler::available()) return;
  CompilerOptions options;
  options.memoryEntries = 2;
  Compiler compiler(options);
  auto source = [](int i) {
    return request(fmt::format("extern \"C\" __global__ void k{0}(float* p) {{ p[0] = {0}; }}\n", i));
  };
  for (int i = 0; i < 3; ++i) REQUIRE(compiler.compile(source(i)).ok);
  CHECK(compiler.compile(source(2)).fromCache);
  CHECK(compiler.compile(source(1)).fromCache);
  CHECK_FALSE(compiler.compile(source(0)).fromCache);  // the oldest was forgotten
}
