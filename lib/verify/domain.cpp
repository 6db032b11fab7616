// Domain conditions, the sign analysis and their check (see domain.h).
#include "domain.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <unordered_map>

namespace mirage::verify {
namespace {

using ir::OpKind;
using ir::ValueId;

// ---------------------------------------------------------------------------
// Signs: the set of signs a value can take over the reals, wherever it is
// defined (bit set of negative, zero, positive). The empty set means the
// value is defined nowhere; claims about it are then vacuous, which is sound.

using Signs = uint8_t;
constexpr Signs kNeg = 1, kZero = 2, kPos = 4, kAny = 7;

Signs addSigns(Signs a, Signs b) {
  Signs r = 0;
  for (Signs x : {kNeg, kZero, kPos})
    for (Signs y : {kNeg, kZero, kPos}) {
      if (!(a & x) || !(b & y)) continue;
      if (x == kZero) r |= y;
      else if (y == kZero || x == y) r |= x;
      else r |= kAny;  // a positive plus a negative can be anything
    }
  return r;
}

Signs mulSigns(Signs a, Signs b) {
  Signs r = 0;
  for (Signs x : {kNeg, kZero, kPos})
    for (Signs y : {kNeg, kZero, kPos}) {
      if (!(a & x) || !(b & y)) continue;
      if (x == kZero || y == kZero) r |= kZero;
      else r |= x == y ? kPos : kNeg;
    }
  return r;
}

Signs negSigns(Signs a) {
  return static_cast<Signs>((a & kZero) | ((a & kNeg) ? kPos : 0) | ((a & kPos) ? kNeg : 0));
}

// The signs of the larger (or, with `smaller`, the smaller) of two values.
Signs extremeSigns(Signs a, Signs b, bool smaller) {
  Signs r = 0;
  for (Signs x : {kNeg, kZero, kPos})
    for (Signs y : {kNeg, kZero, kPos}) {
      if (!(a & x) || !(b & y)) continue;
      r |= smaller ? std::min(x, y) : std::max(x, y);  // kNeg < kZero < kPos
    }
  return r;
}

// A sum of `terms` >= 1 values each of signs s (adding once more changes nothing).
Signs sumSigns(Signs s, double terms) { return terms <= 1 ? s : addSigns(s, s); }

// The sign of a literal from its text: exact, whatever double it rounds to.
Signs constSigns(const ir::Op& op) {
  if (op.scalarText.empty()) return op.scalar > 0 ? kPos : op.scalar < 0 ? kNeg : kZero;
  bool negative = false, nonzero = false;
  for (char c : op.scalarText) {
    if (c == 'e' || c == 'E') break;
    if (c == '-') negative = true;
    if (c >= '1' && c <= '9') nonzero = true;
  }
  return !nonzero ? kZero : negative ? kNeg : kPos;
}

bool shows(Signs s, Cond c) {
  switch (c) {
    case Cond::NonZero: return (s & kZero) == 0;
    case Cond::NonNeg: return (s & kNeg) == 0;
    case Cond::Positive: return (s & (kNeg | kZero)) == 0;
  }
  return false;
}

const char* condText(Cond c) {
  switch (c) {
    case Cond::NonZero: return "non-zero";
    case Cond::NonNeg: return "non-negative";
    case Cond::Positive: return "positive";
  }
  return "";
}

struct Analysis {
  std::unordered_map<const ir::Graph*, std::vector<Signs>> signs;
  std::unordered_map<const ir::Graph*, std::vector<char>> after;  // body values after the loop
  struct Parent {
    const ir::Graph* graph = nullptr;
    const ir::Op* kernel = nullptr;
  };
  std::unordered_map<const ir::Graph*, Parent> parent;

  Signs sign(const Site& s) const { return signs.at(s.graph)[static_cast<size_t>(s.value)]; }

  void run(const ir::Graph& g, const std::vector<Signs>& args, int64_t forloop) {
    std::vector<Signs>& sg = signs[&g];
    sg.assign(g.values.size(), kAny);
    std::vector<char>& af = after[&g];
    af.assign(g.values.size(), 0);
    auto at = [&](ValueId v) { return sg[static_cast<size_t>(v)]; };
    for (const ir::Op& op : g.ops) {
      bool isAfter = op.kind == OpKind::Accum;
      for (ValueId in : op.inputs) isAfter = isAfter || af[static_cast<size_t>(in)];
      for (ValueId r : op.results) af[static_cast<size_t>(r)] = isAfter;
      Signs s = kAny;
      switch (op.kind) {
        case OpKind::Input: {
          size_t k = 0;
          while (k < g.inputs.size() && g.inputs[k] != op.results[0]) ++k;
          s = k < args.size() ? args[k] : kAny;
          break;
        }
        case OpKind::Const: s = constSigns(op); break;
        case OpKind::Add: s = addSigns(at(op.inputs[0]), at(op.inputs[1])); break;
        case OpKind::Sub: s = addSigns(at(op.inputs[0]), negSigns(at(op.inputs[1]))); break;
        case OpKind::Mul: s = mulSigns(at(op.inputs[0]), at(op.inputs[1])); break;
        case OpKind::Div:
          // Where defined the divisor is not zero, and 1/b has b's sign.
          s = mulSigns(at(op.inputs[0]), static_cast<Signs>(at(op.inputs[1]) & ~kZero));
          break;
        case OpKind::Matmul: {
          const ir::Shape& a = g.value(op.inputs[0]).shape;
          s = sumSigns(mulSigns(at(op.inputs[0]), at(op.inputs[1])), static_cast<double>(a.back()));
          break;
        }
        case OpKind::Exp: s = kPos; break;
        case OpKind::Square: {
          Signs a = at(op.inputs[0]);
          s = static_cast<Signs>(((a & (kNeg | kPos)) ? kPos : 0) | (a & kZero));
          break;
        }
        case OpKind::Sqrt: s = static_cast<Signs>(at(op.inputs[0]) & (kZero | kPos)); break;
        case OpKind::Rsqrt: s = static_cast<Signs>(at(op.inputs[0]) & kPos); break;
        case OpKind::Relu: {
          Signs a = at(op.inputs[0]);
          s = static_cast<Signs>((a & kPos) | ((a & (kNeg | kZero)) ? kZero : 0));
          break;
        }
        // x * sigmoid(x) and x * Phi(x): the second factor is positive, so
        // the sign is the argument's; so is tanh's.
        case OpKind::Silu:
        case OpKind::Gelu:
        case OpKind::Tanh: s = at(op.inputs[0]); break;
        case OpKind::Neg: s = negSigns(at(op.inputs[0])); break;
        case OpKind::Abs: {
          Signs a = at(op.inputs[0]);
          s = static_cast<Signs>(((a & (kNeg | kPos)) ? kPos : 0) | (a & kZero));
          break;
        }
        case OpKind::Sigmoid: s = kPos; break;
        case OpKind::Log: s = kAny; break;  // log of a positive value: any sign
        case OpKind::Maximum: s = extremeSigns(at(op.inputs[0]), at(op.inputs[1]), false); break;
        case OpKind::Minimum: s = extremeSigns(at(op.inputs[0]), at(op.inputs[1]), true); break;
        case OpKind::ReduceSum: {
          const ir::Shape& a = g.value(op.inputs[0]).shape;
          s = sumSigns(at(op.inputs[0]), static_cast<double>(a[static_cast<size_t>(op.dim)] / op.size));
          break;
        }
        case OpKind::ReduceMean: {
          const ir::Shape& a = g.value(op.inputs[0]).shape;
          s = sumSigns(at(op.inputs[0]), static_cast<double>(a[static_cast<size_t>(op.dim)]));
          break;
        }
        case OpKind::ReduceMax:
        case OpKind::Scan: s = at(op.inputs[0]); break;  // the maximum is one of the values
        case OpKind::Transpose:
        case OpKind::Reshape:
        case OpKind::Slice:
        case OpKind::Tile: s = at(op.inputs[0]); break;
        case OpKind::Concat: {
          int u = 0;
          for (ValueId in : op.inputs) u |= at(in);
          s = static_cast<Signs>(u);
          break;
        }
        case OpKind::Accum:
          // A rescaled sum multiplies each term by an exp (positive).
          s = op.accumOp == ir::AccumOp::Max ? at(op.inputs[0])
                                             : sumSigns(at(op.inputs[0]), static_cast<double>(forloop));
          break;
        case OpKind::Save: continue;
        MIRAGE_CASES_SHORTHAND throw std::logic_error("domain analysis: unexpanded shorthand");
        case OpKind::Kernel: {
          std::vector<Signs> a;
          for (ValueId in : op.inputs) a.push_back(at(in));
          parent[op.body.get()] = {&g, &op};
          run(*op.body, a, op.config.forloop);
          const std::vector<Signs>& body = signs[op.body.get()];
          for (const ir::Op& b : op.body->ops)
            if (b.kind == OpKind::Save)
              sg[static_cast<size_t>(op.results[static_cast<size_t>(b.resultIndex)])] =
                  body[static_cast<size_t>(b.inputs[0])];
          continue;
        }
      }
      for (ValueId r : op.results) sg[static_cast<size_t>(r)] = s;
    }
  }
};

// Builds the plan's sites, obligation nodes and facts.
struct Builder {
  const ir::Graph& program;
  Analysis an;
  DomainPlan plan;
  std::map<std::pair<const ir::Graph*, ValueId>, int> siteIndex;
  std::map<std::tuple<const ir::Graph*, ValueId, Cond>, int> nodeIndex;
  static constexpr int kMaxDepth = 10;

  explicit Builder(const ir::Graph& g) : program(g) { an.run(g, {}, 1); }

  const ir::Op& producer(const Site& s) const { return s.graph->producer(s.value); }

  // Where the elements of a body input come from: the kernel's argument.
  // Other values are themselves.
  Site resolve(Site s) const {
    while (true) {
      const ir::Op& op = producer(s);
      if (op.kind != OpKind::Input || s.graph == &program) return s;
      const Analysis::Parent& p = an.parent.at(s.graph);
      size_t k = 0;
      while (k < s.graph->inputs.size() && s.graph->inputs[k] != s.value) ++k;
      s = {p.graph, p.kernel->inputs[k]};
    }
  }

  // The operand sites a value's elements are made of, when its value is one
  // of them unchanged (transpose, reshape, tile, a kernel result's saved
  // tile). A slice holds only some of its operand's elements and a concat
  // several operands': see decompose and fact.
  std::optional<Site> passThrough(const Site& s) const {
    const ir::Op& op = producer(s);
    switch (op.kind) {
      case OpKind::Transpose:
      case OpKind::Reshape:
      case OpKind::Tile: return resolve({s.graph, op.inputs[0]});
      case OpKind::Kernel: {
        size_t r = 0;
        while (r < op.results.size() && op.results[r] != s.value) ++r;
        for (const ir::Op& b : op.body->ops)
          if (b.kind == OpKind::Save && static_cast<size_t>(b.resultIndex) == r)
            return resolve({op.body.get(), b.inputs[0]});
        return std::nullopt;
      }
      MIRAGE_CASES_LEAF
      MIRAGE_CASES_CONTRACTION
      MIRAGE_CASES_BINARY
      MIRAGE_CASES_UNARY
      MIRAGE_CASES_REDUCTION
      case OpKind::Accum:
      case OpKind::Scan:
      case OpKind::Save:
      case OpKind::Concat:  // decompose and fact look at every operand
      case OpKind::Slice:   // only some of its operand's elements
      MIRAGE_CASES_SHORTHAND return std::nullopt;
    }
    return std::nullopt;
  }

  int site(const Site& s) {
    const ir::Op& op = producer(s);
    if (op.kind == OpKind::Const) return -1;
    auto key = std::make_pair(s.graph, s.value);
    auto it = siteIndex.find(key);
    if (it != siteIndex.end()) return it->second;
    int idx = static_cast<int>(plan.sites.size());
    siteIndex.emplace(key, idx);
    plan.sites.push_back(s);
    double n = static_cast<double>(ir::numElements(s.graph->value(s.value).shape));
    if (s.graph != &program) {
      // Every block, and every iteration for a value inside the loop.
      const ir::Graph* g = s.graph;
      bool inLoop = !an.after.at(g)[static_cast<size_t>(s.value)];
      while (g != &program) {
        const Analysis::Parent& p = an.parent.at(g);
        const ir::KernelConfig& k = p.kernel->config;
        n *= static_cast<double>(k.grid[0] * k.grid[1] * k.grid[2]);
        if (inLoop) n *= static_cast<double>(k.forloop);
        g = p.graph;
      }
    }
    plan.siteInstances.push_back(n);
    return idx;
  }

  // The ways an obligation `cond` on s decomposes into obligations on its
  // operands (all must hold), each sound over the reals given that the
  // program's other conditions hold (they are obligations too).
  std::vector<std::pair<Site, Cond>> decompose(const Site& s, Cond cond) const {
    if (auto p = passThrough(s)) return {{*p, cond}};
    const ir::Op& op = producer(s);
    auto in = [&](size_t i) { return resolve({s.graph, op.inputs[i]}); };
    // What holds for every element of the operand holds for a slice of it;
    // a concat's elements are all of its operands'.
    if (op.kind == OpKind::Slice) return {{in(0), cond}};
    if (op.kind == OpKind::Concat) {
      std::vector<std::pair<Site, Cond>> all;
      for (size_t i = 0; i < op.inputs.size(); ++i) all.push_back({in(i), cond});
      return all;
    }
    if (cond == Cond::Positive) return {{s, Cond::NonNeg}, {s, Cond::NonZero}};
    if (cond == Cond::NonZero) {
      switch (op.kind) {
        case OpKind::Mul: return {{in(0), Cond::NonZero}, {in(1), Cond::NonZero}};
        case OpKind::Div:     // the divisor is non-zero by its own condition
        case OpKind::Square:
        case OpKind::Sqrt:    // sqrt(u) != 0 iff u != 0, given u >= 0
        case OpKind::Silu:    // x * sigmoid(x) != 0 iff x != 0
        case OpKind::Gelu:
        case OpKind::Neg:
        case OpKind::Abs:
        case OpKind::Tanh: return {{in(0), Cond::NonZero}};
        case OpKind::Relu: return {{in(0), Cond::Positive}};  // relu(x) != 0 iff x > 0
        case OpKind::Accum:
          if (op.accumOp == ir::AccumOp::Sum && an.parent.at(s.graph).kernel->config.forloop == 1)
            return {{in(0), Cond::NonZero}};
          return {};
        // No decomposition known (an obligation on these must be matched
        // by a fact or the sign analysis).
        case OpKind::Input:
        case OpKind::Const:
        case OpKind::Matmul:
        case OpKind::Add:
        case OpKind::Sub:
        case OpKind::Exp:
        case OpKind::Rsqrt:
        case OpKind::Sigmoid:  // positive by sign
        case OpKind::Log:      // log(x) != 0 iff x != 1: not decomposed
        case OpKind::Maximum:
        case OpKind::Minimum:
        MIRAGE_CASES_REDUCTION
        MIRAGE_CASES_LAYOUT
        MIRAGE_CASES_PROGRAM_LAYOUT  // above: reshape passes through, slice and concat decompose
        MIRAGE_CASES_PROGRAM
        case OpKind::Tile:
        case OpKind::Scan:
        case OpKind::Save:
        MIRAGE_CASES_SHORTHAND return {};
      }
      return {};
    }
    switch (op.kind) {  // NonNeg
      case OpKind::Add:
      case OpKind::Mul:
      case OpKind::Div:
      case OpKind::Matmul:
      case OpKind::Minimum: return {{in(0), Cond::NonNeg}, {in(1), Cond::NonNeg}};
      // maximum(a, b) >= 0 when either is: a conjunction cannot say so, and
      // asking for a alone would be a needless obligation. By sign only.
      case OpKind::Maximum: return {};
      case OpKind::ReduceSum:
      case OpKind::ReduceMean:
      case OpKind::ReduceMax:
      case OpKind::Scan:
      case OpKind::Accum: return {{in(0), Cond::NonNeg}};  // a rescale multiplies by positives
      case OpKind::Input:
      case OpKind::Const:
      case OpKind::Sub:
      MIRAGE_CASES_UNARY  // non-negative results show by sign (exp, square, sqrt, abs, ...)
      MIRAGE_CASES_LAYOUT
      MIRAGE_CASES_PROGRAM_LAYOUT  // above
      MIRAGE_CASES_PROGRAM
      case OpKind::Tile:
      case OpKind::Save:
      MIRAGE_CASES_SHORTHAND return {};
    }
    return {};
  }

  int node(const Site& s, Cond cond, int depth) {
    auto key = std::make_tuple(s.graph, s.value, cond);
    auto it = nodeIndex.find(key);
    if (it != nodeIndex.end()) return it->second;
    DomainPlan::Node n;
    n.cond = cond;
    n.bySign = shows(an.sign(s), cond);
    int idx = static_cast<int>(plan.nodes.size());
    plan.nodes.push_back(n);
    nodeIndex.emplace(key, idx);
    if (n.bySign) return idx;
    // A Positive obligation is matched through its two halves.
    if (cond != Cond::Positive) plan.nodes[static_cast<size_t>(idx)].site = site(s);
    if (depth < kMaxDepth) {
      std::vector<int> children;
      for (const auto& [sub, c] : decompose(s, cond)) children.push_back(node(sub, c, depth + 1));
      plan.nodes[static_cast<size_t>(idx)].children = std::move(children);
    }
    return idx;
  }

  // What the program's own condition `cond` on s implies (facts).
  void fact(const Site& s, Cond cond, int depth) {
    if (cond == Cond::Positive) {
      fact(s, Cond::NonNeg, depth);
      fact(s, Cond::NonZero, depth);
      return;
    }
    int idx = site(s);
    if (idx < 0) return;
    for (const DomainPlan::Fact& f : plan.facts)
      if (f.site == idx && f.cond == cond) return;
    DomainPlan::Fact f{idx, cond};
    const ir::Op& prod = producer(s);
    if (prod.kind == OpKind::ReduceMean || (prod.kind == OpKind::ReduceSum && prod.size == 1)) {
      int64_t n = s.graph->value(prod.inputs[0]).shape[static_cast<size_t>(prod.dim)];
      (prod.kind == OpKind::ReduceMean ? f.meanToSum : f.sumToMean) = n;
    }
    plan.facts.push_back(f);
    if (depth >= kMaxDepth || cond != Cond::NonZero) return;
    if (auto p = passThrough(s)) return fact(*p, cond, depth + 1);
    const ir::Op& op = producer(s);
    auto in = [&](size_t i) { return resolve({s.graph, op.inputs[i]}); };
    switch (op.kind) {
      case OpKind::Mul:
        fact(in(0), Cond::NonZero, depth + 1);
        fact(in(1), Cond::NonZero, depth + 1);
        break;
      case OpKind::Div:
      case OpKind::Square:
      case OpKind::Sqrt:
      case OpKind::Silu:
      case OpKind::Gelu:
      case OpKind::Neg:
      case OpKind::Abs:
      case OpKind::Tanh: fact(in(0), Cond::NonZero, depth + 1); break;
      case OpKind::Relu: fact(in(0), Cond::Positive, depth + 1); break;
      // Every element of every operand is an element of the concat; a slice
      // says nothing about the elements it leaves out.
      case OpKind::Concat:
        for (size_t i = 0; i < op.inputs.size(); ++i) fact(in(i), Cond::NonZero, depth + 1);
        break;
      // Nothing implied about the operands (a reshape passed through above).
      case OpKind::Reshape:
      case OpKind::Slice:
      case OpKind::Input:
      case OpKind::Const:
      case OpKind::Matmul:
      case OpKind::Add:
      case OpKind::Sub:
      case OpKind::Exp:
      case OpKind::Rsqrt:
      case OpKind::Sigmoid:
      case OpKind::Log:
      case OpKind::Maximum:
      case OpKind::Minimum:
      MIRAGE_CASES_REDUCTION
      MIRAGE_CASES_LAYOUT
      MIRAGE_CASES_PROGRAM
      MIRAGE_CASES_BODY
      MIRAGE_CASES_SHORTHAND break;
    }
  }

  void conditions(const ir::Graph& g) {
    for (const ir::Op& op : g.ops) {
      if (op.kind == OpKind::Kernel) {
        conditions(*op.body);
        continue;
      }
      std::optional<DomainRule> rule = domainRule(op.kind);
      if (!rule) continue;
      Site s = resolve({&g, op.inputs[static_cast<size_t>(rule->operand)]});
      std::string what = fmt::format("`{}` at line {}, column {}{} needs its {} {}", ir::opName(op.kind),
                                     op.loc.line, op.loc.col, &g == &program ? "" : " (in a kernel body)",
                                     op.kind == OpKind::Div ? "divisor" : "argument", condText(rule->cond));
      int n = node(s, rule->cond, 0);
      plan.roots.push_back({n, std::move(what)});
      if (!plan.nodes[static_cast<size_t>(n)].bySign) plan.residualRoots.push_back(static_cast<int>(plan.roots.size()) - 1);
      fact(s, rule->cond, 0);
    }
  }
};

bool inSet(const std::vector<u64>& sorted, u64 x) { return std::binary_search(sorted.begin(), sorted.end(), x); }

}  // namespace

// From the operator table's definedness column (ir/ops.def).
std::optional<DomainRule> domainRule(ir::OpKind kind) {
  switch (ir::opInfo(kind).definedness) {
    case ir::Definedness::Always: return std::nullopt;
    case ir::Definedness::DivisorNonZero: return DomainRule{1, Cond::NonZero};
    case ir::Definedness::ArgumentNonNegative: return DomainRule{0, Cond::NonNeg};
    case ir::Definedness::ArgumentPositive: return DomainRule{0, Cond::Positive};
  }
  return std::nullopt;
}

std::vector<int> DomainPlan::obligationSites() const {
  std::vector<int> out;
  std::vector<char> seen(nodes.size(), 0);
  std::vector<int> stack;
  for (int r : residualRoots) stack.push_back(roots[static_cast<size_t>(r)].node);
  while (!stack.empty()) {
    int n = stack.back();
    stack.pop_back();
    if (seen[static_cast<size_t>(n)]) continue;
    seen[static_cast<size_t>(n)] = 1;
    const Node& nd = nodes[static_cast<size_t>(n)];
    if (nd.bySign) continue;
    if (nd.site >= 0) out.push_back(nd.site);
    for (int c : nd.children) stack.push_back(c);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<int> DomainPlan::factSites() const {
  std::vector<int> out;
  for (const Fact& f : facts) out.push_back(f.site);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

double DomainPlan::obligationInstances() const {
  double n = 0;
  for (int s : obligationSites()) n += siteInstances[static_cast<size_t>(s)];
  return n;
}

double DomainPlan::factInstances() const {
  double n = 0;
  // At most five values per instance: non-zero itself, negated and rescaled;
  // non-negative itself and rescaled.
  for (int s : factSites()) n += 5 * siteInstances[static_cast<size_t>(s)];
  return n;
}

DomainPlan domainPlan(const ir::Graph& program) {
  Builder b(program);
  b.conditions(program);
  return std::move(b.plan);
}

namespace {

// The distinct elements of `v`, in no particular order. A body value is
// recorded once per block and loop step, and blocks that share it record
// the same elements again (QKNorm+GQA's one-kernel candidate: a million
// instances of its K normalization, 8,192 distinct), so the facts are
// deduplicated by an open-addressed set before anything is derived from
// them or sorted.
std::vector<u64> distinct(const std::vector<u64>& v) {
  std::vector<u64> out;
  std::vector<u64> table(1024, 0);  // 0: empty (zero itself is tracked apart)
  bool zero = false;
  auto place = [&](u64 x) {  // true when x was not in the table yet
    const size_t mask = table.size() - 1;
    for (size_t i = (x * 0x9E3779B97F4A7C15ull) >> 20 & mask;; i = (i + 1) & mask) {
      if (table[i] == x) return false;
      if (table[i] == 0) {
        table[i] = x;
        return true;
      }
    }
  };
  for (u64 x : v) {
    if (x == 0) {
      zero = true;
      continue;
    }
    if (2 * (out.size() + 1) > table.size()) {  // keep the load at most a half
      table.assign(2 * table.size(), 0);
      for (u64 y : out) place(y);
    }
    if (place(x)) out.push_back(x);
  }
  if (zero) out.push_back(0);
  return out;
}

}  // namespace

FactSet collectFacts(const DomainPlan& plan, const std::vector<std::vector<u64>>& watched,
                     const MontField& P) {
  FactSet f;
  for (const DomainPlan::Fact& fact : plan.facts) {
    const std::vector<u64> v = distinct(watched[static_cast<size_t>(fact.site)]);
    std::vector<u64>& dst = fact.cond == Cond::NonZero ? f.nonZero : f.nonNeg;
    dst.insert(dst.end(), v.begin(), v.end());
    // u != 0 gives -u != 0: a candidate may divide by b - a where the
    // reference divides by a - b.
    if (fact.cond == Cond::NonZero)
      for (u64 x : v) dst.push_back(P.neg(x));
    // mean = sum / n: a candidate may divide by the sum where the reference
    // divides by the mean, or the other way round.
    if (fact.meanToSum > 0 || fact.sumToMean > 0) {
      u64 n = P.toMont(static_cast<u64>(fact.meanToSum > 0 ? fact.meanToSum : fact.sumToMean));
      u64 factor = fact.meanToSum > 0 ? n : P.inv(n);
      for (u64 x : v) dst.push_back(P.mul(x, factor));
    }
  }
  for (std::vector<u64>* v : {&f.nonZero, &f.nonNeg}) {
    std::sort(v->begin(), v->end());
    v->erase(std::unique(v->begin(), v->end()), v->end());
  }
  return f;
}

std::string unmetCondition(const DomainPlan& plan, const std::vector<std::vector<u64>>& watched,
                           const FactSet& facts) {
  // 0 unknown, 1 holds, 2 not shown; nodes form a DAG (children are built
  // first or are already on the path, which a memo entry of 2 cuts).
  std::vector<char> memo(plan.nodes.size(), 0);
  auto holds = [&](auto&& self, int n) -> bool {
    char& m = memo[static_cast<size_t>(n)];
    if (m) return m == 1;
    m = 2;  // a cycle cannot show anything
    const DomainPlan::Node& nd = plan.nodes[static_cast<size_t>(n)];
    bool ok = nd.bySign;
    if (!ok && nd.site >= 0) {
      const std::vector<u64>& set = nd.cond == Cond::NonZero ? facts.nonZero : facts.nonNeg;
      const std::vector<u64> fp = distinct(watched[static_cast<size_t>(nd.site)]);
      ok = !set.empty() && std::all_of(fp.begin(), fp.end(), [&](u64 x) { return inSet(set, x); });
    }
    if (!ok && !nd.children.empty()) {
      ok = true;
      for (int c : nd.children) ok = ok && self(self, c);
    }
    m = ok ? 1 : 2;
    return ok;
  };
  for (int r : plan.residualRoots) {
    const DomainPlan::Root& root = plan.roots[static_cast<size_t>(r)];
    if (!holds(holds, root.node)) return root.what;
  }
  return {};
}

}  // namespace mirage::verify
