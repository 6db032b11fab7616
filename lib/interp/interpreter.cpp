// The reference interpreter: program-level evaluation and kernel bodies run
// block by block, iteration by iteration (see interpreter.h and
// docs/interpreter.md). Written to mirror the language definition; the only
// concession to speed is that a block copies just its own tiles, never whole
// tensors.
#include "mirage/interp/interpreter.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "mirage/interp/rounding.h"
#include "ops.h"

namespace mirage::interp {
namespace {

using ir::OpKind;
using ir::Shape;

[[noreturn]] void internalError(const std::string& what) {
  throw std::logic_error("interpreter: " + what);
}

size_t at(ir::ValueId v) { return static_cast<size_t>(v); }

Tensor scalar(double v) { return Tensor(Shape{}, std::vector<float>{static_cast<float>(v)}); }

// Calls f(fullOffset, boxOffset, n) for every row (run along the last dim) of
// a box of shape `box` placed at `offset` inside a tensor of shape `full`.
template <typename F>
void forEachBoxRow(const Shape& full, const Shape& box, const std::vector<int64_t>& offset, F f) {
  size_t rank = full.size();
  if (rank == 0) {
    f(int64_t{0}, int64_t{0}, int64_t{1});
    return;
  }
  int64_t rowLen = box.back();
  int64_t rows = ir::numElements(box) / rowLen;
  std::vector<int64_t> idx(rank, 0);  // the row's index in the box (last dim 0)
  for (int64_t r = 0; r < rows; ++r) {
    int64_t fullOff = 0;
    for (size_t d = 0; d < rank; ++d) fullOff = fullOff * full[d] + offset[d] + idx[d];
    f(fullOff, r * rowLen, rowLen);
    for (size_t d = rank - 1; d-- > 0;) {
      if (++idx[d] < box[d]) break;
      idx[d] = 0;
    }
  }
}

// The tile a block sees of kernel argument `full` (see `tile` in the spec):
// each grid dim g with imap[g] = d splits dim d into grid[g] equal chunks and
// block index i along g sees chunk i; grid dims that imap leaves out
// replicate (every block sees the same data); with fmap = f the block's chunk
// of dim f is split again into `forloop` parts and iteration `iter` sees part
// `iter`.
Tensor extractTile(const Tensor& full, const ir::Op& tile, const ir::KernelConfig& cfg,
                   const std::array<int64_t, 3>& block, int64_t iter) {
  Shape chunk = full.shape;  // the block's chunk, before the for-loop split
  for (int g = 0; g < 3; ++g)
    if (tile.imap[g] >= 0) chunk[at(tile.imap[g])] /= cfg.grid[static_cast<size_t>(g)];
  std::vector<int64_t> offset(full.shape.size(), 0);
  // At most one grid dim of extent > 1 splits a given tensor dim (a legality
  // rule), and blocks along grid dims of extent 1 have index 0, so the
  // chunk's start is the sum over mapped grid dims of index * chunk extent.
  for (int g = 0; g < 3; ++g)
    if (tile.imap[g] >= 0) offset[at(tile.imap[g])] += block[static_cast<size_t>(g)] * chunk[at(tile.imap[g])];
  Shape shape = chunk;
  if (tile.fmap >= 0) {
    shape[at(tile.fmap)] /= cfg.forloop;
    offset[at(tile.fmap)] += iter * shape[at(tile.fmap)];
  }
  Tensor out(shape);
  forEachBoxRow(full.shape, shape, offset, [&](int64_t fullOff, int64_t boxOff, int64_t n) {
    std::memcpy(out.data.data() + boxOff, full.data.data() + fullOff, static_cast<size_t>(n) * sizeof(float));
  });
  return out;
}

// save(t, R, omap): block index i along grid dim g (omap[g] = d) writes its
// tile as chunk i of dim d of R; the stored values are rounded to the dtype.
void saveTile(Tensor& result, const Tensor& tile, const ir::DimMap& omap,
              const std::array<int64_t, 3>& block, ir::DType dtype) {
  std::vector<int64_t> offset(result.shape.size(), 0);
  for (int g = 0; g < 3; ++g)
    if (omap[g] >= 0) offset[at(omap[g])] += block[static_cast<size_t>(g)] * tile.shape[at(omap[g])];
  forEachBoxRow(result.shape, tile.shape, offset, [&](int64_t fullOff, int64_t boxOff, int64_t n) {
    for (int64_t i = 0; i < n; ++i) result.data[at(fullOff + i)] = roundToDType(tile.data[at(boxOff + i)], dtype);
  });
}

// accum: the first iteration's value, then sum (or max) with each later one.
void accumulate(Tensor& acc, const Tensor& x, ir::AccumOp op, int64_t iter) {
  if (iter == 0) {
    acc = x;
    return;
  }
  if (acc.shape != x.shape) internalError("accum operand changes shape between iterations");
  for (size_t i = 0; i < x.data.size(); ++i) {
    if (op == ir::AccumOp::Sum)
      acc.data[i] += x.data[i];
    else if (x.data[i] > acc.data[i] || std::isnan(x.data[i]))
      acc.data[i] = x.data[i];
  }
}

// accum(x, rescale=m) in iteration iter > 0: what the accumulator holds is
// multiplied by exp(m[iter-1] - m[iter]) before x is added, so that after the
// loop it holds sum_i x[i] * exp(m[i] - m[F-1]). All in f32, in the order the
// generated code uses: the factor, the product, then the sum.
void accumulateRescaled(Tensor& acc, const Tensor& x, const Tensor& mPrev, const Tensor& mCur, int64_t iter) {
  if (iter == 0) {
    acc = x;
    return;
  }
  Tensor factor = detail::unaryOp(OpKind::Exp, detail::binaryOp(OpKind::Sub, mPrev, mCur));
  Tensor scaled = detail::binaryOp(OpKind::Mul, acc, factor);
  if (scaled.shape != x.shape) internalError("rescaled accum changes shape between iterations");
  for (size_t i = 0; i < x.data.size(); ++i) scaled.data[i] += x.data[i];
  acc = std::move(scaled);
}

Tensor applyWithOperands(const ir::Op& op, const std::vector<Tensor>& vals) {
  // concat takes any number of operands; every other operator one or two.
  std::vector<const Tensor*> operands(std::max<size_t>(2, op.inputs.size()), nullptr);
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    operands[i] = &vals[at(op.inputs[i])];
    if (operands[i]->data.empty()) internalError("operand used before it is computed");
  }
  return detail::applyOp(op, operands.data());
}

// An operator inside a kernel body: values are f32, except that a matmul's
// two operands are rounded to the program's dtype first (tensor cores
// multiply f16 or bf16), as the language's precision rule states.
Tensor applyInBody(const ir::Op& op, const std::vector<Tensor>& vals, ir::DType dtype) {
  if (op.kind != OpKind::Matmul || dtype == ir::DType::F32) return applyWithOperands(op, vals);
  Tensor a = vals[at(op.inputs[0])], b = vals[at(op.inputs[1])];
  if (a.data.empty() || b.data.empty()) internalError("operand used before it is computed");
  roundInPlace(a.data.data(), a.size(), dtype);
  roundInPlace(b.data.data(), b.size(), dtype);
  return detail::matmul(a, b);
}

}  // namespace

std::vector<Tensor> evaluateKernel(const ir::Op& kernel, const std::vector<const Tensor*>& args,
                                   const std::vector<Shape>& resultShapes, ir::DType dtype) {
  if (kernel.kind != OpKind::Kernel || !kernel.body) internalError("not a kernel");
  const ir::Graph& body = *kernel.body;
  const ir::KernelConfig& cfg = kernel.config;
  if (args.size() != body.inputs.size()) internalError("kernel argument count");

  // Which kernel argument each body Input stands for.
  std::vector<const Tensor*> argOf(body.values.size(), nullptr);
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i]->shape != body.value(body.inputs[i]).shape) internalError("kernel argument shape");
    argOf[at(body.inputs[i])] = args[i];
  }

  // A value depends on an accum (is computed once, after the for-loop) when
  // it is an accum's result or any operand does. The accum ops themselves
  // run in the loop, folding each iteration's operand into their result.
  std::vector<char> afterLoop(body.values.size(), 0);
  std::vector<const ir::Op*> constOps, loopOps, afterOps;
  for (const ir::Op& op : body.ops) {
    bool after = op.kind == OpKind::Accum;
    for (ir::ValueId in : op.inputs) after = after || afterLoop[at(in)];
    for (ir::ValueId r : op.results) afterLoop[at(r)] = after;
    if (op.kind == OpKind::Input) continue;  // read through tile
    if (op.kind == OpKind::Const)
      constOps.push_back(&op);
    else if (op.kind == OpKind::Accum || !after)
      loopOps.push_back(&op);
    else
      afterOps.push_back(&op);
  }

  std::vector<Tensor> results;
  for (const Shape& s : resultShapes) results.emplace_back(s);
  std::vector<Tensor> vals(body.values.size());
  for (const ir::Op* op : constOps) vals[at(op->results[0])] = scalar(op->scalar);
  // Each scan's value in the previous iteration, for the accums it rescales.
  std::vector<Tensor> scanPrev(body.values.size());

  std::array<int64_t, 3> block{};
  for (block[2] = 0; block[2] < cfg.grid[2]; ++block[2])
    for (block[1] = 0; block[1] < cfg.grid[1]; ++block[1])
      for (block[0] = 0; block[0] < cfg.grid[0]; ++block[0]) {
        for (int64_t iter = 0; iter < cfg.forloop; ++iter) {
          for (const ir::Op* op : loopOps) {
            switch (op->kind) {
              case OpKind::Tile: {
                const Tensor* full = argOf[at(op->inputs[0])];
                if (!full) internalError("tile of a value that is not a kernel argument");
                vals[at(op->results[0])] = extractTile(*full, *op, cfg, block, iter);
                break;
              }
              case OpKind::Accum:
                if (ir::isRescaledAccum(*op))
                  accumulateRescaled(vals[at(op->results[0])], vals[at(op->inputs[0])],
                                     scanPrev[at(op->inputs[1])], vals[at(op->inputs[1])], iter);
                else
                  accumulate(vals[at(op->results[0])], vals[at(op->inputs[0])], op->accumOp, iter);
                break;
              case OpKind::Scan:
                if (iter > 0) scanPrev[at(op->results[0])] = vals[at(op->results[0])];
                // The running maximum folds like accum(t, op=max); it is
                // only read in the loop rather than after it.
                accumulate(vals[at(op->results[0])], vals[at(op->inputs[0])], ir::AccumOp::Max, iter);
                break;
              case OpKind::Save: internalError("save of a value computed in the for-loop");
              MIRAGE_CASES_PREDEFINED vals[at(op->results[0])] = applyInBody(*op, vals, dtype); break;
              MIRAGE_CASES_LEAF
              MIRAGE_CASES_PROGRAM_LAYOUT
              MIRAGE_CASES_PROGRAM
              MIRAGE_CASES_SHORTHAND internalError(fmt::format("'{}' in a kernel body's loop", ir::opName(op->kind)));
            }
          }
        }
        for (const ir::Op* op : afterOps) {
          if (op->kind == OpKind::Save) {
            if (op->resultIndex < 0 || static_cast<size_t>(op->resultIndex) >= results.size())
              internalError("save of an unknown kernel result");
            Tensor& result = results[static_cast<size_t>(op->resultIndex)];
            const Tensor& tile = vals[at(op->inputs[0])];
            Shape expect = tile.shape;
            for (int g = 0; g < 3; ++g)
              if (op->omap[g] >= 0) expect[at(op->omap[g])] *= cfg.grid[static_cast<size_t>(g)];
            if (expect != result.shape) internalError("saved tile does not fit the kernel result");
            saveTile(result, tile, op->omap, block, op->saveF32 ? ir::DType::F32 : dtype);
          } else if (op->kind == OpKind::Tile || op->kind == OpKind::Scan) {
            internalError(fmt::format("{} after the for-loop", ir::opName(op->kind)));
          } else {
            vals[at(op->results[0])] = applyInBody(*op, vals, dtype);
          }
        }
      }
  return results;
}

std::vector<Tensor> evaluate(const ir::Graph& g, const std::vector<Tensor>& inputs) {
  if (inputs.size() != g.inputs.size())
    throw EvalError(fmt::format("program '{}' has {} inputs, {} given", g.name, g.inputs.size(),
                                inputs.size()));
  std::vector<Tensor> vals(g.values.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ir::Value& v = g.value(g.inputs[i]);
    if (inputs[i].shape != v.shape || static_cast<int64_t>(inputs[i].data.size()) != ir::numElements(v.shape))
      throw EvalError(fmt::format("input '{}' has shape {}, expected {}", v.name,
                                  ir::shapeToString(inputs[i].shape), ir::shapeToString(v.shape)));
    Tensor t = inputs[i];
    roundInPlace(t.data.data(), t.size(), g.dtype);
    vals[at(g.inputs[i])] = std::move(t);
  }

  // Free each value after its last use, so that large programs keep only
  // the live tensors; outputs are kept.
  std::vector<int> lastUse(g.values.size(), -1);
  for (size_t i = 0; i < g.ops.size(); ++i)
    for (ir::ValueId in : g.ops[i].inputs) lastUse[at(in)] = static_cast<int>(i);
  for (ir::ValueId out : g.outputs) lastUse[at(out)] = static_cast<int>(g.ops.size());

  for (size_t i = 0; i < g.ops.size(); ++i) {
    const ir::Op& op = g.ops[i];
    switch (op.kind) {
      case OpKind::Input:
        if (vals[at(op.results[0])].data.empty()) internalError("input op not listed in the graph's inputs");
        break;
      case OpKind::Const: vals[at(op.results[0])] = scalar(op.scalar); break;
      case OpKind::Kernel: {
        std::vector<const Tensor*> args;
        for (ir::ValueId in : op.inputs) args.push_back(&vals[at(in)]);
        std::vector<Shape> shapes;
        for (ir::ValueId r : op.results) shapes.push_back(g.value(r).shape);
        std::vector<Tensor> res = evaluateKernel(op, args, shapes, g.dtype);
        for (size_t r = 0; r < res.size(); ++r) vals[at(op.results[r])] = std::move(res[r]);
        break;
      }
      case OpKind::Tile:
      case OpKind::Accum:
      case OpKind::Scan:
      case OpKind::Save: internalError("block-level operator at program level");
      MIRAGE_CASES_SHORTHAND internalError("unexpanded shorthand (ir::expandShorthands runs after parsing)");
      MIRAGE_CASES_PROGRAM_LAYOUT
      MIRAGE_CASES_PREDEFINED {
        Tensor t = applyWithOperands(op, vals);
        // A program-level operator's result is a stored tensor.
        roundInPlace(t.data.data(), t.size(), g.dtype);
        vals[at(op.results[0])] = std::move(t);
      }
    }
    for (ir::ValueId in : op.inputs)
      if (lastUse[at(in)] == static_cast<int>(i)) vals[at(in)] = Tensor();
  }

  std::vector<Tensor> outputs;
  for (ir::ValueId out : g.outputs) outputs.push_back(vals[at(out)]);
  return outputs;
}

std::vector<Tensor> evaluateByName(const ir::Graph& g, const std::map<std::string, Tensor>& inputs) {
  std::vector<Tensor> ordered;
  for (ir::ValueId in : g.inputs) {
    const std::string& name = g.value(in).name;
    auto it = inputs.find(name);
    if (it == inputs.end()) throw EvalError(fmt::format("no value given for input '{}'", name));
    ordered.push_back(it->second);
  }
  for (const auto& [name, tensor] : inputs) {
    bool known = false;
    for (ir::ValueId in : g.inputs) known = known || g.value(in).name == name;
    if (!known) throw EvalError(fmt::format("program '{}' has no input named '{}'", g.name, name));
  }
  return evaluate(g, ordered);
}

}  // namespace mirage::interp
