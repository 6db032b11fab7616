// A sum a body makes over a program label must hold the inputs one of the
// program's sums over that label varies with (Context::labelSums,
// sumsOverRightIndex), and a for-loop over the label walks tiles holding
// what all of them need (loopNeedsInputs; docs/search.md "Sums over the
// right index"): the inputs found must be exactly those, or the search
// would drop equivalent bodies (too many) or keep sums over the wrong
// index (too few).
#include <catch2/catch.hpp>

#include <iostream>

#include "analysis.h"

using namespace mirage;
using mirage::test::Analysis;
using mirage::test::analyze;

namespace {

// The label of dim `dim` of the program's input number `input`.
search::Label inputLabel(const Analysis& a, int input, int dim) {
  return a.labels.ofValue[static_cast<size_t>(a.graph.inputs[static_cast<size_t>(input)])][static_cast<size_t>(dim)];
}

uint64_t needs(const Analysis& a, search::Label l) {
  REQUIRE(static_cast<size_t>(l) < a.ctx.loopNeedsInputs.size());
  return a.ctx.loopNeedsInputs[static_cast<size_t>(l)];
}

}  // namespace

TEST_CASE("loop needs: the intermediate dim of an MLP needs both weights", "[loop_needs]") {
  auto a = analyze(
      "graph m { X = input f16[16, 64]\n W1 = input f16[64, 256]\n W2 = input f16[256, 64]\n"
      " O = matmul(gelu(matmul(X, W1)), W2)\n output O }");
  // The intermediate dim: only the second matmul sums it, its factors vary
  // with it through W1 (gelu of X·W1) and W2.
  CHECK(needs(*a, inputLabel(*a, 2, 0)) == 0b110);
  // The hidden dim of X: the first matmul, X and W1.
  CHECK(needs(*a, inputLabel(*a, 0, 1)) == 0b011);
  // Rows are never summed: nothing asked.
  CHECK(needs(*a, inputLabel(*a, 0, 0)) == 0);
  // A sum over the intermediate dim of the GELU alone (it holds X and W1)
  // is a sum over the wrong index; with W2 in the product it is the
  // program's; X, which lacks the dim, does not count for it.
  const search::Label i = inputLabel(*a, 2, 0);
  CHECK_FALSE(a->ctx.sumsOverRightIndex(i, 0b011));
  CHECK(a->ctx.sumsOverRightIndex(i, 0b110));
  CHECK(a->ctx.sumsOverRightIndex(i, 0b111));
  CHECK_FALSE(a->ctx.sumsOverRightIndex(i, 0b101));
  // Rows are never summed: no sum over them is one of the program's,
  // whatever it holds (asked nothing only with the option off). The unit
  // label is not asked about.
  CHECK_FALSE(a->ctx.sumsOverRightIndex(inputLabel(*a, 0, 0), 0));
  CHECK_FALSE(a->ctx.sumsOverRightIndex(inputLabel(*a, 0, 0), 0b111));
  a->ctx.refuseSumsOverUnsummedLabels = false;
  CHECK(a->ctx.sumsOverRightIndex(inputLabel(*a, 0, 0), 0));
  CHECK(a->ctx.sumsOverRightIndex(search::kUnit, 0));
}

TEST_CASE("loop needs: attention's keys need K in every sum, V only in one", "[loop_needs]") {
  auto a = analyze(
      "graph att { Q = input f16[2, 8, 64]\n K = input f16[2, 64, 128]\n V = input f16[2, 128, 64]\n"
      " S = matmul(Q, K)\n M = reduce_max(S, dim=2)\n E = exp(sub(S, M))\n"
      " O = div(matmul(E, V), reduce_sum(E, dim=2))\n output O }");
  // The keys: the maximum and the sum of E take their varying factor from
  // K alone, the product with V from K and V: K is what every one needs.
  CHECK(needs(*a, inputLabel(*a, 1, 2)) == 0b010);
  // The head dim of Q·K: Q and K.
  CHECK(needs(*a, inputLabel(*a, 0, 2)) == 0b011);
  // Σ_d Q (a query tile summed by itself) is not part of Σ_d Q·K; the
  // maximum of the scores over the keys (they hold Q and K) is.
  CHECK_FALSE(a->ctx.sumsOverRightIndex(inputLabel(*a, 0, 2), 0b001));
  CHECK(a->ctx.sumsOverRightIndex(inputLabel(*a, 0, 2), 0b011));
  CHECK(a->ctx.sumsOverRightIndex(inputLabel(*a, 1, 2), 0b011));
  CHECK_FALSE(a->ctx.sumsOverRightIndex(inputLabel(*a, 1, 2), 0b101));
}

TEST_CASE("loop needs: a norm and a product over one dim need only what both have", "[loop_needs]") {
  // RMSNorm+Linear: the hidden dim is summed in the norm (X only) and in
  // the matmul (X and W): a loop over it needs X. The norm's sum ends
  // X's path through the hidden dim, so the scaled X still varies with
  // it only through X itself.
  auto a = analyze(
      "graph r { X = input f16[16, 256]\n W = input f16[256, 64]\n"
      " N = div(X, sqrt(reduce_mean(mul(X, X), dim=1)))\n Y = matmul(N, W)\n output Y }");
  CHECK(needs(*a, inputLabel(*a, 0, 1)) == 0b01);
  // QK-norm: the head dim is summed in the query norm (Q), the key norm
  // (K) and the scores (Q and K): nothing is common to all.
  auto b = analyze(
      "graph q { Q = input f16[8, 64]\n K = input f16[64, 32]\n"
      " QN = div(Q, sqrt(reduce_mean(mul(Q, Q), dim=1)))\n"
      " KN = div(K, sqrt(reduce_mean(mul(K, K), dim=0)))\n S = matmul(QN, KN)\n output S }");
  CHECK(needs(*b, inputLabel(*b, 0, 1)) == 0);
}

TEST_CASE("loop needs: a sum of terms may be summed term by term", "[loop_needs]") {
  // Σ_j (A·B + C) = Σ_j A·B + Σ_j C: a body may sum C by itself, or A·B,
  // but not A alone; and a loop over j need not walk all three.
  auto a = analyze(
      "graph t { A = input f16[8, 64]\n B = input f16[8, 64]\n C = input f16[8, 64]\n"
      " O = reduce_sum(add(mul(A, B), C), dim=1)\n output O }");
  const search::Label j = inputLabel(*a, 0, 1);
  CHECK(needs(*a, j) == 0);
  CHECK(a->ctx.sumsOverRightIndex(j, 0b100));
  CHECK(a->ctx.sumsOverRightIndex(j, 0b011));
  CHECK_FALSE(a->ctx.sumsOverRightIndex(j, 0b001));
  CHECK_FALSE(a->ctx.sumsOverRightIndex(j, 0b010));
  // A divisor is one factor whatever its terms: Σ_j A/(B + C) needs all three.
  auto b = analyze(
      "graph d { A = input f16[8, 64]\n B = input f16[8, 64]\n C = input f16[8, 64]\n"
      " O = reduce_sum(div(A, add(B, C)), dim=1)\n output O }");
  CHECK(needs(*b, inputLabel(*b, 0, 1)) == 0b111);
}
