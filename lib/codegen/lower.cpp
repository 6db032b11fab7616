// Pre-defined operators as one-kernel μGraphs. Each operator gets a grid that
// splits its output into blocks small enough for shared memory, and a body
// built with the checked builders of ir/check.h, so the lowered program is as
// legal as any the search produces and the kernel emitter sees one form only.
#include "mirage/codegen/lower.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "mirage/ir/check.h"
#include "mirage/ir/layout.h"
#include "mirage/ir/printer.h"

namespace mirage::codegen {
namespace {

using ir::DimMap;
using ir::Graph;
using ir::Op;
using ir::OpKind;
using ir::Shape;
using ir::ValueId;

// Elements of a per-block input tile that the lowering aims for: small
// enough that a few operand tiles fit in shared memory on every target,
// large enough to keep all threads of a block busy.
constexpr int64_t kBlockElements = 4096;
// Outputs per block of an element-wise operator: 8 per thread of a
// 128-thread block, so that even decode-sized tensors spread over many SMs.
constexpr int64_t kPointwiseBlockElements = 1024;
// A reduction aims for this many blocks (one per output row when there are
// fewer), each reducing its rows over the for-loop.
constexpr int64_t kReductionBlocks = 128;
// Edge of a matmul output tile and depth of one for-loop step along k.
constexpr int64_t kMatmulTile = 64;

// The largest divisor of n that is <= limit, preferring multiples of
// `prefer` (tensor-core fragment sizes) when one exists.
int64_t divisorAtMost(int64_t n, int64_t limit, int64_t prefer) {
  int64_t best = 1, bestPreferred = 0;
  for (int64_t d = 1; d <= std::min(n, limit); ++d) {
    if (n % d != 0) continue;
    best = d;
    if (d % prefer == 0) bestPreferred = d;
  }
  return bestPreferred ? bestPreferred : best;
}

// Chooses up to three dims of `shape` (from `order`, first preferred) and a
// split factor for each so that one block holds at most `budget` elements.
// Returns (dim, factor) pairs with factor > 1.
std::vector<std::pair<int, int64_t>> chooseSplits(const Shape& shape, const std::vector<int>& order,
                                                  int64_t budget) {
  std::vector<std::pair<int, int64_t>> splits;
  int64_t remaining = ir::numElements(shape);
  for (int d : order) {
    if (remaining <= budget || splits.size() == 3) break;
    int64_t extent = shape[static_cast<size_t>(d)];
    int64_t factor = extent;
    for (int64_t f = 2; f <= extent; ++f)
      if (extent % f == 0 && remaining / f <= budget) {
        factor = f;
        break;
      }
    if (factor > 1) splits.emplace_back(d, factor);
    remaining /= factor;
  }
  return splits;
}

// Builds one kernel body and appends the Kernel op to the lowered program.
class KernelBuilder {
 public:
  KernelBuilder(Graph& program, ir::DType dtype) : program_(program) { body_.dtype = dtype; }

  ir::KernelConfig config;

  // The body input standing for program value v (one per distinct value).
  ValueId argument(ValueId v) {
    for (size_t i = 0; i < args_.size(); ++i)
      if (args_[i] == v) return body_.inputs[i];
    Op in;
    in.kind = OpKind::Input;
    int index = body_.appendOp(std::move(in), {program_.value(v).shape});
    body_.inputs.push_back(body_.ops[static_cast<size_t>(index)].results[0]);
    args_.push_back(v);
    return body_.inputs.back();
  }

  std::string tile(ValueId programValue, const DimMap& imap, int fmap, ValueId* out) {
    Op op;
    op.kind = OpKind::Tile;
    op.inputs = {argument(programValue)};
    op.imap = imap;
    op.fmap = fmap;
    return ir::addOp(body_, std::move(op), &config, out);
  }

  std::string add(Op op, ValueId* out) { return ir::addOp(body_, std::move(op), &config, out); }

  // An accumulator of `v` over the for-loop (a copy when there is none).
  std::string accumulate(ValueId v, ir::AccumOp accumOp, ValueId* out) {
    Op accum;
    accum.kind = OpKind::Accum;
    accum.accumOp = accumOp;
    accum.inputs = {v};
    return add(std::move(accum), out);
  }

  ValueId constant(const std::string& text) { return ir::addConst(body_, text); }

  std::string finish(ValueId saved, const DimMap& omap, const std::string& name, ValueId* result) {
    Op save;
    save.kind = OpKind::Save;
    save.inputs = {saved};
    save.omap = omap;
    ValueId none;
    if (std::string e = ir::addOp(body_, std::move(save), &config, &none); !e.empty()) return e;
    Op kernel;
    kernel.kind = OpKind::Kernel;
    kernel.inputs = args_;
    kernel.config = config;
    kernel.body = std::make_shared<Graph>(std::move(body_));
    std::vector<ValueId> results;
    if (std::string e = ir::addKernel(program_, std::move(kernel), 1, {name}, &results); !e.empty())
      return e;
    *result = results[0];
    return {};
  }

 private:
  Graph& program_;
  Graph body_;
  std::vector<ValueId> args_;
};

// imap of an operand of rank `rank` broadcast to an output of rank `outRank`:
// grid dim g splits output dim d, and the operand follows unless its extent
// there is 1 (then every block sees the whole, replicated operand).
DimMap operandMap(const std::vector<std::pair<int, int64_t>>& splits, const Shape& operand,
                  size_t outRank) {
  DimMap m = ir::kEmptyMap;
  for (size_t g = 0; g < splits.size(); ++g) {
    int d = splits[g].first - static_cast<int>(outRank - operand.size());
    if (d >= 0 && operand[static_cast<size_t>(d)] != 1) m[g] = d;
  }
  return m;
}

void setGrid(ir::KernelConfig& k, const std::vector<std::pair<int, int64_t>>& splits) {
  for (size_t g = 0; g < splits.size(); ++g) k.grid[g] = splits[g].second;
  k.gridRank = std::max<int>(1, static_cast<int>(splits.size()));
}

DimMap outputMap(const std::vector<std::pair<int, int64_t>>& splits) {
  DimMap m = ir::kEmptyMap;
  for (size_t g = 0; g < splits.size(); ++g) m[g] = splits[g].first;
  return m;
}

std::vector<int> leadingFirst(size_t rank, int skip = -1) {
  std::vector<int> order;
  for (int d = 0; d < static_cast<int>(rank); ++d)
    if (d != skip) order.push_back(d);
  return order;
}

// add/sub/.../relu and transpose: grid over the output, one pass, no loop.
std::string lowerPointwise(const Graph& src, const Op& op, const std::vector<ValueId>& map,
                           Graph& out, ValueId* result) {
  const Shape& shape = src.value(op.results[0]).shape;
  auto splits = chooseSplits(shape, leadingFirst(shape.size()), kPointwiseBlockElements);
  KernelBuilder kb(out, src.dtype);
  setGrid(kb.config, splits);
  Op body = op;
  body.inputs.clear();
  for (ValueId in : op.inputs) {
    const Op& producer = src.producer(in);
    if (producer.kind == OpKind::Const) {
      body.inputs.push_back(kb.constant(producer.scalarText));
      continue;
    }
    ValueId mapped = map[static_cast<size_t>(in)];
    const Shape& operand = out.value(mapped).shape;
    DimMap imap = operandMap(splits, operand, shape.size());
    if (op.kind == OpKind::Transpose) {
      // Output dim d is the operand's dim swap(d), whose extent is the same;
      // the broadcast rule of operandMap (which reads the operand's extent at
      // d itself) does not apply to a transpose's one operand.
      imap = ir::kEmptyMap;
      for (size_t g = 0; g < splits.size(); ++g) {
        int d = splits[g].first;
        imap[g] = d == op.dim ? op.dim1 : d == op.dim1 ? op.dim : d;
      }
    }
    ValueId t;
    if (std::string e = kb.tile(mapped, imap, -1, &t); !e.empty()) return e;
    body.inputs.push_back(t);
  }
  ValueId v, acc;
  if (std::string e = kb.add(body, &v); !e.empty()) return e;
  if (std::string e = kb.accumulate(v, ir::AccumOp::Sum, &acc); !e.empty()) return e;
  return kb.finish(acc, outputMap(splits), src.value(op.results[0]).name, result);
}

// matmul: grid over n (x), m (y) and the largest batch dim (z); the for-loop
// walks k and an accumulator sums the partial products.
std::string lowerMatmul(const Graph& src, const Op& op, const std::vector<ValueId>& map, Graph& out,
                        ValueId* result) {
  ValueId a = map[static_cast<size_t>(op.inputs[0])], b = map[static_cast<size_t>(op.inputs[1])];
  const Shape& sa = out.value(a).shape;
  const Shape& sb = out.value(b).shape;
  const Shape& so = src.value(op.results[0]).shape;
  size_t r = so.size();
  int64_t m = so[r - 2], n = so[r - 1], k = sa.back();
  std::vector<std::pair<int, int64_t>> splits;
  splits.emplace_back(static_cast<int>(r - 1), n / divisorAtMost(n, kMatmulTile, 8));
  splits.emplace_back(static_cast<int>(r - 2), m / divisorAtMost(m, kMatmulTile, 16));
  int batch = -1;
  for (int d = 0; d + 2 < static_cast<int>(r); ++d)
    if (so[static_cast<size_t>(d)] > 1 && (batch < 0 || so[static_cast<size_t>(d)] > so[static_cast<size_t>(batch)]))
      batch = d;
  if (batch >= 0) splits.emplace_back(batch, so[static_cast<size_t>(batch)]);
  KernelBuilder kb(out, src.dtype);
  setGrid(kb.config, splits);
  int64_t kTile = divisorAtMost(k, kMatmulTile, 16);
  kb.config.forloop = k / kTile;
  // Operand maps: batch dims follow broadcasting; A's last dim and B's
  // second-to-last are k, which the for-loop walks.
  DimMap ma = ir::kEmptyMap, mb = ir::kEmptyMap;
  ma[1] = static_cast<int>(sa.size() - 2);
  mb[0] = static_cast<int>(sb.size() - 1);
  auto batchDimOf = [&](const Shape& s) {
    int d = batch - static_cast<int>(r - s.size());
    return d >= 0 && s[static_cast<size_t>(d)] != 1 ? d : -1;
  };
  if (batch >= 0) {
    ma[2] = batchDimOf(sa);
    mb[2] = batchDimOf(sb);
  }
  ValueId ta, tb, prod, acc;
  int fmapA = kb.config.forloop > 1 ? static_cast<int>(sa.size() - 1) : -1;
  int fmapB = kb.config.forloop > 1 ? static_cast<int>(sb.size() - 2) : -1;
  if (std::string e = kb.tile(a, ma, fmapA, &ta); !e.empty()) return e;
  if (std::string e = kb.tile(b, mb, fmapB, &tb); !e.empty()) return e;
  Op mm;
  mm.kind = OpKind::Matmul;
  mm.inputs = {ta, tb};
  if (std::string e = kb.add(mm, &prod); !e.empty()) return e;
  if (std::string e = kb.accumulate(prod, ir::AccumOp::Sum, &acc); !e.empty()) return e;
  return kb.finish(acc, outputMap(splits), src.value(op.results[0]).name, result);
}

// reductions: grid over the kept dims; the for-loop walks the reduced dim in
// chunks, each reduced in the block and combined by an accumulator (sum or
// max); reduce_mean divides the sum by the extent after the loop.
std::string lowerReduction(const Graph& src, const Op& op, const std::vector<ValueId>& map,
                           Graph& out, ValueId* result) {
  ValueId in = map[static_cast<size_t>(op.inputs[0])];
  const Shape& si = out.value(in).shape;
  const Shape& so = src.value(op.results[0]).shape;
  int d = op.dim;
  int64_t n = si[static_cast<size_t>(d)], s = op.size;
  // Split the kept dims until one block's output is small, then choose the
  // chunk of the reduced dim so that the input tile fits the budget.
  int64_t outBudget = std::clamp<int64_t>(ir::numElements(so) / kReductionBlocks, 1, kBlockElements / 8);
  auto splits = chooseSplits(so, leadingFirst(so.size(), d), outBudget);
  int64_t perBlockOut = ir::numElements(so);
  for (auto& [dim, f] : splits) perBlockOut /= f;
  int64_t chunk = n;  // extent of the reduced dim in one iteration's tile
  for (int64_t c = s; c <= n; c += s) {
    if (n % c != 0) continue;
    if (perBlockOut / s * c <= kBlockElements) chunk = c;
  }
  if (perBlockOut / s * chunk > kBlockElements) chunk = s;
  KernelBuilder kb(out, src.dtype);
  setGrid(kb.config, splits);
  kb.config.forloop = n / chunk;
  ValueId t, red, acc;
  if (std::string e = kb.tile(in, operandMap(splits, si, so.size()), kb.config.forloop > 1 ? d : -1, &t);
      !e.empty())
    return e;
  Op reduce;
  reduce.kind = op.kind == OpKind::ReduceMean ? OpKind::ReduceSum : op.kind;
  reduce.inputs = {t};
  reduce.dim = d;
  reduce.size = s;
  if (std::string e = kb.add(reduce, &red); !e.empty()) return e;
  ir::AccumOp accumOp = op.kind == OpKind::ReduceMax ? ir::AccumOp::Max : ir::AccumOp::Sum;
  if (std::string e = kb.accumulate(red, accumOp, &acc); !e.empty()) return e;
  if (op.kind == OpKind::ReduceMean) {
    Op div;
    div.kind = OpKind::Div;
    div.inputs = {acc, kb.constant(fmt::format("{}", n))};
    if (std::string e = kb.add(div, &acc); !e.empty()) return e;
  }
  return kb.finish(acc, outputMap(splits), src.value(op.results[0]).name, result);
}

// A pre-defined operator of `src` as one kernel appended to `out`, its
// operands already mapped (`map`: src value -> out value).
std::string lowerPredefined(const Graph& src, const Op& op, const std::vector<ValueId>& map, Graph& out,
                            ValueId* result) {
  switch (op.kind) {
    case OpKind::Matmul: return lowerMatmul(src, op, map, out, result);
    case OpKind::ReduceSum:
    case OpKind::ReduceMean:
    case OpKind::ReduceMax: return lowerReduction(src, op, map, out, result);
    MIRAGE_CASES_BINARY
    MIRAGE_CASES_UNARY
    MIRAGE_CASES_LAYOUT return lowerPointwise(src, op, map, out, result);
    MIRAGE_CASES_LEAF
    MIRAGE_CASES_PROGRAM_LAYOUT
    MIRAGE_CASES_PROGRAM
    MIRAGE_CASES_BODY
    MIRAGE_CASES_SHORTHAND break;
  }
  return fmt::format("operator '{}' cannot appear at program level", ir::opName(op.kind));
}

std::string loweringError(const Op& op, const std::string& error) {
  return fmt::format("lowering '{}': {}", ir::opName(op.kind), error);
}

}  // namespace

std::string lowerToKernels(const ir::Graph& program, ir::Graph& out) {
  out = Graph{};
  out.name = program.name;
  out.dtype = program.dtype;
  std::vector<ValueId> map(program.values.size(), ir::kNoValue);
  for (const Op& op : program.ops) {
    ValueId v = ir::kNoValue;
    std::string error;
    switch (op.kind) {
      case OpKind::Input: {
        const ir::Value& value = program.value(op.results[0]);
        error = ir::addInput(out, value.name, value.shape, &v);
        break;
      }
      case OpKind::Const: v = ir::addConst(out, op.scalarText); break;
      case OpKind::Kernel: {
        Op copy = op;
        for (ValueId& in : copy.inputs) in = map[static_cast<size_t>(in)];
        std::vector<std::string> names;
        for (ValueId r : op.results) names.push_back(program.value(r).name);
        std::vector<ValueId> results;
        error = ir::addKernel(out, std::move(copy), static_cast<int>(op.results.size()), names, &results);
        for (size_t i = 0; i < results.size(); ++i) map[static_cast<size_t>(op.results[i])] = results[i];
        break;
      }
      MIRAGE_CASES_PROGRAM_LAYOUT {
        // Kept at program level: a reshape is a view of its operand's
        // buffer, slice and concat are copy kernels (cuda.cpp).
        Op copy = op;
        for (ValueId& in : copy.inputs) in = map[static_cast<size_t>(in)];
        error = ir::addOp(out, std::move(copy), nullptr, &v, program.value(op.results[0]).name);
        break;
      }
      MIRAGE_CASES_PREDEFINED
      MIRAGE_CASES_BODY
      MIRAGE_CASES_SHORTHAND error = lowerPredefined(program, op, map, out, &v); break;
    }
    if (!error.empty()) return loweringError(op, error);
    if (op.kind != OpKind::Kernel && !op.results.empty()) map[static_cast<size_t>(op.results[0])] = v;
  }
  for (ValueId o : program.outputs) out.outputs.push_back(map[static_cast<size_t>(o)]);
  return {};
}

std::string lowerOperatorLaunch(const ir::Graph& program, const ir::Op& op, OperatorLaunch& launch) {
  if (op.kind == OpKind::Input || op.kind == OpKind::Const || op.kind == OpKind::Kernel)
    return fmt::format("'{}' is not a pre-defined operator", ir::opName(op.kind));
  if (ir::isLayoutOp(op.kind))
    return fmt::format("'{}' is a view or a copy, not a kernel of the lowering", ir::opName(op.kind));
  // The operator alone: its tensor operands become inputs of a program that
  // holds nothing else, so the lowering sees the same shapes as in `program`.
  Graph out;
  out.dtype = program.dtype;
  std::vector<ValueId> map(program.values.size(), ir::kNoValue);
  for (ValueId in : op.inputs) {
    ValueId& mapped = map[static_cast<size_t>(in)];
    if (program.producer(in).kind == OpKind::Const || mapped != ir::kNoValue) continue;
    const ir::Value& value = program.value(in);
    if (std::string e = ir::addInput(out, value.name, value.shape, &mapped); !e.empty()) return loweringError(op, e);
  }
  ValueId result = ir::kNoValue;
  if (std::string e = lowerPredefined(program, op, map, out, &result); !e.empty()) return loweringError(op, e);
  const Op& kernel = out.producer(result);
  launch = OperatorLaunch{};
  launch.config = kernel.config;
  for (const Op& b : kernel.body->ops) {
    if (b.kind == OpKind::Tile) launch.operandTiles.push_back(kernel.body->value(b.results[0]).shape);
    if (b.kind == OpKind::Save) launch.outputTile = kernel.body->value(b.inputs[0]).shape;
  }
  return {};
}

}  // namespace mirage::codegen
