// The nested-exp analysis (nested_exp.h): a forward pass over the program
// and, recursively, over kernel bodies.
#include "nested_exp.h"

#include <stdexcept>

namespace mirage::verify {
namespace {

using ir::OpKind;
using ir::ValueId;

struct Flags {
  bool noResidue = false;  // the value has no exact residue mod Q
  bool uninterp = false;   // it depends on an exp of a value without residue
};

// Flags of every value of g, given those of its inputs (for a body: of the
// kernel arguments, in order); `results` receives the flags of a body's
// kernel results (by Save's resultIndex).
std::vector<Flags> analyze(const ir::Graph& g, const std::vector<Flags>& inputs, std::vector<Flags>* results) {
  std::vector<Flags> f(g.values.size());
  auto of = [&](ValueId v) -> Flags& { return f[static_cast<size_t>(v)]; };
  for (size_t k = 0; k < g.inputs.size() && k < inputs.size(); ++k) of(g.inputs[k]) = inputs[k];
  for (const ir::Op& op : g.ops) {
    Flags any;  // the union over the operands
    for (ValueId in : op.inputs) {
      any.noResidue = any.noResidue || of(in).noResidue;
      any.uninterp = any.uninterp || of(in).uninterp;
    }
    Flags out = any;
    switch (op.kind) {
      case OpKind::Input:
      case OpKind::Const: continue;  // set above (inputs) or residue-bearing leaves
      case OpKind::Exp:
        out.noResidue = true;
        out.uninterp = any.uninterp || any.noResidue;
        break;
      case OpKind::Matmul:
      case OpKind::Add:
      case OpKind::Sub:
      case OpKind::Mul:
      case OpKind::Div:
      case OpKind::Square:
      case OpKind::Neg:
      case OpKind::ReduceSum:
      case OpKind::ReduceMean:
      case OpKind::Transpose:
      MIRAGE_CASES_PROGRAM_LAYOUT  // moves (a concat lacks a residue if any operand does)
      case OpKind::Tile: break;  // exact in both fields: the union
      case OpKind::Sqrt:
      case OpKind::Rsqrt:
      case OpKind::Silu:
      case OpKind::Gelu:
      case OpKind::Relu:
      case OpKind::Abs:
      case OpKind::Tanh:
      case OpKind::Sigmoid:
      case OpKind::Log:
      case OpKind::Maximum:
      case OpKind::Minimum:
      case OpKind::ReduceMax:
      case OpKind::Scan:
        out.noResidue = false;  // random functions and maxima draw a fresh residue
        break;
      case OpKind::Accum:
        // A rescaled sum is ω^(−M)·Σ x_i·ω^(m_i): no residue; a maximum draws
        // its own; a plain sum keeps its operand's.
        if (ir::isRescaledAccum(op))
          out.noResidue = true;
        else if (op.accumOp == ir::AccumOp::Max)
          out.noResidue = false;
        break;
      case OpKind::Save:
        if (results && op.resultIndex >= 0) {
          if (results->size() <= static_cast<size_t>(op.resultIndex))
            results->resize(static_cast<size_t>(op.resultIndex) + 1);
          Flags& r = (*results)[static_cast<size_t>(op.resultIndex)];
          r.noResidue = r.noResidue || any.noResidue;
          r.uninterp = r.uninterp || any.uninterp;
        }
        continue;
      MIRAGE_CASES_SHORTHAND throw std::logic_error("nested-exp analysis: unexpanded shorthand");
      case OpKind::Kernel: {
        std::vector<Flags> args;
        for (ValueId in : op.inputs) args.push_back(of(in));
        std::vector<Flags> saved;
        analyze(*op.body, args, &saved);
        for (size_t k = 0; k < op.results.size(); ++k)
          of(op.results[k]) = k < saved.size() ? saved[k] : any;
        continue;
      }
    }
    for (ValueId r : op.results) of(r) = out;
  }
  return f;
}

}  // namespace

std::vector<char> outputsAfterUninterpretedExp(const ir::Graph& g) {
  std::vector<Flags> f = analyze(g, {}, nullptr);
  std::vector<char> out;
  for (ValueId o : g.outputs) out.push_back(f[static_cast<size_t>(o)].uninterp ? 1 : 0);
  return out;
}

}  // namespace mirage::verify
