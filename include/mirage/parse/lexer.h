// The `.mg` lexer: turns source text into tokens with 1-based line/column
// positions. It never fails: a character that starts no token becomes an
// Error token carrying the message, and the parser reports it in place.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "mirage/ir/graph.h"

namespace mirage::parse {

enum class TokenKind {
  Ident,     // [A-Za-z_][A-Za-z0-9_]*, keywords and operator names included
  Number,    // -?digits(.digits)?([eE][+-]?digits)?
  LParen,    // (
  RParen,    // )
  LBrace,    // {
  RBrace,    // }
  LBracket,  // [
  RBracket,  // ]
  Comma,     // ,
  Equals,    // =
  Colon,     // :
  Error,     // a character or malformed number that starts no token; see message
  Eof,
};

struct Token {
  TokenKind kind = TokenKind::Eof;
  std::string_view text;  // the token's characters in the source
  ir::SourceLoc loc;
  bool firstOnLine = false;  // no other token precedes it on its line
  bool isInteger = false;    // Number without '.' or exponent
  std::string message;       // Error tokens: what is wrong
};

// Splits `source` into tokens; the last one is always Eof, placed just after
// the last token (1:1 when there is none). Comments (`#` to the end of the
// line) and whitespace are skipped.
std::vector<Token> tokenize(std::string_view source);

// How a token is named in messages: "'foo'", "number '12'", "end of file".
std::string describe(const Token& t);

// A printable, length-limited rendering of arbitrary text for messages.
std::string quoteText(std::string_view text);

}  // namespace mirage::parse
