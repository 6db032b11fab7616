// The `.mg` lexer (see mirage/parse/lexer.h).
#include "mirage/parse/lexer.h"

#include <fmt/format.h>

#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <string>

namespace mirage::parse {
namespace {

bool isIdentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isIdentChar(char c) { return isIdentStart(c) || isDigit(c); }

class Lexer {
 public:
  explicit Lexer(std::string_view src) : src_(src) {}

  std::vector<Token> run() {
    std::vector<Token> out;
    for (;;) {
      skipSpaceAndComments();
      Token t;
      t.loc = {line_, static_cast<int>(pos_ - lineStart_) + 1};
      t.firstOnLine = lastLine_ != line_;
      lastLine_ = line_;
      size_t start = pos_;
      if (pos_ >= src_.size()) {
        // End of file is placed just after the last token, so that "found
        // end of file" points at what is unfinished, not at trailing
        // comments or blank lines.
        t.kind = TokenKind::Eof;
        t.firstOnLine = false;
        t.loc = {1, 1};
        if (!out.empty())
          t.loc = {out.back().loc.line, out.back().loc.col + static_cast<int>(out.back().text.size())};
        out.push_back(std::move(t));
        return out;
      }
      char c = src_[pos_];
      if (isIdentStart(c)) {
        while (pos_ < src_.size() && isIdentChar(src_[pos_])) ++pos_;
        t.kind = TokenKind::Ident;
      } else if (isDigit(c) || (c == '-' && pos_ + 1 < src_.size() && isDigit(src_[pos_ + 1]))) {
        lexNumber(t, start);
      } else {
        ++pos_;
        switch (c) {
          case '(': t.kind = TokenKind::LParen; break;
          case ')': t.kind = TokenKind::RParen; break;
          case '{': t.kind = TokenKind::LBrace; break;
          case '}': t.kind = TokenKind::RBrace; break;
          case '[': t.kind = TokenKind::LBracket; break;
          case ']': t.kind = TokenKind::RBracket; break;
          case ',': t.kind = TokenKind::Comma; break;
          case '=': t.kind = TokenKind::Equals; break;
          case ':': t.kind = TokenKind::Colon; break;
          default:
            t.kind = TokenKind::Error;
            if (c == '-')
              t.message = "expected a digit after '-' (only numbers may be negative)";
            else
              t.message = fmt::format("unexpected character {}", quoteText(std::string_view(&c, 1)));
        }
      }
      t.text = src_.substr(start, pos_ - start);
      out.push_back(std::move(t));
    }
  }

 private:
  void skipSpaceAndComments() {
    while (pos_ < src_.size()) {
      char c = src_[pos_];
      if (c == '\n') {
        ++pos_;
        ++line_;
        lineStart_ = pos_;
      } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
        ++pos_;
      } else if (c == '#') {
        while (pos_ < src_.size() && src_[pos_] != '\n') ++pos_;
      } else {
        return;
      }
    }
  }

  void lexNumber(Token& t, size_t start) {
    t.kind = TokenKind::Number;
    t.isInteger = true;
    if (src_[pos_] == '-') ++pos_;
    auto digits = [&] {
      size_t n = 0;
      while (pos_ < src_.size() && isDigit(src_[pos_])) ++pos_, ++n;
      return n;
    };
    digits();
    bool bad = false;
    if (pos_ < src_.size() && src_[pos_] == '.') {
      ++pos_;
      t.isInteger = false;
      if (digits() == 0) bad = true;
    }
    if (pos_ < src_.size() && (src_[pos_] == 'e' || src_[pos_] == 'E')) {
      ++pos_;
      t.isInteger = false;
      if (pos_ < src_.size() && (src_[pos_] == '+' || src_[pos_] == '-')) ++pos_;
      if (digits() == 0) bad = true;
    }
    // "12abc" or "1.5.2" is one malformed number, not a number and a name.
    while (pos_ < src_.size() && (isIdentChar(src_[pos_]) || src_[pos_] == '.')) {
      ++pos_;
      bad = true;
    }
    if (bad) {
      t.kind = TokenKind::Error;
      t.message = fmt::format("malformed number {}", quoteText(src_.substr(start, pos_ - start)));
      return;
    }
    checkRange(t, src_.substr(start, pos_ - start));
  }

  // Body values are f32 (mg-language.md), and the verifier reads a literal
  // exactly: a literal that is not zero but rounds to 0 in f32, or that
  // exceeds f32's range, would make the two disagree, so it is rejected.
  static void checkRange(Token& t, std::string_view text) {
    std::string s(text);
    errno = 0;
    double v = std::strtod(s.c_str(), nullptr);
    bool nonzeroDigits = false;
    for (char c : text) {
      if (c == 'e' || c == 'E') break;
      nonzeroDigits = nonzeroDigits || (c >= '1' && c <= '9');
    }
    if (!std::isfinite(v) || std::fabs(v) > static_cast<double>(FLT_MAX)) {
      t.kind = TokenKind::Error;
      t.message = fmt::format("number {} is out of range", quoteText(text));
    } else if (nonzeroDigits && static_cast<float>(v) == 0.0f) {
      t.kind = TokenKind::Error;
      t.message = fmt::format("number {} underflows to 0 in f32 (write 0 if zero is meant)", quoteText(text));
    }
  }

  std::string_view src_;
  size_t pos_ = 0;
  size_t lineStart_ = 0;
  int line_ = 1;
  int lastLine_ = 0;
};

}  // namespace

std::vector<Token> tokenize(std::string_view source) { return Lexer(source).run(); }

std::string quoteText(std::string_view text) {
  constexpr size_t kMax = 40;
  std::string s = "'";
  for (size_t i = 0; i < text.size() && i < kMax; ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f && c != '\'' && c != '\\')
      s += static_cast<char>(c);
    else
      s += fmt::format("\\x{:02x}", c);
  }
  if (text.size() > kMax) s += "...";
  return s + "'";
}

std::string describe(const Token& t) {
  switch (t.kind) {
    case TokenKind::Eof: return "end of file";
    case TokenKind::Number: return "number " + quoteText(t.text);
    case TokenKind::Ident: return quoteText(t.text);
    default: return quoteText(t.text);
  }
}

}  // namespace mirage::parse
