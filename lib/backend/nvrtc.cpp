// NVRTC compilation with a content-keyed cache and a thread pool.
#include "mirage/backend/nvrtc.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include <unistd.h>

#include <fmt/format.h>

#if MIRAGE_HAVE_NVRTC
#include <nvrtc.h>
#endif

namespace mirage::backend {

namespace fs = std::filesystem;

struct Compiler::Entry {
  std::string key;  // the full key text: a hash collision is detected, not trusted
  CompileResult result;
};

namespace {

constexpr std::string_view kDiskMagic = "mirage-nvrtc-cache 2\n";
// The last field of an entry: a file cut short anywhere (a crash before the
// rename reached the disk, a damaged network file system) lacks it and is a
// miss. Entries are renamed into place whole, so readers need no lock.
constexpr std::string_view kDiskEnd = "end of entry";

uint64_t fnv1a(const std::string& text, uint64_t basis, uint64_t prime) {
  uint64_t h = basis;
  for (unsigned char c : text) {
    h ^= c;
    h *= prime;
  }
  return h;
}

// Length-prefixed fields, so binary cubins and logs round-trip exactly.
void writeField(std::ostream& out, const std::string& s) {
  out << s.size() << '\n';
  out.write(s.data(), static_cast<std::streamsize>(s.size()));
}

bool readField(std::istream& in, std::string* s) {
  size_t size = 0;
  if (!(in >> size) || in.get() != '\n' || size > (size_t{1} << 31)) return false;
  s->resize(size);
  in.read(s->data(), static_cast<std::streamsize>(size));
  return static_cast<size_t>(in.gcount()) == size;
}

#if MIRAGE_HAVE_NVRTC
std::string nvrtcMessage(nvrtcResult r) { return nvrtcGetErrorString(r); }
#endif

}  // namespace

std::string contentHash(const std::string& text) {
  uint64_t a = fnv1a(text, 0xcbf29ce484222325ull, 0x100000001b3ull);
  // A second, independent variant: different basis and prime.
  uint64_t b = fnv1a(text, 0x84222325cbf29ce4ull, 0x00000100000001b3ull ^ 0x2f0ull);
  return fmt::format("{:016x}{:016x}", a, b);
}

Compiler::Compiler(CompilerOptions options) : options_(std::move(options)) {
#ifdef MIRAGE_CUDA_INCLUDE_DIR
  if (options_.includeDirs.empty()) options_.includeDirs.push_back(MIRAGE_CUDA_INCLUDE_DIR);
#endif
}

Compiler::~Compiler() = default;

bool Compiler::available() { return MIRAGE_HAVE_NVRTC != 0; }

std::string Compiler::nvrtcVersion() {
#if MIRAGE_HAVE_NVRTC
  int major = 0, minor = 0;
  if (::nvrtcVersion(&major, &minor) == NVRTC_SUCCESS) return fmt::format("{}.{}", major, minor);
#endif
  return "unavailable";
}

Compiler::Stats Compiler::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

std::string Compiler::keyText(const CompileRequest& request) const {
  std::string key = fmt::format("nvrtc {}\narch {}\n", nvrtcVersion(), request.arch);
  for (const std::string& o : request.options) key += fmt::format("option {}\n", o);
  for (const std::string& d : options_.includeDirs) key += fmt::format("include {}\n", d);
  for (const std::string& n : request.kernelNames) key += fmt::format("kernel {}\n", n);
  key += "source\n";
  key += request.source;
  return key;
}

CompileResult Compiler::compile(const CompileRequest& request) {
  if (!options_.useCache) {
    CompileResult r = compileUncached(request);
    std::lock_guard lock(mutex_);
    ++stats_.compiled;
    if (!r.ok) ++stats_.failures;
    return r;
  }
  const std::string key = keyText(request);
  const std::string hash = contentHash(key);
  {
    std::lock_guard lock(mutex_);
    auto it = memory_.find(hash);
    if (it != memory_.end() && it->second->key == key) {
      ++stats_.memoryHits;
      CompileResult r = it->second->result;
      r.fromCache = true;
      r.seconds = 0;
      return r;
    }
  }
  CompileResult result;
  bool fromDisk = !options_.cacheDir.empty() && loadFromDisk(hash, key, &result);
  if (!fromDisk) {
    result = compileUncached(request);
    if (result.ok && !options_.cacheDir.empty()) storeToDisk(hash, key, result);
  }
  auto entry = std::make_shared<Entry>();
  entry->key = key;
  entry->result = result;
  {
    std::lock_guard lock(mutex_);
    if (memory_.insert_or_assign(hash, std::move(entry)).second) memoryOrder_.push_back(hash);
    while (memoryOrder_.size() > std::max<size_t>(options_.memoryEntries, 1)) {
      memory_.erase(memoryOrder_.front());
      memoryOrder_.pop_front();
    }
    if (fromDisk) {
      ++stats_.diskHits;
    } else {
      ++stats_.compiled;
      if (!result.ok) ++stats_.failures;
    }
  }
  if (fromDisk) {
    result.fromCache = true;
    result.seconds = 0;
  }
  return result;
}

std::vector<CompileResult> Compiler::compileAll(const std::vector<CompileRequest>& requests,
                                                int jobs) {
  std::vector<CompileResult> results(requests.size());
  if (jobs <= 0) jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  jobs = std::min<int>(jobs, static_cast<int>(requests.size()));
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < requests.size(); i = next++) results[i] = compile(requests[i]);
  };
  if (jobs <= 1) {
    worker();
    return results;
  }
  std::vector<std::thread> pool;
  pool.reserve(static_cast<size_t>(jobs));
  for (int j = 0; j < jobs; ++j) pool.emplace_back(worker);
  for (std::thread& t : pool) t.join();
  return results;
}

CompileResult Compiler::compileUncached(const CompileRequest& request) const {
  CompileResult result;
  const std::string label = request.label.empty() ? std::string("source") : request.label;
#if !MIRAGE_HAVE_NVRTC
  result.error = fmt::format("cannot compile {}: this build of mirage has no NVRTC", label);
  return result;
#else
  auto start = std::chrono::steady_clock::now();
  nvrtcProgram program = nullptr;
  std::string fileName = "mirage.cu";
  nvrtcResult r = nvrtcCreateProgram(&program, request.source.c_str(), fileName.c_str(), 0,
                                     nullptr, nullptr);
  if (r != NVRTC_SUCCESS) {
    result.error = fmt::format("NVRTC could not create a program for {}: {}", label, nvrtcMessage(r));
    return result;
  }
  // A name asked for twice (launches that share a function) is added once:
  // NVRTC takes each name expression once.
  std::set<std::string> named;
  for (const std::string& name : request.kernelNames) {
    if (!named.insert(name).second) continue;
    r = nvrtcAddNameExpression(program, name.c_str());
    if (r != NVRTC_SUCCESS) {
      result.error = fmt::format("NVRTC rejected kernel name '{}': {}", name, nvrtcMessage(r));
      nvrtcDestroyProgram(&program);
      return result;
    }
  }

  std::vector<std::string> optionText;
  optionText.push_back("--gpu-architecture=" + request.arch);
  bool hasStd = false;
  for (const std::string& o : request.options) hasStd = hasStd || o.starts_with("-std") || o.starts_with("--std");
  if (!hasStd) optionText.push_back("-std=c++17");
  for (const std::string& d : options_.includeDirs) optionText.push_back("-I" + d);
  for (const std::string& o : request.options) optionText.push_back(o);
  std::vector<const char*> optionPtrs;
  for (const std::string& o : optionText) optionPtrs.push_back(o.c_str());

  r = nvrtcCompileProgram(program, static_cast<int>(optionPtrs.size()), optionPtrs.data());
  size_t logSize = 0;
  if (nvrtcGetProgramLogSize(program, &logSize) == NVRTC_SUCCESS && logSize > 1) {
    result.log.resize(logSize);
    nvrtcGetProgramLog(program, result.log.data());
    while (!result.log.empty() && (result.log.back() == '\0' || result.log.back() == '\n'))
      result.log.pop_back();
  }
  if (r != NVRTC_SUCCESS) {
    result.error = fmt::format("NVRTC failed to compile {} for {}: {}", label, request.arch,
                               nvrtcMessage(r));
    nvrtcDestroyProgram(&program);
    return result;
  }

  size_t size = 0;
  if (nvrtcGetPTXSize(program, &size) == NVRTC_SUCCESS && size > 0) {
    result.ptx.resize(size);
    nvrtcGetPTX(program, result.ptx.data());
    if (!result.ptx.empty() && result.ptx.back() == '\0') result.ptx.pop_back();
  }
  // A virtual architecture (compute_XX) yields PTX only; sm_XX yields a cubin too.
  if (request.arch.starts_with("sm_") && nvrtcGetCUBINSize(program, &size) == NVRTC_SUCCESS &&
      size > 0) {
    result.cubin.resize(size);
    nvrtcGetCUBIN(program, result.cubin.data());
  }
  for (const std::string& name : request.kernelNames) {
    const char* lowered = nullptr;
    if (nvrtcGetLoweredName(program, name.c_str(), &lowered) == NVRTC_SUCCESS && lowered)
      result.loweredNames[name] = lowered;
    else
      result.loweredNames[name] = name;
  }
  nvrtcDestroyProgram(&program);
  result.ok = true;
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
#endif
}

bool Compiler::loadFromDisk(const std::string& hash, const std::string& key,
                            CompileResult* result) const {
  std::ifstream in(fs::path(options_.cacheDir) / (hash + ".nvrtc"), std::ios::binary);
  if (!in) return false;
  std::string magic(kDiskMagic.size(), '\0');
  in.read(magic.data(), static_cast<std::streamsize>(magic.size()));
  if (magic != kDiskMagic) return false;
  std::string storedKey, count;
  CompileResult r;
  if (!readField(in, &storedKey) || storedKey != key) return false;
  if (!readField(in, &r.log) || !readField(in, &r.ptx) || !readField(in, &r.cubin) ||
      !readField(in, &count))
    return false;
  int n = std::atoi(count.c_str());
  for (int i = 0; i < n; ++i) {
    std::string name, lowered;
    if (!readField(in, &name) || !readField(in, &lowered)) return false;
    r.loweredNames[name] = lowered;
  }
  std::string end;
  if (!readField(in, &end) || end != kDiskEnd) return false;
  r.ok = true;
  *result = std::move(r);
  return true;
}

void Compiler::storeToDisk(const std::string& hash, const std::string& key,
                           const CompileResult& result) const {
  // Written to a temporary name and renamed: a reader sees a whole entry or none.
  std::error_code ec;
  fs::create_directories(options_.cacheDir, ec);
  fs::path final = fs::path(options_.cacheDir) / (hash + ".nvrtc");
  fs::path temp = final;
  // Unique across threads, processes and machines sharing the directory
  // (pids repeat across hosts): the host name, the pid, the thread and a
  // per-process counter.
  static std::atomic<uint64_t> counter{0};
  char host[64] = {0};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  for (char* c = host; *c; ++c)
    if (*c == '/') *c = '_';
  temp += fmt::format(".tmp.{}.{}.{:x}.{}", host, ::getpid(),
                      std::hash<std::thread::id>{}(std::this_thread::get_id()) & 0xffffff, counter.fetch_add(1));
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) return;  // an unwritable cache directory only costs recompiles
    out.write(kDiskMagic.data(), static_cast<std::streamsize>(kDiskMagic.size()));
    writeField(out, key);
    writeField(out, result.log);
    writeField(out, result.ptx);
    writeField(out, result.cubin);
    writeField(out, std::to_string(result.loweredNames.size()));
    for (const auto& [name, lowered] : result.loweredNames) {
      writeField(out, name);
      writeField(out, lowered);
    }
    writeField(out, std::string(kDiskEnd));
    if (!out.flush()) {
      out.close();
      fs::remove(temp, ec);
      return;
    }
  }
  fs::rename(temp, final, ec);
  if (ec) fs::remove(temp, ec);
}

}  // namespace mirage::backend
