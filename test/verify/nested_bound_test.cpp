// Nested exps (docs/verifier.md, "Nested exps"): which outputs depend on an
// exp of a value without residue, and the witness on real inputs that a
// difference there needs; and the degree analysis of sums whose terms share
// one denominator ("The bound").
#include <catch2/catch.hpp>

#include <sstream>
#include <string>

#include "bound.h"
#include "mirage/parse/parser.h"
#include "nested_exp.h"
#include "real_witness.h"

using namespace mirage;
using namespace mirage::verify;

namespace {

// A program with inputs X, Y [4, 8] and W [8, 8], the given body lines, and
// output O.
ir::Graph program(const std::string& lines) {
  std::string src = "graph g {\n  X = input f16[4, 8]\n  Y = input f16[4, 8]\n  W = input f16[8, 8]\n" + lines +
                    "\n  output O\n}\n";
  std::ostringstream diags;
  auto g = parse::parseString(src, "t.mg", diags);
  INFO(src << diags.str());
  REQUIRE(g);
  return *g;
}

bool nested(const std::string& lines) { return outputsAfterUninterpretedExp(program(lines)).at(0) != 0; }

double outputDegree(const std::string& lines) { return boundStats(program(lines)).outputDegree; }

}  // namespace

TEST_CASE("an output depends on an uninterpreted exp exactly when some exp's argument has no residue", "[nested]") {
  CHECK_FALSE(nested("  O = exp(add(X, Y))"));
  CHECK(nested("  O = exp(exp(X))"));
  CHECK(nested("  O = mul(exp(exp(X)), 2)"));
  // A random function or a maximum draws a fresh residue: exp of it is exact.
  CHECK_FALSE(nested("  O = exp(sqrt(exp(X)))"));
  CHECK_FALSE(nested("  O = exp(reduce_max(exp(X), dim=1))"));
  // Softmax, matmul, softmax: the second softmax's argument has no residue.
  CHECK(nested("  O = softmax(matmul(softmax(X, dim=-1), W), dim=-1)"));
  CHECK_FALSE(nested("  O = matmul(softmax(X, dim=-1), W)"));
  // Inside a kernel body, through its argument.
  CHECK(nested("  E = exp(X)\n  O = kernel(E) grid=[4] forloop=1 {\n    t = tile(E, imap={x:0})\n"
               "    u = accum(exp(t))\n    save(u, O, omap={x:0})\n  }"));
  CHECK_FALSE(nested("  O = kernel(X) grid=[4] forloop=1 {\n    t = tile(X, imap={x:0})\n"
                     "    u = accum(exp(t))\n    save(u, O, omap={x:0})\n  }"));
}

TEST_CASE("a difference after nested exps is refuted only with a witness on real inputs", "[nested]") {
  std::string why;
  // exp(exp(x)) is not exp(2 exp(x)): they differ on real inputs.
  CHECK(differsOverReals(program("  O = exp(exp(X))"), program("  O = exp(mul(exp(X), 2))"), 0, &why));
  CHECK(why.find("at real inputs") != std::string::npos);
  // exp(exp(a) + exp(b)) = exp(exp(a))·exp(exp(b)): no witness.
  CHECK_FALSE(differsOverReals(program("  O = exp(add(exp(X), exp(Y)))"),
                               program("  O = mul(exp(exp(X)), exp(exp(Y)))"), 0, &why));
  CHECK(why.find("agree") != std::string::npos);
}

TEST_CASE("sums whose terms share one denominator keep its degree", "[nested][bound]") {
  // softmax(X)·W: p_j = e_j / s with one s per row, so Σ_j p_j w_j = (Σ_j e_j w_j) / s.
  CHECK(outputDegree("  O = matmul(softmax(X, dim=-1), W)") == 3);
  // (X / Y)·W: every term its own denominator.
  CHECK(outputDegree("  O = matmul(div(X, Y), W)") == 17);
  // rms_norm: x_k / r with one r per row.
  CHECK(outputDegree("  O = matmul(div(X, sqrt(reduce_mean(square(X), dim=1))), W)") == 3);
  CHECK(outputDegree("  O = reduce_sum(div(X, reduce_sum(Y, dim=1)), dim=1)") == 2);
  CHECK(outputDegree("  O = reduce_sum(div(X, Y), dim=1)") == 16);
}

TEST_CASE("a kernel result shares a denominator along a grid-split dim only when no block's depends on the grid",
          "[nested][bound]") {
  // Each block divides its column of X by its own element of R: within a
  // block one element, across blocks different denominators.
  CHECK(outputDegree("  R = reduce_sum(Y, dim=0)\n  K = kernel(X, R) grid=[8] forloop=1 {\n"
                     "    a = tile(X, imap={x:1})\n    b = tile(R, imap={x:1})\n    c = accum(div(a, b))\n"
                     "    save(c, K, omap={x:1})\n  }\n  O = matmul(K, W)") == 17);
  // Every block divides by the same per-row sums: shared along the columns.
  CHECK(outputDegree("  R = reduce_sum(Y, dim=1)\n  K = kernel(X, R) grid=[8] forloop=1 {\n"
                     "    a = tile(X, imap={x:1})\n    b = tile(R, imap={})\n    c = accum(div(a, b))\n"
                     "    save(c, K, omap={x:1})\n  }\n  O = matmul(K, W)") == 3);
}
