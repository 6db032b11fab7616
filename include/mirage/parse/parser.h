// The parse component owns the text front end: a hand-written lexer, a
// recursive-descent parser that builds ir::Graph through the checked builders
// of ir/check.h (so every legality rule is reported at its source position),
// and the diagnostics engine that prints `FILE:LINE:COL: error: …` with the
// source line and a caret. Shorthands (rms_norm, layer_norm, softmax, ...)
// are read as one op each and expanded by ir::expandShorthands (ir/expand.h)
// in one pass once the program is read.
// The language is ../shared/spec/mg-language.md; docs/language.md is the
// user's guide and lists the choices the contract leaves open.
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
  const std::string& filename() const { return filename_; }
  // "FILE:LINE:COL: error: MESSAGE\n<source line>\n    ^\n" for each, in
  // source order.
  void print(std::ostream& os) const;
  std::string str() const;
  // One diagnostic in that form.
  std::string render(const Diagnostic& d) const;

 private:
  std::string filename_;
  std::vector<std::string> lines_;
  std::vector<Diagnostic> diags_;
};

// Parsing stops after this many errors (binary garbage would otherwise give
// one per byte).
inline constexpr int kMaxErrors = 50;
// Calls nest at most this deep; deeper nesting is an error, not a stack
// overflow.
inline constexpr int kMaxNesting = 200;

// Parses one `graph` program. Returns nullopt when any error was reported.
std::optional<ir::Graph> parseProgram(std::string_view source, Diagnostics& diags);

// Parses `source` as if read from `filename`, prints every diagnostic
// (warnings too) to `err` and returns nullopt on error.
std::optional<ir::Graph> parseString(std::string_view source, const std::string& filename,
                                     std::ostream& err);

// Reads and parses a file ("-" reads standard input); I/O errors are reported
// as diagnostics too. Convenience for tools: prints diagnostics to `err` and
// returns nullopt on error (warnings are printed as well).
std::optional<ir::Graph> parseFile(const std::string& path, std::ostream& err);

// The round-trip property of the printer: prints `g`, reads the text back,
// and prints that again. True when the graph read back is the same as `g`
// (ir::sameGraph) and both texts are identical; otherwise *why (if given)
// says what went wrong, with the printed text.
bool roundTrips(const ir::Graph& g, std::string* why = nullptr);

// True for the words that cannot name a tensor: the keywords (graph, input,
// output, kernel) and every operator name, shorthands and tile/accum/save
// included.
bool isReservedWord(std::string_view word);

}  // namespace mirage::parse
