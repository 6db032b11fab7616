// Shorthand expansion (see ir/expand.h): one entry per Shorthand row of the
// operator table, each exactly the expansion of mg-language.md.
#include "mirage/ir/expand.h"

#include <fmt/format.h>

#include <stdexcept>

#include "mirage/ir/check.h"

namespace mirage::ir {

bool isZeroLiteral(std::string_view text) {
  for (char c : text) {
    if (c == 'e' || c == 'E') break;
    if (c >= '1' && c <= '9') return false;
  }
  return true;
}

namespace {

struct Failed {
  ExpandError error;
};

// Appends ops to `dst` at one source position, throwing Failed on a
// legality error.
struct Emitter {
  Graph& dst;
  const KernelConfig* kernel;
  SourceLoc loc;

  ValueId op(OpKind kind, std::vector<ValueId> inputs, int dim = 0, const std::string& name = "") {
    Op o;
    o.kind = kind;
    o.inputs = std::move(inputs);
    o.dim = dim;
    o.loc = loc;
    ValueId v = kNoValue;
    if (Error e = addOp(dst, std::move(o), kernel, &v, name); !e.empty())
      throw Failed{{loc, fmt::format("in the expansion of a shorthand: {}", e)}};
    return v;
  }
  ValueId number(const std::string& text) { return addConst(dst, text, loc); }

  // x / sqrt(reduce_mean(square(x), dim) + eps); the add is left out when
  // eps is absent or zero.
  ValueId rmsNorm(ValueId x, int dim, const std::string& eps, const std::string& name) {
    ValueId m = op(OpKind::ReduceMean, {op(OpKind::Square, {x})}, dim);
    if (!eps.empty() && !isZeroLiteral(eps)) m = op(OpKind::Add, {m, number(eps)});
    return op(OpKind::Div, {x, op(OpKind::Sqrt, {m})}, 0, name);
  }
};

// The expansion of shorthand `op` (operand `a`, already in dst).
ValueId expandOne(Emitter& em, const Op& op, ValueId a, const std::string& name) {
  switch (op.kind) {
    case OpKind::RmsNorm: return em.rmsNorm(a, op.dim, op.scalarText, name);
    case OpKind::LayerNorm: {
      // rms_norm of C = A - reduce_mean(A, dim).
      ValueId c = em.op(OpKind::Sub, {a, em.op(OpKind::ReduceMean, {a}, op.dim)});
      return em.rmsNorm(c, op.dim, op.scalarText, name);
    }
    case OpKind::Softmax: {
      // exp(A - M) / reduce_sum(exp(A - M), dim), M = reduce_max(A, dim).
      ValueId e = em.op(OpKind::Exp, {em.op(OpKind::Sub, {a, em.op(OpKind::ReduceMax, {a}, op.dim)})});
      return em.op(OpKind::Div, {e, em.op(OpKind::ReduceSum, {e}, op.dim)}, 0, name);
    }
    case OpKind::GeluTanh: {
      // mul(mul(A, 0.5), add(1, tanh(mul(add(A, mul(mul(square(A), A), 0.044715)), 0.7978845608028654)))):
      // GPT-2's 0.5·A·(1 + tanh(√(2/π)·(A + 0.044715·A³))), exactly as mg-language.md spells it.
      ValueId cube = em.op(OpKind::Mul, {em.op(OpKind::Square, {a}), a});
      ValueId inner = em.op(OpKind::Add, {a, em.op(OpKind::Mul, {cube, em.number("0.044715")})});
      ValueId t = em.op(OpKind::Tanh, {em.op(OpKind::Mul, {inner, em.number("0.7978845608028654")})});
      ValueId half = em.op(OpKind::Mul, {a, em.number("0.5")});
      return em.op(OpKind::Mul, {half, em.op(OpKind::Add, {em.number("1"), t})}, 0, name);
    }
    MIRAGE_CASES_LEAF
    MIRAGE_CASES_PREDEFINED
    MIRAGE_CASES_PROGRAM_LAYOUT
    MIRAGE_CASES_PROGRAM
    MIRAGE_CASES_BODY break;
  }
  throw std::logic_error(fmt::format("expandOne: '{}' is not a shorthand", opName(op.kind)));
}

bool hasShorthand(const Graph& g) {
  for (const Op& op : g.ops) {
    if (isShorthand(op.kind)) return true;
    if (op.kind == OpKind::Kernel && op.body && hasShorthand(*op.body)) return true;
  }
  return false;
}

Graph rebuild(const Graph& src, const KernelConfig* kernel) {
  Graph dst;
  dst.name = src.name;
  dst.dtype = src.dtype;
  std::vector<ValueId> map(src.values.size(), kNoValue);
  auto mapped = [&](ValueId v) { return map[static_cast<size_t>(v)]; };
  for (const Op& op : src.ops) {
    std::string name = op.results.empty() ? std::string() : src.value(op.results[0]).name;
    Emitter em{dst, kernel, op.loc};
    switch (op.kind) {
      case OpKind::Input: {
        const Value& sv = src.value(op.results[0]);
        ValueId v = kNoValue;
        if (kernel) {
          Op in;
          in.kind = OpKind::Input;
          in.loc = op.loc;
          int index = dst.appendOp(std::move(in), {sv.shape}, {sv.name});
          v = dst.ops[static_cast<size_t>(index)].results[0];
          dst.inputs.push_back(v);
        } else if (Error e = addInput(dst, sv.name, sv.shape, &v, op.loc); !e.empty()) {
          throw Failed{{op.loc, e}};
        }
        map[static_cast<size_t>(op.results[0])] = v;
        break;
      }
      case OpKind::Const: map[static_cast<size_t>(op.results[0])] = addConst(dst, op.scalarText, op.loc); break;
      case OpKind::Kernel: {
        Op k = op;
        k.body = std::make_shared<Graph>(rebuild(*op.body, &op.config));
        for (ValueId& in : k.inputs) in = mapped(in);
        std::vector<std::string> names;
        for (ValueId r : op.results) names.push_back(src.value(r).name);
        std::vector<ValueId> res;
        if (Error e = addKernel(dst, std::move(k), static_cast<int>(op.results.size()), names, &res); !e.empty())
          throw Failed{{op.loc, e}};
        for (size_t i = 0; i < res.size(); ++i) map[static_cast<size_t>(op.results[i])] = res[i];
        break;
      }
      MIRAGE_CASES_SHORTHAND
        map[static_cast<size_t>(op.results[0])] = expandOne(em, op, mapped(op.inputs[0]), name);
        break;
      MIRAGE_CASES_PREDEFINED
      MIRAGE_CASES_PROGRAM_LAYOUT
      MIRAGE_CASES_BODY {
        Op copy = op;
        for (ValueId& in : copy.inputs) in = mapped(in);
        ValueId v = kNoValue;
        if (Error e = addOp(dst, std::move(copy), kernel, &v, name); !e.empty()) throw Failed{{op.loc, e}};
        if (!op.results.empty()) map[static_cast<size_t>(op.results[0])] = v;
        break;
      }
    }
  }
  for (ValueId o : src.outputs) dst.outputs.push_back(mapped(o));
  return dst;
}

}  // namespace

std::optional<ExpandError> expandShorthands(Graph& g) {
  if (!hasShorthand(g)) return std::nullopt;
  try {
    g = rebuild(g, nullptr);
  } catch (const Failed& f) {
    return f.error;
  }
  return std::nullopt;
}

}  // namespace mirage::ir
