// interp_program_check FILE.mg: a file-driven interpreter test. The program
// carries its inputs and expected outputs in comment lines:
//   # in NAME: v v v ...        every element, row-major (commas optional)
//   # out NAME: v v v ...       expected values of an output
//   # tol: R                    relative tolerance (default 1e-6; 0 = exact)
// Values may be numbers, inf, -inf or nan. Inputs without `# in` are filled
// from seed 0. Exits 0 when every listed output matches, else prints each
// mismatch as FILE: ... and exits 1.
#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "mirage/interp/interpreter.h"
#include "mirage/interp/tensor.h"
#include "mirage/parse/parser.h"

using namespace mirage;

namespace {

bool parseValues(std::string text, std::vector<double>& out) {
  for (char& c : text)
    if (c == ',') c = ' ';
  std::istringstream in(text);
  std::string word;
  while (in >> word) {
    if (word == "inf") {
      out.push_back(INFINITY);
    } else if (word == "-inf") {
      out.push_back(-INFINITY);
    } else if (word == "nan") {
      out.push_back(NAN);
    } else {
      char* end = nullptr;
      double v = std::strtod(word.c_str(), &end);
      if (*end != '\0') return false;
      out.push_back(v);
    }
  }
  return true;
}

bool close(double got, double want, double tol) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  return std::fabs(got - want) <= tol * std::fabs(want) + (tol > 0 ? 1e-7 : 0.0);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: interp_program_check FILE.mg\n";
    return 2;
  }
  std::string path = argv[1];
  auto g = parse::parseFile(path, std::cerr);
  if (!g) return 1;

  std::map<std::string, std::vector<double>> ins, outs;
  double tol = 1e-6;
  std::ifstream file(path);
  std::string line;
  int lineNo = 0;
  while (std::getline(file, line)) {
    ++lineNo;
    for (const char* key : {"# in ", "# out "}) {
      if (line.rfind(key, 0) != 0) continue;
      size_t colon = line.find(':');
      std::vector<double> values;
      if (colon == std::string::npos || !parseValues(line.substr(colon + 1), values)) {
        std::cerr << path << ":" << lineNo << ": bad directive\n";
        return 1;
      }
      std::string name = line.substr(std::string(key).size(), colon - std::string(key).size());
      (std::string(key) == "# in " ? ins : outs)[name] = values;
    }
    if (line.rfind("# tol:", 0) == 0) tol = std::strtod(line.c_str() + 6, nullptr);
  }
  if (outs.empty()) {
    std::cerr << path << ": no '# out' directive\n";
    return 1;
  }

  std::vector<interp::Tensor> inputs;
  for (ir::ValueId v : g->inputs) {
    const ir::Value& value = g->value(v);
    auto it = ins.find(value.name);
    if (it == ins.end()) {
      inputs.push_back(interp::randomTensor(value.shape, g->dtype, 0, value.name));
      continue;
    }
    if (static_cast<int64_t>(it->second.size()) != ir::numElements(value.shape)) {
      std::cerr << path << ": input " << value.name << " needs " << ir::numElements(value.shape)
                << " values, has " << it->second.size() << "\n";
      return 1;
    }
    interp::Tensor t(value.shape);
    for (size_t i = 0; i < it->second.size(); ++i) t.data[i] = static_cast<float>(it->second[i]);
    inputs.push_back(std::move(t));
    ins.erase(it);
  }
  if (!ins.empty()) {
    std::cerr << path << ": '# in " << ins.begin()->first << "' is not an input of the program\n";
    return 1;
  }

  std::vector<interp::Tensor> results = interp::evaluate(*g, inputs);
  int failures = 0;
  for (const auto& [name, want] : outs) {
    int index = -1;
    for (size_t i = 0; i < g->outputs.size(); ++i)
      if (g->value(g->outputs[i]).name == name) index = static_cast<int>(i);
    if (index < 0) {
      std::cerr << path << ": '# out " << name << "' is not an output of the program\n";
      return 1;
    }
    const interp::Tensor& got = results[static_cast<size_t>(index)];
    if (got.data.size() != want.size()) {
      std::cerr << path << ": output " << name << " has " << got.data.size() << " elements, expected "
                << want.size() << "\n";
      ++failures;
      continue;
    }
    for (size_t i = 0; i < want.size(); ++i) {
      if (close(got.data[i], want[i], tol)) continue;
      std::cerr << path << ": output " << name << " element " << i << " (index [";
      std::vector<int64_t> idx = interp::unflatIndex(got.shape, static_cast<int64_t>(i));
      for (size_t d = 0; d < idx.size(); ++d) std::cerr << (d ? ", " : "") << idx[d];
      std::cerr << "]): got " << got.data[i] << ", expected " << want[i] << "\n";
      ++failures;
    }
  }
  return failures == 0 ? 0 : 1;
}
