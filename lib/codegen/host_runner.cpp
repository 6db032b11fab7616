// Builds a generated .cu file for the host (see host_runner.h): the file and
// the shim header go to a fresh temporary directory, the system compiler
// makes a shared object of them, and dlopen loads it.
#include "mirage/codegen/host_runner.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>

#include "host_shim.h"
#include "mirage/interp/rounding.h"
#include "mirage/interp/run.h"

extern char** environ;

#ifndef MIRAGE_HOST_CXX
#define MIRAGE_HOST_CXX "c++"
#endif

namespace mirage::codegen {
namespace {

namespace fs = std::filesystem;

using EntryFn = int (*)(const void* const*, void* const*, void*, void*);
using WorkspaceFn = size_t (*)();

// Runs argv with stderr and stdout into `logPath`; returns the exit status.
int spawn(const std::vector<std::string>& args, const std::string& logPath) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 2, logPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 2, 1);
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid;
  int rc = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string readFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

HostModule::~HostModule() {
  std::free(workspace_);
  if (handle_) dlclose(handle_);
}

std::unique_ptr<HostModule> HostModule::build(const std::string& source, std::string& error) {
  std::unique_ptr<HostModule> m(new HostModule());
  if (error = readSignature(source, m->sig_); !error.empty()) return nullptr;
  std::string pattern = (fs::temp_directory_path() / "mirage-host-XXXXXX").string();
  if (!mkdtemp(pattern.data())) {
    error = fmt::format("cannot create a temporary directory: {}", std::strerror(errno));
    return nullptr;
  }
  fs::path dir = pattern;
  {
    std::ofstream(dir / "kernel.cu", std::ios::binary) << source;
    std::ofstream(dir / "mirage_host_shim.h", std::ios::binary) << hostShimHeader();
  }
  const char* cxx = std::getenv("MIRAGE_HOST_CXX");
  std::vector<std::string> args = {cxx && *cxx ? cxx : MIRAGE_HOST_CXX,
                                   "-std=c++17", "-O1", "-fPIC", "-shared", "-pthread", "-w", "-DMIRAGE_HOST_SHIM",
                                   "-x", "c++", "-I", dir.string(), (dir / "kernel.cu").string(),
                                   "-o", (dir / "kernel.so").string()};
  int rc = spawn(args, (dir / "log.txt").string());
  if (rc != 0) {
    error = fmt::format("host compilation of the .cu file failed ({} exited with {}):\n{}", args[0], rc,
                        readFile(dir / "log.txt"));
    std::error_code ec;
    fs::remove_all(dir, ec);
    return nullptr;
  }
  m->handle_ = dlopen((dir / "kernel.so").c_str(), RTLD_NOW | RTLD_LOCAL);
  std::error_code ec;
  fs::remove_all(dir, ec);  // the mapping stays valid
  if (!m->handle_) {
    error = fmt::format("cannot load the host build: {}", dlerror());
    return nullptr;
  }
  std::string entry = "mirage_" + m->sig_.program;
  m->entry_ = dlsym(m->handle_, entry.c_str());
  if (!m->entry_ || !dlsym(m->handle_, (entry + "_workspace_bytes").c_str())) {
    error = fmt::format("the file does not define {} and {}_workspace_bytes", entry, entry);
    return nullptr;
  }
  int64_t ws = m->workspaceBytes();
  m->workspace_ = std::aligned_alloc(256, static_cast<size_t>((std::max<int64_t>(ws, 1) + 255) / 256 * 256));
  if (!m->workspace_) {
    error = fmt::format("cannot allocate a workspace of {} bytes", ws);
    return nullptr;
  }
  return m;
}

int64_t HostModule::workspaceBytes() const {
  auto fn = reinterpret_cast<WorkspaceFn>(dlsym(handle_, ("mirage_" + sig_.program + "_workspace_bytes").c_str()));
  return static_cast<int64_t>(fn());
}

std::string HostModule::run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs) const {
  if (inputs.size() != sig_.inputs.size() || outputs.size() != sig_.outputs.size())
    return fmt::format("expected {} inputs and {} outputs, got {} and {}", sig_.inputs.size(), sig_.outputs.size(),
                       inputs.size(), outputs.size());
  int rc = reinterpret_cast<EntryFn>(entry_)(inputs.data(), outputs.data(), workspace_, nullptr);
  if (rc != 0) return fmt::format("mirage_{} returned error {} (under the host shim)", sig_.program, rc);
  return {};
}

std::string HostModule::run(const std::vector<interp::Tensor>& inputs, std::vector<interp::Tensor>& outputs) const {
  if (inputs.size() != sig_.inputs.size())
    return fmt::format("expected {} inputs, got {}", sig_.inputs.size(), inputs.size());
  // Device-format buffers: 16-bit patterns or floats, 16-byte aligned.
  auto bytesOf = [](const TensorSignature& t) { return ir::numElements(t.shape) * ir::dtypeBytes(t.dtype); };
  std::vector<std::unique_ptr<unsigned char, decltype(&std::free)>> buffers;
  auto alloc = [&](int64_t n) {
    void* p = std::aligned_alloc(256, static_cast<size_t>((std::max<int64_t>(n, 1) + 255) / 256 * 256));
    buffers.emplace_back(static_cast<unsigned char*>(p), &std::free);
    return p;
  };
  std::vector<const void*> in;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorSignature& s = sig_.inputs[i];
    if (inputs[i].shape != s.shape)
      return fmt::format("input '{}' has shape {}, expected {}", s.name, ir::shapeToString(inputs[i].shape),
                         ir::shapeToString(s.shape));
    void* p = alloc(bytesOf(s));
    for (int64_t e = 0; e < inputs[i].size(); ++e) {
      float x = inputs[i].data[static_cast<size_t>(e)];
      if (s.dtype == ir::DType::F32)
        static_cast<float*>(p)[e] = x;
      else
        static_cast<uint16_t*>(p)[e] = s.dtype == ir::DType::F16 ? interp::floatToHalfBits(x) : interp::floatToBf16Bits(x);
    }
    in.push_back(p);
  }
  std::vector<void*> out;
  for (const TensorSignature& s : sig_.outputs) out.push_back(alloc(bytesOf(s)));
  if (std::string e = run(in, out); !e.empty()) return e;
  outputs.clear();
  for (size_t j = 0; j < out.size(); ++j) {
    const TensorSignature& s = sig_.outputs[j];
    interp::Tensor t(s.shape);
    for (int64_t e = 0; e < t.size(); ++e) {
      if (s.dtype == ir::DType::F32)
        t.data[static_cast<size_t>(e)] = static_cast<float*>(out[j])[e];
      else {
        uint16_t bits = static_cast<uint16_t*>(out[j])[e];
        t.data[static_cast<size_t>(e)] = s.dtype == ir::DType::F16 ? interp::halfBitsToFloat(bits) : interp::bf16BitsToFloat(bits);
      }
    }
    outputs.push_back(std::move(t));
  }
  return {};
}

int runCudaFileOnHost(const std::string& path, const interp::RunOptions& options, std::ostream& out,
                      std::ostream& err) {
  auto fail = [&](const std::string& message, int status) {
    err << "mirage-run: error: " << message << "\n";
    return status;
  };
  std::string source;
  if (std::string e = readCuFile(path, source); !e.empty()) return fail(e, interp::kExitFailed);
  Signature sig;
  if (std::string e = readSignature(source, sig); !e.empty()) return fail(fmt::format("{}: {}", path, e), interp::kExitFailed);
  if (std::string e = checkRunNames(options, sig.inputs, sig.outputs, fmt::format("program '{}'", sig.program));
      !e.empty())
    return fail(e, interp::kExitBadCommand);
  std::vector<interp::Tensor> inputs;
  if (std::string e = makeRunInputs(options, sig.inputs, inputs); !e.empty()) return fail(e, interp::kExitFailed);

  std::string error;
  auto module = HostModule::build(source, error);
  if (!module) return fail(fmt::format("{}: {}", path, error), interp::kExitFailed);
  std::vector<interp::Tensor> results;
  if (std::string e = module->run(inputs, results); !e.empty()) return fail(fmt::format("{}: {}", path, e), interp::kExitFailed);
  if (std::string e = writeRunOutputs(options, sig.outputs, results, out); !e.empty()) return fail(e, interp::kExitFailed);
  return interp::kExitOk;
}

}  // namespace mirage::codegen
