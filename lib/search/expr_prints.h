// Fingerprints of abstract expressions, so that the search can rule out
// that an operator's result is one of the program's terms (up to a
// constant) without building the result (Context::preferred,
// Context::pairTermKinds; docs/search.md, "Fingerprints of expressions").
//
// One ExprPrints per expression table (ids are the table's).
//
// A print is the normal form evaluated at two random points of the field of
// integers modulo 2^61 - 1. The evaluation is a ring homomorphism of the
// normal form's own arithmetic (expr.cpp): a coefficient maps to its
// residue, a monomial's summation degree d to d (products of monomials
// multiply degrees, and a sum of a constant over d elements is d times
// it), and an atom to a random unit drawn from
// the atom's content, raised to its exponent times L = lcm(1..16) (so that
// rational exponents add). Hence a sum, difference or product of two
// expressions has the sum, difference or product of their prints, and two
// expressions equal up to a constant have proportional prints: a print
// that is not proportional to a term's print proves the expression is not
// that term. The converse is not claimed; a match is decided exactly.
//
// Where the normal form's arithmetic might not be exact (a coefficient or
// degree large enough that a product could be clamped, expr.cpp's
// reduce), or an exponent's denominator does not divide L, the print is
// unknown, and so is every prediction made from it: the caller decides
// exactly.
#pragma once

#include <cstdint>
#include <vector>

#include "mirage/search/expr.h"

namespace mirage::search {

struct Print {
  uint64_t v[2] = {0, 0};
  bool known = false;
};

class ExprPrints {
 public:
  Print of(ExprTable& exprs, ExprId e);
  // The print of div(a, e) is of(a) times this: div is a product with the
  // inverse, which the table builds once per e here (not once per pair).
  Print inverseOf(ExprTable& exprs, ExprId e);

  static Print add(const Print& a, const Print& b);
  static Print sub(const Print& a, const Print& b);
  static Print mul(const Print& a, const Print& b);
  // False only where a is certainly not a nonzero constant times b (both
  // known, neither zero, the two points' ratios differ).
  static bool mayBeProportional(const Print& a, const Print& b);

 private:
  uint64_t atomPower(const ExprTable& exprs, AtomId atom, int point, Rational exponent, bool* known);

  std::vector<Print> prints_;        // per ExprId
  std::vector<char> made_;           // per ExprId: prints_ holds its print
  std::vector<ExprId> inverse_;      // per ExprId: div(1, e), -1 not made yet
  struct AtomUnit {
    uint64_t unit = 0;          // the atom's random unit at one point (0: not drawn yet)
    uint64_t power = 0;         // unit^L: the value of the atom to the first power
    uint64_t inversePower = 0;  // its inverse
  };
  std::vector<AtomUnit> atomUnits_;  // per AtomId and point
};

}  // namespace mirage::search
