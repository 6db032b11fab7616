// Abstract expressions: the pruning oracle of the search (docs/search.md).
//
// Every tensor the search builds gets an abstract expression, a term over the
// program's inputs that forgets *which* index a reduction runs over but keeps
// *how many* elements it adds. Terms are kept in a normal form that decides
// the algebraic axioms of docs/search.md by construction: a polynomial (a sum
// of monomials), each monomial a rational coefficient, a summation degree
// (the product of the extents reduced into it: sum(i, sum(j, x)) = sum(ij, x),
// sum(i, x·y) = sum(i, x)·y) and a product of atoms with rational exponents.
// Atoms are inputs, uninterpreted functions of a polynomial (sqrt, silu, …),
// exp of a monomial (exp(x + y) = exp(x)·exp(y)) and the inverse of a
// polynomial that is not a plain product. Normal forms are interned, so two
// terms are equal under the axioms exactly when their ids are equal.
// isSubexpr(e, t) decides whether e can occur inside t under the axioms
// (memoized); it is the test that a partial μGraph must pass to be extended.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "mirage/ir/graph.h"
#include "mirage/search/flat_memo.h"

namespace mirage::search {

// An exact rational with a positive denominator.
struct Rational {
  int64_t num = 0;
  int64_t den = 1;
  Rational() = default;
  Rational(int64_t n, int64_t d = 1);
  static Rational fromDouble(double v);  // exact for dyadic values, else the nearest with den <= 1e9
  double toDouble() const { return static_cast<double>(num) / static_cast<double>(den); }
  bool isZero() const { return num == 0; }
  bool isInteger() const { return den == 1; }
  friend bool operator==(const Rational&, const Rational&) = default;
  friend auto operator<=>(const Rational& a, const Rational& b) {
    return static_cast<__int128>(a.num) * b.den <=> static_cast<__int128>(b.num) * a.den;
  }
};
Rational operator+(Rational a, Rational b);
Rational operator*(Rational a, Rational b);
Rational operator/(Rational a, Rational b);
Rational operator-(Rational a);
Rational abs(Rational a);

using ExprId = int32_t;  // an interned polynomial
using AtomId = int32_t;

enum class AtomKind : uint8_t { Input, Func, Exp, Inv };

struct Atom {
  AtomKind kind = AtomKind::Input;
  int32_t tag = 0;     // Input: the input's index; Func: the ir::OpKind
  int64_t extent = 0;  // Func reduce_max: the extent it reduces
  ExprId arg = -1;     // Func, Exp, Inv: the argument
  friend auto operator<=>(const Atom&, const Atom&) = default;
};

struct Factor {
  AtomId atom = 0;
  Rational exponent;
  friend bool operator==(const Factor&, const Factor&) = default;
};

struct Monomial {
  Rational coeff{1};
  int64_t degree = 1;            // product of the extents summed into this term
  std::vector<Factor> factors;  // sorted by atom id, no zero exponents
  friend bool operator==(const Monomial&, const Monomial&) = default;
};

struct Poly {
  std::vector<Monomial> terms;  // sorted by (degree, factors); no zero coefficients
  friend bool operator==(const Poly&, const Poly&) = default;
};

// Not thread-safe: each search thread owns one table.
class ExprTable {
 public:
  ExprTable();

  ExprId input(int index);
  ExprId constant(Rational c);
  ExprId zero() const { return zero_; }
  ExprId add(ExprId a, ExprId b);
  ExprId sub(ExprId a, ExprId b);
  ExprId mul(ExprId a, ExprId b);
  ExprId div(ExprId a, ExprId b);
  ExprId scale(ExprId a, Rational c);
  ExprId sum(ExprId a, int64_t extent);  // a reduction (or for-loop accumulation) over extent elements
  ExprId exp(ExprId a);
  ExprId func(ir::OpKind kind, ExprId a);  // sqrt, silu, gelu, relu (uninterpreted)
  ExprId max(ExprId a, int64_t extent);    // reduce_max / accum max (uninterpreted)
  // The abstract expression of an element-wise operator: the one mapping
  // from operators to expressions, used by the program analysis
  // (labels.cpp) and by the body search alike.
  ExprId unary(ir::OpKind kind, ExprId a);
  ExprId binary(ir::OpKind kind, ExprId a, ExprId b);

  const Poly& poly(ExprId e) const { return polys_[static_cast<size_t>(e)]; }
  const Atom& atom(AtomId a) const { return atoms_[static_cast<size_t>(a)]; }
  bool isConstant(ExprId e) const;  // no term has an atom

  // e = ratio · t for some nonzero rational ratio.
  bool equalUpToScale(ExprId e, ExprId t, Rational* ratio = nullptr) const;
  // Can e occur inside t under the axioms (up to a constant factor, which a
  // later scaling supplies)? Memoized.
  bool isSubexpr(ExprId e, ExprId t);
  // A sum of several terms that occurs in t (or inside an atom's argument
  // in t) with its coefficients in the same ratios: e·c is a sub-sum of a
  // polynomial of t for some monomial c, coefficients included. Memoized.
  bool isRatioSubsum(ExprId e, ExprId t);
  // Every argument of a function, exp or inverse atom inside t (recursively):
  // the terms that a value must equal exactly before it is wrapped.
  std::vector<ExprId> atomArguments(ExprId t) const;
  // The expression minus its constant term, and that constant.
  std::pair<ExprId, Rational> splitConstant(ExprId e);

  std::string str(ExprId e) const;
  size_t size() const { return polys_.size(); }

 private:
  ExprId intern(Poly p);
  AtomId internAtom(const Atom& a);
  ExprId fromMonomial(Monomial m);
  ExprId inverse(ExprId a);
  bool contains(const Monomial& big, const Monomial& small) const;
  bool isCofactoredSubsum(const Poly& pe, const Poly& pt, bool sameRatios) const;
  bool inAtomArgument(ExprId e, ExprId t, bool (ExprTable::*test)(ExprId, ExprId));
  void collectArgs(ExprId t, std::vector<ExprId>& out, std::vector<char>& seen) const;
  std::string monomialStr(const Monomial& m) const;

  std::vector<Poly> polys_;
  // Interned polynomials by a hash of their numbers; equal hashes are told
  // apart by comparing the polynomials (normal forms are equal exactly
  // when they are the same expression).
  std::unordered_multimap<uint64_t, ExprId> polyIndex_;
  // splitConstant's answers, per expression (-1: not asked yet).
  std::vector<std::pair<ExprId, Rational>> splitMemo_;
  std::vector<Atom> atoms_;
  std::map<Atom, AtomId> atomIndex_;
  FlatMemo<bool> subexprMemo_;
  FlatMemo<bool> ratioMemo_;
  // Results of the public operations, so that the search's repeated
  // questions cost one hash lookup.
  struct OpKey {
    int64_t op, a, b, param;
    friend bool operator==(const OpKey&, const OpKey&) = default;
  };
  struct OpKeyHash {
    size_t operator()(const OpKey& k) const {
      uint64_t h = static_cast<uint64_t>(k.op) * 0x9e3779b97f4a7c15ull;
      h ^= static_cast<uint64_t>(k.a) + 0x7f4a7c159e3779b9ull + (h << 6) + (h >> 2);
      h ^= static_cast<uint64_t>(k.b) + 0x7f4a7c159e3779b9ull + (h << 6) + (h >> 2);
      h ^= static_cast<uint64_t>(k.param) + 0x7f4a7c159e3779b9ull + (h << 6) + (h >> 2);
      return static_cast<size_t>(h);
    }
  };
  // Open addressing in one flat array: a question costs one probe, where
  // a node-based map cost a cache miss more (an eighth of the search's
  // time went to that map). An empty slot has value -1.
  struct MemoSlot {
    OpKey key{};
    ExprId value = -1;
  };
  std::vector<MemoSlot> memoSlots_ = std::vector<MemoSlot>(1024);
  size_t memoUsed_ = 0;
  size_t findMemo(const OpKey& k) const {
    const size_t mask = memoSlots_.size() - 1;
    uint64_t h = OpKeyHash{}(k);
    h = (h ^ (h >> 31)) * 0xbf58476d1ce4e5b9ull;  // spread into the low bits the mask keeps
    size_t i = static_cast<size_t>(h ^ (h >> 29)) & mask;
    while (memoSlots_[i].value >= 0 && !(memoSlots_[i].key == k)) i = (i + 1) & mask;
    return i;
  }
  template <typename F>
  ExprId memo(int64_t op, int64_t a, int64_t b, int64_t param, F compute) {
    OpKey k{op, a, b, param};
    if (const MemoSlot& s = memoSlots_[findMemo(k)]; s.value >= 0) return s.value;
    ExprId r = compute();  // may ask (and grow the table) itself: find the slot again
    memoSlots_[findMemo(k)] = {k, r};
    if (2 * ++memoUsed_ > memoSlots_.size()) {
      std::vector<MemoSlot> old(memoSlots_.size() * 2);
      old.swap(memoSlots_);
      for (const MemoSlot& e : old)
        if (e.value >= 0) memoSlots_[findMemo(e.key)] = e;
    }
    return r;
  }
  ExprId zero_ = -1;
};

}  // namespace mirage::search
