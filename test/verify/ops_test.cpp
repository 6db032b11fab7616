// The fingerprint rule of every operator, checked element by element against
// a direct computation in the trial's fields.
#include <catch2/catch.hpp>

#include "mirage/verify/fingerprint.h"
#include "mirage/verify/thread_pool.h"
#include "tensor_ops.h"

using namespace mirage;
using namespace mirage::verify;
using ir::OpKind;

namespace {

ir::Op makeOp(OpKind k, int dim = 0, int64_t size = 1) {
  ir::Op op;
  op.kind = k;
  op.dim = dim;
  op.size = size;
  return op;
}

FTensor apply(const Trial& t, const ir::Op& op, std::vector<const FTensor*> ins, ir::Shape shape,
              ThreadPool* pool = nullptr) {
  FTensor out;
  REQUIRE(applyOp(op, ins, shape, t, pool, out));
  return out;
}

FTensor constant(const Trial& t, const char* text) {
  ir::Op c = makeOp(OpKind::Const);
  c.scalarText = text;
  return makeConstant(c, t.P(), t.Q());
}

}  // namespace

TEST_CASE("element-wise binary operators, with broadcasting, in both fields", "[ops]") {
  Trial t(3, 0, 0);
  const MontField &P = t.P(), &Q = t.Q();
  FTensor a = t.input("a", {4, 6}), b = t.input("b", {4, 1}), c = t.input("c", {6});
  FTensor s = apply(t, makeOp(OpKind::Add), {&a, &b}, {4, 6});
  FTensor d = apply(t, makeOp(OpKind::Sub), {&a, &c}, {4, 6});
  FTensor m = apply(t, makeOp(OpKind::Mul), {&b, &c}, {4, 6});
  FTensor q = apply(t, makeOp(OpKind::Div), {&a, &b}, {4, 6});
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 6; ++j) {
      size_t e = static_cast<size_t>(i * 6 + j), bi = static_cast<size_t>(i), cj = static_cast<size_t>(j);
      CHECK(s.p[e] == P.add(a.p[e], b.p[bi]));
      CHECK(s.q[e] == Q.add(a.q[e], b.q[bi]));
      CHECK(d.p[e] == P.sub(a.p[e], c.p[cj]));
      CHECK(m.p[e] == P.mul(b.p[bi], c.p[cj]));
      CHECK(P.mul(q.p[e], b.p[bi]) == a.p[e]);
      CHECK(Q.mul(q.q[e], b.q[bi]) == a.q[e]);
    }
  // A constant operand broadcasts like a rank-0 tensor; sub = add of -1 times.
  FTensor minusOne = constant(t, "-1");
  FTensor nb = apply(t, makeOp(OpKind::Mul), {&c, &minusOne}, {6});
  FTensor viaAdd = apply(t, makeOp(OpKind::Add), {&a, &nb}, {4, 6});
  CHECK(viaAdd.p == d.p);
  CHECK(viaAdd.q == d.q);
}

TEST_CASE("division by a zero element reports a zero divisor", "[ops]") {
  Trial t(3, 0, 0);
  FTensor a = t.input("a", {2, 3});
  FTensor z = apply(t, makeOp(OpKind::Sub), {&a, &a}, {2, 3});
  FTensor out;
  CHECK_FALSE(applyOp(makeOp(OpKind::Div), {&a, &z}, {2, 3}, t, nullptr, out));
}

TEST_CASE("matmul matches a naive product, with batch broadcasting, odd K and few rows", "[ops]") {
  // Rows 1 to 5 and odd column counts: the shapes kernel bodies multiply.
  Trial t(4, 1, 0);
  const MontField& P = t.P();
  ThreadPool pool(2);
  for (int64_t M : {1, 3, 4, 5})
    for (int64_t K : {1, 16, 37})
      for (int64_t N : {3, 4, 7, 70, 131}) {
        INFO("M " << M << " K " << K << " N " << N);
        FTensor a = t.input("a", {2, 3, M, K}), b = t.input("b", {3, K, N});
        FTensor c = apply(t, makeOp(OpKind::Matmul), {&a, &b}, {2, 3, M, N}, &pool);
        REQUIRE(c.hasQ());
        for (int64_t n = 0; n < 2; ++n)
          for (int64_t h = 0; h < 3; ++h)
            for (int64_t i = 0; i < M; ++i)
              for (int64_t j = 0; j < N; ++j) {
                u64 acc = 0, accq = 0;
                for (int64_t k = 0; k < K; ++k) {
                  size_t ai = static_cast<size_t>(((n * 3 + h) * M + i) * K + k);
                  size_t bi = static_cast<size_t>((h * K + k) * N + j);
                  acc = P.add(acc, P.mul(a.p[ai], b.p[bi]));
                  accq = t.Q().add(accq, t.Q().mul(a.q[ai], b.q[bi]));
                }
                size_t ci = static_cast<size_t>(((n * 3 + h) * M + i) * N + j);
                REQUIRE(c.p[ci] == acc);
                REQUIRE(c.q[ci] == accq);
              }
      }
}

TEST_CASE("exp raises w to the exponent residue; without one it is a random function", "[ops]") {
  Trial t(5, 0, 0);
  FTensor a = t.input("a", {8}), b = t.input("b", {8});
  FTensor ea = apply(t, makeOp(OpKind::Exp), {&a}, {8});
  CHECK_FALSE(ea.hasQ());
  for (size_t i = 0; i < 8; ++i) CHECK(ea.p[i] == t.P().pow(t.omega(), t.Q().fromMont(a.q[i])));
  // exp(a + b) = exp(a) exp(b) and exp(a - b) = exp(a) / exp(b), exactly.
  FTensor s = apply(t, makeOp(OpKind::Add), {&a, &b}, {8});
  FTensor d = apply(t, makeOp(OpKind::Sub), {&a, &b}, {8});
  FTensor eb = apply(t, makeOp(OpKind::Exp), {&b}, {8});
  FTensor es = apply(t, makeOp(OpKind::Exp), {&s}, {8});
  FTensor ed = apply(t, makeOp(OpKind::Exp), {&d}, {8});
  CHECK(es.p == apply(t, makeOp(OpKind::Mul), {&ea, &eb}, {8}).p);
  CHECK(ed.p == apply(t, makeOp(OpKind::Div), {&ea, &eb}, {8}).p);
  // exp of an exp: no residue, so a keyed random function of the value.
  FTensor eea = apply(t, makeOp(OpKind::Exp), {&ea}, {8});
  REQUIRE(eea.hasQ());
  for (size_t i = 0; i < 8; ++i) CHECK(eea.p[i] == t.randomP(KeyKind::ExpNoResidue, ea.p[i]));
}

TEST_CASE("sqrt, silu, gelu, relu are random functions of the value; rsqrt = 1/sqrt", "[ops]") {
  Trial t(6, 0, 0);
  FTensor x = t.input("x", {16});
  FTensor two = constant(t, "2");
  FTensor y = apply(t, makeOp(OpKind::Mul), {&x, &two}, {16});
  FTensor x2 = apply(t, makeOp(OpKind::Div), {&y, &two}, {16});  // equal values, other route
  std::vector<std::vector<u64>> results;
  for (OpKind k : {OpKind::Sqrt, OpKind::Silu, OpKind::Gelu, OpKind::Relu}) {
    FTensor r = apply(t, makeOp(k), {&x}, {16});
    FTensor r2 = apply(t, makeOp(k), {&x2}, {16});
    CHECK(r.p == r2.p);  // equal arguments, equal results
    CHECK(r.hasQ());
    CHECK(r.p != x.p);
    FTensor ry = apply(t, makeOp(k), {&y}, {16});
    for (size_t i = 0; i < 16; ++i) CHECK(ry.p[i] != r.p[i]);
    results.push_back(r.p);
  }
  for (size_t i = 0; i < results.size(); ++i)
    for (size_t j = i + 1; j < results.size(); ++j) CHECK(results[i] != results[j]);
  FTensor sq = apply(t, makeOp(OpKind::Sqrt), {&x}, {16});
  FTensor rs = apply(t, makeOp(OpKind::Rsqrt), {&x}, {16});
  for (size_t i = 0; i < 16; ++i) {
    CHECK(t.P().mul(sq.p[i], rs.p[i]) == t.P().one());
    CHECK(t.Q().mul(sq.q[i], rs.q[i]) == t.Q().one());
  }
  FTensor s = apply(t, makeOp(OpKind::Square), {&x}, {16});
  CHECK(s.p == apply(t, makeOp(OpKind::Mul), {&x, &x}, {16}).p);
  // Different trials draw different functions.
  Trial u(7, 0, 0);
  CHECK(u.randomP(KeyKind::Sqrt, x.p[0]) != t.randomP(KeyKind::Sqrt, x.p[0]));
}

TEST_CASE("reductions: sum, partial sum with size, mean, and max multisets", "[ops]") {
  Trial t(8, 0, 0);
  const MontField& P = t.P();
  FTensor x = t.input("x", {3, 8, 2});
  FTensor s = apply(t, makeOp(OpKind::ReduceSum, 1), {&x}, {3, 1, 2});
  FTensor s4 = apply(t, makeOp(OpKind::ReduceSum, 1, 4), {&x}, {3, 4, 2});
  FTensor mean = apply(t, makeOp(OpKind::ReduceMean, 1), {&x}, {3, 1, 2});
  for (int o = 0; o < 3; ++o)
    for (int i = 0; i < 2; ++i) {
      u64 acc = 0;
      for (int j = 0; j < 8; ++j) acc = P.add(acc, x.p[static_cast<size_t>((o * 8 + j) * 2 + i)]);
      CHECK(s.p[static_cast<size_t>(o * 2 + i)] == acc);
      CHECK(P.mul(mean.p[static_cast<size_t>(o * 2 + i)], P.toMont(8)) == acc);
      for (int c = 0; c < 4; ++c) {
        u64 part = P.add(x.p[static_cast<size_t>((o * 8 + c) * 2 + i)], x.p[static_cast<size_t>((o * 8 + c + 4) * 2 + i)]);
        CHECK(s4.p[static_cast<size_t>((o * 4 + c) * 2 + i)] == part);
      }
    }
  // max(max of the two halves) = max of the whole, by multiset flattening;
  // a sum of the partial maxima is something else.
  FTensor whole = apply(t, makeOp(OpKind::ReduceMax, 1), {&x}, {3, 1, 2});
  CHECK(whole.isMax());
  CHECK(whole.hasQ());
  FTensor halves = apply(t, makeOp(OpKind::ReduceMax, 1), {&s4}, {3, 1, 2});  // unrelated values
  CHECK(halves.p != whole.p);
  ir::Op tr = makeOp(OpKind::Transpose, 0);
  tr.dim1 = 1;
  FTensor xt = apply(t, tr, {&x}, {8, 3, 2});
  FTensor part = apply(t, makeOp(OpKind::ReduceMax, 0), {&xt}, {1, 3, 2});  // same multisets
  CHECK(part.p == whole.p);
  FTensor maxOfMax = apply(t, makeOp(OpKind::ReduceMax, 1), {&whole}, {3, 1, 2});
  CHECK(maxOfMax.p == whole.p);  // a max of a single max is the same multiset
}

TEST_CASE("transpose permutes every lane", "[ops]") {
  Trial t(9, 0, 0);
  FTensor x = t.input("x", {2, 3, 4});
  ir::Op tr = makeOp(OpKind::Transpose, 0);
  tr.dim1 = 2;
  FTensor y = apply(t, tr, {&x}, {4, 3, 2});
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 3; ++b)
      for (int c = 0; c < 4; ++c) {
        CHECK(y.p[static_cast<size_t>((c * 3 + b) * 2 + a)] == x.p[static_cast<size_t>((a * 3 + b) * 4 + c)]);
        CHECK(y.q[static_cast<size_t>((c * 3 + b) * 2 + a)] == x.q[static_cast<size_t>((a * 3 + b) * 4 + c)]);
      }
}

TEST_CASE("inputs depend on name, trial and attempt, and are reproducible", "[ops]") {
  Trial t(10, 0, 0), same(10, 0, 0), other(10, 1, 0), resampled(10, 0, 1);
  CHECK(t.input("X", {64}).p == same.input("X", {64}).p);
  CHECK(t.input("X", {64}).p != t.input("Y", {64}).p);
  CHECK(t.input("X", {64}).p != other.input("X", {64}).p);
  CHECK(t.input("X", {64}).p != resampled.input("X", {64}).p);
  CHECK(t.P().modulus() != other.P().modulus());
}
