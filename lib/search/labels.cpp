// Index classes of a program (which tensor dims run over the same loop index,
// like the letters of an einsum) and the abstract expressions of its values.
#include <numeric>

#include "space.h"

namespace mirage::search {
namespace {

struct UnionFind {
  std::vector<int> parent;
  int make() {
    parent.push_back(static_cast<int>(parent.size()));
    return parent.back();
  }
  int find(int x) {
    while (parent[static_cast<size_t>(x)] != x) x = parent[static_cast<size_t>(x)] = parent[static_cast<size_t>(parent[static_cast<size_t>(x)])];
    return x;
  }
  void join(int a, int b) { parent[static_cast<size_t>(find(a))] = find(b); }
};

}  // namespace

Label programReducedLabel(const ir::Op& op, const ProgramLabels& labels) {
  if (op.kind == ir::OpKind::Matmul) return labels.ofValue[static_cast<size_t>(op.inputs[0])].back();
  if (ir::isReduction(op.kind)) return labels.ofValue[static_cast<size_t>(op.inputs[0])][static_cast<size_t>(op.dim)];
  return kUnit;
}

ProgramLabels analyzeLabels(const ir::Graph& g) {
  UnionFind uf;
  std::vector<std::vector<int>> node(g.values.size());
  for (size_t v = 0; v < g.values.size(); ++v)
    for (size_t d = 0; d < g.values[v].shape.size(); ++d) node[v].push_back(uf.make());
  auto joinIfEqual = [&](ir::ValueId a, size_t da, ir::ValueId b, size_t db) {
    const ir::Shape& sa = g.value(a).shape;
    const ir::Shape& sb = g.value(b).shape;
    if (sa[da] == sb[db] && sa[da] > 1) uf.join(node[static_cast<size_t>(a)][da], node[static_cast<size_t>(b)][db]);
  };
  // Aligns the trailing dims of `in` with those of `out` (broadcasting).
  auto joinAligned = [&](ir::ValueId in, ir::ValueId out, size_t skipLast = 0) {
    const ir::Shape& si = g.value(in).shape;
    const ir::Shape& so = g.value(out).shape;
    for (size_t k = skipLast; k < si.size() && k < so.size(); ++k)
      joinIfEqual(in, si.size() - 1 - k, out, so.size() - 1 - k);
  };
  for (const ir::Op& op : g.ops) {
    if (op.results.empty() || op.kind == ir::OpKind::Input || op.kind == ir::OpKind::Const ||
        op.kind == ir::OpKind::Kernel)
      continue;
    ir::ValueId r = op.results[0];
    size_t rank = g.value(r).shape.size();
    if (ir::isElementwiseUnary(op.kind) || ir::isElementwiseBinary(op.kind)) {
      for (ir::ValueId in : op.inputs)
        if (g.producer(in).kind != ir::OpKind::Const) joinAligned(in, r);
    } else if (ir::isReduction(op.kind)) {
      for (size_t d = 0; d < rank; ++d)
        if (static_cast<int>(d) != op.dim) joinIfEqual(op.inputs[0], d, r, d);
    } else if (op.kind == ir::OpKind::Transpose) {
      for (size_t d = 0; d < rank; ++d) {
        size_t src = d == static_cast<size_t>(op.dim) ? static_cast<size_t>(op.dim1)
                     : d == static_cast<size_t>(op.dim1) ? static_cast<size_t>(op.dim)
                                                         : d;
        joinIfEqual(op.inputs[0], src, r, d);
      }
    } else if (op.kind == ir::OpKind::Slice || op.kind == ir::OpKind::Concat) {
      // Every dim but the sliced / joined one runs over the same index.
      for (ir::ValueId in : op.inputs)
        for (size_t d = 0; d < rank; ++d)
          if (static_cast<int>(d) != op.dim) joinIfEqual(in, d, r, d);
    } else if (op.kind == ir::OpKind::Reshape) {
      // A dim of the result is a dim of the operand, index for index, when
      // the extents before it multiply to the same number and its extent is
      // the same (row-major: then its stride is the same too); the dims a
      // reshape splits or merges get labels of their own.
      const ir::Shape& si = g.value(op.inputs[0]).shape;
      const ir::Shape& so = g.value(r).shape;
      int64_t pi = 1;
      for (size_t i = 0; i < si.size(); ++i) {
        int64_t po = 1;
        for (size_t j = 0; j < so.size(); ++j) {
          if (po == pi && so[j] == si[i]) joinIfEqual(op.inputs[0], i, r, j);
          po *= so[j];
        }
        pi *= si[i];
      }
    } else if (op.kind == ir::OpKind::Matmul) {
      ir::ValueId a = op.inputs[0], b = op.inputs[1];
      size_t ra = g.value(a).shape.size(), rb = g.value(b).shape.size();
      joinAligned(a, r, 2);
      joinAligned(b, r, 2);
      joinIfEqual(a, ra - 2, r, rank - 2);
      joinIfEqual(b, rb - 1, r, rank - 1);
      joinIfEqual(a, ra - 1, b, rb - 2);
    }
  }
  ProgramLabels out;
  out.extent.push_back(1);
  std::vector<int> classOfRoot(uf.parent.size(), 0);
  out.ofValue.resize(g.values.size());
  for (size_t v = 0; v < g.values.size(); ++v) {
    const ir::Shape& s = g.values[v].shape;
    for (size_t d = 0; d < s.size(); ++d) {
      if (s[d] <= 1) {
        out.ofValue[v].push_back(kUnit);
        continue;
      }
      int root = uf.find(node[v][d]);
      if (classOfRoot[static_cast<size_t>(root)] == 0) {
        classOfRoot[static_cast<size_t>(root)] = ++out.numClasses;
        out.extent.push_back(s[d]);
      }
      out.ofValue[v].push_back(classOfRoot[static_cast<size_t>(root)]);
    }
  }
  out.reduced.assign(out.extent.size(), 0);
  for (const ir::Op& op : g.ops) {
    if (ir::isReduction(op.kind)) {
      const Labels& in = out.ofValue[static_cast<size_t>(op.inputs[0])];
      out.reduced[static_cast<size_t>(in[static_cast<size_t>(op.dim)])] = 1;
    } else if (op.kind == ir::OpKind::Matmul) {
      const Labels& a = out.ofValue[static_cast<size_t>(op.inputs[0])];
      out.reduced[static_cast<size_t>(a.back())] = 1;
      out.contractsUnit = out.contractsUnit || a.back() == kUnit;
    }
  }
  out.reduced[0] = 0;
  out.inOutput.assign(out.extent.size(), 0);
  for (ir::ValueId o : g.outputs)
    for (Label l : out.ofValue[static_cast<size_t>(o)]) out.inOutput[static_cast<size_t>(l)] = 1;
  out.inOutput[0] = 0;
  return out;
}

std::vector<ExprId> programExprs(ExprTable& ex, const ir::Graph& g) {
  std::vector<ExprId> e(g.values.size(), -1);
  int inputIndex = 0;
  for (const ir::Op& op : g.ops) {
    auto in = [&](size_t i) { return e[static_cast<size_t>(op.inputs[i])]; };
    auto extentOf = [&](size_t i, int dim) { return g.value(op.inputs[i]).shape[static_cast<size_t>(dim)]; };
    ExprId r = -1;
    switch (op.kind) {
      case ir::OpKind::Input: r = ex.input(inputIndex++); break;
      case ir::OpKind::Const: r = ex.constant(Rational::fromDouble(op.scalar)); break;
      case ir::OpKind::Matmul: {
        const ir::Shape& a = g.value(op.inputs[0]).shape;
        r = ex.sum(ex.mul(in(0), in(1)), a.back());
        break;
      }
      MIRAGE_CASES_BINARY r = ex.binary(op.kind, in(0), in(1)); break;
      MIRAGE_CASES_UNARY r = ex.unary(op.kind, in(0)); break;
      case ir::OpKind::ReduceSum: {
        int64_t n = extentOf(0, op.dim);
        r = ex.sum(in(0), n / op.size);
        break;
      }
      case ir::OpKind::ReduceMean: {
        int64_t n = extentOf(0, op.dim);
        r = ex.scale(ex.sum(in(0), n), Rational(1, n));
        break;
      }
      case ir::OpKind::ReduceMax: r = ex.max(in(0), extentOf(0, op.dim)); break;
      case ir::OpKind::Transpose: r = in(0); break;
      // Expressions forget indices: a reshape or a slice holds its
      // operand's expression. Programs with these are searched in segments
      // between them (segments.h), so this is only what an input that still
      // has them sees.
      case ir::OpKind::Reshape:
      case ir::OpKind::Slice: r = in(0); break;
      case ir::OpKind::Concat:  // piecewise: no single expression
      MIRAGE_CASES_PROGRAM
      MIRAGE_CASES_BODY
      MIRAGE_CASES_SHORTHAND
        // Kernels and block-level operators do not occur in input programs;
        // give them an opaque expression so that a μGraph input is still
        // handled (its target is then only itself).
        r = ex.func(ir::OpKind::Kernel, ex.constant(Rational(static_cast<int64_t>(&op - g.ops.data()))));
        break;
    }
    for (ir::ValueId res : op.results) e[static_cast<size_t>(res)] = r;
  }
  return e;
}

int64_t representativeParts(int64_t extent) {
  for (int64_t p = 2; p * p <= extent; ++p)
    if (extent % p == 0) return p;
  return extent;
}

}  // namespace mirage::search
