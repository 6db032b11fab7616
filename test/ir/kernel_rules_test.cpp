// Legality rules of custom kernels (../shared/spec/mg-language.md, "Custom
// kernels"), checked through the builders: tiles, accumulators, saves and
// the kernel as a whole.
#include <catch2/catch.hpp>

#include "builders.h"

using namespace mirage::ir;
using namespace mirage::ir::test;

namespace {

// A kernel body under construction, with one argument per shape.
struct Body {
  Graph g;
  KernelConfig k;
  std::vector<ValueId> args;

  Body(std::vector<Shape> shapes, std::array<int64_t, 3> grid, int64_t forloop) {
    k.grid = grid;
    k.gridRank = 3;
    k.forloop = forloop;
    for (size_t i = 0; i < shapes.size(); ++i) {
      Op in;
      in.kind = OpKind::Input;
      int index = g.appendOp(std::move(in), {shapes[i]}, {"A" + std::to_string(i)});
      args.push_back(g.ops[static_cast<size_t>(index)].results[0]);
      g.inputs.push_back(args.back());
    }
  }

  Error tile(ValueId arg, DimMap imap, int fmap, ValueId* out) {
    Op op;
    op.kind = OpKind::Tile;
    op.inputs = {arg};
    op.imap = imap;
    op.fmap = fmap;
    return addOp(g, std::move(op), &k, out);
  }
  ValueId tileOk(ValueId arg, DimMap imap, int fmap = -1) {
    ValueId v = kNoValue;
    Error e = tile(arg, imap, fmap, &v);
    INFO(e);
    REQUIRE(e.empty());
    return v;
  }
  Error op(OpKind kind, std::vector<ValueId> ins, ValueId* out = nullptr, int dim = 0) {
    return tryOp(g, kind, std::move(ins), out, &k, dim);
  }
  ValueId opOk(OpKind kind, std::vector<ValueId> ins, int dim = 0) {
    ValueId v = kNoValue;
    Error e = op(kind, std::move(ins), &v, dim);
    INFO(e);
    REQUIRE(e.empty());
    return v;
  }
  ValueId accum(ValueId t, AccumOp a = AccumOp::Sum) {
    Op op;
    op.kind = OpKind::Accum;
    op.inputs = {t};
    op.accumOp = a;
    ValueId v = kNoValue;
    Error e = addOp(g, std::move(op), &k, &v);
    INFO(e);
    REQUIRE(e.empty());
    return v;
  }
  Error save(ValueId t, int result, DimMap omap) {
    Op op;
    op.kind = OpKind::Save;
    op.inputs = {t};
    op.resultIndex = result;
    op.omap = omap;
    ValueId v;
    return addOp(g, std::move(op), &k, &v);
  }
};

constexpr int X = -1;  // unmapped grid dim

}  // namespace

TEST_CASE("tile splits mapped dims by the grid and the fmap dim by the for-loop", "[kernel][tile]") {
  Body b({{2, 256, 64}, {2, 64, 4096}}, {2, 16, 16}, 4);
  CHECK(b.g.value(b.tileOk(b.args[0], {0, 1, X})).shape == Shape{1, 16, 64});
  CHECK(b.g.value(b.tileOk(b.args[1], {0, X, 2}, 2)).shape == Shape{1, 64, 64});
  // Unmapped grid dims replicate; negative dims count from the end (but -1
  // in a DimMap or fmap means "unmapped", so the parser normalizes -1 itself).
  ValueId t = b.tileOk(b.args[1], {X, X, -2}, 2);
  CHECK(b.g.value(t).shape == Shape{2, 4, 1024});
  CHECK(b.g.producer(t).imap == DimMap{X, X, 1});
}

TEST_CASE("tile extents must divide exactly", "[kernel][tile]") {
  Body b({{2, 100, 64}}, {2, 16, 1}, 3);
  ValueId v;
  CHECK(b.tile(b.args[0], {0, 1, X}, -1, &v) ==
        "grid dim y (16 blocks) does not divide dim 1 of 'A0' (extent 100)");
  CHECK(b.tile(b.args[0], {0, X, X}, 2, &v) ==
        "forloop 3 does not divide dim 2 of the tile of 'A0' (extent 64)");
  CHECK(b.tile(b.args[0], {0, 3, X}, -1, &v) ==
        "imap maps grid dim y to dim 3, out of range for 'A0' of rank 3");
  CHECK(b.tile(b.args[0], {X, X, X}, 3, &v) == "fmap 3 is out of range for a tensor of rank 3");
}

TEST_CASE("two grid dims of extent > 1 may not split the same tensor dim", "[kernel][tile]") {
  Body b({{64, 64}}, {2, 4, 1}, 1);
  ValueId v;
  CHECK(b.tile(b.args[0], {0, 0, X}, -1, &v) == "grid dims x and y both split dim 0 of 'A0'");
  // A grid dim of extent 1 may share a dim: it splits nothing.
  CHECK(b.tile(b.args[0], {0, X, 0}, -1, &v).empty());
}

TEST_CASE("tile takes a kernel argument, arguments are used only through tile", "[kernel][tile]") {
  Body b({{8, 8}}, {1, 1, 1}, 1);
  ValueId t = b.tileOk(b.args[0], {X, X, X});
  ValueId e = b.opOk(OpKind::Exp, {t});
  ValueId v;
  CHECK(b.tile(e, {X, X, X}, -1, &v) ==
        "tile takes a kernel argument (a tensor of the enclosing graph)");
  CHECK(b.op(OpKind::Exp, {b.args[0]}) == "kernel argument 'A0' can only be used through tile()");
}

TEST_CASE("the accum rule: loop values and after-loop values do not mix", "[kernel][accum]") {
  Body b({{8, 8}}, {1, 1, 1}, 2);
  ValueId t = b.tileOk(b.args[0], {X, X, X}, 0);
  ValueId s = b.accum(b.opOk(OpKind::Exp, {t}));
  CHECK(isAfterLoop(b.g, s));
  CHECK_FALSE(isAfterLoop(b.g, t));
  CHECK(b.op(OpKind::Add, {s, t}) ==
        "'add' mixes a value computed in the for-loop with one computed after it (after an accum)");
  ValueId v;
  Op acc;
  acc.kind = OpKind::Accum;
  acc.inputs = {s};
  CHECK(addOp(b.g, acc, &b.k, &v) ==
        "accum takes a value computed in the for-loop, not one that already depends on an accum");
  // After-loop operations with constants are fine.
  CHECK(b.op(OpKind::Div, {s, addConst(b.g, "4096")}).empty());
}

TEST_CASE("save takes an after-loop value and a legal omap", "[kernel][save]") {
  Body b({{8, 64}}, {2, 4, 1}, 1);
  ValueId t = b.tileOk(b.args[0], {0, 1, X});
  CHECK(b.save(t, 0, {0, 1, X}) == "save takes a value that depends on an accum");
  ValueId a = b.accum(t);
  CHECK(b.save(a, 0, {0, X, X}) ==
        "grid dim y has 4 blocks but omap does not map it, so blocks would write the same elements");
  CHECK(b.save(a, 0, {1, 1, X}) == "omap maps grid dims x and y to the same dim 1");
  CHECK(b.save(a, 0, {0, 2, X}) == "omap maps grid dim y to dim 2, out of range for a tile of rank 2");
  CHECK(b.save(a, 0, {0, 1, 1}).empty());  // z has extent 1: it may share a dim
}

namespace {

// The enclosing graph of a one-argument kernel.
struct Program {
  Graph g;
  ValueId arg;
  explicit Program(const Shape& s) { arg = input(g, s, "A0"); }
  Error kernel(Body& b, int results, std::vector<ValueId>* out) {
    Op op;
    op.kind = OpKind::Kernel;
    op.inputs = {arg};
    op.config = b.k;
    op.body = std::make_shared<Graph>(b.g);
    std::vector<std::string> names;
    for (int i = 0; i < results; ++i) names.push_back("R" + std::to_string(i));
    return addKernel(g, std::move(op), results, names, out);
  }
};

}  // namespace

TEST_CASE("kernel results get the saved tile's shape times the grid", "[kernel]") {
  Program p({8, 64});
  Body b({{8, 64}}, {2, 4, 1}, 2);
  ValueId t = b.tileOk(b.args[0], {0, 1, X}, 1);  // [4, 8] per iteration
  REQUIRE(b.save(b.accum(t), 0, {0, 1, X}).empty());
  REQUIRE(b.save(b.accum(b.opOk(OpKind::ReduceMax, {t}, 1), AccumOp::Max), 1, {0, 1, X}).empty());
  std::vector<ValueId> r;
  REQUIRE(p.kernel(b, 2, &r).empty());
  CHECK(p.g.value(r[0]).shape == Shape{8, 32});
  CHECK(p.g.value(r[1]).shape == Shape{8, 4});
  CHECK(countKernels(p.g) == 1);
}

TEST_CASE("each kernel result is written by exactly one save", "[kernel]") {
  Program p({8, 8});
  Body b({{8, 8}}, {1, 1, 1}, 1);
  ValueId a = b.accum(b.tileOk(b.args[0], {X, X, X}));
  REQUIRE(b.save(a, 0, {X, X, X}).empty());
  std::vector<ValueId> r;
  CHECK(p.kernel(b, 2, &r) == "result 'R1' is not written by any save");
  REQUIRE(b.save(a, 0, {X, X, X}).empty());
  CHECK(p.kernel(b, 1, &r) == "result 'R0' is written by more than one save");
}

TEST_CASE("kernel configurations are checked", "[kernel]") {
  Program p({8, 8});
  Body b({{8, 8}}, {1, 1, 1}, 1);
  REQUIRE(b.save(b.accum(b.tileOk(b.args[0], {X, X, X})), 0, {X, X, X}).empty());
  std::vector<ValueId> r;
  b.k.forloop = 0;
  CHECK(p.kernel(b, 1, &r) == "forloop must be a positive integer, got 0");
  b.k.forloop = 1;
  b.k.grid = {1, 0, 1};
  CHECK(p.kernel(b, 1, &r) == "grid extents must be positive, got 0");
}

TEST_CASE("checkProgram re-checks a finished program", "[kernel]") {
  Program p({8, 64});
  Body b({{8, 64}}, {2, 1, 1}, 1);
  REQUIRE(b.save(b.accum(b.tileOk(b.args[0], {1, X, X})), 0, {1, X, X}).empty());
  std::vector<ValueId> r;
  REQUIRE(p.kernel(b, 1, &r).empty());
  CHECK(checkProgram(p.g) == "a program has at least one output");
  p.g.outputs = r;
  CHECK(checkProgram(p.g).empty());
  // A recorded shape that disagrees with the operands is caught.
  p.g.values[static_cast<size_t>(r[0])].shape = {8, 128};
  CHECK(checkProgram(p.g) == "kernel result shape disagrees with its saves");
}
