// Shape inference and legality rules (../shared/spec/mg-language.md).
#include "mirage/ir/check.h"

#include "mirage/ir/layout.h"

#include <fmt/format.h>

#include <algorithm>

namespace mirage::ir {
namespace {

constexpr const char* kGridDimNames[3] = {"x", "y", "z"};

Error checkLimits(const Shape& s) {
  if (static_cast<int>(s.size()) > kMaxRank)
    return fmt::format("result of rank {} exceeds the maximum rank {}", s.size(), kMaxRank);
  int64_t n = 1;
  for (int64_t e : s) {
    if (e <= 0 || e > kMaxExtent) return fmt::format("extent {} out of range", e);
    if (n > kMaxElements / e)
      return fmt::format("tensor {} holds more than 2^40 elements", shapeToString(s));
    n *= e;
  }
  return {};
}

Error normalizeInPlace(int& dim, int rank, const char* what) {
  int d = normalizeDim(dim, rank);
  if (d < 0) return fmt::format("{} {} is out of range for a tensor of rank {}", what, dim, rank);
  dim = d;
  return {};
}

Error inferMatmul(const Shape& a, const Shape& b, Shape& out) {
  if (a.size() < 2 || b.size() < 2)
    return fmt::format("matmul needs operands of rank >= 2, got {} and {}", shapeToString(a),
                       shapeToString(b));
  int64_t k1 = a[a.size() - 1], k2 = b[b.size() - 2];
  if (k1 != k2)
    return fmt::format("matmul inner dims disagree: {} and {} ({} vs {})", shapeToString(a),
                       shapeToString(b), k1, k2);
  Shape la(a.begin(), a.end() - 2), lb(b.begin(), b.end() - 2), lead;
  Error e = broadcastShapes(la, lb, lead);
  if (!e.empty())
    return fmt::format("matmul batch dims of {} and {} do not broadcast", shapeToString(a),
                       shapeToString(b));
  out = lead;
  out.push_back(a[a.size() - 2]);
  out.push_back(b[b.size() - 1]);
  return {};
}

}  // namespace

int normalizeDim(int dim, int rank) {
  if (dim < -rank || dim >= rank) return -1;
  return dim < 0 ? dim + rank : dim;
}

Error broadcastShapes(const Shape& a, const Shape& b, Shape& out) {
  size_t n = std::max(a.size(), b.size());
  out.assign(n, 1);
  for (size_t i = 0; i < n; ++i) {
    int64_t ea = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t eb = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (ea != eb && ea != 1 && eb != 1)
      return fmt::format("shapes {} and {} do not broadcast", shapeToString(a), shapeToString(b));
    out[i] = std::max(ea, eb);
  }
  return {};
}

bool isAfterLoop(const Graph& body, ValueId v) {
  // Values are appended in topological order, so one forward pass suffices;
  // bodies are small, so recomputing per query is fine.
  std::vector<char> after(body.values.size(), 0);
  for (const Op& op : body.ops) {
    bool a = op.kind == OpKind::Accum;
    for (ValueId in : op.inputs) a = a || after[static_cast<size_t>(in)];
    for (ValueId r : op.results) after[static_cast<size_t>(r)] = a;
  }
  return after.at(static_cast<size_t>(v));
}

Shape tileShape(const Shape& full, const DimMap& imap, int fmap, const KernelConfig& k) {
  Shape s = full;
  for (int g = 0; g < 3; ++g)
    if (imap[g] >= 0) s[static_cast<size_t>(imap[g])] /= k.grid[static_cast<size_t>(g)];
  if (fmap >= 0) s[static_cast<size_t>(fmap)] /= k.forloop;
  return s;
}

Error addInput(Graph& g, const std::string& name, const Shape& shape, ValueId* result,
               SourceLoc loc) {
  if (shape.empty() || static_cast<int>(shape.size()) > kMaxRank)
    return fmt::format("an input has rank 1 to {}, got rank {}", kMaxRank, shape.size());
  for (int64_t e : shape)
    if (e <= 0 || e > kMaxExtent)
      return fmt::format("extent {} is not a positive integer below 2^31", e);
  if (Error e = checkLimits(shape); !e.empty()) return e;
  Op op;
  op.kind = OpKind::Input;
  op.loc = loc;
  int index = g.appendOp(std::move(op), {shape}, {name});
  g.inputs.push_back(g.ops[static_cast<size_t>(index)].results[0]);
  *result = g.inputs.back();
  return {};
}

ValueId addConst(Graph& g, const std::string& text, SourceLoc loc) {
  Op op;
  op.kind = OpKind::Const;
  op.loc = loc;
  op.scalarText = text;
  op.scalar = std::strtod(text.c_str(), nullptr);
  int index = g.appendOp(std::move(op), {Shape{}});
  return g.ops[static_cast<size_t>(index)].results[0];
}

Error addOp(Graph& g, Op op, const KernelConfig* kernel, ValueId* result, const std::string& name) {
  *result = kNoValue;
  if (op.kind == OpKind::Input || op.kind == OpKind::Const || op.kind == OpKind::Kernel)
    return fmt::format("internal: addOp cannot add a {}", opName(op.kind));
  if (isBodyOnly(op.kind) && !kernel)
    return fmt::format("'{}' is only allowed inside a kernel body", opName(op.kind));
  if (isLayoutOp(op.kind) && kernel)
    return fmt::format("'{}' is a program-level operator and is not allowed inside a kernel body",
                       opName(op.kind));
  for (ValueId in : op.inputs)
    if (in < 0 || static_cast<size_t>(in) >= g.values.size())
      return "internal: operand is not a value of this graph";

  auto shapeOf = [&](size_t i) -> const Shape& { return g.value(op.inputs[i]).shape; };
  auto isConst = [&](size_t i) { return g.producer(op.inputs[i]).kind == OpKind::Const; };
  auto isArgument = [&](size_t i) { return g.producer(op.inputs[i]).kind == OpKind::Input; };
  // Arity from the operator table; accum takes 1 or 2 (accum(x, rescale=m)).
  const OpInfo& info = opInfo(op.kind);
  size_t arity = op.inputs.size();
  if (static_cast<int>(arity) < info.minArity || (info.maxArity >= 0 && static_cast<int>(arity) > info.maxArity)) {
    int want = static_cast<int>(arity) < info.minArity ? info.minArity : info.maxArity;
    return fmt::format("'{}' takes {} operand{}, got {}", opName(op.kind), want, want == 1 ? "" : "s",
                       op.inputs.size());
  }
  for (size_t i = 0; i < arity; ++i) {
    if (isConst(i) && !hasProp(op.kind, kScalarOperand))
      return fmt::format("'{}' takes a tensor, not a number, as operand {}", opName(op.kind), i + 1);
    if (kernel && isArgument(i) && op.kind != OpKind::Tile)
      return fmt::format("kernel argument '{}' can only be used through tile()",
                         g.value(op.inputs[i]).name);
  }
  if (hasProp(op.kind, kScalarOperand) && arity == 2 && isConst(0) && isConst(1))
    return fmt::format("'{}' needs at least one tensor operand", opName(op.kind));

  // Block-level phase rule: an operator's inputs all run in the loop, or all
  // after it; accum takes a loop value; save takes an after-loop value.
  if (kernel && op.kind != OpKind::Tile) {
    int phase = -1;  // -1 unknown (constants only), 0 loop, 1 after loop
    for (size_t i = 0; i < arity; ++i) {
      if (isConst(i)) continue;
      int p = isAfterLoop(g, op.inputs[i]) ? 1 : 0;
      if (phase >= 0 && p != phase)
        return fmt::format("'{}' mixes a value computed in the for-loop with one computed after it "
                           "(after an accum)",
                           opName(op.kind));
      phase = p;
    }
    if ((op.kind == OpKind::Accum || op.kind == OpKind::Scan) && phase == 1)
      return fmt::format("{} takes a value computed in the for-loop, not one that already depends on an accum",
                         opName(op.kind));
    if (op.kind == OpKind::Save && phase != 1)
      return "save takes a value that depends on an accum";
  }

  Shape out;
  switch (op.kind) {
    case OpKind::Matmul:
      if (Error e = inferMatmul(shapeOf(0), shapeOf(1), out); !e.empty()) return e;
      break;
    MIRAGE_CASES_BINARY
      if (Error e = broadcastShapes(shapeOf(0), shapeOf(1), out); !e.empty())
        return fmt::format("'{}' operands: {}", opName(op.kind), e);
      break;
    case OpKind::ReduceSum:
    case OpKind::ReduceMean:
    case OpKind::ReduceMax: {
      out = shapeOf(0);
      int rank = static_cast<int>(out.size());
      if (Error e = normalizeInPlace(op.dim, rank, "dim"); !e.empty()) return e;
      int64_t n = out[static_cast<size_t>(op.dim)];
      if (op.size != 1 && op.kind != OpKind::ReduceSum)
        return fmt::format("'{}' takes no size argument", opName(op.kind));
      if (op.size <= 0 || n % op.size != 0)
        return fmt::format("size {} does not divide extent {} of dim {}", op.size, n, op.dim);
      out[static_cast<size_t>(op.dim)] = op.size;
      break;
    }
    case OpKind::Transpose: {
      out = shapeOf(0);
      int rank = static_cast<int>(out.size());
      if (Error e = normalizeInPlace(op.dim, rank, "dim0"); !e.empty()) return e;
      if (Error e = normalizeInPlace(op.dim1, rank, "dim1"); !e.empty()) return e;
      std::swap(out[static_cast<size_t>(op.dim)], out[static_cast<size_t>(op.dim1)]);
      break;
    }
    case OpKind::Reshape:
    case OpKind::Concat:
    case OpKind::Slice: {
      std::vector<Shape> ins;
      for (size_t i = 0; i < op.inputs.size(); ++i) ins.push_back(shapeOf(i));
      if (Error e = inferLayoutShape(op, ins, out); !e.empty()) return e;
      break;
    }
    case OpKind::Tile: {
      if (!isArgument(0))
        return "tile takes a kernel argument (a tensor of the enclosing graph)";
      const Shape& full = shapeOf(0);
      int rank = static_cast<int>(full.size());
      for (int gd = 0; gd < 3; ++gd) {
        if (op.imap[gd] == -1) continue;
        if (op.imap[gd] < -rank || op.imap[gd] >= rank)
          return fmt::format("imap maps grid dim {} to dim {}, out of range for '{}' of rank {}",
                             kGridDimNames[gd], op.imap[gd], g.value(op.inputs[0]).name, rank);
        op.imap[gd] = normalizeDim(op.imap[gd], rank);
      }
      if (op.fmap != -1) {
        if (Error e = normalizeInPlace(op.fmap, rank, "fmap"); !e.empty()) return e;
      }
      Shape split = full;
      for (int gd = 0; gd < 3; ++gd) {
        int d = op.imap[gd];
        if (d < 0) continue;
        int64_t parts = kernel->grid[static_cast<size_t>(gd)];
        for (int other = 0; other < gd; ++other)
          if (op.imap[other] == d && parts > 1 && kernel->grid[static_cast<size_t>(other)] > 1)
            return fmt::format("grid dims {} and {} both split dim {} of '{}'",
                               kGridDimNames[other], kGridDimNames[gd], d,
                               g.value(op.inputs[0]).name);
        if (split[static_cast<size_t>(d)] % parts != 0)
          return fmt::format("grid dim {} ({} blocks) does not divide dim {} of '{}' (extent {})",
                             kGridDimNames[gd], parts, d, g.value(op.inputs[0]).name,
                             split[static_cast<size_t>(d)]);
        split[static_cast<size_t>(d)] /= parts;
      }
      if (op.fmap >= 0 && split[static_cast<size_t>(op.fmap)] % kernel->forloop != 0)
        return fmt::format("forloop {} does not divide dim {} of the tile of '{}' (extent {})",
                           kernel->forloop, op.fmap, g.value(op.inputs[0]).name,
                           split[static_cast<size_t>(op.fmap)]);
      out = tileShape(full, op.imap, op.fmap, *kernel);
      break;
    }
    case OpKind::Accum:
      out = shapeOf(0);
      if (isRescaledAccum(op)) {
        if (g.producer(op.inputs[1]).kind != OpKind::Scan)
          return "accum's rescale takes a scan(..., op=max) of the same body";
        if (op.accumOp != AccumOp::Sum)
          return "rescale applies to sums only (accum(x, op=max, rescale=m) is not allowed)";
        Shape joined;
        if (!broadcastShapes(shapeOf(1), out, joined).empty() || joined != out)
          return fmt::format("accum's rescale {} does not broadcast to the accumulated shape {}",
                             shapeToString(shapeOf(1)), shapeToString(out));
      }
      break;
    case OpKind::Scan:
      if (op.accumOp != AccumOp::Max) return "scan takes op=max (the only kind of scan)";
      out = shapeOf(0);
      break;
    case OpKind::Save: {
      const Shape& t = shapeOf(0);
      int rank = static_cast<int>(t.size());
      for (int gd = 0; gd < 3; ++gd) {
        if (op.omap[gd] == -1) continue;
        if (op.omap[gd] < -rank || op.omap[gd] >= rank)
          return fmt::format("omap maps grid dim {} to dim {}, out of range for a tile of rank {}",
                             kGridDimNames[gd], op.omap[gd], rank);
        op.omap[gd] = normalizeDim(op.omap[gd], rank);
      }
      for (int gd = 0; gd < 3; ++gd) {
        if (kernel->grid[static_cast<size_t>(gd)] <= 1) continue;
        if (op.omap[gd] < 0)
          return fmt::format("grid dim {} has {} blocks but omap does not map it, so blocks "
                             "would write the same elements",
                             kGridDimNames[gd], kernel->grid[static_cast<size_t>(gd)]);
        for (int other = 0; other < gd; ++other)
          if (kernel->grid[static_cast<size_t>(other)] > 1 && op.omap[other] == op.omap[gd])
            return fmt::format("omap maps grid dims {} and {} to the same dim {}",
                               kGridDimNames[other], kGridDimNames[gd], op.omap[gd]);
      }
      break;
    }
    MIRAGE_CASES_UNARY out = shapeOf(0); break;
    MIRAGE_CASES_SHORTHAND {
      // Shape-preserving; dim is the one its reductions use (ir/expand.h).
      out = shapeOf(0);
      if (Error e = normalizeInPlace(op.dim, static_cast<int>(out.size()), "dim"); !e.empty()) return e;
      break;
    }
    MIRAGE_CASES_LEAF
    MIRAGE_CASES_PROGRAM return fmt::format("internal: addOp cannot add a {}", opName(op.kind));
  }
  if (op.kind == OpKind::Save) {
    g.appendOp(std::move(op), {});
    return {};
  }
  if (Error e = checkLimits(out); !e.empty()) return e;
  int index = g.appendOp(std::move(op), {out}, {name});
  *result = g.ops[static_cast<size_t>(index)].results[0];
  return {};
}

Error addKernel(Graph& g, Op op, int numResults, const std::vector<std::string>& resultNames,
                std::vector<ValueId>* results) {
  results->clear();
  if (!op.body) return "internal: kernel without a body";
  const Graph& body = *op.body;
  const KernelConfig& k = op.config;
  if (k.forloop < 1) return fmt::format("forloop must be a positive integer, got {}", k.forloop);
  for (int64_t e : k.grid)
    if (e < 1 || e > kMaxExtent) return fmt::format("grid extents must be positive, got {}", e);
  if (k.block < 0) return fmt::format("block must be a positive integer, got {}", k.block);
  if (body.inputs.size() != op.inputs.size())
    return "internal: kernel body arguments do not match the kernel's arguments";
  for (size_t i = 0; i < op.inputs.size(); ++i)
    if (body.value(body.inputs[i]).shape != g.value(op.inputs[i]).shape)
      return "internal: kernel body argument shape differs from the argument";
  if (numResults < 1) return "a kernel has at least one result";

  std::vector<Shape> shapes(static_cast<size_t>(numResults));
  std::vector<int> saves(static_cast<size_t>(numResults), 0);
  std::vector<char> keepF32(static_cast<size_t>(numResults), 0);
  for (const Op& s : body.ops) {
    if (s.kind != OpKind::Save) continue;
    if (s.resultIndex < 0 || s.resultIndex >= numResults) return "internal: save of an unknown result";
    const std::string& rname = static_cast<size_t>(s.resultIndex) < resultNames.size()
                                   ? resultNames[static_cast<size_t>(s.resultIndex)]
                                   : std::string("?");
    if (saves[static_cast<size_t>(s.resultIndex)]++ > 0)
      return fmt::format("result '{}' is written by more than one save", rname);
    Shape shape = body.value(s.inputs[0]).shape;
    for (int gd = 0; gd < 3; ++gd)
      if (s.omap[gd] >= 0) shape[static_cast<size_t>(s.omap[gd])] *= k.grid[static_cast<size_t>(gd)];
    if (Error e = checkLimits(shape); !e.empty()) return fmt::format("result '{}': {}", rname, e);
    shapes[static_cast<size_t>(s.resultIndex)] = shape;
    keepF32[static_cast<size_t>(s.resultIndex)] = s.saveF32;
  }
  for (int r = 0; r < numResults; ++r)
    if (saves[static_cast<size_t>(r)] == 0)
      return fmt::format("result '{}' is not written by any save",
                         static_cast<size_t>(r) < resultNames.size() ? resultNames[static_cast<size_t>(r)]
                                                                     : std::string("?"));
  op.results.clear();
  int index = g.appendOp(std::move(op), shapes, resultNames);
  *results = g.ops[static_cast<size_t>(index)].results;
  for (size_t r = 0; r < results->size(); ++r) g.values[static_cast<size_t>((*results)[r])].keepF32 = keepF32[r];
  return {};
}

Error checkOutput(const Graph& g, ValueId v) {
  if (g.value(v).keepF32)
    return fmt::format("'{}' is saved with dtype=f32, which is allowed only for a kernel result that is "
                       "not an output of the program",
                       g.value(v).name);
  return {};
}

namespace {

// Re-adds every op of `src` into a fresh graph through the checked builders,
// which is exactly the legality check.
Error recheck(const Graph& src, const KernelConfig* kernel, Graph& dst) {
  dst.name = src.name;
  dst.dtype = src.dtype;
  std::vector<ValueId> map(src.values.size(), kNoValue);
  for (const Op& op : src.ops) {
    switch (op.kind) {
      case OpKind::Input: {
        ValueId v;
        const Value& sv = src.value(op.results[0]);
        if (kernel) {
          Op in;
          in.kind = OpKind::Input;
          int index = dst.appendOp(std::move(in), {sv.shape}, {sv.name});
          v = dst.ops[static_cast<size_t>(index)].results[0];
          dst.inputs.push_back(v);
        } else if (Error e = addInput(dst, sv.name, sv.shape, &v); !e.empty()) {
          return e;
        }
        map[static_cast<size_t>(op.results[0])] = v;
        break;
      }
      case OpKind::Const:
        map[static_cast<size_t>(op.results[0])] = addConst(dst, op.scalarText);
        break;
      case OpKind::Kernel: {
        if (kernel) return "a kernel cannot contain another kernel";
        Graph body;
        if (Error e = recheck(*op.body, &op.config, body); !e.empty()) return e;
        Op k = op;
        k.body = std::make_shared<Graph>(std::move(body));
        for (ValueId& in : k.inputs) in = map[static_cast<size_t>(in)];
        std::vector<std::string> names;
        for (ValueId r : op.results) names.push_back(src.value(r).name);
        std::vector<ValueId> res;
        if (Error e = addKernel(dst, std::move(k), static_cast<int>(op.results.size()), names, &res);
            !e.empty())
          return e;
        for (size_t i = 0; i < res.size(); ++i) {
          if (dst.value(res[i]).shape != src.value(op.results[i]).shape)
            return "kernel result shape disagrees with its saves";
          map[static_cast<size_t>(op.results[i])] = res[i];
        }
        break;
      }
      MIRAGE_CASES_PREDEFINED
      MIRAGE_CASES_PROGRAM_LAYOUT
      MIRAGE_CASES_BODY
      MIRAGE_CASES_SHORTHAND {
        Op copy = op;
        for (ValueId& in : copy.inputs) in = map[static_cast<size_t>(in)];
        ValueId v;
        std::string name = op.results.empty() ? std::string() : src.value(op.results[0]).name;
        if (Error e = addOp(dst, std::move(copy), kernel, &v, name); !e.empty()) return e;
        if (!op.results.empty()) {
          if (dst.value(v).shape != src.value(op.results[0]).shape)
            return fmt::format("'{}' has a recorded shape that disagrees with its operands",
                               opName(op.kind));
          map[static_cast<size_t>(op.results[0])] = v;
        }
      }
    }
  }
  return {};
}

}  // namespace

Error checkProgram(const Graph& g) {
  if (g.outputs.empty()) return "a program has at least one output";
  Graph scratch;
  if (Error e = recheck(g, nullptr, scratch); !e.empty()) return e;
  for (ValueId out : g.outputs)
    if (Error e = checkOutput(g, out); !e.empty()) return e;
  return {};
}

}  // namespace mirage::ir
