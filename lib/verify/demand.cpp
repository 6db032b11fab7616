// Backward residue-lane demand analysis (see demand.h).
#include "demand.h"

namespace mirage::verify {

using ir::OpKind;
using ir::ValueId;

std::vector<char> residueDemand(const ir::Graph& g, const std::vector<char>& resultNeed) {
  std::vector<char> need(g.values.size(), 0);
  auto mark = [&](ValueId v) { need[static_cast<size_t>(v)] = 1; };
  for (auto it = g.ops.rbegin(); it != g.ops.rend(); ++it) {
    const ir::Op& op = *it;
    switch (op.kind) {
      case OpKind::Save:
        if (static_cast<size_t>(op.resultIndex) < resultNeed.size() &&
            resultNeed[static_cast<size_t>(op.resultIndex)])
          mark(op.inputs[0]);
        break;
      case OpKind::Exp: mark(op.inputs[0]); break;
      case OpKind::Add:
      case OpKind::Sub:
      case OpKind::Mul:
      case OpKind::Div:
      case OpKind::Matmul:
      case OpKind::ReduceSum:
      case OpKind::ReduceMean:
      case OpKind::Square:
      case OpKind::Neg:
      case OpKind::Transpose:
      case OpKind::Reshape:
      case OpKind::Concat:
      case OpKind::Slice:
      case OpKind::Tile:
        if (need[static_cast<size_t>(op.results[0])])
          for (ValueId in : op.inputs) mark(in);
        break;
      case OpKind::Accum:
        // A rescaled sum reads its scan's residue (exp(m_i - M)) and has
        // none itself.
        if (ir::isRescaledAccum(op))
          mark(op.inputs[1]);
        else if (op.accumOp == ir::AccumOp::Sum && need[static_cast<size_t>(op.results[0])])
          mark(op.inputs[0]);
        break;
      case OpKind::Scan: break;  // a maximum draws its own residue
      case OpKind::Kernel: {
        std::vector<char> results;
        for (ValueId r : op.results) results.push_back(need[static_cast<size_t>(r)]);
        std::vector<char> body = residueDemand(*op.body, results);
        for (size_t k = 0; k < op.inputs.size(); ++k)
          if (body[static_cast<size_t>(op.body->inputs[k])]) mark(op.inputs[k]);
        break;
      }
      // Random functions and maxima draw their own residues; leaves have
      // no operands; shorthands never reach the verifier.
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
      MIRAGE_CASES_LEAF
      MIRAGE_CASES_SHORTHAND break;
    }
  }
  return need;
}

}  // namespace mirage::verify
