// Rendering of diagnostics: `FILE:LINE:COL: error: MESSAGE`, the source
// line, a caret under the column; in source order.
#include <catch2/catch.hpp>

#include "mirage/parse/parser.h"

using namespace mirage::parse;

TEST_CASE("a diagnostic shows the source line and a caret", "[diagnostics]") {
  Diagnostics d("f.mg", "graph g {\n  Y = foo(X)\n}\n");
  d.error({2, 7}, "unknown operator 'foo'");
  CHECK(d.str() == "f.mg:2:7: error: unknown operator 'foo'\n  Y = foo(X)\n      ^\n");
  CHECK(d.errorCount() == 1);
}

TEST_CASE("warnings have the same form", "[diagnostics]") {
  Diagnostics d("f.mg", "abc");
  d.warning({1, 2}, "tensor 'b' is never used");
  CHECK(d.str() == "f.mg:1:2: warning: tensor 'b' is never used\nabc\n ^\n");
  CHECK(d.errorCount() == 0);
}

TEST_CASE("the caret copies tabs so that it lines up", "[diagnostics]") {
  Diagnostics d("f.mg", "\tY =\t$");
  d.error({1, 6}, "x");
  CHECK(d.str() == "f.mg:1:6: error: x\n\tY =\t$\n\t   \t^\n");
}

TEST_CASE("diagnostics print in source order", "[diagnostics]") {
  Diagnostics d("f.mg", "a\nb\n");
  d.error({2, 1}, "second");
  d.warning({1, 1}, "first");
  std::string s = d.str();
  CHECK(s.find("first") < s.find("second"));
}

TEST_CASE("unprintable bytes are shown as '?', long lines as a window", "[diagnostics]") {
  Diagnostics d("f.mg", std::string("a\x01\xff") + "b");
  d.error({1, 4}, "x");
  CHECK(d.str() == "f.mg:1:4: error: x\na??b\n   ^\n");
  std::string line(1000, 'a');
  Diagnostics l("f.mg", line);
  l.error({1, 500}, "x");
  std::string s = l.str();
  CHECK(s.size() < 400);
  size_t caretLine = s.rfind('\n', s.size() - 2);
  size_t srcLine = s.find('\n');
  // The caret sits under the same character of the shown window.
  CHECK(s.substr(caretLine + 1).find('^') == 3 + 80);
  CHECK(s.substr(srcLine + 1, 3) == "...");
}

TEST_CASE("a position past the end of the text is still rendered", "[diagnostics]") {
  Diagnostics d("f.mg", "ab");
  d.error({1, 3}, "end of file");
  CHECK(d.str() == "f.mg:1:3: error: end of file\nab\n  ^\n");
  d.error({5, 1}, "far away");
  CHECK(d.str().find("f.mg:5:1: error: far away\n") != std::string::npos);
}
