// File-driven diagnostics tests: each .mg file names the diagnostics the
// parser must give for it, in comments of the form
//
//   # EXPECT: LINE:COL: error: TEXT
//   # EXPECT: LINE:COL: warning: TEXT
//
// where TEXT must occur in the message. Every diagnostic must match one
// expectation and every expectation one diagnostic; a file without any
// expectation must parse with no diagnostic at all. Usage: mg_expect FILE...
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "mirage/parse/parser.h"

namespace {

struct Expectation {
  int line = 0, col = 0;
  mirage::parse::Severity severity = mirage::parse::Severity::Error;
  std::string text;
  int fileLine = 0;  // where the EXPECT comment is
  bool matched = false;
};

// A rendered diagnostic is three lines: the message, the source line, and a
// caret under the column (these files use no tabs and short lines).
bool caretLinesUp(const std::string& rendered, const mirage::parse::Diagnostic& d) {
  size_t first = rendered.find('\n');
  size_t second = rendered.find('\n', first + 1);
  if (first == std::string::npos || second == std::string::npos) return false;
  std::string caret = rendered.substr(second + 1);
  return caret == std::string(static_cast<size_t>(d.loc.col - 1), ' ') + "^\n";
}

bool checkFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::cerr << path << ": cannot open\n";
    return false;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  std::string source = ss.str();

  static const std::regex kExpect(R"(#\s*EXPECT:\s*(\d+):(\d+):\s*(error|warning):\s*(.*?)\s*$)");
  std::vector<Expectation> expected;
  std::istringstream lines(source);
  std::string line;
  for (int n = 1; std::getline(lines, line); ++n) {
    std::smatch m;
    if (!std::regex_search(line, m, kExpect)) continue;
    Expectation e;
    e.line = std::stoi(m[1]);
    e.col = std::stoi(m[2]);
    e.severity = m[3] == "error" ? mirage::parse::Severity::Error : mirage::parse::Severity::Warning;
    e.text = m[4];
    e.fileLine = n;
    expected.push_back(e);
  }

  mirage::parse::Diagnostics diags(path, source);
  std::optional<mirage::ir::Graph> g = mirage::parse::parseProgram(source, diags);
  bool ok = true;
  for (const mirage::parse::Diagnostic& d : diags.all()) {
    if (!caretLinesUp(diags.render(d), d)) {
      std::cerr << "the caret is not under column " << d.loc.col << ":\n" << diags.render(d);
      ok = false;
    }
    bool found = false;
    for (Expectation& e : expected) {
      if (e.matched || e.line != d.loc.line || e.col != d.loc.col || e.severity != d.severity ||
          d.message.find(e.text) == std::string::npos)
        continue;
      e.matched = found = true;
      break;
    }
    if (!found) {
      std::cerr << "unexpected diagnostic:\n" << diags.render(d);
      ok = false;
    }
  }
  for (const Expectation& e : expected)
    if (!e.matched) {
      std::cerr << fmt::format("{}:{}: expected diagnostic not given: {}:{}: {}: {}\n", path,
                               e.fileLine, e.line, e.col,
                               e.severity == mirage::parse::Severity::Error ? "error" : "warning",
                               e.text);
      ok = false;
    }
  if (g.has_value() != (diags.errorCount() == 0)) {
    std::cerr << path << ": the parser's result disagrees with its error count\n";
    ok = false;
  }
  if (!ok) std::cerr << "all diagnostics for " << path << ":\n" << diags.str();
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: mg_expect FILE.mg...\n";
    return 2;
  }
  int failures = 0;
  for (int i = 1; i < argc; ++i)
    if (!checkFile(argv[i])) ++failures;
  if (failures) std::cerr << failures << " file(s) failed\n";
  return failures ? 1 : 0;
}
