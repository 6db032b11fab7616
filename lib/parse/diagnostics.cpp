// Diagnostics: collects errors and warnings for one source text and renders
// them in the one format of the project: `FILE:LINE:COL: error: MESSAGE`, the
// source line, and a caret under the column.
#include <fmt/format.h>

#include <algorithm>
#include <ostream>
#include <sstream>

#include "mirage/parse/parser.h"

namespace mirage::parse {
namespace {

// Shows at most this many characters of a source line; longer lines (binary
// garbage, generated files) are shown as a window around the column.
constexpr size_t kMaxShown = 160;

// The source line as shown: control and non-ASCII bytes become '?', so that
// one byte is one column and the caret lines up; tabs stay tabs.
std::string printable(std::string_view line) {
  std::string s;
  for (char ch : line) {
    unsigned char c = static_cast<unsigned char>(ch);
    s += (c == '\t' || (c >= 0x20 && c < 0x7f)) ? ch : '?';
  }
  return s;
}

}  // namespace

Diagnostics::Diagnostics(std::string filename, std::string_view source)
    : filename_(std::move(filename)) {
  size_t start = 0;
  for (;;) {
    size_t nl = source.find('\n', start);
    std::string_view line = source.substr(start, nl == std::string_view::npos ? nl : nl - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines_.emplace_back(line);
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
}

void Diagnostics::error(ir::SourceLoc loc, std::string message) {
  diags_.push_back({Severity::Error, loc, std::move(message)});
}

void Diagnostics::warning(ir::SourceLoc loc, std::string message) {
  diags_.push_back({Severity::Warning, loc, std::move(message)});
}

int Diagnostics::errorCount() const {
  return static_cast<int>(std::count_if(diags_.begin(), diags_.end(), [](const Diagnostic& d) {
    return d.severity == Severity::Error;
  }));
}

void Diagnostics::print(std::ostream& os) const { os << str(); }

std::string Diagnostics::render(const Diagnostic& d) const {
  const char* kind = d.severity == Severity::Error ? "error" : "warning";
  if (!d.loc.valid()) return fmt::format("{}: {}: {}\n", filename_, kind, d.message);
  std::string out = fmt::format("{}:{}:{}: {}: {}\n", filename_, d.loc.line, d.loc.col, kind,
                                d.message);
  if (static_cast<size_t>(d.loc.line) > lines_.size()) return out;
  std::string_view line = lines_[static_cast<size_t>(d.loc.line - 1)];
  size_t col = static_cast<size_t>(std::max(d.loc.col, 1) - 1);
  size_t from = 0;
  std::string prefix;
  if (line.size() > kMaxShown && col > kMaxShown / 2) {
    from = col - kMaxShown / 2;
    prefix = "...";
  }
  std::string_view shown = line.substr(std::min(from, line.size()), kMaxShown);
  std::string suffix = from + shown.size() < line.size() ? "..." : "";
  out += prefix + printable(shown) + suffix + "\n";
  // The caret line copies the tabs before the column so that it lines up.
  std::string caret(prefix.size(), ' ');
  for (size_t i = from; i < col && i < line.size(); ++i) caret += line[i] == '\t' ? '\t' : ' ';
  for (size_t i = line.size(); i < col; ++i) caret += ' ';
  out += caret + "^\n";
  return out;
}

std::string Diagnostics::str() const {
  // In source order, whatever order the checks ran in.
  std::vector<const Diagnostic*> sorted;
  for (const Diagnostic& d : diags_) sorted.push_back(&d);
  std::stable_sort(sorted.begin(), sorted.end(), [](const Diagnostic* a, const Diagnostic* b) {
    return std::pair(a->loc.line, a->loc.col) < std::pair(b->loc.line, b->loc.col);
  });
  std::string out;
  for (const Diagnostic* d : sorted) out += render(*d);
  return out;
}

}  // namespace mirage::parse
