// The parse component owns the text front end: a hand-written lexer, a
// recursive-descent parser that builds ir::Graph through the checked builders
// of ir/check.h (so every legality rule is reported at its source position),
// and the diagnostics engine that prints `FILE:LINE:COL: error: …` with the
// source line and a caret. Shorthands (rms_norm, softmax) are expanded here.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mirage/ir/graph.h"

namespace mirage::parse {

enum class Severity { Error, Warning };

struct Diagnostic {
  Severity severity = Severity::Error;
  ir::SourceLoc loc;
  std::string message;
};

// Collects diagnostics for one source text and renders them.
class Diagnostics {
 public:
  Diagnostics(std::string filename, std::string_view source);
  void error(ir::SourceLoc loc, std::string message);
  void warning(ir::SourceLoc loc, std::string message);
  int errorCount() const;
  const std::vector<Diagnostic>& all() const { return diags_; }
  // "FILE:LINE:COL: error: MESSAGE\n  <source line>\n  ^\n" for each.
  void print(std::ostream& os) const;
  std::string str() const;

 private:
  std::string filename_;
  std::vector<std::string> lines_;
  std::vector<Diagnostic> diags_;
};

// Parses one `graph` program. Returns nullopt when any error was reported.
std::optional<ir::Graph> parseProgram(std::string_view source, Diagnostics& diags);

// Reads and parses a file; I/O errors are reported as diagnostics too.
// Convenience for tools: prints diagnostics to `err` and returns nullopt on
// error (warnings are printed as well).
std::optional<ir::Graph> parseFile(const std::string& path, std::ostream& err);

}  // namespace mirage::parse
