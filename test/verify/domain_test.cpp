// Definedness (docs/verifier.md, "Definedness"): the sign analysis, which
// conditions are left for the other program's facts, the direction of the
// check (the search's candidate-only, mirage-equiv's symmetric), and the
// bound rule.
#include <catch2/catch.hpp>

#include <algorithm>
#include <sstream>
#include <string>

#include "domain.h"
#include "mirage/parse/parser.h"
#include "mirage/verify/report.h"
#include "mirage/verify/verifier.h"

using namespace mirage;
using namespace mirage::verify;

namespace {

// A program with inputs X, Y of shape [4, 8] and output O = `expr`.
ir::Graph program(const std::string& expr) {
  std::string src = "graph g {\n  X = input f16[4, 8]\n  Y = input f16[4, 8]\n  O = " + expr +
                    "\n  output O\n}\n";
  std::ostringstream diags;
  auto g = parse::parseString(src, "t.mg", diags);
  INFO(src << diags.str());
  REQUIRE(g);
  return *g;
}

// How many of the program's conditions the sign analysis leaves open.
size_t open(const std::string& expr) {
  ir::Graph g = program(expr);
  DomainPlan p = domainPlan(g);
  return p.residualRoots.size();
}

}  // namespace

TEST_CASE("the sign analysis shows what is positive or non-negative, and nothing more", "[domain]") {
  CHECK(open("softmax(X)") == 0);                                    // a sum of exps
  CHECK(open("rms_norm(X, eps=1e-6)") == 0);                         // mean of squares + eps
  CHECK(open("mul(X, rsqrt(add(reduce_mean(square(X), dim=1), 0.5)))") == 0);
  CHECK(open("div(X, add(relu(Y), 1))") == 0);                       // >= 0 plus > 0
  CHECK(open("div(X, sqrt(exp(Y)))") == 0);                          // sqrt of > 0
  CHECK(open("div(X, silu(exp(Y)))") == 0);                          // silu keeps the sign
  CHECK(open("div(X, reduce_max(exp(Y), dim=1))") == 0);             // a max of positives
  CHECK(open("div(X, reduce_sum(matmul(exp(X), transpose(exp(Y), dim0=0, dim1=1)), dim=1))") == 0);
  CHECK(open("div(X, sub(exp(Y), 0))") == 0);
  CHECK(open("div(X, mul(exp(Y), -2))") == 0);                       // negative, so non-zero
  CHECK(open("sqrt(mul(square(X), 3))") == 0);
  // relu is only >= 0; a square, a sqrt, a max of them can be 0.
  CHECK(open("div(X, relu(Y))") == 1);
  CHECK(open("div(X, relu(exp(Y)))") == 0);
  CHECK(open("div(X, square(Y))") == 1);
  CHECK(open("div(X, sqrt(square(Y)))") == 1);
  CHECK(open("div(X, reduce_max(relu(Y), dim=1))") == 1);
  CHECK(open("div(X, gelu(Y))") == 1);
  CHECK(open("div(X, sub(exp(Y), 1))") == 1);                        // a difference of positives
  CHECK(open("sqrt(Y)") == 1);
  CHECK(open("rsqrt(square(Y))") == 1);                              // >= 0 is not > 0
  CHECK(open("div(X, 0)") == 1);
}

TEST_CASE("the search's check is one-way, mirage-equiv's symmetric", "[domain]") {
  ir::Graph cancels = program("div(mul(X, relu(Y)), relu(Y))");
  ir::Graph plain = program("X");
  // Replacing a program by one defined on more inputs is allowed...
  Verdict wider = Verifier(cancels).check(plain);
  CHECK(wider.equivalent);
  // ...but not by one defined on fewer.
  Verdict narrower = Verifier(plain).check(cancels);
  CHECK_FALSE(narrower.equivalent);
  CHECK(narrower.notProven);
  CHECK(narrower.undefined);
  CHECK(formatVerdict(narrower, {}).rfind("not proven: the second program's `div`", 0) == 0);
  CHECK(exitStatus(narrower) == 1);
  // mirage-equiv: the programs must be defined on the same inputs.
  Options both;
  both.symmetric = true;
  Verdict sym = checkEquivalent(cancels, plain, both);
  CHECK(sym.notProven);
  CHECK(sym.undefined);
  CHECK(sym.message.find("the first program's `div`") == 0);
}

TEST_CASE("a condition follows from a matching condition of the other program", "[domain]") {
  Options both;
  both.symmetric = true;
  // The same divisor: defined on the same inputs.
  CHECK(checkEquivalent(program("div(X, relu(Y))"), program("mul(X, div(1, relu(Y)))"), both).equivalent);
  // rsqrt(Y) needs Y > 0: the reference's sqrt gives Y >= 0 and its divisor sqrt(Y) != 0.
  CHECK(checkEquivalent(program("div(X, sqrt(Y))"), program("mul(X, rsqrt(Y))"), both).equivalent);
  // relu(Y) != 0 needs Y > 0, which the reference's rsqrt(Y) gives.
  CHECK(checkEquivalent(program("add(rsqrt(Y), X)"),
                        program("add(div(mul(rsqrt(Y), relu(Y)), relu(Y)), X)"), both).equivalent);
  // Only a sqrt (Y >= 0) in the reference: rsqrt(Y) also needs Y != 0.
  Verdict r = checkEquivalent(program("mul(X, sqrt(Y))"),
                              program("mul(mul(X, sqrt(Y)), mul(rsqrt(Y), sqrt(Y)))"), both);
  CHECK(r.notProven);
  CHECK(r.undefined);
}

TEST_CASE("'equivalent' is never printed with a bound above 1e-9", "[domain][bound]") {
  std::string a = "X", b = "X";
  for (int i = 0; i < 64; ++i) {
    a = "square(" + a + ")";
    b = "mul(" + b + ", " + b + ")";
    if (b.size() > 4096) b = a;  // the same value, written either way
  }
  Options o;
  o.trials = 64;
  Verdict v = checkEquivalent(program(a), program(b), o);
  CHECK_FALSE(v.equivalent);
  CHECK(v.notProven);
  CHECK_FALSE(v.undefined);
  CHECK(v.message.find("error bound") != std::string::npos);
  CHECK(formatVerdict(v, o).rfind("not proven: ", 0) == 0);
}

TEST_CASE("facts are the distinct instances, with zero and negations, whatever the repetition", "[domain]") {
  // A body value recorded once per block and loop step repeats its elements
  // (collectFacts deduplicates them before deriving and sorting).
  MontField P;  // the default prime
  DomainPlan plan;
  plan.facts.push_back({0, Cond::NonZero, 0, 0});
  plan.facts.push_back({1, Cond::NonNeg, 0, 0});
  std::vector<u64> site0, site1;
  for (int rep = 0; rep < 3000; ++rep)
    for (u64 x = 1; x <= 700; ++x) {
      site0.push_back(P.toMont(x));
      site1.push_back(rep % 2 ? u64{0} : P.toMont(x * 7));
    }
  FactSet f = collectFacts(plan, {site0, site1}, P);
  REQUIRE(f.nonZero.size() == 1400);  // 700 values and their negations
  REQUIRE(f.nonNeg.size() == 701);    // 700 values and zero
  CHECK(std::is_sorted(f.nonZero.begin(), f.nonZero.end()));
  CHECK(std::is_sorted(f.nonNeg.begin(), f.nonNeg.end()));
  for (u64 x = 1; x <= 700; ++x) {
    CHECK(std::binary_search(f.nonZero.begin(), f.nonZero.end(), P.toMont(x)));
    CHECK(std::binary_search(f.nonZero.begin(), f.nonZero.end(), P.neg(P.toMont(x))));
    CHECK(std::binary_search(f.nonNeg.begin(), f.nonNeg.end(), P.toMont(x * 7)));
  }
  CHECK(std::binary_search(f.nonNeg.begin(), f.nonNeg.end(), u64{0}));
}
