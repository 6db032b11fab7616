// The operator table (ir/ops.def) as C++: the OpKind enum, one OpInfo row per
// kind, and the MIRAGE_CASES_* case-label macros. Every fact about an
// operator that more than one component needs (spelling, arity, category,
// algebraic properties, definedness, verifier encoding) is read from here;
// components keep only their own semantics, in switches over OpKind with no
// `default:` (the build has -Werror=switch).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "mirage/ir/ops.def"

namespace mirage::ir {

enum class OpKind {
#define MIRAGE_ENUM_ROW_(K, ...) K,
  MIRAGE_OPS(MIRAGE_ENUM_ROW_)
#undef MIRAGE_ENUM_ROW_
};

enum class OpCategory {
  Leaf,               // input, const
  Contraction,        // matmul
  ElementwiseBinary,  // add sub mul div ...
  ElementwiseUnary,   // exp square sqrt ...
  Reduction,          // reduce_sum reduce_mean reduce_max
  Layout,             // operators that only move elements: transpose
  ProgramLayout,      // reshape concat slice: move elements, program level only
  ProgramLevel,       // kernel
  BodyLevel,          // tile accum scan save
  Shorthand,          // expanded right after parsing (ir/expand.h)
};

// Algebraic and level properties (bit set).
enum OpProp : unsigned {
  kNoProps = 0,
  kCommutative = 1u << 0,         // f(a, b) = f(b, a)
  kAssociative = 1u << 1,         // f(f(a, b), c) = f(a, f(b, c))
  kDistributesOverAdd = 1u << 2,  // f(a, b + c) = f(a, b) + f(a, c)
  kScalarOperand = 1u << 3,       // an operand may be a number (a Const)
  kProgramOnly = 1u << 4,         // not allowed inside a kernel body
  kBodyOnly = 1u << 5,            // only allowed inside a kernel body
};

// Where an operator is defined over the reals (mg-language.md).
enum class Definedness {
  Always,
  DivisorNonZero,       // operand 1 is not 0 (div)
  ArgumentNonNegative,  // operand 0 is >= 0 (sqrt)
  ArgumentPositive,     // operand 0 is > 0 (rsqrt, log)
};

// How the verifier fingerprints an operator (docs/verifier.md).
enum class VerifyEncoding {
  Leaf,            // inputs (random elements) and constants (exact)
  Exact,           // field arithmetic, exact in Z_P (and Z_Q where operands have residues)
  ExpOfResidue,    // w^(residue of the argument), else a keyed random function
  Keyed,           // a keyed random function of the argument's value
  InverseOfKeyed,  // the inverse of another operator's keyed function (rsqrt = 1/sqrt)
  Maximum,         // a random function of the multiset hash of the values maximized
  NegatedMaximum,  // -(the Maximum of the negated operands)
  IndexMove,       // moves elements only (exact index bookkeeping)
  Kernel,          // a custom kernel: its body is evaluated block by block
  Body,            // block-level bookkeeping (tiles, accumulators, saves)
  Expanded,        // a shorthand: never reaches the verifier
};

struct OpInfo {
  OpKind kind;
  std::string_view name;  // the `.mg` spelling
  OpCategory category;
  int minArity;
  int maxArity;  // -1: unbounded
  unsigned props;
  Definedness definedness;
  VerifyEncoding encoding;
  OpKind keyedBy;  // Keyed / InverseOfKeyed: whose random function (itself for most)
};

namespace detail {
#define MIRAGE_ROW_(CAT, K, S, MN, MX, PROPS, DEF, ENC, KEY)                                               \
  OpInfo{OpKind::K, S, OpCategory::CAT, MN, MX, PROPS, Definedness::DEF, VerifyEncoding::ENC, OpKind::KEY},
#define MIRAGE_ROW_LEAF_(...) MIRAGE_ROW_(Leaf, __VA_ARGS__)
#define MIRAGE_ROW_CONTRACTION_(...) MIRAGE_ROW_(Contraction, __VA_ARGS__)
#define MIRAGE_ROW_BINARY_(...) MIRAGE_ROW_(ElementwiseBinary, __VA_ARGS__)
#define MIRAGE_ROW_UNARY_(...) MIRAGE_ROW_(ElementwiseUnary, __VA_ARGS__)
#define MIRAGE_ROW_REDUCTION_(...) MIRAGE_ROW_(Reduction, __VA_ARGS__)
#define MIRAGE_ROW_LAYOUT_(...) MIRAGE_ROW_(Layout, __VA_ARGS__)
#define MIRAGE_ROW_PROGRAM_LAYOUT_(...) MIRAGE_ROW_(ProgramLayout, __VA_ARGS__)
#define MIRAGE_ROW_PROGRAM_(...) MIRAGE_ROW_(ProgramLevel, __VA_ARGS__)
#define MIRAGE_ROW_BODY_(...) MIRAGE_ROW_(BodyLevel, __VA_ARGS__)
#define MIRAGE_ROW_SHORTHAND_(...) MIRAGE_ROW_(Shorthand, __VA_ARGS__)
inline constexpr OpInfo kOpTable[] = {
    MIRAGE_LEAF_OPS(MIRAGE_ROW_LEAF_)                //
    MIRAGE_CONTRACTION_OPS(MIRAGE_ROW_CONTRACTION_)  //
    MIRAGE_BINARY_OPS(MIRAGE_ROW_BINARY_)            //
    MIRAGE_UNARY_OPS(MIRAGE_ROW_UNARY_)              //
    MIRAGE_REDUCTION_OPS(MIRAGE_ROW_REDUCTION_)      //
    MIRAGE_LAYOUT_OPS(MIRAGE_ROW_LAYOUT_)            //
    MIRAGE_PROGRAM_LAYOUT_OPS(MIRAGE_ROW_PROGRAM_LAYOUT_)  //
    MIRAGE_PROGRAM_OPS(MIRAGE_ROW_PROGRAM_)          //
    MIRAGE_BODY_OPS(MIRAGE_ROW_BODY_)                //
    MIRAGE_SHORTHAND_OPS(MIRAGE_ROW_SHORTHAND_)      //
};
#undef MIRAGE_ROW_
#undef MIRAGE_ROW_LEAF_
#undef MIRAGE_ROW_CONTRACTION_
#undef MIRAGE_ROW_BINARY_
#undef MIRAGE_ROW_UNARY_
#undef MIRAGE_ROW_REDUCTION_
#undef MIRAGE_ROW_LAYOUT_
#undef MIRAGE_ROW_PROGRAM_LAYOUT_
#undef MIRAGE_ROW_PROGRAM_
#undef MIRAGE_ROW_BODY_
#undef MIRAGE_ROW_SHORTHAND_

// The category lists concatenate in enum order, so row i is OpKind i.
constexpr bool tableInEnumOrder() {
  for (size_t i = 0; i < std::size(kOpTable); ++i)
    if (static_cast<size_t>(kOpTable[i].kind) != i) return false;
  return true;
}
static_assert(tableInEnumOrder(), "ops.def: MIRAGE_OPS must list the categories in the order of the table");
}  // namespace detail

inline constexpr int kNumOpKinds = static_cast<int>(std::size(detail::kOpTable));

constexpr const OpInfo& opInfo(OpKind k) { return detail::kOpTable[static_cast<size_t>(k)]; }

// Every kind, in table order (for tests and generators that must cover new
// rows automatically).
constexpr std::array<OpKind, kNumOpKinds> allOpKinds() {
  std::array<OpKind, kNumOpKinds> a{};
  for (int i = 0; i < kNumOpKinds; ++i) a[static_cast<size_t>(i)] = static_cast<OpKind>(i);
  return a;
}

constexpr OpCategory opCategory(OpKind k) { return opInfo(k).category; }
constexpr bool hasProp(OpKind k, unsigned p) { return (opInfo(k).props & p) == p; }
constexpr bool isCommutative(OpKind k) { return hasProp(k, kCommutative); }
constexpr bool isElementwiseUnary(OpKind k) { return opCategory(k) == OpCategory::ElementwiseUnary; }
constexpr bool isElementwiseBinary(OpKind k) { return opCategory(k) == OpCategory::ElementwiseBinary; }
constexpr bool isElementwise(OpKind k) { return isElementwiseUnary(k) || isElementwiseBinary(k); }
constexpr bool isReduction(OpKind k) { return opCategory(k) == OpCategory::Reduction; }
constexpr bool isShorthand(OpKind k) { return opCategory(k) == OpCategory::Shorthand; }
constexpr bool isBodyOnly(OpKind k) { return hasProp(k, kBodyOnly); }
constexpr bool isProgramOnly(OpKind k) { return hasProp(k, kProgramOnly); }
// reshape concat slice (ir/layout.h has their shape rules and index maps).
constexpr bool isLayoutOp(OpKind k) { return opCategory(k) == OpCategory::ProgramLayout; }

}  // namespace mirage::ir

// Case labels for whole categories: `MIRAGE_CASES_UNARY return f(x);`
// expands to `case OpKind::Exp: case OpKind::Square: ... return f(x);`.
// A switch that handles one category spells the others with these, so a new
// row of that category is a build error (-Werror=switch) until it gets its
// own case.
#define MIRAGE_CASE_(K, ...) case ::mirage::ir::OpKind::K:
#define MIRAGE_CASES_LEAF MIRAGE_LEAF_OPS(MIRAGE_CASE_)
#define MIRAGE_CASES_CONTRACTION MIRAGE_CONTRACTION_OPS(MIRAGE_CASE_)
#define MIRAGE_CASES_BINARY MIRAGE_BINARY_OPS(MIRAGE_CASE_)
#define MIRAGE_CASES_UNARY MIRAGE_UNARY_OPS(MIRAGE_CASE_)
#define MIRAGE_CASES_REDUCTION MIRAGE_REDUCTION_OPS(MIRAGE_CASE_)
#define MIRAGE_CASES_LAYOUT MIRAGE_LAYOUT_OPS(MIRAGE_CASE_)
#define MIRAGE_CASES_PROGRAM_LAYOUT MIRAGE_PROGRAM_LAYOUT_OPS(MIRAGE_CASE_)
#define MIRAGE_CASES_PROGRAM MIRAGE_PROGRAM_OPS(MIRAGE_CASE_)
#define MIRAGE_CASES_BODY MIRAGE_BODY_OPS(MIRAGE_CASE_)
#define MIRAGE_CASES_SHORTHAND MIRAGE_SHORTHAND_OPS(MIRAGE_CASE_)
// Every category but one, for a switch over that one category's kinds
// (ExprTable::unary, the interpreter's and the verifier's element-wise
// operators): a new row of another category needs no edit there.
#define MIRAGE_CASES_NOT_UNARY                                                                          \
  MIRAGE_CASES_LEAF MIRAGE_CASES_CONTRACTION MIRAGE_CASES_BINARY MIRAGE_CASES_REDUCTION MIRAGE_CASES_LAYOUT \
      MIRAGE_CASES_PROGRAM_LAYOUT MIRAGE_CASES_PROGRAM MIRAGE_CASES_BODY MIRAGE_CASES_SHORTHAND
#define MIRAGE_CASES_NOT_BINARY                                                                        \
  MIRAGE_CASES_LEAF MIRAGE_CASES_CONTRACTION MIRAGE_CASES_UNARY MIRAGE_CASES_REDUCTION MIRAGE_CASES_LAYOUT \
      MIRAGE_CASES_PROGRAM_LAYOUT MIRAGE_CASES_PROGRAM MIRAGE_CASES_BODY MIRAGE_CASES_SHORTHAND
// The pre-defined operators (usable at both levels): what applyOp-style
// functions of the interpreter and the verifier compute.
#define MIRAGE_CASES_PREDEFINED \
  MIRAGE_CASES_CONTRACTION MIRAGE_CASES_BINARY MIRAGE_CASES_UNARY MIRAGE_CASES_REDUCTION MIRAGE_CASES_LAYOUT
