// Kernel-body semantics: tiles (imap, fmap, replication), the for-loop with
// accum (sum and max), ops after the loop, and saves (omap), each compared
// with the same computation written with program-level operators.
#include <catch2/catch.hpp>

#include "builders.h"
#include "mirage/verify/fingerprint.h"
#include "mirage/verify/thread_pool.h"

using namespace mirage;
using namespace mirage::verify;
using namespace mirage::verify::test;
using ir::OpKind;

namespace {

std::vector<FTensorPtr> run(const ir::Graph& g, uint64_t seed = 1) {
  Trial t(seed, 0, 0);
  ThreadPool pool(2);
  EvalResult r = evaluateProgram(g, t, &pool);
  REQUIRE(r.status == EvalStatus::Ok);
  return r.outputs;
}

}  // namespace

TEST_CASE("a kernel that tiles over a 2-D grid and saves each tile back copies its input", "[kernel]") {
  ir::Graph g;
  ir::ValueId x = input(g, "X", {8, 12});
  ir::KernelConfig cfg = config(2, 3, 1, 1);
  auto body = bodyFor(g, {x});
  ir::ValueId t = op(*body, OpKind::Tile, {body->inputs[0]}, [](ir::Op& o) { o.imap = {0, 1, -1}; }, &cfg);
  ir::ValueId a = op(*body, OpKind::Accum, {t}, [](ir::Op&) {}, &cfg);
  op(*body, OpKind::Save, {a}, [](ir::Op& o) { o.omap = {0, 1, -1}; }, &cfg);
  ir::ValueId r = kernel(g, {x}, cfg, body, 1)[0];
  g.outputs = {x, r};
  auto out = run(g);
  CHECK(out[0]->p == out[1]->p);
  CHECK(out[0]->q == out[1]->q);
}

TEST_CASE("fmap walks the for-loop over parts of a dim; accum sums them", "[kernel]") {
  // O[i, c] = sum_it X[i, it*4 + c]  ==  reduce_sum(X, dim=1, size=4)
  ir::Graph g;
  ir::ValueId x = input(g, "X", {6, 16});
  ir::KernelConfig cfg = config(3, 1, 1, 4);
  auto body = bodyFor(g, {x});
  ir::ValueId t = op(*body, OpKind::Tile, {body->inputs[0]}, [](ir::Op& o) {
    o.imap = {0, -1, -1};
    o.fmap = 1;
  }, &cfg);
  ir::ValueId a = op(*body, OpKind::Accum, {t}, [](ir::Op&) {}, &cfg);
  op(*body, OpKind::Save, {a}, [](ir::Op& o) { o.omap = {0, -1, -1}; }, &cfg);
  ir::ValueId r = kernel(g, {x}, cfg, body, 1)[0];
  ir::ValueId ref = op(g, OpKind::ReduceSum, {x}, [](ir::Op& o) {
    o.dim = 1;
    o.size = 4;
  });
  g.outputs = {r, ref};
  auto out = run(g);
  CHECK(out[0]->p == out[1]->p);
}

TEST_CASE("an unmapped grid dim replicates the tile; a tile without fmap repeats each iteration", "[kernel]") {
  // Every block sees all of X and sums it twice (forloop 2, no fmap), then
  // halves it after the loop: each block writes the column sums.
  ir::Graph g;
  ir::ValueId x = input(g, "X", {4, 8});
  ir::KernelConfig cfg = config(2, 1, 1, 2);
  auto body = bodyFor(g, {x});
  ir::ValueId t = op(*body, OpKind::Tile, {body->inputs[0]}, [](ir::Op&) {}, &cfg);
  ir::ValueId s = op(*body, OpKind::ReduceSum, {t}, [](ir::Op& o) { o.dim = 0; }, &cfg);
  ir::ValueId a = op(*body, OpKind::Accum, {s}, [](ir::Op&) {}, &cfg);
  ir::ValueId half = addConst(*body, "0.5");
  ir::ValueId h = op(*body, OpKind::Mul, {a, half}, [](ir::Op&) {}, &cfg);
  op(*body, OpKind::Save, {h}, [](ir::Op& o) { o.omap = {0, -1, -1}; }, &cfg);
  ir::ValueId r = kernel(g, {x}, cfg, body, 1)[0];  // [2, 8]
  ir::ValueId colsum = op(g, OpKind::ReduceSum, {x}, [](ir::Op& o) { o.dim = 0; });
  g.outputs = {r, colsum};
  auto out = run(g);
  REQUIRE(out[0]->shape == ir::Shape{2, 8});
  for (size_t j = 0; j < 8; ++j) {
    CHECK(out[0]->p[j] == out[1]->p[j]);
    CHECK(out[0]->p[8 + j] == out[1]->p[j]);
  }
}

TEST_CASE("accum(op=max) over iterations and blocks equals reduce_max of the whole", "[kernel]") {
  ir::Graph g;
  ir::ValueId x = input(g, "X", {4, 32});
  ir::KernelConfig cfg = config(2, 1, 1, 4);
  auto body = bodyFor(g, {x});
  ir::ValueId t = op(*body, OpKind::Tile, {body->inputs[0]}, [](ir::Op& o) {
    o.imap = {1, -1, -1};
    o.fmap = 1;
  }, &cfg);
  ir::ValueId m = op(*body, OpKind::ReduceMax, {t}, [](ir::Op& o) { o.dim = 1; }, &cfg);
  ir::ValueId a = op(*body, OpKind::Accum, {m}, [](ir::Op& o) { o.accumOp = ir::AccumOp::Max; }, &cfg);
  op(*body, OpKind::Save, {a}, [](ir::Op& o) { o.omap = {1, -1, -1}; }, &cfg);
  ir::ValueId partial = kernel(g, {x}, cfg, body, 1)[0];  // [4, 2]: one max per block
  ir::ValueId all = op(g, OpKind::ReduceMax, {partial}, [](ir::Op& o) { o.dim = 1; });
  ir::ValueId ref = op(g, OpKind::ReduceMax, {x}, [](ir::Op& o) { o.dim = 1; });
  ir::ValueId sum = op(g, OpKind::ReduceSum, {x}, [](ir::Op& o) { o.dim = 1; });
  g.outputs = {all, ref, sum};
  auto out = run(g);
  CHECK(out[0]->p == out[1]->p);
  CHECK(out[0]->p != out[2]->p);
}

TEST_CASE("ops after the loop run once per block on the accumulated value", "[kernel]") {
  // exp after the loop: exp(sum) != sum of exp.
  ir::Graph g;
  ir::ValueId x = input(g, "X", {4, 8});
  ir::KernelConfig cfg = config(1, 1, 1, 2);
  auto body = bodyFor(g, {x});
  ir::ValueId t = op(*body, OpKind::Tile, {body->inputs[0]}, [](ir::Op& o) { o.fmap = 1; }, &cfg);
  ir::ValueId a = op(*body, OpKind::Accum, {t}, [](ir::Op&) {}, &cfg);
  ir::ValueId e = op(*body, OpKind::Exp, {a}, [](ir::Op&) {}, &cfg);
  op(*body, OpKind::Save, {e}, [](ir::Op&) {}, &cfg);
  ir::ValueId r = kernel(g, {x}, cfg, body, 1)[0];
  ir::ValueId ref = op(g, OpKind::Exp, {op(g, OpKind::ReduceSum, {x}, [](ir::Op& o) {
                                            o.dim = 1;
                                            o.size = 4;
                                          })});
  g.outputs = {r, ref};
  auto out = run(g);
  CHECK(out[0]->p == out[1]->p);
}

TEST_CASE("a kernel with two results and a 3-D grid", "[kernel]") {
  // R0 = X + Y and R1 = X * Y, tiled over [2, 2, 2] blocks of a [4, 4, 4] tensor.
  ir::Graph g;
  ir::ValueId x = input(g, "X", {4, 4, 4}), y = input(g, "Y", {4, 4, 4});
  ir::KernelConfig cfg = config(2, 2, 2, 1);
  auto body = bodyFor(g, {x, y});
  auto tileOf = [&](ir::ValueId arg) {
    return op(*body, OpKind::Tile, {arg}, [](ir::Op& o) { o.imap = {2, 0, 1}; }, &cfg);
  };
  ir::ValueId tx = tileOf(body->inputs[0]), ty = tileOf(body->inputs[1]);
  ir::ValueId s = op(*body, OpKind::Accum, {op(*body, OpKind::Add, {tx, ty}, [](ir::Op&) {}, &cfg)}, [](ir::Op&) {}, &cfg);
  ir::ValueId m = op(*body, OpKind::Accum, {op(*body, OpKind::Mul, {tx, ty}, [](ir::Op&) {}, &cfg)}, [](ir::Op&) {}, &cfg);
  op(*body, OpKind::Save, {s}, [](ir::Op& o) { o.omap = {2, 0, 1}; }, &cfg);
  op(*body, OpKind::Save, {m}, [](ir::Op& o) {
    o.omap = {2, 0, 1};
    o.resultIndex = 1;
  }, &cfg);
  auto rs = kernel(g, {x, y}, cfg, body, 2);
  g.outputs = {rs[0], rs[1], op(g, OpKind::Add, {x, y}), op(g, OpKind::Mul, {x, y})};
  auto out = run(g);
  CHECK(out[0]->p == out[2]->p);
  CHECK(out[1]->p == out[3]->p);
}
