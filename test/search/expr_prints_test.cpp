// Prints of abstract expressions (expr_prints.h) follow the normal form's
// arithmetic exactly: what the search predicts of an operator's result from
// its operands' prints is the print of the result it would build, and
// expressions equal up to a constant have proportional prints. A failure
// here would let the search rule out a program term it can make.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <random>
#include <vector>

#include "expr_prints.h"
#include "mirage/search/expr.h"

using mirage::ir::OpKind;
using mirage::search::ExprId;
using mirage::search::ExprPrints;
using mirage::search::ExprTable;
using mirage::search::Print;
using mirage::search::Rational;

namespace {

bool samePrint(const Print& a, const Print& b) {
  return a.known == b.known && (!a.known || (a.v[0] == b.v[0] && a.v[1] == b.v[1]));
}

// A pool of expressions as a body search makes them: inputs, scales by the
// program's numbers, sums over extents, functions, exps, maxima, and sums,
// differences, products and quotients of earlier ones.
std::vector<ExprId> pool(ExprTable& ex, int size, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<ExprId> p;
  for (int i = 0; i < 4; ++i) p.push_back(ex.input(i));
  p.push_back(ex.constant(Rational(1)));
  auto pick = [&] { return p[std::uniform_int_distribution<size_t>(0, p.size() - 1)(rng)]; };
  while (static_cast<int>(p.size()) < size) {
    const ExprId a = pick(), b = pick();
    switch (std::uniform_int_distribution<int>(0, 9)(rng)) {
      case 0: p.push_back(ex.add(a, b)); break;
      case 1: p.push_back(ex.sub(a, b)); break;
      case 2: p.push_back(ex.mul(a, b)); break;
      case 3: p.push_back(ex.div(a, b)); break;
      case 4: p.push_back(ex.scale(a, Rational(std::uniform_int_distribution<int>(-9, 9)(rng) | 1, 4096))); break;
      case 5: p.push_back(ex.sum(a, std::uniform_int_distribution<int>(0, 1)(rng) ? 64 : 4096)); break;
      case 6: p.push_back(ex.unary(OpKind::Sqrt, a)); break;
      case 7: p.push_back(ex.unary(OpKind::Rsqrt, a)); break;
      case 8: p.push_back(ex.exp(a)); break;
      case 9: p.push_back(ex.max(a, 64)); break;
    }
  }
  return p;
}

// Equal up to a constant once every monomial's summation degree is made a
// factor of its coefficient: what prints cannot tell apart.
bool equalWithoutDegrees(const ExprTable& ex, ExprId a, ExprId b) {
  auto erased = [&](ExprId e) {
    std::map<std::vector<std::pair<int, double>>, double> terms;
    for (const auto& m : ex.poly(e).terms) {
      std::vector<std::pair<int, double>> key;
      for (const auto& f : m.factors) key.push_back({f.atom, f.exponent.toDouble()});
      terms[key] += m.coeff.toDouble() * static_cast<double>(m.degree);
    }
    return terms;
  };
  const auto ta = erased(a), tb = erased(b);
  if (ta.size() != tb.size() || ta.empty()) return false;
  const double ratio = ta.begin()->second / tb.begin()->second;
  for (auto ia = ta.begin(), ib = tb.begin(); ia != ta.end(); ++ia, ++ib)
    if (ia->first != ib->first || std::abs(ia->second / ib->second - ratio) > 1e-9 * std::abs(ratio)) return false;
  return true;
}

}  // namespace

TEST_CASE("prints: operators' results as the operands' prints predict", "[expr]") {
  ExprTable ex;
  ExprPrints prints;
  const std::vector<ExprId> p = pool(ex, 400, 7);
  std::mt19937 rng(11);
  int known = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    const ExprId a = p[rng() % p.size()], b = p[rng() % p.size()];
    const Print pa = prints.of(ex, a), pb = prints.of(ex, b);
    if (!pa.known || !pb.known) continue;
    ++known;
    INFO(ex.str(a) << "  and  " << ex.str(b));
    // A result whose print is unknown (its arithmetic left the exact
    // range) is decided exactly by the search: nothing to compare.
    auto check = [&](ExprId result, const Print& predicted) {
      const Print actual = prints.of(ex, result);
      if (actual.known) CHECK(samePrint(actual, predicted));
    };
    check(ex.add(a, b), ExprPrints::add(pa, pb));
    check(ex.sub(a, b), ExprPrints::sub(pa, pb));
    check(ex.mul(a, b), ExprPrints::mul(pa, pb));
    check(ex.div(a, b), ExprPrints::mul(pa, prints.inverseOf(ex, b)));
    check(ex.binary(OpKind::Div, b, a), ExprPrints::mul(pb, prints.inverseOf(ex, a)));
    // Equal up to a constant: proportional.
    const ExprId scaled = ex.scale(a, Rational(-3, 128));
    CHECK(ExprPrints::mayBeProportional(prints.of(ex, scaled), pa));
    CHECK(ExprPrints::mayBeProportional(prints.of(ex, ex.sub(b, a)), prints.of(ex, ex.sub(a, b))));
  }
  CHECK(known > 3000);
}

TEST_CASE("prints: different normal forms are told apart", "[expr]") {
  ExprTable ex;
  ExprPrints prints;
  const ExprId x = ex.input(0), y = ex.input(1);
  // A square is not a product of two inputs, an exp is not its argument,
  // a sum is not a difference. (A sum over n elements and n times the
  // element are not told apart: the normal form itself makes a sum of a
  // constant n times it.)
  CHECK_FALSE(ExprPrints::mayBeProportional(prints.of(ex, ex.mul(x, x)), prints.of(ex, ex.mul(x, y))));
  CHECK_FALSE(ExprPrints::mayBeProportional(prints.of(ex, ex.exp(x)), prints.of(ex, x)));
  CHECK_FALSE(ExprPrints::mayBeProportional(prints.of(ex, ex.add(x, y)), prints.of(ex, ex.sub(x, y))));
  // How many of a pool's normal forms that differ other than by a constant
  // share a ratio of prints: none, where the prints are known, but those
  // that differ only in summation degrees.
  const std::vector<ExprId> p = pool(ex, 300, 3);
  int clashes = 0, compared = 0;
  for (size_t i = 0; i < p.size(); ++i)
    for (size_t j = i + 1; j < p.size(); ++j) {
      if (ex.equalUpToScale(p[i], p[j]) || ex.poly(p[i]).terms.empty() || ex.poly(p[j]).terms.empty()) continue;
      const Print a = prints.of(ex, p[i]), b = prints.of(ex, p[j]);
      if (!a.known || !b.known) continue;
      ++compared;
      if (!ExprPrints::mayBeProportional(a, b)) continue;
      INFO(ex.str(p[i]) << "  and  " << ex.str(p[j]));
      if (!equalWithoutDegrees(ex, p[i], p[j])) ++clashes;
    }
  CHECK(compared > 10000);
  CHECK(clashes == 0);
}
