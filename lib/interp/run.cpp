// mirage-run's work for .mg programs; see run.h.
#include "mirage/interp/run.h"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <ostream>
#include <new>
#include <set>

#include <unistd.h>

#include "mirage/interp/interpreter.h"
#include "mirage/interp/npy.h"
#include "mirage/interp/tensor.h"

namespace mirage::interp {
namespace {

void error(std::ostream& err, const std::string& message) {
  err << "mirage-run: error: " << message << "\n";
}

// The index of the program input or output named `name`, or -1.
int findName(const ir::Graph& g, const std::vector<ir::ValueId>& list, const std::string& name) {
  for (size_t i = 0; i < list.size(); ++i)
    if (g.value(list[i]).name == name) return static_cast<int>(i);
  return -1;
}

std::string names(const ir::Graph& g, const std::vector<ir::ValueId>& list) {
  std::vector<std::string> n;
  for (ir::ValueId v : list) n.push_back(g.value(v).name);
  return fmt::format("{}", fmt::join(n, ", "));
}

}  // namespace

std::string summarizeOutput(const std::string& name, ir::DType dtype, const Tensor& t) {
  // Statistics over the finite elements; NaNs and infinities are counted.
  float lo = std::numeric_limits<float>::infinity(), hi = -lo;
  double sum = 0;
  int64_t finite = 0, nan = 0, inf = 0;
  for (float x : t.data) {
    if (std::isnan(x)) {
      ++nan;
    } else if (std::isinf(x)) {
      ++inf;
    } else {
      lo = std::min(lo, x);
      hi = std::max(hi, x);
      sum += x;
      ++finite;
    }
  }
  std::string s = fmt::format("{} = {}{}", name, ir::dtypeName(dtype), ir::shapeToString(t.shape));
  if (finite > 0)
    s += fmt::format(" min={:g} max={:g} mean={:g}", lo, hi, sum / static_cast<double>(finite));
  if (nan > 0) s += fmt::format(" nan={}", nan);
  if (inf > 0) s += fmt::format(" inf={}", inf);
  return s;
}

bool parseNamedFile(const std::string& text, NamedFile& out) {
  size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) return false;
  out.name = text.substr(0, eq);
  out.file = text.substr(eq + 1);
  return true;
}

namespace {

// Bytes the interpreter needs at most: every program-level tensor held at
// once, as f32 (it frees dead ones, so this is an upper bound).
double bytesNeeded(const ir::Graph& g) {
  double bytes = 0;
  for (const ir::Value& v : g.values) bytes += static_cast<double>(ir::numElements(v.shape)) * sizeof(float);
  return bytes;
}

double physicalMemory() {
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && size > 0 ? static_cast<double>(pages) * static_cast<double>(size) : 0;
}

int run(const ir::Graph& g, const RunOptions& options, std::ostream& out, std::ostream& err);

}  // namespace

int runProgram(const ir::Graph& g, const RunOptions& options, std::ostream& out, std::ostream& err) {
  // A legal program may hold up to 2^40 elements per tensor: refuse what
  // cannot fit rather than be killed part way.
  double need = bytesNeeded(g), have = physicalMemory();
  if (have > 0 && need > have) {
    error(err, fmt::format("program '{}' needs up to {:.1f} GiB for its tensors, more than this "
                           "machine's {:.1f} GiB of memory",
                           g.name, need / (1 << 30), have / (1 << 30)));
    return kExitFailed;
  }
  try {
    return run(g, options, out, err);
  } catch (const std::bad_alloc&) {
    error(err, fmt::format("out of memory running program '{}'", g.name));
    return kExitFailed;
  }
}

namespace {

int run(const ir::Graph& g, const RunOptions& options, std::ostream& out, std::ostream& err) {
  // Check the names first: a mistyped name is a command-line error and
  // should not cost a run.
  std::set<std::string> seen;
  for (const NamedFile& in : options.inputs) {
    if (findName(g, g.inputs, in.name) < 0) {
      error(err, fmt::format("--in {}: program '{}' has no input '{}' (its inputs: {})", in.name,
                             g.name, in.name, names(g, g.inputs)));
      return kExitBadCommand;
    }
    if (!seen.insert(in.name).second) {
      error(err, fmt::format("--in {} is given twice", in.name));
      return kExitBadCommand;
    }
  }
  seen.clear();
  for (const NamedFile& o : options.outputs) {
    if (findName(g, g.outputs, o.name) < 0) {
      error(err, fmt::format("--out {}: program '{}' has no output '{}' (its outputs: {})", o.name,
                             g.name, o.name, names(g, g.outputs)));
      return kExitBadCommand;
    }
    if (!seen.insert(o.name).second) {
      error(err, fmt::format("--out {} is given twice", o.name));
      return kExitBadCommand;
    }
  }

  std::vector<Tensor> inputs;
  for (ir::ValueId v : g.inputs) {
    const ir::Value& value = g.value(v);
    auto given = std::find_if(options.inputs.begin(), options.inputs.end(),
                              [&](const NamedFile& f) { return f.name == value.name; });
    if (given == options.inputs.end()) {
      spdlog::info("input {}: filled from seed {}", value.name, options.seed);
      inputs.push_back(randomTensor(value.shape, g.dtype, options.seed, value.name));
      continue;
    }
    try {
      Tensor t = readNpy(given->file, g.dtype);
      if (t.shape != value.shape) {
        error(err, fmt::format("{}: shape {} does not match input '{}' {}{}", given->file,
                               ir::shapeToString(t.shape), value.name, ir::dtypeName(g.dtype),
                               ir::shapeToString(value.shape)));
        return kExitFailed;
      }
      spdlog::info("input {}: read {}", value.name, given->file);
      inputs.push_back(std::move(t));
    } catch (const NpyError& e) {
      error(err, e.what());
      return kExitFailed;
    }
  }

  std::vector<Tensor> results;
  try {
    auto start = std::chrono::steady_clock::now();
    results = evaluate(g, inputs);
    std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    spdlog::info("evaluated '{}' in {:.3f} s", g.name, took.count());
  } catch (const std::exception& e) {
    error(err, fmt::format("evaluation failed: {}", e.what()));
    return kExitFailed;
  }

  if (options.outputs.empty()) {
    for (size_t i = 0; i < results.size(); ++i)
      out << summarizeOutput(g.value(g.outputs[i]).name, g.dtype, results[i]) << "\n";
    return kExitOk;
  }
  for (const NamedFile& o : options.outputs) {
    const Tensor& t = results[static_cast<size_t>(findName(g, g.outputs, o.name))];
    try {
      writeNpy(o.file, t, g.dtype);
      spdlog::info("output {}: wrote {}", o.name, o.file);
    } catch (const NpyError& e) {
      error(err, e.what());
      return kExitFailed;
    }
  }
  return kExitOk;
}

}  // namespace

}  // namespace mirage::interp
