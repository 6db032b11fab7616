// The `.mg` recursive-descent parser (see mirage/parse/parser.h).
//
// Structure: the lexer turns the whole file into tokens first (so the parser
// can look ahead freely); a pre-scan records where every program-level name
// is bound, so that a use before the binding (which is how a cycle through
// names shows up) gets a precise message; then one pass builds the ir::Graph
// through the checked builders of ir/check.h.
//
// Error handling has two levels. A syntax error throws SyntaxError after it
// is reported; the statement loop catches it and skips to the next statement
// (the next line that starts with a name, or the closing brace). A semantic
// error (shapes, dims, names) is reported where it is found and makes the
// expression "poisoned": parsing goes on, and every operation with a
// poisoned operand is poisoned too without another message, so one mistake
// gives one message.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <unordered_map>

#include "mirage/ir/check.h"
#include "mirage/ir/expand.h"
#include "mirage/parse/lexer.h"
#include "mirage/parse/parser.h"

namespace mirage::parse {
namespace {

using ir::AccumOp;
using ir::DimMap;
using ir::Graph;
using ir::KernelConfig;
using ir::kNoValue;
using ir::Op;
using ir::OpKind;
using ir::Shape;
using ir::SourceLoc;
using ir::ValueId;

struct SyntaxError {};     // reported already; resynchronise at the next statement
struct TooManyErrors {};   // reported already; stop parsing

constexpr const char* kGridDimNames[3] = {"x", "y", "z"};

std::string locText(SourceLoc l) { return fmt::format("{}:{}", l.line, l.col); }

// What an operator accepts: how many positional operands and which keyword
// arguments. The operand count is the operator table's arity (ir/ops.def),
// negated for an unbounded one (concat: -2, two or more); the keywords are
// syntax, one entry per kind below.
struct OperatorSpec {
  std::string_view name;
  int operands;
  std::vector<std::string_view> keywords;
  std::vector<std::string_view> required;
};

// The keyword arguments of each kind that a program calls by name.
void keywordsOf(OpKind k, OperatorSpec& s) {
  switch (k) {
    case OpKind::ReduceSum: s.keywords = {"dim", "size"}, s.required = {"dim"}; return;
    case OpKind::ReduceMean:
    case OpKind::ReduceMax: s.keywords = {"dim"}, s.required = {"dim"}; return;
    case OpKind::Transpose: s.keywords = s.required = {"dim0", "dim1"}; return;
    case OpKind::Tile: s.keywords = {"imap", "fmap"}; return;
    case OpKind::Accum: s.keywords = {"op", "rescale"}; return;  // rescale=m is its second operand
    case OpKind::Scan: s.keywords = s.required = {"op"}; return;
    case OpKind::Save: s.keywords = {"omap", "dtype"}; return;
    case OpKind::Reshape: s.keywords = s.required = {"shape"}; return;
    case OpKind::Concat: s.keywords = s.required = {"dim"}; return;
    case OpKind::Slice: s.keywords = s.required = {"dim", "start", "end"}; return;
    case OpKind::RmsNorm:
    case OpKind::LayerNorm: s.keywords = {"dim", "eps"}; return;
    case OpKind::Softmax: s.keywords = {"dim"}; return;
    case OpKind::GeluTanh: return;
    MIRAGE_CASES_CONTRACTION
    MIRAGE_CASES_BINARY
    MIRAGE_CASES_UNARY return;
    MIRAGE_CASES_LEAF
    MIRAGE_CASES_PROGRAM return;  // not called by name
  }
}

const std::vector<OperatorSpec>& operatorSpecs() {
  static const std::vector<OperatorSpec> specs = [] {
    std::vector<OperatorSpec> v;
    for (OpKind k : ir::allOpKinds()) {
      if (!ir::opKindFromName(ir::opName(k))) continue;  // input, const, kernel
      // An unbounded arity (concat) is spelled as its minimum, negated.
      int maxArity = ir::opInfo(k).maxArity;
      OperatorSpec s{ir::opName(k), maxArity < 0 ? -ir::opInfo(k).minArity : ir::opInfo(k).minArity, {}, {}};
      if (k == OpKind::Save) s.operands = 2;  // save(t, R): the result is named, not an operand
      keywordsOf(k, s);
      v.push_back(std::move(s));
    }
    return v;
  }();
  return specs;
}

const OperatorSpec* findSpec(std::string_view name) {
  for (const OperatorSpec& s : operatorSpecs())
    if (s.name == name) return &s;
  return nullptr;
}

// Words that appear before '=' without binding a tensor: keyword arguments
// and kernel attributes.
bool isArgumentKeyword(std::string_view w) {
  for (std::string_view k : {"dim", "size", "dim0", "dim1", "eps", "op", "rescale", "dtype", "imap",
                             "fmap", "omap", "grid", "forloop", "block", "shape", "start", "end"})
    if (w == k) return true;
  return false;
}

bool isKeyword(std::string_view w) {
  return w == "graph" || w == "input" || w == "output" || w == "kernel";
}

// A name bound in a scope. value == kNoValue means the binding's expression
// had an error: uses of it fail quietly.
struct Binding {
  ValueId value = kNoValue;
  SourceLoc loc;
  bool used = false;
  enum class Kind { Tensor, Input, KernelResult } kind = Kind::Tensor;
};

class Scope {
 public:
  Binding* find(const std::string& n) {
    auto it = map_.find(n);
    return it == map_.end() ? nullptr : &it->second;
  }
  void bind(const std::string& n, Binding b) {
    if (map_.emplace(n, b).second) order_.push_back(n);
  }
  const std::vector<std::string>& order() const { return order_; }

 private:
  std::unordered_map<std::string, Binding> map_;
  std::vector<std::string> order_;
};

// A positional argument of a call. A bare name is kept unresolved until the
// operator is known (save names a kernel result, tile a kernel argument).
struct PosArg {
  const Token* tok = nullptr;  // first token
  enum class Kind { Name, Number, Expr } kind = Kind::Expr;
  ValueId value = kNoValue;  // Expr: the value, or kNoValue when poisoned
};

// A keyword argument as written: `dim=-1`, `op=max`, `imap={x:0, y:1}`.
struct KwArg {
  const Token* name = nullptr;
  const Token* value = nullptr;  // first token of the value
  bool isMap = false;
  bool isList = false;                // `shape=[2, -1, 64]`
  std::vector<const Token*> list;     // the list's numbers
  bool bad = false;  // an error was reported while reading it
  std::array<int64_t, 3> map{};       // per grid dim, when mapLocs[g] is valid
  std::array<SourceLoc, 3> mapLocs{};  // where each grid dim is mapped
};

// The kernel whose body is being parsed.
struct BodyContext {
  Graph* body = nullptr;
  KernelConfig config;
  std::unordered_map<std::string, ValueId> args;  // argument name -> body Input
  std::vector<std::string> resultNames;
  std::vector<SourceLoc> saveLocs;  // per result: where its save is (line 0: none yet)
  Scope locals;
};

class Parser {
 public:
  Parser(std::string_view source, Diagnostics& diags) : diags_(diags), toks_(tokenize(source)) {}

  std::optional<Graph> run() {
    prescan();
    try {
      program();
    } catch (const TooManyErrors&) {
    } catch (const SyntaxError&) {
    }
    if (diags_.errorCount() > 0) return std::nullopt;
    for (auto& [loc, msg] : pendingWarnings_) diags_.warning(loc, msg);
    return std::move(g_);
  }

 private:
  // ---- tokens -------------------------------------------------------------
  const Token& tok() const { return toks_[pos_]; }
  const Token& peek(size_t n) const { return toks_[std::min(pos_ + n, toks_.size() - 1)]; }
  bool at(TokenKind k) const { return tok().kind == k; }
  bool atWord(std::string_view w) const { return at(TokenKind::Ident) && tok().text == w; }
  const Token& advance() {
    const Token& t = toks_[pos_];
    if (pos_ + 1 < toks_.size()) ++pos_;
    return t;
  }

  // ---- diagnostics --------------------------------------------------------
  void error(SourceLoc loc, std::string msg) {
    diags_.error(loc, std::move(msg));
    if (diags_.errorCount() >= kMaxErrors) {
      diags_.error(loc, fmt::format("too many errors ({}), stopping here", kMaxErrors));
      throw TooManyErrors{};
    }
  }
  [[noreturn]] void syntaxError(std::string_view expected) {
    if (at(TokenKind::Error))
      error(tok().loc, tok().message);
    else
      error(tok().loc, fmt::format("expected {}, found {}", expected, describe(tok())));
    throw SyntaxError{};
  }
  const Token& expect(TokenKind k, std::string_view what) {
    if (!at(k)) syntaxError(what);
    return advance();
  }

  // ---- numbers ------------------------------------------------------------
  // An integer literal; reports and returns nullopt when it is not one or
  // does not fit in 64 bits.
  std::optional<int64_t> integer(const Token& t, std::string_view what) {
    if (t.kind != TokenKind::Number || !t.isInteger) {
      if (t.kind == TokenKind::Error)
        error(t.loc, t.message);
      else
        error(t.loc, fmt::format("{} must be an integer, found {}", what, describe(t)));
      return std::nullopt;
    }
    std::string_view s = t.text;
    bool negative = !s.empty() && s[0] == '-';
    if (negative) s.remove_prefix(1);
    int64_t v = 0;
    for (char c : s) {
      int d = c - '0';
      if (v > (INT64_MAX - d) / 10) {
        error(t.loc, fmt::format("integer {} is too large", quoteText(t.text)));
        return std::nullopt;
      }
      v = v * 10 + d;
    }
    return negative ? -v : v;
  }

  // A positive integer below 2^31 (extents, grid, forloop).
  std::optional<int64_t> extent(const Token& t, std::string_view what) {
    std::optional<int64_t> v = integer(t, what);
    if (!v) return v;
    if (*v < 1 || *v > ir::kMaxExtent) {
      error(t.loc, fmt::format("{} must be a positive integer below 2^31, got {}", what, *v));
      return std::nullopt;
    }
    return v;
  }

  // A scalar literal (rms_norm eps, an operand of add/sub/mul/div).
  bool scalarInRange(const Token& t) {
    errno = 0;
    double v = std::strtod(std::string(t.text).c_str(), nullptr);
    if (std::isinf(v) || std::isnan(v) || (errno == ERANGE && std::fabs(v) > 1.0)) {
      error(t.loc, fmt::format("number {} is out of range", quoteText(t.text)));
      return false;
    }
    return true;
  }

  // ---- pre-scan -----------------------------------------------------------
  // Records the first binding of every program-level name (brace depth 1,
  // outside any parentheses), for "used before it is bound" messages and for
  // the rule that kernel bodies do not reuse the graph's names.
  void prescan() {
    int braces = 0, parens = 0;
    for (size_t i = 0; i < toks_.size(); ++i) {
      const Token& t = toks_[i];
      switch (t.kind) {
        case TokenKind::LBrace: ++braces; continue;
        case TokenKind::RBrace: braces = std::max(0, braces - 1); continue;
        case TokenKind::LParen:
        case TokenKind::LBracket: ++parens; continue;
        case TokenKind::RParen:
        case TokenKind::RBracket: parens = std::max(0, parens - 1); continue;
        default: break;
      }
      if (t.kind != TokenKind::Ident || braces != 1) continue;
      // A statement starts a line or follows a brace. Keyword arguments and
      // kernel attributes (`dim=`, `grid=`, ...) can start a line too; an
      // unclosed parenthesis ends at the next statement.
      TokenKind prev = i > 0 ? toks_[i - 1].kind : TokenKind::LBrace;
      bool startsStatement = prev == TokenKind::LBrace || prev == TokenKind::RBrace || t.firstOnLine;
      if (!startsStatement || isArgumentKeyword(t.text)) continue;
      size_t j = i;
      std::vector<const Token*> names{&toks_[j]};
      while (toks_[j + 1].kind == TokenKind::Comma && toks_[j + 2].kind == TokenKind::Ident) {
        j += 2;
        names.push_back(&toks_[j]);
      }
      if (toks_[j + 1].kind != TokenKind::Equals) continue;
      for (const Token* n : names) laterGraphNames_.emplace(std::string(n->text), n->loc);
      parens = 0;
      i = j;
    }
  }

  // ---- program ------------------------------------------------------------
  void program() {
    if (at(TokenKind::Eof)) {
      error(tok().loc, "expected 'graph NAME { ... }', found an empty file");
      return;
    }
    if (!atWord("graph")) syntaxError("'graph' at the start of the program");
    SourceLoc graphLoc = advance().loc;
    const Token& name = expect(TokenKind::Ident, "the graph's name after 'graph'");
    g_.name = std::string(name.text);
    expect(TokenKind::LBrace, "'{' after the graph's name");
    statements();
    if (at(TokenKind::Eof)) {
      error(tok().loc, fmt::format("expected '}}' to close graph '{}', found end of file", g_.name));
      return;
    }
    advance();  // '}'
    if (!at(TokenKind::Eof)) {
      if (at(TokenKind::Error))
        error(tok().loc, tok().message);
      else
        error(tok().loc,
              fmt::format("unexpected {} after the end of graph '{}'", describe(tok()), g_.name));
    }
    if (!sawOutput_) error(graphLoc, fmt::format("graph '{}' has no output (expected 'output NAME')", g_.name));
    unusedWarnings(names_);
  }

  // Statements up to the closing brace of the graph or of a kernel body.
  void statements() {
    while (!at(TokenKind::RBrace) && !at(TokenKind::Eof)) {
      size_t start = pos_;
      try {
        if (body_)
          bodyStatement();
        else
          graphStatement();
      } catch (const SyntaxError&) {
        if (pos_ == start) advance();
        recover();
      }
    }
  }

  // Skips to the next statement: a name that starts a line, or the brace
  // that closes the block, outside any brackets opened on the way.
  void recover() {
    int depth = 0;
    while (!at(TokenKind::Eof)) {
      const Token& t = tok();
      if (depth == 0 && t.kind == TokenKind::RBrace) return;
      if (depth == 0 && t.firstOnLine && t.kind == TokenKind::Ident) return;
      switch (t.kind) {
        case TokenKind::LParen:
        case TokenKind::LBracket:
        case TokenKind::LBrace: ++depth; break;
        case TokenKind::RParen:
        case TokenKind::RBracket:
        case TokenKind::RBrace: depth = std::max(0, depth - 1); break;
        default: break;
      }
      advance();
    }
  }

  // Whether `t` may name a new tensor in the current scope; reports why not.
  bool checkNewName(const Token& t) {
    std::string n(t.text);
    if (isReservedWord(n)) {
      error(t.loc, fmt::format("'{}' is {} and cannot name a tensor", n,
                               isKeyword(n) ? "a keyword" : "an operator name"));
      return false;
    }
    if (body_) {
      if (Binding* b = body_->locals.find(n)) {
        error(t.loc, fmt::format("'{}' is already bound at {}", n, locText(b->loc)));
        return false;
      }
      SourceLoc graphLoc;
      if (Binding* b = names_.find(n)) graphLoc = b->loc;
      else if (auto it = laterGraphNames_.find(n); it != laterGraphNames_.end()) graphLoc = it->second;
      if (graphLoc.valid()) {
        error(t.loc, fmt::format("'{}' is a name of the enclosing graph (bound at {}); names in a "
                                 "kernel body are local and must differ from the graph's",
                                 n, locText(graphLoc)));
        return false;
      }
      return true;
    }
    if (Binding* b = names_.find(n)) {
      error(t.loc, fmt::format("'{}' is already bound at {}", n, locText(b->loc)));
      return false;
    }
    return true;
  }

  void graphStatement() {
    if (atWord("output")) return outputStatement();
    if (!at(TokenKind::Ident)) syntaxError("a statement ('NAME = ...' or 'output NAME')");
    if (peek(1).kind == TokenKind::LParen) {
      if (atWord("save")) {
        error(tok().loc, "'save' is only allowed inside a kernel body");
        throw SyntaxError{};
      }
      error(tok().loc, fmt::format("the result of '{}(...)' must be bound to a name: expected "
                                   "'NAME = {}(...)'",
                                   tok().text, tok().text));
      throw SyntaxError{};
    }
    std::vector<const Token*> names{&advance()};
    while (at(TokenKind::Comma)) {
      advance();
      names.push_back(&expect(TokenKind::Ident, "a name after ','"));
    }
    expect(TokenKind::Equals, names.size() > 1 ? "'=' after the names of the kernel's results"
                                               : "'=' after the name (a statement is 'NAME = ...')");
    stmtNames_ = names;
    std::vector<bool> ok;
    for (size_t i = 0; i < names.size(); ++i) {
      bool good = checkNewName(*names[i]);
      for (size_t j = 0; j < i && good; ++j)
        if (names[j]->text == names[i]->text) {
          error(names[i]->loc, fmt::format("'{}' is named twice", names[i]->text));
          good = false;
        }
      ok.push_back(good);
    }

    std::vector<ValueId> values;
    Binding::Kind kind = Binding::Kind::Tensor;
    // The names are bound even when the right-hand side has a syntax error
    // (as failed bindings), so that their uses do not give more errors.
    auto bindAll = [&] {
      stmtNames_.clear();
      for (size_t i = 0; i < names.size(); ++i) {
        if (!ok[i]) continue;
        ValueId v = i < values.size() ? values[i] : kNoValue;
        if (v != kNoValue && g_.values[static_cast<size_t>(v)].name.empty())
          g_.values[static_cast<size_t>(v)].name = std::string(names[i]->text);
        names_.bind(std::string(names[i]->text), Binding{v, names[i]->loc, false, kind});
      }
    };
    try {
      if (atWord("input")) {
        kind = Binding::Kind::Input;
        if (names.size() > 1) error(names[1]->loc, "'input' declares one tensor; bind it to one name");
        values = {inputDecl(names[0]->text)};
      } else if (atWord("kernel")) {
        kind = Binding::Kind::KernelResult;
        bool allOk = true;
        for (bool b : ok) allOk = allOk && b;
        values = kernelStatement(names, allOk);
      } else {
        const Token& first = tok();
        ValueId v = expression(0);
        if (names.size() > 1) {
          error(first.loc, fmt::format("only a kernel has several results; this expression has "
                                       "one, but {} names are bound",
                                       names.size()));
          v = kNoValue;
        }
        values = {v};
      }
    } catch (const SyntaxError&) {
      values.clear();
      bindAll();
      throw;
    }
    bindAll();
  }

  // `input DTYPE[d0, d1, ...]`
  ValueId inputDecl(std::string_view name) {
    advance();  // input
    const Token& dt = expect(TokenKind::Ident, "a dtype (f16, bf16 or f32) after 'input'");
    std::optional<ir::DType> dtype = ir::dtypeFromName(dt.text);
    bool ok = true;
    if (!dtype) {
      error(dt.loc, fmt::format("unknown dtype {} (expected f16, bf16 or f32)", quoteText(dt.text)));
      ok = false;
    }
    const Token& open = expect(TokenKind::LBracket, "'[' before the input's shape");
    Shape shape;
    if (!at(TokenKind::RBracket)) {
      for (;;) {
        if (!at(TokenKind::Number)) syntaxError("an extent (a positive integer)");
        std::optional<int64_t> e = extent(advance(), "an extent");
        if (e)
          shape.push_back(*e);
        else
          ok = false;
        if (at(TokenKind::Comma)) {
          advance();
          continue;
        }
        break;
      }
    }
    expect(TokenKind::RBracket, "',' or ']' in the input's shape");
    if (!ok) return kNoValue;
    if (shape.empty() || static_cast<int>(shape.size()) > ir::kMaxRank) {
      error(open.loc, fmt::format("an input has rank 1 to {}, got rank {}", ir::kMaxRank, shape.size()));
      return kNoValue;
    }
    if (dtypeLoc_.valid() && *dtype != g_.dtype) {
      error(dt.loc, fmt::format("input '{}' is {} but the program's tensors are {} (set by the input "
                                "at {}); all tensors of a program share one dtype",
                                name, dt.text, ir::dtypeName(g_.dtype), locText(dtypeLoc_)));
      return kNoValue;
    }
    if (!dtypeLoc_.valid()) {
      g_.dtype = *dtype;
      dtypeLoc_ = dt.loc;
    }
    ValueId v = kNoValue;
    if (ir::Error e = ir::addInput(g_, std::string(name), shape, &v, dt.loc); !e.empty()) {
      error(open.loc, e);
      return kNoValue;
    }
    return v;
  }

  void outputStatement() {
    advance();  // output
    sawOutput_ = true;
    for (;;) {
      if (!at(TokenKind::Ident)) syntaxError("the name of an output tensor");
      if (peek(1).kind == TokenKind::LParen) {
        error(tok().loc, "output takes tensor names, not expressions: bind the expression to a "
                         "name first");
        throw SyntaxError{};
      }
      const Token& t = advance();
      ValueId v = resolveName(t);
      if (v != kNoValue) {
        if (ir::Error e = ir::checkOutput(g_, v); !e.empty()) {
          error(t.loc, e);
          v = kNoValue;
        }
      }
      if (v != kNoValue) {
        bool dup = false;
        for (ValueId o : g_.outputs) dup = dup || o == v;
        if (dup)
          error(t.loc, fmt::format("'{}' is already an output", t.text));
        else
          g_.outputs.push_back(v);
      }
      if (!at(TokenKind::Comma)) break;
      advance();
    }
  }

  // ---- kernels ------------------------------------------------------------
  // `R1, R2 = kernel(T1, ...) grid=[..] forloop=F block=B { ... }`
  // `namesOk` is false when a result name was rejected: the body is still
  // checked, but the kernel is not built.
  std::vector<ValueId> kernelStatement(const std::vector<const Token*>& names, bool namesOk) {
    const Token& kw = advance();  // kernel
    int errorsBefore = diags_.errorCount();
    Op op;
    op.kind = OpKind::Kernel;
    op.loc = kw.loc;
    expect(TokenKind::LParen, "'(' after 'kernel'");
    bool ok = namesOk;
    std::vector<std::string> argNames;
    if (!at(TokenKind::RParen)) {
      for (;;) {
        if (!at(TokenKind::Ident)) syntaxError("the name of a tensor (kernel arguments are names)");
        if (peek(1).kind == TokenKind::LParen) {
          error(tok().loc, "kernel arguments are tensor names, not expressions: bind the "
                           "expression to a name first");
          throw SyntaxError{};
        }
        const Token& a = advance();
        ValueId v = resolveName(a);
        if (v == kNoValue) ok = false;
        for (const std::string& prev : argNames)
          if (prev == a.text) {
            error(a.loc, fmt::format("'{}' is passed to the kernel twice", a.text));
            ok = false;
          }
        argNames.emplace_back(a.text);
        op.inputs.push_back(v);
        if (at(TokenKind::Comma)) {
          advance();
          continue;
        }
        break;
      }
    }
    expect(TokenKind::RParen, "',' or ')' after a kernel argument");

    KernelConfig& k = op.config;
    bool seen[3] = {false, false, false};
    while (at(TokenKind::Ident)) {
      // `NAME = ...` on a new line is the next statement: the body is missing.
      if (tok().firstOnLine && !isArgumentKeyword(tok().text)) syntaxError("'{' to open the kernel body");
      const Token& attr = advance();
      int which = attr.text == "grid" ? 0 : attr.text == "forloop" ? 1 : attr.text == "block" ? 2 : -1;
      if (which < 0) {
        error(attr.loc, fmt::format("unknown kernel attribute {} (expected grid, forloop or block)",
                                    quoteText(attr.text)));
        throw SyntaxError{};
      }
      if (seen[which]) {
        error(attr.loc, fmt::format("kernel attribute '{}' is given twice", attr.text));
        ok = false;
      }
      seen[which] = true;
      expect(TokenKind::Equals, fmt::format("'=' after '{}'", attr.text));
      if (which == 0) {
        const Token& open = expect(TokenKind::LBracket, "'[' to start the grid");
        std::vector<int64_t> grid;
        for (;;) {
          if (!at(TokenKind::Number)) syntaxError("a grid extent (a positive integer)");
          std::optional<int64_t> e = extent(advance(), "a grid extent");
          if (!e) ok = false;
          grid.push_back(e.value_or(1));
          if (at(TokenKind::Comma)) {
            advance();
            continue;
          }
          break;
        }
        expect(TokenKind::RBracket, "',' or ']' in the grid");
        if (grid.size() > 3) {
          error(open.loc, fmt::format("a grid has 1 to 3 dims (x, y, z), got {}", grid.size()));
          ok = false;
        } else {
          for (size_t i = 0; i < grid.size(); ++i) k.grid[i] = grid[i];
          k.gridRank = static_cast<int>(grid.size());
        }
      } else {
        if (!at(TokenKind::Number)) syntaxError(fmt::format("a positive integer after '{}='", attr.text));
        const Token& v = advance();
        std::optional<int64_t> e = extent(v, which == 1 ? "forloop" : "block");
        if (!e) {
          ok = false;
        } else if (which == 1) {
          k.forloop = *e;
        } else if (*e > 1024) {
          error(v.loc, fmt::format("block must be at most 1024 threads, got {}", *e));
          ok = false;
        } else {
          k.block = *e;
        }
      }
    }
    if (!at(TokenKind::LBrace)) syntaxError("a kernel attribute (grid, forloop, block) or '{'");
    advance();

    auto body = std::make_shared<Graph>();
    body->dtype = g_.dtype;
    BodyContext ctx;
    ctx.body = body.get();
    ctx.config = k;
    for (size_t i = 0; i < op.inputs.size(); ++i) {
      Op in;
      in.kind = OpKind::Input;
      in.loc = kw.loc;
      Shape shape = op.inputs[i] == kNoValue ? Shape{1} : g_.value(op.inputs[i]).shape;
      int index = body->appendOp(std::move(in), {shape}, {argNames[i]});
      ValueId v = body->ops[static_cast<size_t>(index)].results[0];
      body->inputs.push_back(v);
      // A poisoned argument stays unknown in the body, so its uses fail quietly.
      if (op.inputs[i] != kNoValue) ctx.args.emplace(argNames[i], v);
    }
    for (const Token* n : names) ctx.resultNames.emplace_back(n->text);
    ctx.saveLocs.assign(names.size(), SourceLoc{});
    {
      body_ = &ctx;
      struct Reset {
        BodyContext*& p;
        ~Reset() { p = nullptr; }
      } reset{body_};
      statements();
    }
    if (at(TokenKind::Eof)) {
      error(tok().loc, "expected '}' to close the kernel body, found end of file");
      throw SyntaxError{};
    }
    advance();  // '}'
    unusedWarnings(ctx.locals);

    std::vector<ValueId> results(names.size(), kNoValue);
    if (diags_.errorCount() != errorsBefore || !ok) return results;
    for (size_t r = 0; r < names.size(); ++r)
      if (!ctx.saveLocs[r].valid()) {
        error(names[r]->loc, fmt::format("kernel result '{}' is not written by any save", names[r]->text));
        ok = false;
      }
    if (!ok) return results;
    op.body = std::move(body);
    std::vector<std::string> resultNames = ctx.resultNames;
    if (ir::Error e = ir::addKernel(g_, std::move(op), static_cast<int>(names.size()), resultNames,
                                    &results);
        !e.empty()) {
      error(kw.loc, e);
      results.assign(names.size(), kNoValue);
    }
    return results;
  }

  void bodyStatement() {
    if (atWord("save") && peek(1).kind == TokenKind::LParen) {
      call(0, /*asStatement=*/true);
      return;
    }
    if (atWord("output")) {
      error(tok().loc, "'output' is not allowed inside a kernel body (kernel results are written by save)");
      throw SyntaxError{};
    }
    if (!at(TokenKind::Ident)) syntaxError("a statement ('NAME = ...' or 'save(...)')");
    if (peek(1).kind == TokenKind::LParen) {
      error(tok().loc, fmt::format("the result of '{}(...)' must be bound to a name: expected "
                                   "'NAME = {}(...)'",
                                   tok().text, tok().text));
      throw SyntaxError{};
    }
    const Token& name = advance();
    if (at(TokenKind::Comma)) {
      error(tok().loc, "a statement in a kernel body binds one name");
      throw SyntaxError{};
    }
    expect(TokenKind::Equals, "'=' after the name (a statement is 'NAME = ...')");
    if (atWord("input") || atWord("kernel")) {
      error(tok().loc, fmt::format("'{}' is not allowed inside a kernel body", tok().text));
      throw SyntaxError{};
    }
    bool ok = checkNewName(name);
    ValueId v = kNoValue;
    bodyStmtName_ = &name;
    try {
      v = expression(0);
      bodyStmtName_ = nullptr;
    } catch (const SyntaxError&) {
      bodyStmtName_ = nullptr;
      if (ok) body_->locals.bind(std::string(name.text), Binding{kNoValue, name.loc, false, Binding::Kind::Tensor});
      throw;
    }
    if (!ok) return;
    if (v != kNoValue && body_->body->values[static_cast<size_t>(v)].name.empty())
      body_->body->values[static_cast<size_t>(v)].name = std::string(name.text);
    body_->locals.bind(std::string(name.text), Binding{v, name.loc, false, Binding::Kind::Tensor});
  }

  // ---- expressions --------------------------------------------------------
  Graph& cur() { return body_ ? *body_->body : g_; }
  const KernelConfig* kernelConfig() const { return body_ ? &body_->config : nullptr; }

  ValueId expression(int depth) {
    if (depth > kMaxNesting) {
      error(tok().loc, fmt::format("expressions nest more than {} calls deep", kMaxNesting));
      throw SyntaxError{};
    }
    const Token& t = tok();
    switch (t.kind) {
      case TokenKind::Ident:
        if (t.text == "input" || t.text == "kernel") {
          error(t.loc, fmt::format("'{}' must be the whole right-hand side of a statement "
                                   "('NAME = {} ...')",
                                   t.text, t.text));
          throw SyntaxError{};
        }
        if (peek(1).kind == TokenKind::LParen) return call(depth, false);
        advance();
        return resolveName(t);
      case TokenKind::Number:
        advance();
        error(t.loc, "a number can only be an operand of add, sub, mul or div");
        return kNoValue;
      default: syntaxError("an expression (a name or an operator call)");
    }
  }

  // Looks a name up as a tensor of the current scope; reports and returns
  // kNoValue when it is not one (or its binding had an error).
  ValueId resolveName(const Token& t) {
    std::string n(t.text);
    if (isReservedWord(n)) {
      error(t.loc, isKeyword(n) ? fmt::format("'{}' is a keyword, expected a tensor name", n)
                                : fmt::format("'{}' is an operator, expected '(' after it", n));
      return kNoValue;
    }
    if (body_) {
      if (Binding* b = body_->locals.find(n)) {
        b->used = true;
        return b->value;
      }
      if (auto it = body_->args.find(n); it != body_->args.end()) return it->second;
      for (const std::string& r : body_->resultNames)
        if (r == n) {
          error(t.loc, fmt::format("'{}' is a result of this kernel: it is written by save and "
                                   "cannot be read inside the body",
                                   n));
          return kNoValue;
        }
      if (Binding* b = names_.find(n)) {
        if (b->value == kNoValue) return kNoValue;
        error(t.loc, fmt::format("'{}' is a tensor of the enclosing graph but not an argument of "
                                 "this kernel; a kernel body reads tensors only through tile() of "
                                 "its arguments",
                                 n));
        return kNoValue;
      }
      if (bodyStmtName_ && bodyStmtName_->text == n) {
        error(t.loc, fmt::format("'{}' is used in its own definition", n));
        return kNoValue;
      }
      if (const Token* later = laterBodyBinding(n)) {
        error(t.loc, fmt::format("'{}' is used before it is bound (at {})", n, locText(later->loc)));
        return kNoValue;
      }
      error(t.loc, fmt::format("use of undefined name '{}'", n));
      return kNoValue;
    }
    if (Binding* b = names_.find(n)) {
      b->used = true;
      return b->value;
    }
    if (auto it = laterGraphNames_.find(n); it != laterGraphNames_.end()) {
      for (const Token* s : stmtNames_)
        if (s->text == n) {
          error(t.loc, fmt::format("'{}' is used in its own definition", n));
          return kNoValue;
        }
      error(t.loc, fmt::format("'{}' is used before it is bound (at {})", n, locText(it->second)));
      return kNoValue;
    }
    error(t.loc, fmt::format("use of undefined name '{}'", n));
    return kNoValue;
  }

  // Where `name` is bound further down the current kernel body (a statement
  // `name = ...` that starts a line), or null.
  const Token* laterBodyBinding(std::string_view name) const {
    int depth = 0;
    for (size_t i = pos_; i + 1 < toks_.size(); ++i) {
      const Token& t = toks_[i];
      if (t.kind == TokenKind::LBrace) ++depth;
      if (t.kind == TokenKind::RBrace && --depth < 0) return nullptr;
      if (depth == 0 && t.kind == TokenKind::Ident && t.firstOnLine && t.text == name &&
          toks_[i + 1].kind == TokenKind::Equals)
        return &t;
    }
    return nullptr;
  }

  KwArg keywordArg() {
    KwArg kw;
    kw.name = &advance();
    advance();  // '='
    kw.value = &tok();
    if (at(TokenKind::LBrace)) {
      kw.isMap = true;
      advance();
      bool seen[3] = {false, false, false};
      if (!at(TokenKind::RBrace)) {
        for (;;) {
          const Token& g = expect(TokenKind::Ident, "a grid dim (x, y or z)");
          int gd = g.text == "x" ? 0 : g.text == "y" ? 1 : g.text == "z" ? 2 : -1;
          if (gd < 0) {
            error(g.loc, fmt::format("unknown grid dim {} (expected x, y or z)", quoteText(g.text)));
            kw.bad = true;
          } else if (seen[gd]) {
            error(g.loc, fmt::format("grid dim {} is mapped twice", g.text));
            kw.bad = true;
          }
          expect(TokenKind::Colon, fmt::format("':' after grid dim '{}'", g.text));
          if (!at(TokenKind::Number)) syntaxError("a tensor dim (an integer)");
          const Token& d = advance();
          std::optional<int64_t> v = integer(d, "a tensor dim");
          if (!v) {
            kw.bad = true;
          } else if (gd >= 0 && !seen[gd]) {
            // Checked against the tensor's rank once the operator is known.
            kw.map[gd] = *v;
            kw.mapLocs[gd] = d.loc;
          }
          if (gd >= 0) seen[gd] = true;
          if (at(TokenKind::Comma)) {
            advance();
            continue;
          }
          break;
        }
      }
      expect(TokenKind::RBrace, "',' or '}' in the map");
      return kw;
    }
    // Only reshape's shape= takes a list; elsewhere '[' is a syntax error.
    if (at(TokenKind::LBracket) && kw.name->text == "shape") {
      kw.isList = true;
      advance();
      if (!at(TokenKind::RBracket)) {
        for (;;) {
          if (!at(TokenKind::Number)) syntaxError("an extent (an integer, or -1)");
          kw.list.push_back(&advance());
          if (at(TokenKind::Comma)) {
            advance();
            continue;
          }
          break;
        }
      }
      expect(TokenKind::RBracket, "',' or ']' in the list");
      return kw;
    }
    if (at(TokenKind::Number) || at(TokenKind::Ident)) {
      advance();
      return kw;
    }
    syntaxError(fmt::format("a value for '{}'", kw.name->text));
  }

  ValueId call(int depth, bool asStatement) {
    const Token& opTok = advance();
    std::vector<PosArg> pos;
    std::vector<KwArg> kws;
    const Token& open = advance();
    auto unclosed = [&] {
      error(tok().loc, fmt::format("expected ')' to close the call of '{}' opened at {}, found {}",
                                   opTok.text, locText(open.loc), describe(tok())));
      throw SyntaxError{};
    };
    if (!at(TokenKind::RParen)) {
      for (;;) {
        // `NAME =` at the start of a line is the next statement, unless NAME
        // is a keyword argument.
        if (tok().firstOnLine && at(TokenKind::Ident) && peek(1).kind == TokenKind::Equals &&
            !isArgumentKeyword(tok().text))
          unclosed();
        if (at(TokenKind::Eof)) unclosed();
        if (at(TokenKind::Ident) && peek(1).kind == TokenKind::Equals) {
          kws.push_back(keywordArg());
        } else {
          if (!kws.empty()) {
            error(tok().loc, "positional argument after keyword arguments");
            throw SyntaxError{};
          }
          PosArg a;
          a.tok = &tok();
          if (at(TokenKind::Number)) {
            a.kind = PosArg::Kind::Number;
            advance();
          } else if (at(TokenKind::Ident) && peek(1).kind != TokenKind::LParen) {
            a.kind = PosArg::Kind::Name;
            advance();
          } else {
            a.value = expression(depth + 1);
          }
          pos.push_back(a);
        }
        if (at(TokenKind::Comma)) {
          advance();
          continue;
        }
        break;
      }
    }
    if (at(TokenKind::Eof) || (tok().firstOnLine && at(TokenKind::Ident) &&
                               peek(1).kind == TokenKind::Equals))
      unclosed();
    expect(TokenKind::RParen, fmt::format("',' or ')' in the call of '{}'", opTok.text));
    return apply(opTok, pos, kws, asStatement);
  }

  // Checks the keyword arguments of a call against its operator. Reports
  // every problem; false when there was one.
  bool checkKeywords(const OperatorSpec& spec, const Token& opTok, const std::vector<KwArg>& kws) {
    bool ok = true;
    for (size_t i = 0; i < kws.size(); ++i) {
      const KwArg& kw = kws[i];
      if (kw.bad) ok = false;
      bool known = false;
      for (std::string_view k : spec.keywords) known = known || k == kw.name->text;
      if (!known) {
        if (spec.keywords.empty())
          error(kw.name->loc, fmt::format("'{}' takes no keyword arguments, found '{}='", spec.name,
                                          kw.name->text));
        else
          error(kw.name->loc, fmt::format("'{}' has no argument '{}' (expected {})", spec.name,
                                          kw.name->text, fmt::join(spec.keywords, ", ")));
        ok = false;
        continue;
      }
      for (size_t j = 0; j < i; ++j)
        if (kws[j].name->text == kw.name->text) {
          error(kw.name->loc, fmt::format("argument '{}' is given twice", kw.name->text));
          ok = false;
        }
      bool wantsMap = kw.name->text == "imap" || kw.name->text == "omap";
      bool wantsList = kw.name->text == "shape";
      if (wantsList != kw.isList) {
        error(kw.value->loc, wantsList ? fmt::format("'{}' takes a list of extents such as [2, -1, 64], found {}",
                                                     kw.name->text, describe(*kw.value))
                                       : fmt::format("'{}' takes a single value, not a list", kw.name->text));
        ok = false;
      } else if (wantsMap != kw.isMap) {
        error(kw.value->loc, wantsMap ? fmt::format("'{}' takes a map such as {{x:0, y:1}}, found {}",
                                                    kw.name->text, describe(*kw.value))
                                      : fmt::format("'{}' takes a single value, not a map",
                                                    kw.name->text));
        ok = false;
      }
    }
    for (std::string_view r : spec.required) {
      bool given = false;
      for (const KwArg& kw : kws) given = given || kw.name->text == r;
      if (!given) {
        error(opTok.loc, fmt::format("'{}' needs a '{}=' argument", spec.name, r));
        ok = false;
      }
    }
    return ok;
  }

  static const KwArg* findKw(const std::vector<KwArg>& kws, std::string_view name) {
    for (const KwArg& kw : kws)
      if (kw.name->text == name) return &kw;
    return nullptr;
  }

  // A dim argument checked against the rank of the tensor it indexes.
  std::optional<int> dimArg(const KwArg* kw, int fallback, int rank, std::string_view what) {
    if (!kw) return fallback;
    std::optional<int64_t> v = integer(*kw->value, fmt::format("'{}'", kw->name->text));
    if (!v) return std::nullopt;
    if (*v < -rank || *v >= rank) {
      error(kw->value->loc,
            fmt::format("{} {} is out of range for a tensor of rank {}", what, *v, rank));
      return std::nullopt;
    }
    return static_cast<int>(*v);
  }

  // A map argument checked against the rank of the tensor it indexes.
  bool mapArg(const KwArg* kw, int rank, DimMap& out, std::string_view what) {
    out = ir::kEmptyMap;
    if (!kw) return true;
    bool ok = true;
    for (int gd = 0; gd < 3; ++gd) {
      if (!kw->mapLocs[gd].valid()) continue;
      int64_t d = kw->map[gd];
      if (d < -rank || d >= rank) {
        error(kw->mapLocs[gd], fmt::format("{} maps grid dim {} to dim {}, out of range for a tensor "
                                           "of rank {}",
                                           what, kGridDimNames[gd], d, rank));
        ok = false;
      } else {
        out[gd] = ir::normalizeDim(static_cast<int>(d), rank);
      }
    }
    return ok;
  }

  // Appends one operation to the current graph; reports a legality error at
  // `loc`.
  ValueId build(Op op, SourceLoc loc) {
    op.loc = loc;
    ValueId v = kNoValue;
    if (ir::Error e = ir::addOp(cur(), std::move(op), kernelConfig(), &v); !e.empty()) {
      error(loc, e);
      return kNoValue;
    }
    return v;
  }
  ValueId build(OpKind kind, std::vector<ValueId> inputs, SourceLoc loc, int dim = 0) {
    Op op;
    op.kind = kind;
    op.inputs = std::move(inputs);
    op.dim = dim;
    return build(std::move(op), loc);
  }

  // The value of a positional operand; numbers become constants where the
  // operator takes them.
  ValueId operand(const PosArg& a, const OperatorSpec& spec, bool scalarOk) {
    switch (a.kind) {
      case PosArg::Kind::Expr: return a.value;
      case PosArg::Kind::Name: return resolveName(*a.tok);
      case PosArg::Kind::Number:
        if (!scalarOk) {
          error(a.tok->loc, fmt::format("'{}' takes a tensor, not a number", spec.name));
          return kNoValue;
        }
        if (!scalarInRange(*a.tok)) return kNoValue;
        return ir::addConst(cur(), std::string(a.tok->text), a.tok->loc);
    }
    return kNoValue;
  }

  ValueId apply(const Token& opTok, const std::vector<PosArg>& pos, const std::vector<KwArg>& kws,
                bool asStatement) {
    std::string_view name = opTok.text;
    SourceLoc loc = opTok.loc;
    if (isKeyword(name)) {
      error(loc, fmt::format("'{}' is a keyword, not an operator", name));
      return kNoValue;
    }
    const OperatorSpec* spec = findSpec(name);
    if (!spec) {
      error(loc, fmt::format("unknown operator {}", quoteText(name)));
      return kNoValue;
    }
    if (name == "save" && !asStatement) {
      error(loc, "'save' is a statement of its own and has no value");
      return kNoValue;
    }
    if (spec->operands < 0) {  // at least -operands (concat)
      if (static_cast<int>(pos.size()) < -spec->operands) {
        error(loc, fmt::format("'{}' joins {} or more tensors, got {}", name, -spec->operands == 2 ? "two" : std::to_string(-spec->operands), pos.size()));
        return kNoValue;
      }
    } else if (static_cast<int>(pos.size()) != spec->operands) {
      error(loc, fmt::format("'{}' takes {} operand{}, got {}", name, spec->operands,
                             spec->operands == 1 ? "" : "s", pos.size()));
      return kNoValue;
    }
    if (!checkKeywords(*spec, opTok, kws)) return kNoValue;
    if ((name == "tile" || name == "accum" || name == "scan" || name == "save") && !body_) {
      error(loc, fmt::format("'{}' is only allowed inside a kernel body", name));
      return kNoValue;
    }
    if (name == "tile") return tile(opTok, pos[0], kws);
    if (name == "save") return save(opTok, pos, kws);

    std::optional<OpKind> kind = ir::opKindFromName(name);
    bool binary = kind && ir::hasProp(*kind, ir::kScalarOperand);
    std::vector<ValueId> ins;
    bool ok = true;
    for (const PosArg& a : pos) {
      ins.push_back(operand(a, *spec, binary));
      ok = ok && ins.back() != kNoValue;
    }
    if (!ok) return kNoValue;
    int rank = static_cast<int>(cur().value(ins[0]).shape.size());

    if (ir::isShorthand(*kind)) return shorthand(opTok, *kind, ins[0], kws, rank);

    Op op;
    op.kind = *kind;
    op.inputs = ins;
    if (ir::isReduction(*kind)) {
      std::optional<int> dim = dimArg(findKw(kws, "dim"), 0, rank, "dim");
      if (!dim) return kNoValue;
      op.dim = *dim;
      if (const KwArg* s = findKw(kws, "size")) {
        std::optional<int64_t> size = integer(*s->value, "'size'");
        if (!size) return kNoValue;
        if (*size < 1) {
          error(s->value->loc, fmt::format("size must be a positive integer, got {}", *size));
          return kNoValue;
        }
        op.size = *size;
      }
    } else if (*kind == OpKind::Transpose) {
      std::optional<int> d0 = dimArg(findKw(kws, "dim0"), 0, rank, "dim0");
      std::optional<int> d1 = dimArg(findKw(kws, "dim1"), 0, rank, "dim1");
      if (!d0 || !d1) return kNoValue;
      op.dim = *d0;
      op.dim1 = *d1;
    } else if (*kind == OpKind::Reshape) {
      const KwArg* s = findKw(kws, "shape");
      int inferred = 0;
      for (const Token* t : s->list) {
        std::optional<int64_t> e = integer(*t, "an extent");
        if (!e) return kNoValue;
        if (*e == -1 && ++inferred == 2) {
          error(t->loc, "reshape's shape has a second -1; at most one extent can be inferred");
          return kNoValue;
        }
        if (*e != -1 && (*e < 1 || *e > ir::kMaxExtent)) {
          error(t->loc, fmt::format("an extent must be a positive integer below 2^31 (or -1), got {}", *e));
          return kNoValue;
        }
        op.shapeArg.push_back(*e);
      }
    } else if (*kind == OpKind::Concat) {
      std::optional<int> dim = dimArg(findKw(kws, "dim"), 0, rank, "dim");
      if (!dim) return kNoValue;
      op.dim = *dim;
    } else if (*kind == OpKind::Slice) {
      std::optional<int> dim = dimArg(findKw(kws, "dim"), 0, rank, "dim");
      std::optional<int64_t> start = integer(*findKw(kws, "start")->value, "'start'");
      std::optional<int64_t> end = integer(*findKw(kws, "end")->value, "'end'");
      if (!dim || !start || !end) return kNoValue;
      op.dim = *dim;
      op.start = *start;
      op.end = *end;
    } else if (*kind == OpKind::Accum) {
      if (const KwArg* a = findKw(kws, "op")) {
        if (a->value->text == "max")
          op.accumOp = AccumOp::Max;
        else if (a->value->text != "sum") {
          error(a->value->loc, fmt::format("accum op is 'sum' or 'max', found {}", describe(*a->value)));
          return kNoValue;
        }
      }
      if (const KwArg* r = findKw(kws, "rescale")) {
        if (r->value->kind != TokenKind::Ident) {
          error(r->value->loc, fmt::format("'rescale' takes the name of a scan, found {}", describe(*r->value)));
          return kNoValue;
        }
        ValueId m = resolveName(*r->value);
        if (m == kNoValue) return kNoValue;
        if (cur().producer(m).kind != OpKind::Scan) {
          error(r->value->loc, fmt::format("'rescale' takes a scan(..., op=max) of this body, but '{}' is not one",
                                           r->value->text));
          return kNoValue;
        }
        op.inputs.push_back(m);
      }
    } else if (*kind == OpKind::Scan) {
      const KwArg* a = findKw(kws, "op");
      if (a->value->text != "max") {
        error(a->value->loc, fmt::format("scan op is 'max' (the only kind of scan), found {}", describe(*a->value)));
        return kNoValue;
      }
      op.accumOp = AccumOp::Max;
    }
    return build(std::move(op), loc);
  }

  // A shorthand (rms_norm, layer_norm, softmax, ...) as one op with its dim
  // (default -1) and eps; ir::expandShorthands replaces it by its expansion
  // once the program is read (parseProgram).
  ValueId shorthand(const Token& opTok, OpKind kind, ValueId a, const std::vector<KwArg>& kws, int rank) {
    std::optional<int> dim = dimArg(findKw(kws, "dim"), -1, rank, "dim");
    if (!dim) return kNoValue;
    Op op;
    op.kind = kind;
    op.inputs = {a};
    op.dim = *dim;
    if (const KwArg* eps = findKw(kws, "eps")) {
      if (eps->value->kind != TokenKind::Number) {
        error(eps->value->loc, fmt::format("'eps' takes a number, found {}", describe(*eps->value)));
        return kNoValue;
      }
      if (!scalarInRange(*eps->value)) return kNoValue;
      op.scalarText = std::string(eps->value->text);
    }
    return build(std::move(op), opTok.loc);
  }

  // tile(T, imap={g:d, ...}, fmap=f): T names a kernel argument.
  ValueId tile(const Token& opTok, const PosArg& arg, const std::vector<KwArg>& kws) {
    if (arg.kind != PosArg::Kind::Name) {
      error(arg.tok->loc, "tile takes a kernel argument by name");
      return kNoValue;
    }
    std::string n(arg.tok->text);
    auto it = body_->args.find(n);
    if (it == body_->args.end()) {
      Binding* b = names_.find(n);
      if (b && b->value == kNoValue) return kNoValue;  // its own error was reported
      if (b)
        error(arg.tok->loc, fmt::format("'{}' is not an argument of this kernel; add it to "
                                        "kernel(...)",
                                        n));
      else if (body_->locals.find(n))
        error(arg.tok->loc, fmt::format("tile takes a kernel argument, but '{}' is a name of the "
                                        "kernel body",
                                        n));
      else
        resolveName(*arg.tok);
      return kNoValue;
    }
    ValueId v = it->second;
    int rank = static_cast<int>(cur().value(v).shape.size());
    Op op;
    op.kind = OpKind::Tile;
    op.inputs = {v};
    bool ok = mapArg(findKw(kws, "imap"), rank, op.imap, "imap");
    std::optional<int> fmap = dimArg(findKw(kws, "fmap"), -1, rank, "fmap");
    if (!ok || !fmap) return kNoValue;
    op.fmap = findKw(kws, "fmap") ? ir::normalizeDim(*fmap, rank) : -1;
    return build(std::move(op), opTok.loc);
  }

  // save(t, R, omap={g:d, ...}): R names a result of the kernel.
  ValueId save(const Token& opTok, const std::vector<PosArg>& pos, const std::vector<KwArg>& kws) {
    const OperatorSpec& spec = *findSpec("save");
    ValueId t = operand(pos[0], spec, false);
    const PosArg& r = pos[1];
    int index = -1;
    if (r.kind != PosArg::Kind::Name) {
      error(r.tok->loc, "save names the kernel result it writes, found an expression");
      return kNoValue;
    }
    for (size_t i = 0; i < body_->resultNames.size() && index < 0; ++i)
      if (body_->resultNames[i] == r.tok->text) index = static_cast<int>(i);
    if (index < 0) {
      error(r.tok->loc, fmt::format("'{}' is not a result of this kernel (its results are {})",
                                    r.tok->text, fmt::join(body_->resultNames, ", ")));
      return kNoValue;
    }
    SourceLoc& first = body_->saveLocs[static_cast<size_t>(index)];
    if (first.valid()) {
      error(opTok.loc, fmt::format("kernel result '{}' is already written by the save at {}",
                                   r.tok->text, locText(first)));
      return kNoValue;
    }
    first = opTok.loc;
    if (t == kNoValue) return kNoValue;
    int rank = static_cast<int>(cur().value(t).shape.size());
    Op op;
    op.kind = OpKind::Save;
    op.inputs = {t};
    op.resultIndex = index;
    if (!mapArg(findKw(kws, "omap"), rank, op.omap, "omap")) return kNoValue;
    if (const KwArg* d = findKw(kws, "dtype")) {
      if (d->value->text != "f32") {
        error(d->value->loc, fmt::format("save's dtype is f32 (the only dtype a result may have besides "
                                         "the program's), found {}",
                                         describe(*d->value)));
        return kNoValue;
      }
      op.saveF32 = true;
    }
    build(std::move(op), opTok.loc);
    return kNoValue;
  }

  // ---- warnings -----------------------------------------------------------
  void unusedWarnings(Scope& scope) {
    for (const std::string& n : scope.order()) {
      Binding* b = scope.find(n);
      if (b->used || b->value == kNoValue) continue;
      bool isOutput = false;
      if (!body_ && &scope == &names_)
        for (ValueId o : g_.outputs) isOutput = isOutput || o == b->value;
      if (isOutput) continue;
      std::string what = b->kind == Binding::Kind::Input          ? "input"
                         : b->kind == Binding::Kind::KernelResult ? "kernel result"
                                                                  : "tensor";
      pendingWarnings_.emplace_back(b->loc, fmt::format("{} '{}' is never used", what, n));
    }
  }

  Diagnostics& diags_;
  std::vector<Token> toks_;
  size_t pos_ = 0;
  Graph g_;
  Scope names_;
  std::unordered_map<std::string, SourceLoc> laterGraphNames_;
  std::vector<const Token*> stmtNames_;  // the names the current statement binds
  const Token* bodyStmtName_ = nullptr;  // the name the current body statement binds
  BodyContext* body_ = nullptr;
  SourceLoc dtypeLoc_;
  bool sawOutput_ = false;
  std::vector<std::pair<SourceLoc, std::string>> pendingWarnings_;
};

}  // namespace

bool isReservedWord(std::string_view word) { return ir::isReservedName(word); }

std::optional<Graph> parseProgram(std::string_view source, Diagnostics& diags) {
  std::optional<Graph> g = Parser(source, diags).run();
  if (!g) return g;
  // Shorthands are expanded here, in one pass over the finished program.
  if (std::optional<ir::ExpandError> e = ir::expandShorthands(*g)) {
    diags.error(e->loc, e->message);
    return std::nullopt;
  }
  return g;
}

std::optional<Graph> parseString(std::string_view source, const std::string& filename,
                                 std::ostream& err) {
  Diagnostics diags(filename, source);
  std::optional<Graph> g = parseProgram(source, diags);
  diags.print(err);
  return g;
}

std::optional<Graph> parseFile(const std::string& path, std::ostream& err) {
  std::string text;
  std::string name = path == "-" ? "<stdin>" : path;
  if (path == "-") {
    std::ostringstream ss;
    ss << std::cin.rdbuf();
    text = ss.str();
  } else {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      err << fmt::format("{}: error: cannot open file: {}\n", path, std::strerror(errno));
      return std::nullopt;
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    if (in.bad()) {
      err << fmt::format("{}: error: cannot read file\n", path);
      return std::nullopt;
    }
    text = ss.str();
  }
  return parseString(text, name, err);
}

}  // namespace mirage::parse
