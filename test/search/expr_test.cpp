// The normal form decides the axioms of docs/search.md; the subexpression
// test accepts what an output can contain and rejects what it cannot.
#include <catch2/catch.hpp>

#include <unordered_map>

#include "mirage/search/expr.h"
#include "mirage/search/flat_memo.h"

using mirage::ir::OpKind;
using mirage::search::ExprTable;
using mirage::search::Rational;

TEST_CASE("normal form: ring axioms, sums and exp", "[expr]") {
  ExprTable ex;
  auto x = ex.input(0), y = ex.input(1), z = ex.input(2);
  CHECK(ex.add(x, y) == ex.add(y, x));
  CHECK(ex.mul(x, y) == ex.mul(y, x));
  CHECK(ex.mul(ex.mul(x, y), z) == ex.mul(x, ex.mul(y, z)));
  CHECK(ex.mul(ex.add(x, y), z) == ex.add(ex.mul(x, z), ex.mul(y, z)));
  CHECK(ex.div(ex.add(x, y), z) == ex.add(ex.div(x, z), ex.div(y, z)));
  CHECK(ex.sum(ex.sum(x, 4), 8) == ex.sum(x, 32));
  CHECK(ex.sum(ex.mul(x, y), 16) == ex.mul(ex.sum(x, 16), y));
  CHECK(ex.sum(ex.add(x, y), 4) == ex.add(ex.sum(x, 4), ex.sum(y, 4)));
  CHECK(ex.exp(ex.add(x, y)) == ex.mul(ex.exp(x), ex.exp(y)));
  CHECK(ex.sub(x, x) == ex.zero());
  // A sum in a divisor stays whole: sum(x)/sum(y) is not x/y.
  CHECK(ex.div(ex.sum(x, 8), ex.sum(y, 8)) != ex.div(x, y));
  // The max-shift axiom: exp(x - max x) abstracts to exp(x).
  CHECK(ex.exp(ex.sub(x, ex.max(x, 8))) == ex.exp(x));
  Rational r;
  CHECK(ex.equalUpToScale(ex.scale(ex.add(x, y), Rational(1, 4096)), ex.add(x, y), &r));
  CHECK(r == Rational(1, 4096));
  CHECK(Rational::fromDouble(1e-6) == Rational(1, 1000000));
  CHECK(Rational::fromDouble(0.125) == Rational(1, 8));
}

TEST_CASE("rationals are kept in lowest terms with a positive denominator at either width", "[expr]") {
  // 64-bit terms (the usual case) and terms past 64 bits (a product of two
  // large coefficients, reduced in 128 bits) give the same normal form.
  Rational r(6, -4);
  CHECK(r.num == -3);
  CHECK(r.den == 2);
  CHECK(Rational(0, 5).den == 1);
  CHECK(Rational(int64_t{1} << 40, 3) * Rational(9, int64_t{1} << 40) == Rational(3));
  Rational wide = Rational(int64_t{1} << 60, 3) * Rational(9, int64_t{1} << 60);  // 9 * 2^60 > INT64_MAX
  CHECK(wide.num == 3);
  CHECK(wide.den == 1);
  CHECK(Rational(-(int64_t{1} << 60), 7) / Rational(int64_t{1} << 60, 14) == Rational(-2));
}

TEST_CASE("subexpressions of RMSNorm+Linear after moving the normalization", "[expr]") {
  ExprTable ex;
  auto X = ex.input(0), W = ex.input(1);
  // matmul(rms_norm(X), W) with X[16, 4096].
  auto mean = ex.scale(ex.sum(ex.mul(X, X), 4096), Rational(1, 4096));
  auto target = ex.sum(ex.mul(ex.div(X, ex.func(OpKind::Sqrt, mean)), W), 4096);
  // Must be subexpressions: the pieces of the fused kernel.
  CHECK(ex.isSubexpr(ex.sum(ex.mul(X, W), 128), target));   // one for-loop step of X·W
  CHECK(ex.isSubexpr(ex.sum(ex.mul(X, W), 4096), target));  // its accumulation
  CHECK(ex.isSubexpr(ex.sum(ex.mul(X, X), 128), target));   // a step of the sum of squares
  CHECK(ex.isSubexpr(ex.func(OpKind::Sqrt, mean), target));
  CHECK(ex.isSubexpr(ex.div(ex.sum(ex.mul(X, W), 4096), ex.func(OpKind::Sqrt, mean)), target));
  CHECK(ex.isSubexpr(X, target));
  // Must not be: terms that no rewriting of the program contains.
  CHECK_FALSE(ex.isSubexpr(ex.mul(W, W), target));
  CHECK_FALSE(ex.isSubexpr(ex.exp(X), target));
  CHECK_FALSE(ex.isSubexpr(ex.func(OpKind::Sqrt, ex.sum(ex.mul(X, X), 4096)), target));  // mean needs 1/4096
  CHECK_FALSE(ex.isSubexpr(ex.func(OpKind::Sqrt, ex.scale(ex.sum(ex.mul(X, X), 2048), Rational(1, 4096))),
                           target));  // half the row is not the mean
  CHECK_FALSE(ex.isSubexpr(ex.sum(ex.mul(X, W), 3), target));  // 3 does not divide 4096
  CHECK_FALSE(ex.isSubexpr(ex.add(X, W), target));
}

TEST_CASE("subexpressions of attention", "[expr]") {
  ExprTable ex;
  auto Q = ex.input(0), K = ex.input(1), V = ex.input(2);
  auto S = ex.scale(ex.sum(ex.mul(Q, K), 64), Rational(1, 8));
  auto E = ex.exp(ex.sub(S, ex.max(S, 4096)));
  auto target = ex.sum(ex.mul(ex.div(E, ex.sum(E, 4096)), V), 4096);
  auto e = ex.exp(S);
  CHECK(ex.isSubexpr(ex.sum(ex.mul(e, V), 64), target));  // a block's partial numerator
  CHECK(ex.isSubexpr(ex.sum(e, 256), target));            // a partial denominator
  CHECK(ex.equalUpToScale(ex.div(ex.sum(ex.mul(e, V), 4096), ex.sum(e, 4096)), target));
  CHECK(ex.isSubexpr(ex.sum(ex.mul(Q, K), 64), target));
  CHECK_FALSE(ex.isSubexpr(ex.exp(ex.sum(ex.mul(Q, K), 64)), target));  // unscaled scores
  CHECK_FALSE(ex.isSubexpr(ex.sum(ex.mul(K, V), 64), target));
  CHECK_FALSE(ex.isSubexpr(ex.mul(Q, Q), target));
}

TEST_CASE("the rescale identity and rescaled accumulators", "[expr]") {
  ExprTable ex;
  auto a = ex.input(0), s = ex.input(1);
  auto m = ex.max(a, 64);    // a block's maximum (a scan or reduce_max)
  auto M = ex.max(m, 16);    // the maximum of the block maxima
  // exp(a - m)·exp(m - M) = exp(a - M), and each is exp(a) under the
  // max-shift axiom (the maxima cancel in every ratio they appear in).
  CHECK(ex.mul(ex.exp(ex.sub(a, m)), ex.exp(ex.sub(m, M))) == ex.exp(ex.sub(a, M)));
  CHECK(ex.exp(ex.sub(a, M)) == ex.exp(a));
  // A weight exp(m_j - M) is a constant: rescaling changes no abstract value.
  CHECK(ex.isConstant(ex.exp(ex.sub(m, M))));
  // So accum(x, rescale=m), which holds Σ x[i]·exp(m[i] - m[F-1]), is Σ x:
  // the online softmax's numerator and denominator are the input's.
  auto e = ex.exp(ex.sub(s, ex.max(s, 64)));
  auto x = ex.sum(ex.mul(e, a), 64);
  auto rescaled = ex.sum(ex.mul(x, ex.exp(ex.sub(m, M))), 16);
  CHECK(rescaled == ex.sum(ex.mul(ex.exp(s), a), 1024));
  // Maxima themselves are not part of an attention output.
  auto target = ex.div(ex.sum(ex.mul(ex.exp(s), a), 1024), ex.sum(ex.exp(s), 1024));
  CHECK_FALSE(ex.isSubexpr(ex.max(s, 64), target));
  CHECK(ex.isSubexpr(rescaled, target));
}

TEST_CASE("interning: one id per normal form, whatever the path; splitConstant is memoized", "[expr]") {
  // Interning compares normal forms by a hash of their numbers and then
  // structurally: expressions that differ in one coefficient, exponent,
  // summation degree or atom get different ids, equal ones the same.
  ExprTable ex;
  auto x = ex.input(0), y = ex.input(1);
  auto half = ex.scale(x, Rational(1, 2)), third = ex.scale(x, Rational(1, 3));
  CHECK(half != third);
  CHECK(ex.scale(ex.scale(x, Rational(2, 3)), Rational(3, 4)) == half);
  CHECK(ex.sum(x, 8) != ex.sum(x, 16));
  CHECK(ex.mul(x, x) != ex.mul(x, y));
  CHECK(ex.div(x, y) != ex.mul(x, y));
  CHECK(ex.add(ex.sum(x, 4), ex.sum(x, 4)) == ex.scale(ex.sum(x, 4), Rational(2)));
  auto xyPlusX = ex.add(ex.mul(x, y), x);
  const size_t before = ex.size();
  CHECK(ex.add(x, ex.mul(y, x)) == xyPlusX);
  CHECK(ex.size() == before);  // nothing new: the same form found again
  // x·y + x + 3 splits into x·y + x and 3, the same answer every time.
  auto e = ex.add(ex.add(ex.mul(x, y), x), ex.constant(Rational(3)));
  auto [rest, c] = ex.splitConstant(e);
  CHECK(c == Rational(3));
  CHECK(rest == xyPlusX);
  CHECK(ex.splitConstant(e) == std::make_pair(rest, c));
  CHECK(ex.splitConstant(rest) == std::make_pair(rest, Rational(0)));
}

TEST_CASE("ratio sub-sums: a sum occurs with its coefficients in the ratios of the target's", "[expr]") {
  ExprTable ex;
  auto x = ex.input(0), y = ex.input(1), z = ex.input(2);
  auto quarter = [&](mirage::search::ExprId a) { return ex.scale(a, Rational(1, 4)); };
  // GELU's shape: a function of x + y/4, times x.
  auto inner = ex.add(x, quarter(y));
  auto t = ex.mul(ex.func(OpKind::Tanh, inner), x);
  CHECK(ex.isRatioSubsum(inner, t));                                      // inside the atom
  CHECK(ex.isRatioSubsum(ex.scale(inner, Rational(6)), t));               // up to a common factor
  CHECK(ex.isRatioSubsum(y, t));                                          // one term asks nothing
  CHECK_FALSE(ex.isRatioSubsum(ex.add(x, y), t));                         // other ratios
  CHECK(ex.isSubexpr(ex.add(x, y), t));                                   // which isSubexpr lets through
  // With a cofactor: (x + y/4)·z occurs in x·z + y·z/4, x + y does not.
  auto u = ex.add(ex.mul(x, z), quarter(ex.mul(y, z)));
  CHECK(ex.isRatioSubsum(inner, u));
  CHECK(ex.isRatioSubsum(ex.mul(inner, z), u));
  CHECK_FALSE(ex.isRatioSubsum(ex.add(x, y), u));
  // A sub-sum: two of three terms, in their ratio.
  auto w = ex.add(ex.add(x, quarter(y)), ex.scale(z, Rational(3)));
  CHECK(ex.isRatioSubsum(ex.add(ex.scale(y, Rational(1, 12)), z), w));
  CHECK_FALSE(ex.isRatioSubsum(ex.add(y, z), w));
}

TEST_CASE("flat memo: the values put, through growth; the largest key is never kept", "[expr]") {
  mirage::search::FlatMemo<uint32_t> memo;
  std::unordered_map<uint64_t, uint32_t> expected;
  uint64_t x = 12345;
  for (int i = 0; i < 20000; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const uint64_t key = i % 3 == 0 ? static_cast<uint64_t>(i) : x;  // small keys and scattered ones, 0 among them
    memo.put(key, static_cast<uint32_t>(i));
    expected[key] = static_cast<uint32_t>(i);
  }
  for (const auto& [key, value] : expected) {
    const uint32_t* found = memo.find(key);
    REQUIRE(found);
    CHECK(*found == value);
  }
  CHECK(memo.find(7777777777ull) == nullptr);
  memo.put(~uint64_t{0}, 5);
  CHECK(memo.find(~uint64_t{0}) == nullptr);
  memo.clear();
  CHECK(memo.find(0) == nullptr);
}
