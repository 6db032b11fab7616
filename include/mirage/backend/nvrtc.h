// Compiling the device code of generated CUDA with NVRTC: one source for one
// target architecture to PTX and cubin, many candidates in parallel on a
// thread pool, with a cache keyed by source, architecture and options (in
// memory, and optionally in a directory that survives the process). NVRTC
// defines __CUDACC_RTC__; generated files keep their host code (entry points,
// cudaStream_t) inside `#ifndef __CUDACC_RTC__` so that NVRTC sees device code
// only (docs/backend.md).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace mirage::backend {

struct CompileRequest {
  std::string source;
  std::string arch = "sm_90";            // "sm_80", "sm_90", "sm_90a", ...
  std::vector<std::string> options;      // extra NVRTC options, e.g. "-DFOO=1"
  std::vector<std::string> kernelNames;  // __global__ names whose lowered (mangled) names are wanted
  std::string label;                     // what the source is, for logs ("candidate 12")
};

struct CompileResult {
  bool ok = false;
  std::string error;  // one line: why it failed (empty when ok)
  std::string log;    // NVRTC's log, also on success (warnings)
  std::string ptx;
  std::string cubin;  // binary, for cuModuleLoadData
  // kernel name as requested -> the symbol to look up in the module
  std::map<std::string, std::string> loweredNames;
  bool fromCache = false;
  double seconds = 0;  // compile time (0 when cached)
};

struct CompilerOptions {
  std::string cacheDir;   // empty: memory cache only
  bool useCache = true;   // false: always compile, never read or write a cache
  std::vector<std::string> includeDirs;  // default: the CUDA toolkit's include directory
  size_t memoryEntries = 512;  // the memory cache forgets its oldest entries beyond this many
};

// Thread-safe: compile() and compileAll() may be called from several threads.
class Compiler {
 public:
  explicit Compiler(CompilerOptions options = {});
  ~Compiler();

  CompileResult compile(const CompileRequest& request);
  // Compiles every request on `jobs` threads (0: hardware concurrency);
  // results in request order.
  std::vector<CompileResult> compileAll(const std::vector<CompileRequest>& requests, int jobs = 0);

  struct Stats {
    int64_t compiled = 0;
    int64_t memoryHits = 0;
    int64_t diskHits = 0;
    int64_t failures = 0;
  };
  Stats stats() const;

  // "13.0", or "unavailable" when the build has no NVRTC.
  static std::string nvrtcVersion();
  // True when this build can compile (NVRTC was found at configure time).
  static bool available();

 private:
  struct Entry;
  std::string keyText(const CompileRequest& request) const;
  CompileResult compileUncached(const CompileRequest& request) const;
  bool loadFromDisk(const std::string& hash, const std::string& key, CompileResult* result) const;
  void storeToDisk(const std::string& hash, const std::string& key, const CompileResult& result) const;

  CompilerOptions options_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<const Entry>> memory_;  // by hash
  std::deque<std::string> memoryOrder_;  // hashes, oldest first
  Stats stats_;
};

// 128-bit content hash as 32 hex digits (two independent 64-bit FNV-1a
// variants); the cache also stores and compares the full key, so a collision
// costs a recompile, never a wrong binary.
std::string contentHash(const std::string& text);

}  // namespace mirage::backend
