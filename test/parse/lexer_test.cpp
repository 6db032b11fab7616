// The lexer: token kinds, positions, numbers, comments, bad characters.
#include <catch2/catch.hpp>

#include "mirage/parse/lexer.h"

using namespace mirage::parse;

namespace {

std::vector<std::string> texts(const std::vector<Token>& toks) {
  std::vector<std::string> out;
  for (const Token& t : toks) out.emplace_back(t.text);
  return out;
}

}  // namespace

TEST_CASE("tokens carry their text and 1-based positions", "[lexer]") {
  std::vector<Token> t = tokenize("graph g {\n  X = input f16[2, 3]  # comment\n}");
  REQUIRE(t.size() == 14);
  CHECK(texts(t) == std::vector<std::string>{"graph", "g", "{", "X", "=", "input", "f16", "[", "2",
                                             ",", "3", "]", "}", ""});
  CHECK(t[3].loc.line == 2);
  CHECK(t[3].loc.col == 3);
  CHECK(t[3].firstOnLine);
  CHECK_FALSE(t[4].firstOnLine);
  CHECK(t[12].kind == TokenKind::RBrace);
  CHECK(t[12].loc.line == 3);
  CHECK(t.back().kind == TokenKind::Eof);
}

TEST_CASE("numbers: integers, floats, exponents, negatives", "[lexer]") {
  std::vector<Token> t = tokenize("4096 0.125 1e-6 -1 -2.5E+3 7e2");
  REQUIRE(t.size() == 7);
  for (size_t i = 0; i < 6; ++i) CHECK(t[i].kind == TokenKind::Number);
  CHECK(texts(t) == std::vector<std::string>{"4096", "0.125", "1e-6", "-1", "-2.5E+3", "7e2", ""});
  CHECK(t[0].isInteger);
  CHECK_FALSE(t[1].isInteger);
  CHECK_FALSE(t[2].isInteger);
  CHECK(t[3].isInteger);
  CHECK_FALSE(t[5].isInteger);
}

TEST_CASE("malformed numbers are one error token", "[lexer]") {
  for (const char* bad : {"12abc", "1.", "1e", "1e+", "1.2.3", "3x"}) {
    std::vector<Token> t = tokenize(bad);
    INFO(bad);
    REQUIRE(t.size() == 2);
    CHECK(t[0].kind == TokenKind::Error);
    CHECK(t[0].message == "malformed number '" + std::string(bad) + "'");
  }
}

TEST_CASE("characters that start no token become error tokens", "[lexer]") {
  std::vector<Token> t = tokenize("a $ - \x01");
  REQUIRE(t.size() == 5);
  CHECK(t[1].kind == TokenKind::Error);
  CHECK(t[1].message == "unexpected character '$'");
  CHECK(t[2].message == "expected a digit after '-' (only numbers may be negative)");
  CHECK(t[3].message == "unexpected character '\\x01'");
  CHECK(t[3].loc.col == 7);
}

TEST_CASE("comments and blank input", "[lexer]") {
  CHECK(tokenize("").size() == 1);
  CHECK(tokenize("# only a comment").size() == 1);
  std::vector<Token> t = tokenize("a#b\nc");
  REQUIRE(t.size() == 3);
  CHECK(t[1].text == "c");
  CHECK(t[1].loc.line == 2);
}

TEST_CASE("quoteText escapes and shortens", "[lexer]") {
  CHECK(quoteText("abc") == "'abc'");
  CHECK(quoteText("a'b") == "'a\\x27b'");
  CHECK(quoteText(std::string(50, 'x')) == "'" + std::string(40, 'x') + "...'");
}
