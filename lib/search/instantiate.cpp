// Turns a plan (kernel templates) plus concrete grid and for-loop extents into
// an ir::Graph, through the checked builders of ir/check.h: an illegal
// choice of extents comes back as the builder's message.
#include <fmt/format.h>

#include <set>

#include "mirage/ir/check.h"
#include "mirage/ir/printer.h"
#include "space.h"

namespace mirage::search {
namespace {

// The text of a number: the program's own spelling when it has one (eps),
// else the shortest decimal.
std::string numberText(const ir::Graph& program, Rational r) {
  for (const ir::Op& op : program.ops)
    if (op.kind == ir::OpKind::Const && Rational::fromDouble(op.scalar) == r) return op.scalarText;
  if (r.isInteger()) return fmt::format("{}", r.num);
  return ir::formatNumber(r.toDouble());
}

}  // namespace

ir::Shape tensorShape(const ir::Graph& program, const ProgramLabels& labels, const Plan& plan,
                      const Extents& ext, int tensor) {
  const Tensor& t = plan.tensors[static_cast<size_t>(tensor)];
  if (t.kernel < 0) return program.value(program.inputs[static_cast<size_t>(t.index)]).shape;
  ir::Shape shape;
  for (Label l : t.labels) {
    if (partialOf(l)) {
      auto [k, a] = plan.partialAxis[static_cast<size_t>(partialOf(l))];
      shape.push_back(labels.extent[static_cast<size_t>(innerOf(l))] *
                      ext.parts[static_cast<size_t>(k)][static_cast<size_t>(a)]);
    } else {
      shape.push_back(labels.extent[static_cast<size_t>(l)]);
    }
  }
  return shape;
}

std::string instantiate(const ir::Graph& program, const ProgramLabels& labels, const Plan& plan,
                        const Extents& ext, ir::Graph* out, int onlyKernel) {
  ir::Graph g;
  g.name = program.name;
  g.dtype = program.dtype;
  std::set<std::string> names;
  for (const ir::Value& v : program.values)
    if (!v.name.empty()) names.insert(v.name);
  std::vector<ir::ValueId> tensorValue(plan.tensors.size(), ir::kNoValue);
  if (onlyKernel < 0) {
    for (size_t i = 0; i < program.inputs.size(); ++i) {
      const ir::Value& in = program.value(program.inputs[i]);
      if (ir::Error e = ir::addInput(g, in.name, in.shape, &tensorValue[i]); !e.empty()) return e;
    }
  } else {
    // The kernel alone: its arguments become the graph's inputs.
    for (int t : plan.kernels[static_cast<size_t>(onlyKernel)].args) {
      std::string name = fmt::format("T{}", t);
      if (plan.tensors[static_cast<size_t>(t)].kernel < 0)
        name = program.value(program.inputs[static_cast<size_t>(plan.tensors[static_cast<size_t>(t)].index)]).name;
      if (ir::Error e = ir::addInput(g, name, tensorShape(program, labels, plan, ext, t),
                                     &tensorValue[static_cast<size_t>(t)]);
          !e.empty())
        return e;
    }
  }
  for (size_t k = 0; k < plan.kernels.size(); ++k) {
    if (onlyKernel >= 0 && static_cast<int>(k) != onlyKernel) continue;
    const KernelTemplate& kt = plan.kernels[k];
    ir::KernelConfig cfg;
    cfg.gridRank = std::max<int>(1, static_cast<int>(kt.grid.size()));
    for (size_t a = 0; a < kt.grid.size(); ++a) cfg.grid[a] = ext.parts[k][a];
    cfg.forloop = ext.forloop[k];

    auto body = std::make_shared<ir::Graph>();
    body->dtype = g.dtype;
    for (int arg : kt.args) {
      ir::ValueId pv = tensorValue[static_cast<size_t>(arg)];
      ir::Op in;
      in.kind = ir::OpKind::Input;
      int index = body->appendOp(std::move(in), {g.value(pv).shape}, {g.value(pv).name});
      body->inputs.push_back(body->ops[static_cast<size_t>(index)].results[0]);
    }
    std::vector<ir::ValueId> bv(kt.ops.size(), ir::kNoValue);
    for (size_t i = 0; i < kt.ops.size(); ++i) {
      const BodyOp& bo = kt.ops[i];
      ir::Op op;
      op.kind = bo.kind;
      if (bo.kind == ir::OpKind::Tile) {
        op.inputs = {body->inputs[static_cast<size_t>(bo.arg)]};
        op.imap = bo.imap;
        op.fmap = bo.fmap;
      } else if (bo.hasScalar && bo.scalarFirst) {
        op.inputs = {ir::addConst(*body, numberText(program, bo.scalar)), bv[static_cast<size_t>(bo.in0)]};
      } else {
        op.inputs.push_back(bv[static_cast<size_t>(bo.in0)]);
        if (bo.hasScalar) {
          Rational r = bo.scalar;
          if (bo.kind == ir::OpKind::Mul && r.num == 1 && r.den > 1) {
            op.kind = ir::OpKind::Div;
            r = Rational(r.den);
          }
          op.inputs.push_back(ir::addConst(*body, numberText(program, r)));
        } else if (bo.in1 >= 0) {
          op.inputs.push_back(bv[static_cast<size_t>(bo.in1)]);
        }
        op.dim = bo.dim;
        op.dim1 = bo.dim1;
        if (bo.kind == ir::OpKind::Accum && bo.accumMax) op.accumOp = ir::AccumOp::Max;
        if (bo.kind == ir::OpKind::Scan) op.accumOp = ir::AccumOp::Max;
        if (bo.reduceToInner >= 0) op.size = labels.extent.at(static_cast<size_t>(bo.reduceToInner));
      }
      if (ir::Error e = ir::addOp(*body, std::move(op), &cfg, &bv[i]); !e.empty()) return e;
    }
    for (size_t s = 0; s < kt.saved.size(); ++s) {
      ir::Op save;
      save.kind = ir::OpKind::Save;
      save.inputs = {bv[static_cast<size_t>(kt.saved[s])]};
      save.resultIndex = static_cast<int>(s);
      save.omap = kt.savedOmap[s];
      save.saveF32 = kt.resultF32(s);
      ir::ValueId none;
      if (ir::Error e = ir::addOp(*body, std::move(save), &cfg, &none); !e.empty()) return e;
    }
    // Result names: the program's output names, else fresh ones.
    std::vector<int> resultTensor(kt.saved.size(), -1);
    for (size_t t = 0; t < plan.tensors.size(); ++t)
      if (plan.tensors[t].kernel == static_cast<int>(k))
        resultTensor[static_cast<size_t>(plan.tensors[t].index)] = static_cast<int>(t);
    std::vector<std::string> resultNames;
    for (int t : resultTensor) {
      std::string name;
      for (size_t o = 0; o < plan.outputs.size(); ++o)
        if (plan.outputs[o] == t) name = program.value(program.outputs[o]).name;
      if (name.empty()) {
        for (int n = 0;; ++n) {
          name = fmt::format("K{}_{}{}", k + 1, resultNames.size(), n ? fmt::format("_{}", n) : "");
          if (!names.count(name)) break;
        }
      }
      names.insert(name);
      resultNames.push_back(name);
    }
    ir::Op kop;
    kop.kind = ir::OpKind::Kernel;
    for (int arg : kt.args) kop.inputs.push_back(tensorValue[static_cast<size_t>(arg)]);
    kop.config = cfg;
    kop.body = body;
    std::vector<ir::ValueId> results;
    if (ir::Error e = ir::addKernel(g, std::move(kop), static_cast<int>(kt.saved.size()), resultNames, &results);
        !e.empty())
      return e;
    for (size_t r = 0; r < results.size(); ++r)
      if (resultTensor[r] >= 0) tensorValue[static_cast<size_t>(resultTensor[r])] = results[r];
    if (onlyKernel >= 0) {
      g.outputs = results;
      *out = std::move(g);
      return {};
    }
  }
  for (size_t o = 0; o < plan.outputs.size(); ++o) {
    ir::ValueId v = tensorValue[static_cast<size_t>(plan.outputs[o])];
    if (g.value(v).shape != program.value(program.outputs[o]).shape)
      return fmt::format("output {} has shape {} instead of {}", o, ir::shapeToString(g.value(v).shape),
                         ir::shapeToString(program.value(program.outputs[o]).shape));
    g.outputs.push_back(v);
  }
  *out = std::move(g);
  return {};
}

}  // namespace mirage::search
