// The layout simplification (mirage/search/layout_rewrite.h) on small
// programs: what each rule leaves of the program, that the verifier proves
// the result equal to the input, and how the segmenter then cuts RoPE.
#include <catch2/catch.hpp>

#include <fstream>
#include <random>
#include <sstream>

#include "mirage/ir/check.h"
#include "mirage/ir/layout.h"
#include "mirage/parse/parser.h"
#include "mirage/search/layout_rewrite.h"
#include "mirage/verify/verifier.h"
#include "segments.h"

using namespace mirage;

namespace {

ir::Graph parseText(const std::string& text) {
  std::ostringstream err;
  auto g = parse::parseString(text, "test.mg", err);
  INFO(err.str());
  REQUIRE(g);
  return *g;
}

int count(const ir::Graph& g, ir::OpKind kind) {
  int n = 0;
  for (const ir::Op& op : g.ops) n += op.kind == kind;
  return n;
}

// Every slice left reads a program input.
bool slicesReadInputs(const ir::Graph& g) {
  for (const ir::Op& op : g.ops)
    if (op.kind == ir::OpKind::Slice && g.producer(op.inputs[0]).kind != ir::OpKind::Input) return false;
  return true;
}

ir::Graph simplified(const ir::Graph& g) {
  ir::Graph out;
  REQUIRE(search::simplifyLayout(g, out));
  REQUIRE(ir::checkProgram(out).empty());
  verify::Verdict v = verify::checkEquivalent(g, out);
  INFO(v.message);
  CHECK(v.equivalent);
  // The signature is kept: inputs and outputs, with their names.
  REQUIRE(out.inputs.size() == g.inputs.size());
  for (size_t i = 0; i < g.inputs.size(); ++i) CHECK(out.value(out.inputs[i]).name == g.value(g.inputs[i]).name);
  REQUIRE(out.outputs.size() == g.outputs.size());
  for (size_t i = 0; i < g.outputs.size(); ++i) CHECK(out.value(out.outputs[i]).name == g.value(g.outputs[i]).name);
  return out;
}

const char* kRope = R"(graph rope {
  Q = input f16[2, 1, 16]
  Kt = input f16[2, 16, 8]
  Cq = input f16[1, 1, 16]
  Sq = input f16[1, 1, 16]
  Ck = input f16[1, 16, 8]
  Sk = input f16[1, 16, 8]
  Rq = concat(neg(slice(Q, dim=2, start=8, end=16)), slice(Q, dim=2, start=0, end=8), dim=2)
  Qr = add(mul(Q, Cq), mul(Rq, Sq))
  Rk = concat(neg(slice(Kt, dim=1, start=8, end=16)), slice(Kt, dim=1, start=0, end=8), dim=1)
  Kr = add(mul(Kt, Ck), mul(Rk, Sk))
  S = matmul(Qr, Kr)
  output S
})";

}  // namespace

TEST_CASE("layout simplification removes RoPE's concats: the scores are a sum over the halves") {
  ir::Graph g = parseText(kRope);
  ir::Graph s = simplified(g);
  CHECK(count(s, ir::OpKind::Concat) == 0);
  CHECK(count(s, ir::OpKind::Neg) == 0);        // the sign rules fold rotate_half's minus into a sub
  CHECK(count(s, ir::OpKind::Matmul) == 2);     // Q1·K1 + Q2·K2
  CHECK(count(s, ir::OpKind::Slice) == 12);     // the halves of Q, Kt and the four tables, once each
  CHECK(slicesReadInputs(s));
  CHECK(count(s, ir::OpKind::Mul) == 8);
  CHECK(count(s, ir::OpKind::Sub) == 2);
  CHECK(count(s, ir::OpKind::Add) == 3);
  // Every slice is a view (no launch): the program is its 15 operators.
  CHECK(ir::countKernels(s) == 15);
}

TEST_CASE("layout simplification: rotate_half written with mul(x, -1) folds the same") {
  std::string text = kRope;
  for (std::string from : {"neg(slice(Q, dim=2, start=8, end=16))", "neg(slice(Kt, dim=1, start=8, end=16))"}) {
    std::string to = "mul(" + from.substr(4, from.size() - 5) + ", -1)";
    text.replace(text.find(from), from.size(), to);
  }
  ir::Graph g = parseText(text);
  REQUIRE(count(g, ir::OpKind::Neg) == 0);
  ir::Graph s = simplified(g);
  CHECK(count(s, ir::OpKind::Concat) == 0);
  CHECK(count(s, ir::OpKind::Neg) == 0);
  CHECK(count(s, ir::OpKind::Mul) == 8);
  CHECK(count(s, ir::OpKind::Sub) == 2);
  CHECK(ir::countKernels(s) == 15);
}

TEST_CASE("layout simplification: a concat through element-wise operators, a broadcast operand used whole") {
  ir::Graph g = parseText(R"(graph g {
  A = input f16[4, 16]
  B = input f16[4, 8]
  C = input f16[4, 24]
  D = input f16[4, 1]
  O = exp(mul(add(concat(A, B, dim=1), C), D))
  output O
})");
  ir::Graph s = simplified(g);
  // The concat moves to the output: concat(exp(mul(add(A, C1), D)), ...).
  CHECK(count(s, ir::OpKind::Concat) == 1);
  CHECK(s.producer(s.outputs[0]).kind == ir::OpKind::Concat);
  CHECK(count(s, ir::OpKind::Slice) == 2);  // C's two parts; D (extent 1 on the dim) is not sliced
  CHECK(slicesReadInputs(s));
  CHECK(count(s, ir::OpKind::Exp) == 2);
}

TEST_CASE("layout simplification: a slice within one part of a concat is that part") {
  ir::Graph g = parseText(R"(graph g {
  A = input f16[4, 16]
  B = input f16[4, 8]
  X = slice(exp(concat(A, B, dim=1)), dim=1, start=2, end=10)
  O = add(X, 1)
  output O
})");
  ir::Graph s = simplified(g);
  CHECK(count(s, ir::OpKind::Concat) == 0);
  CHECK(count(s, ir::OpKind::Slice) == 1);
  CHECK(slicesReadInputs(s));
}

TEST_CASE("layout simplification: an output keeps its name when a rule lands on an existing value") {
  ir::Graph g = parseText(R"(graph g {
  A = input f16[4, 16]
  B = input f16[4, 8]
  E = exp(A)
  X = slice(concat(E, B, dim=1), dim=1, start=0, end=16)
  output X, E
})");
  ir::Graph out;
  // slice(concat(E, B)) is E, but X must stay an output of its own name: no
  // rule applies.
  CHECK_FALSE(search::simplifyLayout(g, out));
}

TEST_CASE("layout simplification leaves a concat whose other operand would need a copy") {
  ir::Graph g = parseText(R"(graph g {
  A = input f16[4, 16]
  B = input f16[4, 16]
  W = input f16[32, 32]
  X = input f16[4, 32]
  O = add(concat(A, B, dim=1), matmul(X, W))
  output O
})");
  ir::Graph out;
  CHECK_FALSE(search::simplifyLayout(g, out));
  // Nor does anything apply to a program without concat or slice.
  CHECK_FALSE(search::simplifyLayout(parseText("graph g {\n  X = input f16[4, 4]\n  Y = reshape(exp(X), shape=[16])\n  output Y\n}\n"), out));
}

TEST_CASE("layout simplification of rope_attention: the rotations with the scores, then the softmax") {
  std::ifstream in(std::string(MIRAGE_EXAMPLES_DIR) + "/rope_attention.mg");
  std::stringstream text;
  text << in.rdbuf();
  ir::Graph g = parseText(text.str());
  ir::Graph s = simplified(g);
  CHECK(count(s, ir::OpKind::Concat) == 0);
  CHECK(slicesReadInputs(s));
  // The slices are views of the inputs (stage 0), so nothing cuts the
  // program; its 22 operators are cut before the softmax's reductions
  // instead: both rotations with the scores, then softmax and P·V.
  std::vector<search::Segment> segs = search::splitAtLayoutOps(s);
  REQUIRE(segs.size() == 2);
  auto ops = [](const search::Segment& seg) {
    int n = 0;
    for (const ir::Op& op : seg.program.ops) n += op.kind != ir::OpKind::Input && op.kind != ir::OpKind::Const;
    return n;
  };
  CHECK(ops(segs[0]) == 16);
  CHECK(segs[0].inputs.size() == 12);  // the twelve halves
  CHECK(segs[0].outputs.size() == 1);  // the scores
  CHECK(ops(segs[1]) == 6);
  for (const search::Segment& seg : segs) CHECK(seg.stage == 0);
  // Stitched back unsearched, the pieces are the program.
  std::vector<const ir::Graph*> chosen;
  for (const search::Segment& seg : segs) chosen.push_back(&seg.program);
  ir::Graph back;
  REQUIRE(search::stitchSegments(s, segs, chosen, back).empty());
  verify::Verdict v = verify::checkEquivalent(g, back);
  INFO(v.message);
  CHECK(v.equivalent);
  CHECK(search::simplifiesIntoSmallSegments(g, 20));
}

TEST_CASE("mha_split_heads (reshapes only) is not rewritten") {
  std::ifstream in(std::string(MIRAGE_EXAMPLES_DIR) + "/mha_split_heads.mg");
  std::stringstream text;
  text << in.rdbuf();
  ir::Graph g = parseText(text.str());
  ir::Graph out;
  CHECK_FALSE(search::simplifyLayout(g, out));
  CHECK_FALSE(search::simplifiesIntoSmallSegments(g, 20));
}

// Random programs of concats, slices, element-wise operators and matmuls
// over [4, w] tensors: whenever a rule applies, the result is a legal
// program that the verifier proves equal to the input.
TEST_CASE("layout simplification of random layout programs is legal and verified equal") {
  std::mt19937 rng(11);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  int rewritten = 0;
  for (int trial = 0; trial < 150; ++trial) {
    ir::Graph g;
    g.name = "random";
    std::vector<ir::ValueId> pool;  // [4, w] values
    int inputs = 0;
    auto input = [&](const ir::Shape& shape) {
      ir::ValueId v;
      REQUIRE(ir::addInput(g, "in" + std::to_string(inputs++), shape, &v).empty());
      return v;
    };
    for (int i = 0; i < 3; ++i) pool.push_back(input({4, 8 * (1 + pick(2))}));
    auto width = [&](ir::ValueId v) { return g.value(v).shape[1]; };
    auto add = [&](ir::Op op) {
      ir::ValueId v;
      if (ir::addOp(g, std::move(op), nullptr, &v).empty()) pool.push_back(v);
    };
    for (int step = 0; step < 8; ++step) {
      ir::Op op;
      ir::ValueId a = pool[static_cast<size_t>(pick(static_cast<int>(pool.size())))];
      ir::ValueId b = pool[static_cast<size_t>(pick(static_cast<int>(pool.size())))];
      switch (pick(6)) {
        case 0:  // concat along the columns
          if (width(a) + width(b) > 48) continue;
          op.kind = ir::OpKind::Concat;
          op.inputs = {a, b};
          op.dim = 1;
          break;
        case 1: {  // slice of the columns
          int64_t w = width(a);
          int64_t s = pick(static_cast<int>(w));
          op.kind = ir::OpKind::Slice;
          op.inputs = {a};
          op.dim = 1;
          op.start = s;
          op.end = s + 1 + pick(static_cast<int>(w - s));
          break;
        }
        case 2: {  // element-wise binary: equal widths, or a broadcast column / row input
          static const ir::OpKind kinds[] = {ir::OpKind::Add, ir::OpKind::Sub, ir::OpKind::Mul, ir::OpKind::Maximum};
          op.kind = kinds[pick(4)];
          int how = pick(3);
          if (how == 0 && width(a) != width(b)) continue;
          ir::ValueId other = how == 0 ? b : how == 1 ? input({4, 1}) : input({1, width(a)});
          op.inputs = pick(2) ? std::vector<ir::ValueId>{a, other} : std::vector<ir::ValueId>{other, a};
          break;
        }
        case 3: {  // unary, or a scale by a number
          int how = pick(3);
          if (how == 2) {
            op.kind = ir::OpKind::Mul;
            op.inputs = {a, ir::addConst(g, "-1")};
          } else {
            op.kind = how == 0 ? ir::OpKind::Neg : ir::OpKind::Exp;
            op.inputs = {a};
          }
          break;
        }
        case 4: {  // matmul contracting the columns
          op.kind = ir::OpKind::Matmul;
          op.inputs = {a, input({width(a), 8})};
          break;
        }
        default: {  // matmul with a concatenated contraction on both sides
          ir::ValueId c = pool[static_cast<size_t>(pick(static_cast<int>(pool.size())))];
          ir::Op cat;
          cat.kind = ir::OpKind::Concat;
          cat.inputs = {a, c};
          cat.dim = 1;
          ir::ValueId ac;
          if (width(a) + width(c) > 48 || !ir::addOp(g, cat, nullptr, &ac).empty()) continue;
          ir::Op right;
          right.kind = ir::OpKind::Concat;
          right.inputs = {input({width(a), 8}), input({width(c), 8})};
          right.dim = 0;
          ir::ValueId bc;
          REQUIRE(ir::addOp(g, right, nullptr, &bc).empty());
          op.kind = ir::OpKind::Matmul;
          op.inputs = {ac, bc};
          break;
        }
      }
      add(op);
    }
    // The last value and one other are the outputs, named.
    g.outputs = {pool.back()};
    ir::ValueId second = pool[static_cast<size_t>(pick(static_cast<int>(pool.size())))];
    if (second != pool.back() && g.producer(second).kind != ir::OpKind::Input) g.outputs.push_back(second);
    for (size_t i = 0; i < g.outputs.size(); ++i) g.values[static_cast<size_t>(g.outputs[i])].name = "out" + std::to_string(i);
    ir::Graph out;
    if (!search::simplifyLayout(g, out)) continue;
    ++rewritten;
    INFO("trial " << trial);
    REQUIRE(ir::checkProgram(out).empty());
    REQUIRE(out.outputs.size() == g.outputs.size());
    for (size_t i = 0; i < g.outputs.size(); ++i) CHECK(out.value(out.outputs[i]).name == g.value(g.outputs[i]).name);
    verify::Verdict v = verify::checkEquivalent(g, out);
    INFO(v.message);
    CHECK(v.equivalent);
  }
  // Enough of them are rewritten for this to test the rules.
  CHECK(rewritten >= 30);
}
