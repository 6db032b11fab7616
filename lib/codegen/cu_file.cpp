// Reading a generated .cu file and the runner-independent steps of
// `mirage-run KERNEL.cu`; see cu_file.h.
#include "mirage/codegen/cu_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <ostream>
#include <set>
#include <sstream>

#include "mirage/interp/npy.h"

namespace mirage::codegen {
namespace {

bool parseTensorLine(const std::string& text, TensorSignature& t) {
  // "NAME DTYPE[d0, d1, ...]"
  std::istringstream in(text);
  std::string name, rest;
  if (!(in >> name)) return false;
  std::getline(in, rest);
  rest.erase(0, rest.find_first_not_of(' '));
  size_t open = rest.find('['), close = rest.find(']');
  if (open == std::string::npos || close == std::string::npos) return false;
  auto dtype = ir::dtypeFromName(rest.substr(0, open));
  if (!dtype) return false;
  t.name = name;
  t.dtype = *dtype;
  t.shape.clear();
  std::string dims = rest.substr(open + 1, close - open - 1);
  std::replace(dims.begin(), dims.end(), ',', ' ');
  std::istringstream ds(dims);
  for (int64_t e; ds >> e;) t.shape.push_back(e);
  return !t.shape.empty();
}

int indexOf(const std::vector<TensorSignature>& list, const std::string& name) {
  for (size_t i = 0; i < list.size(); ++i)
    if (list[i].name == name) return static_cast<int>(i);
  return -1;
}

std::string namesOf(const std::vector<TensorSignature>& list) {
  std::vector<std::string> n;
  for (const TensorSignature& t : list) n.push_back(t.name);
  return fmt::format("{}", fmt::join(n, ", "));
}

// One of --in / --out: every name is one of `list`, none twice.
std::string checkNames(const std::vector<interp::NamedFile>& files, const std::vector<TensorSignature>& list,
                       const char* option, const char* what, const std::string& owner) {
  std::set<std::string> seen;
  for (const interp::NamedFile& f : files) {
    if (indexOf(list, f.name) < 0)
      return fmt::format("{} {}: {} has no {} '{}' (its {}s: {})", option, f.name, owner, what, f.name, what,
                         namesOf(list));
    if (!seen.insert(f.name).second) return fmt::format("{} {} is given twice", option, f.name);
  }
  return {};
}

}  // namespace

std::string readSignature(const std::string& source, Signature& sig) {
  sig = Signature{};
  std::istringstream in(source);
  std::string line;
  enum { None, Inputs, Outputs } section = None;
  bool sawInputs = false, sawOutputs = false;
  while (std::getline(in, line)) {
    if (line.rfind("//", 0) != 0) break;  // the header comment ends
    std::string text = line.substr(2);
    if (text.rfind(" Program: ", 0) == 0) {
      std::istringstream ps(text.substr(10));
      ps >> sig.program;
      section = None;
    } else if (text == " Inputs:") {
      section = Inputs;
      sawInputs = true;
    } else if (text == " Outputs:") {
      section = Outputs;
      sawOutputs = true;
    } else if (text.rfind("   ", 0) == 0 && section != None) {
      TensorSignature t;
      if (!parseTensorLine(text, t)) return fmt::format("unreadable tensor line in the header: '{}'", line);
      (section == Inputs ? sig.inputs : sig.outputs).push_back(t);
    } else {
      section = None;
    }
  }
  if (sig.program.empty() || !sawInputs || !sawOutputs || sig.outputs.empty())
    return "the file does not start with the header comment mirage-opt writes (Program, Inputs, Outputs)";
  return {};
}

std::string readCuFile(const std::string& path, std::string& source) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return fmt::format("{}: cannot open the file", path);
  std::stringstream ss;
  ss << file.rdbuf();
  source = ss.str();
  return {};
}

std::string checkRunNames(const interp::RunOptions& options, const std::vector<TensorSignature>& inputs,
                          const std::vector<TensorSignature>& outputs, const std::string& owner) {
  if (std::string e = checkNames(options.inputs, inputs, "--in", "input", owner); !e.empty()) return e;
  return checkNames(options.outputs, outputs, "--out", "output", owner);
}

std::string makeRunInputs(const interp::RunOptions& options, const std::vector<TensorSignature>& inputs,
                          std::vector<interp::Tensor>& tensors) {
  tensors.clear();
  for (const TensorSignature& s : inputs) {
    auto given = std::find_if(options.inputs.begin(), options.inputs.end(),
                              [&](const interp::NamedFile& f) { return f.name == s.name; });
    if (given == options.inputs.end()) {
      tensors.push_back(interp::randomTensor(s.shape, s.dtype, options.seed, s.name));
      continue;
    }
    try {
      interp::Tensor t = interp::readNpy(given->file, s.dtype);
      if (t.shape != s.shape)
        return fmt::format("{}: shape {} does not match input '{}' {}{}", given->file, ir::shapeToString(t.shape),
                           s.name, ir::dtypeName(s.dtype), ir::shapeToString(s.shape));
      tensors.push_back(std::move(t));
    } catch (const interp::NpyError& e) {
      return e.what();
    }
  }
  return {};
}

std::string writeRunOutputs(const interp::RunOptions& options, const std::vector<TensorSignature>& outputs,
                            const std::vector<interp::Tensor>& results, std::ostream& out) {
  if (options.outputs.empty()) {
    for (size_t i = 0; i < results.size(); ++i)
      out << interp::summarizeOutput(outputs[i].name, outputs[i].dtype, results[i]) << "\n";
    return {};
  }
  for (const interp::NamedFile& f : options.outputs) {
    const size_t j = static_cast<size_t>(indexOf(outputs, f.name));
    try {
      interp::writeNpy(f.file, results[j], outputs[j].dtype);
    } catch (const interp::NpyError& e) {
      return e.what();
    }
  }
  return {};
}

}  // namespace mirage::codegen
